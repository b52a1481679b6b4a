"""The forward pass: every state of the programme, layer by layer, and the best layout among them.

A pass runs the 65 sub-steps (``moves.py``) from the empty layout, keeping each layer's states in the
``Store``; duplicate states are merged (the better value, its parent and option; the union of the bits).
``lo``/``hi`` bound how many of each numbered type are used (table and staged pieces are forced, rack pieces
optional), so the finished layouts lie in the last layer, ``layer[65]:layer[66]``, and parent pointers
rebuild any of them.

Every state carries the best objective value of a path to it (for the best play) and the union of the piece
types some path used beyond its lower bound: any path into a state combines with any path out of it, so
that union, taken over the accepting states, is exactly the set of types one more copy of which fits in
some legal play. One pass therefore answers a whole mask (``masks.py``).

What keeps a pass small (none of it changes an answer):

* A state another covers is dropped (``_prune``): the same runs and groups with fewer jokers placed and a
  reach as large, or runs of one colour that cover these one to one, or (an opening) the same state with
  its threshold reached; and a value as good (best play) or bits a superset (mask).
* At most ``Pass.joker_cap`` jokers stand in for pieces; the others are spares, counted by the reach.
* A state whose value, plus every piece still to come at its weight, plus ``Pass.joker_bonus`` stays below
  ``Pass.floor`` (a value some legal play is known to reach) is not kept: it is on no best path and ties
  with no kept one, so the best play found is the same as without the bound.
* Types in ``Pass.known`` (already known to fit) are left out of the bits, so a mask's pass compares states
  only on what is still unknown and drops many more.
* A sub-step that can change no state is skipped: ``skipped[step]`` is set and its layer is the one before.

An opening (``Problem.valued``, T4/K3): every joker stands in for a piece (none is a spare, so no room is
counted) and counts the number it stands for, and a run may begin with jokers anywhere. Without a
threshold the jokers' numbers add to the objective; with one, the state carries the value laid (capped at
the threshold), which a finished layout must reach, and a state that cannot reach it with every piece still
to come and every joker at 13 is not kept. Jokers fixed to a number (K5) may continue a run or join a group
at their number, or head a run that has no numbered piece yet (the joker-only runs of ``keys.py``); they are
never spares, so with any fixed joker the groups take their jokers in a joker step of their own.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from rummienv.rummikub.solver import keys
from rummienv.rummikub.solver.keys import DOMINATED_BY
from rummienv.rummikub.solver.moves import (
    MOVES_CAP,
    OPTION_PIECES,
    Pass,
    accepts,
    colour_order,
    colour_shift,
    colour_step_idle,
    contexts,
    joker_step_idle,
    moves_of,
    step_constants,
)
from rummienv.rummikub.solver.store import (
    DEAD,
    SUBSTEPS,
    TABLE_BITS_MAX,
    claim,
    filter_slot,
    fresh_stamp,
    lookup,
    rehash,
    size_bits_for,
)

# What one compiled function hands another, constants and a loop variable's first value alike, is a numpy
# scalar (``ZERO``, ``LEGAL_BUDGET``): numba compiles a callee afresh for each literal Python constant it
# is given, and those copies of the searches and the pass made the first compile take five minutes instead
# of one, for no speed (tests/test_kernel_specializations.py counts the compiles).
ZERO, ONE = np.int64(0), np.int64(1)
NO, YES = np.bool_(False), np.bool_(True)
NO_FLOOR = -(np.int64(1) << 60)
NOTHING_KNOWN = np.uint64(0)

# The pass's loops (``_expand``, ``_prune``, ``forward``'s own) take the store's arrays out of the tuple once,
# before they start, and hand their helpers arrays, never the ``Store`` or a ``HashTable``: numba copies the
# arguments of a helper it inlines, and a copy of a tuple of arrays takes and drops a reference on each of
# its arrays, atomically, at every call. Handed the store once a successor and once a covering state looked
# for, the helpers made the pass eight times slower.


@njit(cache=True, inline="always")
def _layer_lacks(states, begin, end, fields):
    """No state of the layer has anything in ``fields``: a sub-step that needs them changes nothing."""
    for i in range(begin, end):
        if states[i] & fields:
            return False
    return True


@njit(cache=True, inline="always")
def _idle(ctx, step, states, begin, end):
    """Sub-step ``step`` changes no state of the layer: a colour step with no piece of its type and no open
    run of its colour, or a joker step with nothing to place and no group piece or joker-only run."""
    if step % 5 < 4:
        return colour_step_idle(ctx, step) and _layer_lacks(states, begin, end,
                                                            np.int64(15) << colour_shift(ctx, step))
    return joker_step_idle(ctx, step) and _layer_lacks(states, begin, end, keys.GROUPS_AND_JOKER_RUNS)


@njit(cache=True)
def forward(problem, spec, store):
    """Run the programme over ``problem`` as ``spec`` asks; returns the store top (the states kept), or -1
    when the store overflowed. ``store.layer[k]`` gets where the states after sub-step k begin."""
    states, layer, skipped = store.key, store.layer, store.skipped
    stamp = fresh_stamp(store.table, store.stamp)
    states[0] = 0
    store.value[0] = 0
    store.bits[0] = 0
    store.parent[0] = -1
    store.option[0] = 0
    top = ONE
    layer[0] = 0
    begin, end = ZERO, ONE
    ctx = contexts(problem, spec, colour_order(problem.lo, problem.hi))
    moves = np.empty((MOVES_CAP, 4), dtype=np.int64)
    for step in range(SUBSTEPS):
        if _idle(ctx, step, states, begin, end):
            skipped[step + 1] = 1
            layer[step + 1] = begin
            continue
        skipped[step + 1] = 0
        size_bits = size_bits_for(end - begin)
        top, size_bits, stamp = _expand(step_constants(ctx, step), step, store, begin, end, size_bits, stamp + 1,
                                        moves)
        if top < 0:
            return -1
        top = _prune(store, end, top, size_bits, stamp, problem.jokers_hi, problem.threshold, spec.by_bits)
        layer[step + 1] = end
        begin, end = end, top
    layer[SUBSTEPS + 1] = top
    store.stamp[0] = stamp
    return top


@njit(cache=True)
def _expand(c, step, store, begin, end, size_bits, stamp, moves):
    """The successors of the layer ``begin:end`` at sub-step ``step`` (constants ``c``), merged into a new
    layer from ``end``: a new key becomes a state, a known one gains its bits and, if better, its value and
    path. The table (``size_bits``, ``stamp``) grows as the layer does. Returns (top, size_bits, stamp); top -1
    when the store or the table is full."""
    states, values, bits, parents, options, slots = (store.key, store.value, store.bits, store.parent,
                                                      store.option, store.table)
    top = end
    for i in range(begin, end):
        for j in range(moves_of(c, step, states[i], values[i], bits[i], moves)):
            key, value, used = moves[j, 0], moves[j, 1], np.uint64(moves[j, 2])
            slot = claim(key, slots, size_bits, stamp, top)
            if slot == top:
                states[top] = key
                values[top] = value
                bits[top] = used
                parents[top] = i
                options[top] = moves[j, 3]
                top += 1
                if top >= states.shape[0] - 1:
                    return -1, size_bits, stamp
                if 2 * (top - end) > (np.int64(1) << size_bits):
                    if size_bits >= TABLE_BITS_MAX:
                        return -1, size_bits, stamp
                    size_bits, stamp = size_bits + 1, stamp + 1
                    rehash(states, slots, size_bits, stamp, end, top)
            else:
                bits[slot] |= used
                if value > values[slot]:
                    values[slot] = value
                    parents[slot] = i
                    options[slot] = moves[j, 3]
    return top, size_bits, stamp


@njit(cache=True, inline="always")
def _key_filter(states, begin, end):
    """A bit filter of the layer's keys, small enough for the nearest cache: most covering states looked for
    do not exist, and the filter says so without a probe of the hash table. (bits, size in bits)"""
    size_bits = 12
    while (np.int64(1) << size_bits) < 8 * (end - begin) and size_bits < 24:
        size_bits += 1
    bits = np.zeros(np.int64(1) << (size_bits - 6), dtype=np.uint64)
    for i in range(begin, end):
        f = filter_slot(states[i], size_bits)
        bits[f >> 6] |= np.uint64(1) << np.uint64(f & 63)
    return bits, size_bits


# the most keys ``_covering_keys`` writes: the threshold reached, fewer jokers (at most 8 x 8), and the run
# pairs of four colours
COVERING_CAP = 1 + 64 + 4 * DOMINATED_BY.shape[1]


@njit(cache=True, inline="always")
def _covering_keys(key, jokers_hi, threshold, out):
    """The states that would cover state ``key``, in the order ``_prune`` tries them, into ``out``; returns how
    many: (an opening) the same state with its threshold reached; the same but for fewer jokers placed (or as
    many) and a reach as large (or larger); and the same but for open runs of one colour that cover these one
    to one (``DOMINATED_BY``)."""
    count = 0
    if keys.value_laid(key) < threshold:
        out[count] = keys.without_value(key) | keys.value(threshold)
        count += 1
    placed, reach = keys.jokers_placed(key), keys.reach(key)
    rest = keys.without_jokers(key)
    for fewer in range(placed + 1):
        for more in range(max(reach, fewer), jokers_hi + 1):
            if fewer != placed or more != reach:
                out[count] = rest | keys.jokers(fewer, more)
                count += 1
    for c in range(4):
        pair = keys.colour_runs(key, 4 * c)
        for k in range(DOMINATED_BY.shape[1]):
            if DOMINATED_BY[pair, k] < 0:
                break
            out[count] = keys.with_colour_runs(key, 4 * c, DOMINATED_BY[pair, k])
            count += 1
    return count


@njit(cache=True)
def _prune(store, begin, end, size_bits, stamp, jokers_hi, threshold, by_bits):
    """Drop the states of the layer ``begin:end`` (its table: ``size_bits``, ``stamp``) that another covers
    (``_covering_keys``) with a value as good (best play) or the bits a superset (mask); returns the new end."""
    states, values, bits, parents, options, slots = (store.key, store.value, store.bits, store.parent,
                                                      store.option, store.table)
    filter_bits, filter_size = _key_filter(states, begin, end)
    others = np.empty(COVERING_CAP, dtype=np.int64)
    everywhere = np.int64(1) << size_bits
    for i in range(begin, end):
        for o in range(_covering_keys(states[i], jokers_hi, threshold, others)):
            f = filter_slot(others[o], filter_size)
            if not (filter_bits[f >> 6] >> np.uint64(f & 63)) & np.uint64(1):
                continue
            j = lookup(others[o], slots, size_bits, stamp, everywhere)
            if j >= 0 and ((bits[i] & ~bits[j]) == 0 if by_bits else values[j] >= values[i]):
                options[i] |= DEAD
                break
    out = begin
    for i in range(begin, end):
        if options[i] & DEAD:
            continue
        if out != i:
            states[out] = states[i]
            values[out] = values[i]
            bits[out] = bits[i]
            parents[out] = parents[i]
            options[out] = options[i]
        out += 1
    return out


@njit(cache=True)
def summarise(store, jokers_lo, joker_weight, threshold):
    """Best finished layout (objective with its jokers), used-type bits, whether a joker more fits."""
    best = -1
    best_value = np.int64(-(1 << 60))
    bits = np.uint64(0)
    joker_more = False
    for i in range(store.layer[SUBSTEPS], store.layer[SUBSTEPS + 1]):
        key = store.key[i]
        if not accepts(key, jokers_lo, threshold):
            continue
        bits |= store.bits[i]
        if keys.reach(key) > jokers_lo:
            joker_more = True
        value = store.value[i] + joker_weight * _jokers_counted(key, jokers_lo, joker_weight)
        if value > best_value:
            best_value = value
            best = i
    return best, bits, joker_more


@njit(cache=True, inline="always")
def _jokers_counted(key, jokers_lo, joker_weight):
    """The jokers a finished layout puts down as the objective wants them: all that fit (a joker is worth
    something, ``joker_weight >= 0``), or only those that must go down."""
    return keys.reach(key) if joker_weight >= 0 else max(keys.jokers_placed(key), jokers_lo)


@njit(cache=True)
def path(store, index):
    """The options of the path into ``index`` (0 for skipped sub-steps), first first, in ``store.path``;
    returns ``SUBSTEPS`` when the path is whole, -1 otherwise."""
    i = index
    k = SUBSTEPS
    while k > 0:
        if store.skipped[k]:
            store.path[k - 1] = 0
        else:
            if i <= 0:
                return -1
            store.path[k - 1] = store.option[i] & ~DEAD
            i = store.parent[i]
        k -= 1
    return SUBSTEPS if i == 0 else -1


@njit(cache=True, inline="always")
def witness_row(options, order, key, row):
    """The pieces of the layout whose path has ``options`` and whose last state is ``key``: the count of each
    numbered type (table and staged ones included), its jokers placed and its reach (a *witness row*)."""
    step = 0
    for n in range(13):
        for kc in range(4):
            row[order[n, kc] * 13 + n] = (options[step] >> OPTION_PIECES) & 7
            step += 1
        step += 1
    row[52] = keys.jokers_placed(key)
    row[53] = keys.reach(key)


@njit(cache=True)
def one_pass(problem, spec, joker_weight, store):
    """One forward pass for the best play: (store index of the best layout or -1, its value), or (-2, 0)."""
    top = forward(problem, spec, store)
    if top < 0:
        return -2, np.int64(0)
    best, _, _ = summarise(store, problem.jokers_lo, joker_weight, problem.threshold)
    if best < 0:
        return -1, NO_FLOOR
    return best, store.value[best] + joker_weight * _jokers_counted(store.key[best], problem.jokers_lo,
                                                                    joker_weight)


@njit(cache=True)
def best_layout(problem, weight, joker_weight, store):
    """The best layout of a position; returns its store index (-1: none, -2: the store overflowed).

    The exact pass is costly when jokers may stand in for pieces, so two cheap passes come first. With
    no joker standing in, the search is small and its best play is a floor. Most often every piece can
    go down, and a pass that asks for exactly that (the floor at the bound, every piece) is small too.
    Only when both fall short does the exact pass run, with the better floor found.
    """
    jokers_hi = problem.jokers_hi
    bonus = joker_weight * (jokers_hi if joker_weight >= 0 else problem.jokers_lo)
    ceiling = bonus
    for t in range(52):
        ceiling += weight[t] * problem.hi[t]
    best, floor = one_pass(problem, Pass(weight, bonus, ZERO, NO_FLOOR, NOTHING_KNOWN, NO), joker_weight, store)
    if jokers_hi == 0 or best == -2 or (best >= 0 and floor >= ceiling):
        return best
    best, value = one_pass(problem, Pass(weight, bonus, jokers_hi, ceiling, NOTHING_KNOWN, NO), joker_weight,
                           store)
    if best == -2 or (best >= 0 and value >= ceiling):
        return best
    return one_pass(problem, Pass(weight, bonus, jokers_hi, max(floor, value), NOTHING_KNOWN, NO), joker_weight,
                    store)[0]


@njit(cache=True)
def used_pieces(index, problem, joker_weight, store, used):
    """The pieces of each type (jokers last) in the layout at ``index``, into ``used``; its options in
    ``store.path``. Returns False when the path is not whole. Spare jokers count as the objective wants them:
    all that fit (``joker_weight >= 0``), or only those that must go down."""
    if path(store, index) != SUBSTEPS:
        return False
    row = np.empty(54, dtype=np.int64)
    witness_row(store.path, colour_order(problem.lo, problem.hi), store.key[index], row)
    used[:52] = row[:52]
    used[52] = row[53] if joker_weight >= 0 else max(row[52], problem.jokers_lo)
    return True

