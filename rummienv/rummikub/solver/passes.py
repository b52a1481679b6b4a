"""The forward pass: the dynamic programme run over every state, layer by layer.

``forward`` builds every layer of the programme, each a sub-step's successors of the last, merging
equal states and dropping those another covers (``_prune``); ``best_layout`` and ``one_pass`` ask it for a
best play, the masks (``masks``) for the piece types some layout uses.

A pass's question (``programme.Question``): ``lo``/``hi`` bound how many of each numbered type are used (table
and staged pieces are forced, rack pieces optional), ``jlo``/``jhi`` the jokers. ``layer_start[k]`` gets the
store offset of the states after sub-step k (65 sub-steps, five per number), so the finished layouts lie in
``layer_start[65]:layer_start[66]``. A sub-step that can change no state (no piece of its type, no open run
of its colour; no group piece, joker-only run or fixed joker) is skipped: ``skipped[step]`` is set and its
layer is the previous one.

Colour step option: cont (2) | y jokers continuing (2) | new-run row of NEW_RUNS (4) | g (2) | x (3), and for
the last colour, which also places the jokers of the groups (the joker step is then skipped), those (3).
Joker step option: jokers in groups (3) | new joker-only runs (3).

At most ``jcap`` jokers stand in for pieces (the others are spares). A state whose value, plus every piece
still to come at its weight, plus ``joker_bonus`` stays below ``floor`` (a value some legal play is known to
reach) can lead to no better play and is not stored. Such a state is on no best path, and ties go by keys, not
by the order states are stored in (``_earlier``), so the layout found is the same with any floor up to the best
value. Piece types in ``known`` (already known to
fit) are left out of the used-type bits, so that the mask pass compares states only on what is still unknown
and drops many more.

``valued`` (openings, T4/K3): every joker stands in for a piece (none is a spare, so no room is counted) and
counts the number it stands for, and a run may begin with jokers anywhere. Without a ``threshold`` the jokers'
numbers add to the objective (the value laid, with ``weight`` the pieces' numbers); with one, the state
carries the value laid (``V``, capped at the threshold), which a finished layout must reach, and a state that
cannot reach it with every piece still to come and every joker at 13 is not stored.

``fixed[n]`` jokers must stand at number n (K5). Such a joker may continue a run or join a group at n, or head
a run that has no numbered piece yet: those joker-only runs are carried as ``P1``/``P2`` (one joker, two or
more), take a joker at every number until a colour step gives them their first piece (colour step option bits
16-17 and 18-19: how many of each), and count their room below when they start. They are never spares, so
with any fixed joker the groups take their jokers in a step of their own.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .programme import (
    _C_FIXED_N,
    _C_FREE_HEADS,
    _C_HI,
    _C_SHIFT,
    DOMINATED_BY,
    MOVES_CAP,
    Question,
    _accepts,
    _contexts,
    _moves,
    _step_constants,
    colour_order,
)
from .store import (
    _DEAD,
    _F_GS,
    _F_J,
    _F_P1,
    _F_P2,
    _F_R,
    _F_V,
    HASH_BITS_MAX,
    NO,
    NO_FLOOR,
    ONE,
    SUBSTEPS,
    YES,
    ZERO,
    _fresh_stamp,
    _fslot,
    _get,
    _hash_bits_for,
    _rehash,
    _slot,
    joker_room,
    jokers_placed,
    run_pair,
    value_laid,
)
from .witnesses import _witness_row


@njit(cache=True, inline="always")
def _field_zero(s_key, begin, end, shift):
    """No state of the layer has anything in the 4-bit field at ``shift``: the sub-step changes nothing."""
    for i in range(begin, end):
        if (s_key[i] >> shift) & 15:
            return False
    return True


@njit(cache=True, inline="always")
def _idle_layer(ctx, step, s_key, begin, end):
    """Sub-step ``step`` changes no state of the layer ``begin:end``: a colour step with no piece of its type
    and no open run of its colour, or a joker step with no group piece, joker-only run or fixed joker."""
    if step % 5 < 4:
        return ctx[step, _C_HI] == 0 and _field_zero(s_key, begin, end, ctx[step, _C_SHIFT])
    return (ctx[step, _C_FIXED_N] == 0 and not ctx[step, _C_FREE_HEADS] and _field_zero(s_key, begin, end, _F_GS)
            and _field_zero(s_key, begin, end, _F_P1) and _field_zero(s_key, begin, end, _F_P2))


@njit(cache=True)
def _key_filter(s_key, begin, end):
    """A bit filter of the layer's keys, small enough for the nearest cache, and its size in bits: most
    covering states ``_prune`` looks for do not exist, and the filter says so without a probe of the table."""
    filter_bits = 12
    while (np.int64(1) << filter_bits) < 8 * (end - begin) and filter_bits < 24:
        filter_bits += 1
    layer_filter = np.zeros(np.int64(1) << (filter_bits - 6), dtype=np.uint64)
    for i in range(begin, end):
        f = _fslot(s_key[i], filter_bits)
        layer_filter[f >> 6] |= np.uint64(1) << np.uint64(f & 63)
    return layer_filter, filter_bits


@njit(cache=True, inline="always")
def _stored(key, layer_filter, filter_bits, hash_table, hash_bits, stamp):
    """The store slot of ``key`` if the layer holds it, else -1; the filter answers most misses."""
    f = _fslot(key, filter_bits)
    if not (layer_filter[f >> 6] >> np.uint64(f & 63)) & np.uint64(1):
        return -1
    return _get(key, hash_table, hash_bits, stamp, np.int64(1) << hash_bits)


@njit(cache=True, inline="always")
def _as_good(by_bits, bits, other_bits, value, other_value):
    """A state of ``other_bits`` and ``other_value`` is as good as one of ``bits`` and ``value``: it used every
    type the other did (mask), or reaches as much (best play)."""
    return (bits & ~other_bits) == 0 if by_bits else other_value >= value


@njit(cache=True)
def _prune(begin, end, jhi, threshold, by_bits, hash_bits, stamp, store):
    """Drop the states of layer ``begin:end`` that another covers; returns the new end.

    Covering: the same open runs and group pieces, no more jokers placed and an R as large; or open runs of
    one colour that cover these one to one (``DOMINATED_BY``) with J and R equal; or (an opening) the same
    state with its threshold reached; and a value as good (best play) or the used-type bits a superset
    (mask, ``by_bits``). The layer's states are in the hash table under ``stamp`` (``hash_bits`` bits).
    """
    # the store's arrays, read once here: numba counts a reference, atomically, each time one is read from the
    # store or handed to a function, and a pass prunes every layer
    hash_table = store.hash_table
    s_key = store.key
    s_val = store.value
    s_bits = store.bits
    s_parent = store.parent
    s_opt = store.option
    layer_filter, filter_bits = _key_filter(s_key, begin, end)
    for i in range(begin, end):
        key = s_key[i]
        placed = jokers_placed(key)
        room = joker_room(key)
        rest = key & ~(np.int64(63) << _F_J)
        dead = False
        if value_laid(key) < threshold:
            full = (key & ~(np.int64(255) << _F_V)) | (np.int64(threshold) << _F_V)
            j = _get(full, hash_table, hash_bits, stamp, np.int64(1) << hash_bits)
            dead = j >= 0 and _as_good(by_bits, s_bits[i], s_bits[j], s_val[i], s_val[j])
        for fewer in range(0 if dead else placed + 1):  # fewer jokers placed, as much room
            for more_room in range(max(room, fewer), jhi + 1):
                if fewer == placed and more_room == room:
                    continue
                covering = rest | (np.int64(fewer) << _F_J) | (np.int64(more_room) << _F_R)
                j = _stored(covering, layer_filter, filter_bits, hash_table, hash_bits, stamp)
                if j >= 0 and _as_good(by_bits, s_bits[i], s_bits[j], s_val[i], s_val[j]):
                    dead = True
                    break
            if dead:
                break
        for c in range(0 if dead else 4):  # longer open runs of one colour
            shift = 4 * c
            other = key & ~(np.int64(15) << shift)
            pair = run_pair(key, shift)
            for k in range(DOMINATED_BY.shape[1]):
                q = DOMINATED_BY[pair, k]
                if q < 0:
                    break
                j = _stored(other | (q << shift), layer_filter, filter_bits, hash_table, hash_bits, stamp)
                if j >= 0 and _as_good(by_bits, s_bits[i], s_bits[j], s_val[i], s_val[j]):
                    dead = True
                    break
            if dead:
                break
        if dead:
            s_opt[i] |= _DEAD
    out = begin  # close up the states left
    for i in range(begin, end):
        if s_opt[i] & _DEAD:
            continue
        if out != i:
            s_key[out] = s_key[i]
            s_val[out] = s_val[i]
            s_bits[out] = s_bits[i]
            s_parent[out] = s_parent[i]
            s_opt[out] = s_opt[i]
        out += 1
    return out


@njit(cache=True, inline="always")
def _earlier(parent_key, option, other_parent_key, other_option):
    """Of two equally good paths into a state, the one kept: the smaller parent key, then the smaller option.

    The order states are stored in would otherwise decide, and a floor or a bound that leaves some out moves
    where the others go: with this rule a pass gives the same layout whatever it leaves out, so long as it
    keeps every state on a best path."""
    return parent_key < other_parent_key or (parent_key == other_parent_key and option < other_option)


@njit(cache=True)
def forward(q, weight, by_bits, jcap, floor, joker_bonus, known, store):
    """Run the programme over question ``q`` (see the module's docstring for the bounds); returns the store top
    (the states stored), or -1 on overflow. ``by_bits`` prunes covered states for the mask (keeping every
    used-type bit) rather than for the best value."""
    # the store's arrays, read once here: numba counts a reference, atomically, each time one is read from the
    # store or handed to a function, and the loop below visits every successor of the pass
    hash_table, layer_start, skip = store.hash_table, store.layer_start, store.skipped
    s_key, s_val, s_bits, s_parent, s_opt = store.key, store.value, store.bits, store.parent, store.option
    stamp = _fresh_stamp(hash_table, store.stamp)
    s_key[0], s_val[0], s_bits[0], s_parent[0], s_opt[0] = 0, 0, 0, -1, 0  # the empty layout
    top = ONE
    layer_start[0] = 0
    begin, end = ZERO, ONE
    ctx = _contexts(q, weight, jcap, joker_bonus, known, floor, colour_order(q.lo, q.hi), YES)
    moves = np.empty((MOVES_CAP, 4), dtype=np.int64)
    for step in range(SUBSTEPS):
        if _idle_layer(ctx, step, s_key, begin, end):
            skip[step + 1] = 1
            layer_start[step + 1] = begin
            continue
        skip[step + 1] = 0
        stamp += 1
        hash_bits = _hash_bits_for(end - begin)
        c = _step_constants(ctx, step)
        for i in range(begin, end):
            count = _moves(c, step, s_key[i], s_val[i], s_bits[i], moves)
            # each successor is merged into the layer here, not in a function of its own: numba counts a
            # reference to every array an inlined function is given, atomically, and the five of the store
            # and the hash table cost a third of the pass that way
            for j in range(count):
                key = moves[j, 0]
                h = _slot(key, hash_bits)
                while True:
                    e = hash_table[2 * h + 1]
                    if (e >> 32) != stamp:  # a new state
                        hash_table[2 * h] = key
                        hash_table[2 * h + 1] = (stamp << 32) | top
                        s_key[top] = key
                        s_val[top] = moves[j, 1]
                        s_bits[top] = np.uint64(moves[j, 2])
                        s_parent[top] = i
                        s_opt[top] = moves[j, 3]
                        top += 1
                        if top >= s_key.shape[0] - 1:
                            return -1
                        if 2 * (top - end) > (np.int64(1) << hash_bits):  # the layer outgrows its table
                            if hash_bits >= HASH_BITS_MAX:
                                return -1
                            hash_bits += 1
                            stamp += 1
                            _rehash(end, top, hash_table, hash_bits, stamp, s_key)
                        break
                    if hash_table[2 * h] == key:  # a state met before: keep the better path, and every used type
                        slot = e & 0xFFFFFFFF
                        s_bits[slot] |= np.uint64(moves[j, 2])
                        value = moves[j, 1]
                        if value > s_val[slot] or (value == s_val[slot] and _earlier(
                                s_key[i], moves[j, 3], s_key[s_parent[slot]], s_opt[slot])):
                            s_val[slot] = value
                            s_parent[slot] = i
                            s_opt[slot] = moves[j, 3]
                        break
                    h = (h + 1) & ((np.int64(1) << hash_bits) - 1)
        top = _prune(end, top, q.jhi, q.threshold, by_bits, hash_bits, stamp, store)
        layer_start[step + 1] = end
        begin, end = end, top
    layer_start[SUBSTEPS + 1] = top
    store.stamp[0] = stamp
    return top


@njit(cache=True)
def summarise(jlo, joker_weight, threshold, store):
    """Best finished layout of the last pass (objective with its jokers), used-type bits, whether a joker
    more fits."""
    best = -1
    best_val = np.int64(-(1 << 60))
    bits = np.uint64(0)
    joker_more = False
    s_key = store.key
    s_val = store.value
    s_bits = store.bits
    for i in range(store.layer_start[SUBSTEPS], store.layer_start[SUBSTEPS + 1]):
        key = s_key[i]
        if not _accepts(key, jlo, threshold):
            continue
        jused = jokers_placed(key)
        rcap = joker_room(key)
        bits |= s_bits[i]
        if rcap > jlo:
            joker_more = True
        jokers = rcap if joker_weight >= 0 else max(jused, jlo)
        v = s_val[i] + joker_weight * jokers
        if v > best_val or (v == best_val and key < s_key[best]):  # a tie goes to the smaller key (``_earlier``)
            best_val = v
            best = i
    return best, bits, joker_more


@njit(cache=True)
def path(index, store):
    """The options of the path into ``index`` (0 for skipped sub-steps), first first, in ``store.path``;
    returns the sub-steps read, which is ``SUBSTEPS`` when the path is whole."""
    i = index
    k = SUBSTEPS
    out = store.path
    skip = store.skipped
    s_opt = store.option
    s_parent = store.parent
    while k > 0:
        if skip[k]:
            out[k - 1] = 0
        else:
            if i <= 0:
                return -1
            out[k - 1] = s_opt[i] & ~_DEAD
            i = s_parent[i]
        k -= 1
    return SUBSTEPS if i == 0 else -1


@njit(cache=True)
def _one_pass(q, weight, joker_weight, jcap, floor, bonus, store):
    """One forward pass for the best play: (store index of the best layout or -1, its value), or (-2, 0)."""
    top = forward(q, weight, NO, jcap, floor, bonus, np.uint64(0), store)
    if top < 0:
        return -2, np.int64(0)
    best, _, _ = summarise(q.jlo, joker_weight, q.threshold, store)
    if best < 0:
        return -1, NO_FLOOR
    key = store.key[best]
    jokers = joker_room(key) if joker_weight >= 0 else max(jokers_placed(key), q.jlo)
    return best, store.value[best] + joker_weight * jokers


@njit(cache=True)
def one_pass(question, weight, joker_weight, jcap, floor, bonus, store):
    """``_one_pass`` of a question given as a plain tuple (``programme.Question``'s fields), from Python."""
    return _one_pass(Question(*question), weight, joker_weight, jcap, floor, bonus, store)


@njit(cache=True)
def best_layout(question, weight, joker_weight, known, store):
    """The best layout of ``question`` (a plain tuple of ``programme.Question``'s fields); returns its store
    index (-1: none, -2: the store overflowed, -3: ``known`` was above the best value).

    The exact pass is costly when jokers may stand in for pieces, so two cheap passes come first. With
    no joker standing in, the search is small and its best play is a floor. Most often every piece can
    go down, and a pass that asks for exactly that (the floor at the bound, every piece) is small too.
    Only when both fall short does the exact pass run, with the better floor found. ``known`` (or
    ``NO_FLOOR``) is the value of a layout the caller knows to be legal for the question, another floor:
    each pass keeps every state on a best path and breaks ties by key (``_earlier``), so no floor at or
    under the best value changes the layout returned.
    """
    q = Question(*question)
    hi = q.hi  # read once: numba counts a reference each time an array is read from the tuple
    bonus = joker_weight * (q.jhi if joker_weight >= 0 else q.jlo)
    ceiling = bonus
    for t in range(52):
        ceiling += weight[t] * hi[t]
    if q.jhi == 0:
        best = _one_pass(q, weight, joker_weight, ZERO, known, bonus, store)[0]
        return -3 if best == -1 and known != NO_FLOOR else best
    best, floor = _one_pass(q, weight, joker_weight, ZERO, known, bonus, store)
    if best == -2 or (best >= 0 and floor >= ceiling):
        return best
    best, value = _one_pass(q, weight, joker_weight, q.jhi, ceiling, bonus, store)
    if best == -2 or (best >= 0 and value >= ceiling):
        return best
    best = _one_pass(q, weight, joker_weight, q.jhi, max(floor, value, known), bonus, store)[0]
    return -3 if best == -1 and known != NO_FLOOR else best


@njit(cache=True)
def used_pieces(index, question, joker_weight, store, used):
    """The pieces of each type (jokers last) in the layout at ``index`` of ``question``'s last pass; fills
    ``store.path`` with its options.

    Returns False when the path is not whole. Spare jokers count as the objective wants them: all that
    fit (``joker_weight >= 0``), or only those that must go down.
    """
    q = Question(*question)
    if path(index, store) != SUBSTEPS:
        return False
    row = np.empty(54, dtype=np.int64)
    _witness_row(store.path, colour_order(q.lo, q.hi), store.key[index], row)
    used[:52] = row[:52]
    used[52] = row[53] if joker_weight >= 0 else max(row[52], q.jlo)
    return True
