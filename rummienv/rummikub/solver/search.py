"""The depth-first search: one legal layout, found along one path of the programme's moves.

Most questions a turn asks are answered yes, and a yes needs one layout, not every state: ``exists`` walks
the programme's moves (``moves.py``) depth first, closest to finishing first (``_promise``), and stops at
the first complete layout, which it hands back as a witness row. States that led nowhere are kept in a
cache (``DeadStates``) so that a no visits most states once, and a budget of states bounds the worst case;
a search that runs out answers UNKNOWN and the caller falls back to the forward passes.

The sets read the same from 13 down as from 1 up, but a search's cost can differ tenfold between the two
directions, so a layout search walks them in turn, each walk four times as long as the last
(``_layout_exists``). An opening's search first asks for any layout, without the value that multiplies the
states, and raises the layout it finds to the threshold with sets of the rest (``search``).

Within a turn the searches of every mask share one table of dead states (``Store.memo``): a state that led
nowhere still leads nowhere with more pieces staged, so the table lives as long as the turn
(``turn_memory.py``). Its keys are tagged with the walk's direction and, for states only the search's own
extra piece may have killed, that piece.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from rummienv.rummikub.solver import keys
from rummienv.rummikub.solver.forward import NO, NO_FLOOR, NOTHING_KNOWN, ZERO, witness_row
from rummienv.rummikub.solver.moves import (
    MOVES_CAP,
    Pass,
    Problem,
    accepts,
    colour_order,
    contexts,
    moves_of,
    passes_unchanged,
    step_constants,
)
from rummienv.rummikub.solver.store import PROBES, SUBSTEPS, HashTable, fresh_stamp, lookup, remember, size_bits_for
from rummienv.rummikub.solver.witnesses import NO_EXTRA, raise_value

FOUND, NOT_FOUND, UNKNOWN = 1, 0, -1
# States the searches of one mask may expand in all before the passes answer the rest, and those of one play's
# legality: on random play, the mean and p99 mask fell with the budget up to 10,000, not beyond; since the
# searches take turns in both directions, 30,000 cut the slowest masks' cost by a third (the mean unchanged).
MASK_BUDGET = np.int64(30000)
LEGAL_BUDGET = np.int64(10000)
FIRST_WALK = 1000  # states of a layout search's first walk in either direction (_layout_exists)

# The dead states are tagged with their depth (bits 48-54), the walk's space (bits 55-56: from 1 up, from 13
# down, from 1 up with an opening's value) and, for those a search's own extra piece may have killed, its
# type plus one (bits 57-62).
_F_DEPTH, _F_SPACE, _F_SEARCH = 48, 55, 57
UP, DOWN, VALUED_UP = 0, 1, 2


class DeadStates(NamedTuple):
    """The dead-state cache of one walk, but for its slots (``HashTable.slots``, handed to the walk apart, as
    ``store.lookup`` says why): the table's size and stamp, the tags of the states every search of the table
    shares and of those this search's extra piece may have killed, and the sub-step of that piece (from there
    on the shared tag applies)."""

    size_bits: np.int64
    stamp: np.int64
    shared: np.int64
    own: np.int64
    extra_step: np.int64


@njit(cache=True)
def _step_of(order, t):
    """The sub-step at which ``order`` takes numbered type ``t``."""
    n = t % 13
    for kc in range(4):
        if order[n, kc] == t // 13:
            return 5 * n + kc
    return -1


@njit(cache=True, inline="always")
def dead_states(table, space, orders, extra):
    """The dead-state cache of one walk among searches that share ``table``.

    The searches of a turn ask for a layout of the pieces staged (never fewer as the turn goes on) and one
    piece more, of type ``extra`` (52: a joker; ``NO_EXTRA``: no other search shares the table). A state that
    led nowhere after its walk had passed the extra piece's sub-step leads nowhere in any of them, as each
    asks at least as much from there on; one before it, only in the searches for the same extra piece."""
    shared = np.int64(space) << _F_SPACE
    if extra < 0:
        step = NO_EXTRA  # no sub-step: every dead state is its own search's
    elif extra == 52:
        step = SUBSTEPS
    elif space == DOWN:
        step = _step_of(orders[DOWN], (extra // 13) * 13 + 12 - extra % 13)
    else:
        step = _step_of(orders[UP], extra)
    return DeadStates(table.size_bits, table.stamp, shared, shared | (np.int64(extra + 1) << _F_SEARCH), step)


@njit(cache=True, inline="always")
def _promise(key):
    """How far a state is from finishing: its short runs and group pieces still to complete, and its jokers
    placed. The walk tries the closest states first."""
    return (keys.group_size(key) + keys.jokers_placed(key) + keys.joker_runs_one(key) + keys.joker_runs_two(key)
            + keys.short_runs(key))


@njit(cache=True, inline="always")
def _by_promise(moves, count):
    """Sort the first ``count`` moves by ``_promise``, the closest first (stable: the moves' own order breaks
    ties). The value column, unused by the search, holds the promise."""
    for i in range(count):
        moves[i, 1] = _promise(moves[i, 0])
    for i in range(1, count):
        j = i
        while j > 0 and moves[j - 1, 1] > moves[j, 1]:
            for f in range(4):
                tmp = moves[j - 1, f]
                moves[j - 1, f] = moves[j, f]
                moves[j, f] = tmp
            j -= 1


@njit(cache=True, inline="always")
def _expand(ctx, depth, key, stack):
    """Write the moves of ``key`` at sub-step ``depth`` onto the stack's level ``depth``, the most promising
    first; returns how many."""
    if depth > 0 and passes_unchanged(ctx, depth, key):
        stack[depth, 0, 0] = key
        stack[depth, 0, 3] = 0
        return 1
    count = moves_of(step_constants(ctx, depth), depth, key, 0, np.uint64(0), stack[depth])
    _by_promise(stack[depth], count)
    return count


@njit(cache=True, inline="always")
def _known_dead(key, depth, slots, dead):
    """The most value laid with which the state ``key`` after sub-step ``depth`` led nowhere, or -1."""
    here = keys.without_value(key | ((depth + 1) << _F_DEPTH))
    known = lookup(here | dead.shared, slots, dead.size_bits, dead.stamp, PROBES)
    if dead.extra_step > depth:
        known = max(known, lookup(here | dead.own, slots, dead.size_bits, dead.stamp, PROBES))
    return known


@njit(cache=True, inline="always")
def _mark_dead(key, depth, slots, dead):
    tagged = key | ((depth + 1) << _F_DEPTH)
    tag = dead.shared if dead.extra_step <= depth else dead.own
    remember(keys.without_value(tagged) | tag, keys.value_laid(tagged), slots, dead.size_bits, dead.stamp)


@njit(cache=True)
def exists(problem, budget, order, slots, dead, store, found):
    """Whether some legal layout of ``problem`` exists: FOUND (its witness row in ``found``), NOT_FOUND, or
    UNKNOWN after ``budget`` states; and the states it expanded. The walk takes the colours in ``order``,
    keeps its moves in ``store.key`` and its path in ``store.path``, and its dead states in ``slots`` as
    ``dead`` says."""
    path = store.path
    ctx = contexts(problem, Pass(np.zeros(52, dtype=np.int64), ZERO, problem.jokers_hi, NO_FLOOR, NOTHING_KNOWN,
                                 NO), order)
    count = np.empty(SUBSTEPS, dtype=np.int64)
    pos = np.zeros(SUBSTEPS, dtype=np.int64)
    stack = store.key[:SUBSTEPS * MOVES_CAP * 4].reshape((SUBSTEPS, MOVES_CAP, 4))  # the moves of each level
    count[0] = _expand(ctx, 0, 0, stack)
    nodes = 1
    depth = 0
    while True:
        if pos[depth] == count[depth]:  # every move of the state chosen one level up led nowhere
            depth -= 1
            if depth < 0:
                return NOT_FOUND, nodes
            _mark_dead(stack[depth, pos[depth] - 1, 0], depth, slots, dead)
            continue
        key = stack[depth, pos[depth], 0]
        path[depth] = stack[depth, pos[depth], 3]
        pos[depth] += 1
        if depth == SUBSTEPS - 1:
            if accepts(key, problem.jokers_lo, problem.threshold):
                witness_row(path, order, key, found)
                return FOUND, nodes
            continue
        if _known_dead(key, depth, slots, dead) >= keys.value_laid(key):
            continue  # it, or the same state with as much value laid, led nowhere
        if nodes >= budget:
            return UNKNOWN, nodes
        nodes += 1
        count[depth + 1] = _expand(ctx, depth + 1, key, stack)
        pos[depth + 1] = 0
        depth += 1


@njit(cache=True, inline="always")
def _mirror(counts, out):
    """``counts`` of the 52 numbered types with every number n read as 14 - n."""
    for c in range(4):
        for n in range(13):
            out[c * 13 + 12 - n] = counts[c * 13 + n]


@njit(cache=True)
def orders_of(lo, hi):
    """The colour orders of the walks from 1 up and from 13 down (``colour_order`` of the mirrored counts)."""
    lo_mirrored, hi_mirrored = np.empty(52, dtype=np.int64), np.empty(52, dtype=np.int64)
    _mirror(lo, lo_mirrored)
    _mirror(hi, hi_mirrored)
    orders = np.empty((2, 13, 4), dtype=np.int64)
    orders[UP] = colour_order(lo, hi)
    orders[DOWN] = colour_order(lo_mirrored, hi_mirrored)
    return orders


@njit(cache=True, inline="always")
def _mirrored(problem):
    """Any layout of ``problem`` (no opening's value) read from 13 down."""
    lo, hi, fixed = np.empty(52, dtype=np.int64), np.empty(52, dtype=np.int64), np.empty_like(problem.fixed)
    _mirror(problem.lo, lo)
    _mirror(problem.hi, hi)
    fixed[0] = problem.fixed[0]
    for n in range(1, 14):
        fixed[n] = problem.fixed[14 - n]
    return Problem(lo, hi, problem.jokers_lo, problem.jokers_hi, fixed, NO, ZERO)


@njit(cache=True)
def _layout_exists(problem, budget, orders, table, extra, store, found):
    """``exists`` for any layout (no opening's value), walking the numbers from 13 down and from 1 up in
    turn, each walk given four times the states of the last before the other starts again.

    The sets read the same either way along the numbers, so the answers agree, but a walk's cost does not:
    on logged random play one direction often needed a tenth of the other's states, and neither was the
    cheaper one throughout (from the top in most card-edition positions, whose jokers keep their numbers,
    from the bottom in more of the tile game's). Taking turns bounds a question's cost by a few times the
    cheaper walk's; from the top first, as it was the cheaper on the whole. A walk starting again keeps the
    dead states of its direction's walks before.
    """
    down_problem = _mirrored(problem)
    up_problem = Problem(problem.lo, problem.hi, problem.jokers_lo, problem.jokers_hi, problem.fixed, NO, ZERO)
    down = dead_states(table, DOWN, orders, extra)
    up = dead_states(table, UP, orders, extra)
    spent = 0
    turn = FIRST_WALK
    while spent < budget:
        answer, used = exists(down_problem, min(turn, budget - spent), orders[DOWN], table.slots, down, store,
                              found)
        spent += used
        if answer == FOUND:
            _mirror(found[:52].copy(), found)
        if answer != UNKNOWN or spent >= budget:
            return answer, spent
        answer, used = exists(up_problem, min(turn, budget - spent), orders[UP], table.slots, up, store, found)
        spent += used
        if answer != UNKNOWN:
            return answer, spent
        turn *= 4
    return UNKNOWN, spent


@njit(cache=True)
def search(problem, budget, orders, table, extra, store, found):
    """``exists``, asked first without an opening's value: the value multiplies the states, and a layout of
    the pieces asked for is mostly worth the threshold once sets of the rest are added (``raise_value``),
    while with no layout at all there is no opening either. The walks keep their dead states in ``table``
    (``dead_states``), tagged with the ``extra`` piece asked for."""
    if problem.valued and problem.threshold <= 0:
        return exists(problem, budget, orders[UP], table.slots, dead_states(table, VALUED_UP, orders, extra), store,
                      found)
    answer, spent = _layout_exists(problem, budget, orders, table, extra, store, found)
    if not problem.valued or answer != FOUND or raise_value(found, problem.hi, problem.jokers_lo,
                                                            problem.threshold):
        return answer, spent
    more, spent_more = exists(problem, budget - spent, orders[UP], table.slots,
                              dead_states(table, VALUED_UP, orders, extra), store, found)
    return more, spent + spent_more


@njit(cache=True)
def lone_search(problem, budget, store):
    """``search`` of a question no other search shares, with a table of its own (``store.table``)."""
    table = HashTable(store.table, size_bits_for(budget), fresh_stamp(store.table, store.stamp))
    return search(problem, budget, orders_of(problem.lo, problem.hi), table, NO_EXTRA, store,
                  np.empty(54, dtype=np.int64))


@njit(cache=True)
def play_path(problem, store):
    """The choices (in ``store.path``) of a layout of exactly ``problem.lo`` and ``problem.jokers_lo`` found
    by the search, and the key of its last state holding its jokers placed and reach; (UNKNOWN, 0) when the
    budget runs out, (NOT_FOUND, 0) when there is none. The layout a commit lays down, for a play known
    legal: the search finds one at once where the best play's passes build every layer."""
    found = np.empty(54, dtype=np.int64)
    orders = orders_of(problem.lo, problem.lo)
    table = HashTable(store.table, size_bits_for(LEGAL_BUDGET), fresh_stamp(store.table, store.stamp))
    answer, _ = exists(problem, LEGAL_BUDGET, orders[UP], table.slots, dead_states(table, UP, orders, NO_EXTRA),
                       store, found)
    if answer != FOUND:
        return answer, np.int64(0)
    return answer, keys.jokers(found[52], found[53])
