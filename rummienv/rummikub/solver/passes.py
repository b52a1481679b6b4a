"""The forward pass: the dynamic programme run over every state, layer by layer.

``forward`` builds every layer of the programme, each a sub-step's successors of the last, merging
equal states and dropping those another covers (``_prune``); ``best_layout`` and ``one_pass`` ask it for a
best play, the masks (``masks``) for the piece types some layout uses.
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
    HB_MAX,
    NO,
    NO_FLOOR,
    ONE,
    SUBSTEPS,
    YES,
    ZERO,
    _fresh_stamp,
    _fslot,
    _get,
    _hash_bits,
    _rehash,
    _slot,
)
from .witnesses import _witness_row


@njit(cache=True, inline="always")
def _field_zero(s_key, begin, end, shift):
    """No state of the layer has anything in the 4-bit field at ``shift``: the sub-step changes nothing."""
    for i in range(begin, end):
        if (s_key[i] >> shift) & 15:
            return False
    return True


@njit(cache=True)
def _prune(begin, end, jhi, threshold, by_bits, hb, stamp, store):
    """Drop the states of layer ``begin:end`` that another covers; returns the new end.

    Covering: the same open runs and group pieces, no more jokers placed and an R as large; or open runs of
    one colour that cover these one to one (``DOMINATED_BY``) with J and R equal; or (an opening) the same
    state with its threshold reached; and a value as good (best play) or the used-type bits a superset
    (mask, ``by_bits``). The layer's states are in the hash table under ``stamp`` (``hb`` bits).
    """
    # the store's arrays, read once here: this loop visits every state of the pass
    ht = store.hash_table
    s_key = store.key
    s_val = store.value
    s_bits = store.bits
    s_parent = store.parent
    s_opt = store.option
    # a bit filter of the layer's keys, small enough for the nearest cache: most covering states looked for
    # do not exist, and the filter says so without a probe of the hash table
    fb = 12
    while (np.int64(1) << fb) < 8 * (end - begin) and fb < 24:
        fb += 1
    filt = np.zeros(np.int64(1) << (fb - 6), dtype=np.uint64)
    for i in range(begin, end):
        f = _fslot(s_key[i], fb)
        filt[f >> 6] |= np.uint64(1) << np.uint64(f & 63)
    for i in range(begin, end):
        key = s_key[i]
        jj = (key >> _F_J) & 7
        rr = (key >> _F_R) & 7
        rest = key & ~(np.int64(63) << _F_J)
        dead = False
        if ((key >> _F_V) & 255) < threshold:
            full = (key & ~(np.int64(255) << _F_V)) | (np.int64(threshold) << _F_V)
            j = _get(full, ht, hb, stamp, np.int64(1) << hb)
            dead = j >= 0 and ((s_bits[i] & ~s_bits[j]) == 0 if by_bits else s_val[j] >= s_val[i])
        for ja in range(0 if dead else jj + 1):
            lo_r = rr if rr > ja else ja
            for ra in range(lo_r, jhi + 1):
                if ja == jj and ra == rr:
                    continue
                k2 = rest | (np.int64(ja) << _F_J) | (np.int64(ra) << _F_R)
                f = _fslot(k2, fb)
                if not (filt[f >> 6] >> np.uint64(f & 63)) & np.uint64(1):
                    continue
                j = _get(k2, ht, hb, stamp, np.int64(1) << hb)
                if j >= 0 and ((s_bits[i] & ~s_bits[j]) == 0 if by_bits else s_val[j] >= s_val[i]):
                    dead = True
                    break
            if dead:
                break
        if not dead:
            for c in range(4):
                shift = 4 * c
                other = key & ~(np.int64(15) << shift)
                pair = (key >> shift) & 15
                for k in range(DOMINATED_BY.shape[1]):
                    q = DOMINATED_BY[pair, k]
                    if q < 0:
                        break
                    k2 = other | (q << shift)
                    f = _fslot(k2, fb)
                    if not (filt[f >> 6] >> np.uint64(f & 63)) & np.uint64(1):
                        continue
                    j = _get(k2, ht, hb, stamp, np.int64(1) << hb)
                    if j >= 0 and ((s_bits[i] & ~s_bits[j]) == 0 if by_bits else s_val[j] >= s_val[i]):
                        dead = True
                        break
                if dead:
                    break
        if dead:
            s_opt[i] |= _DEAD
    out = begin
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


@njit(cache=True)
def forward(lo, hi, jhi, weight, by_bits, jcap, floor, joker_bonus, known, valued, threshold, fixed, store):
    """Run the programme; returns the store top (the states stored), or -1 on overflow.

    ``lo``/``hi`` bound how many of each numbered type are used (table and staged pieces are forced, rack
    pieces optional); ``jhi`` bounds the jokers. ``layer_start[k]`` gets the store offset of the states
    after sub-step k (65 sub-steps, five per number), so the finished layouts lie in
    ``layer_start[65]:layer_start[66]``. ``by_bits`` prunes covered states for the mask (keeping every
    used-type bit) rather than for the best value.

    Colour step option: cont (2) | y jokers continuing (2) | new-run row of NEW_RUNS (4) | g (2) | x (3), and for
    the last colour, which also places the jokers of the groups (the joker step is then skipped), those (3).
    Joker step option: jokers in groups (3) | new joker-only runs (3). A sub-step that can change no state
    (no piece of its type, no open run of its colour; no group piece, joker-only run or fixed joker) is
    skipped: ``skip[step]`` is set and its layer is the previous one.

    At most ``jcap`` jokers stand in for pieces (the others are spares). A state whose value, plus every
    piece still to come at its weight, plus ``joker_bonus`` stays below ``floor`` (a value some legal
    play is known to reach) can lead to no better play and is not stored; such a state is on no best path
    and ties with no stored one, so the best play found is the same as without the bound.
    Piece types in ``known`` (already known to fit) are left out of the used-type bits, so that the mask
    pass compares states only on what is still unknown and drops many more.

    ``valued`` (openings, T4/K3): every joker stands in for a piece (none is a spare, so no room is counted)
    and counts the number it stands for, and a run may begin with jokers anywhere. Without a ``threshold``
    the jokers' numbers add to the objective (the value laid, with ``weight`` the pieces' numbers); with
    one, the state carries the value laid (``V``, capped at the threshold), which a finished layout must
    reach, and a state that cannot reach it with every piece still to come and every joker at 13 is not
    stored.

    ``fixed[n]`` jokers must stand at number n (K5). Such a joker may continue a run or join a group at n,
    or head a run that has no numbered piece yet: those joker-only runs are carried as ``P1``/``P2`` (one
    joker, two or more), take a joker at every number until a colour step gives them their first piece
    (colour step option bits 16-17 and 18-19: how many of each), and count their room below when they
    start. They are never spares, so with any fixed joker the groups take their jokers in a step of their
    own.
    """
    # the store's arrays, read once here: the loop below visits every successor of the pass, and numba
    # counts a reference each time an array is read from the store
    ht = store.hash_table
    s_key = store.key
    s_val = store.value
    s_bits = store.bits
    s_parent = store.parent
    s_opt = store.option
    layer_start = store.layer_start
    skip = store.skipped
    stamp = _fresh_stamp(ht, store.stamp)
    s_key[0] = 0
    s_val[0] = 0
    s_bits[0] = 0
    s_parent[0] = -1
    s_opt[0] = 0
    top = ONE
    layer_start[0] = 0
    begin, end = ZERO, ONE
    order = colour_order(lo, hi)
    ctx = _contexts(lo, hi, jhi, jcap, weight, joker_bonus, known, valued, threshold, fixed, order, floor, YES)
    moves = np.empty((MOVES_CAP, 4), dtype=np.int64)
    for step in range(SUBSTEPS):
        if step % 5 < 4:  # a colour step with no piece of its type and no open run of its colour
            idle = ctx[step, _C_HI] == 0 and _field_zero(s_key, begin, end, ctx[step, _C_SHIFT])
        else:  # a joker step with no group piece, joker-only run or fixed joker
            idle = (ctx[step, _C_FIXED_N] == 0 and not ctx[step, _C_FREE_HEADS]
                    and _field_zero(s_key, begin, end, _F_GS) and _field_zero(s_key, begin, end, _F_P1)
                    and _field_zero(s_key, begin, end, _F_P2))
        if idle:
            skip[step + 1] = 1
            layer_start[step + 1] = begin
            continue
        skip[step + 1] = 0
        stamp += 1
        hb = _hash_bits(end - begin)
        c = _step_constants(ctx, step)
        for i in range(begin, end):
            count = _moves(c, step, s_key[i], s_val[i], s_bits[i], moves)
            # each successor is merged into the layer here, not in a function of its own: numba counts a
            # reference to every array an inlined function is given, atomically, and the five of the store
            # and the hash table cost a third of the pass that way
            for j in range(count):
                key = moves[j, 0]
                h = _slot(key, hb)
                while True:
                    e = ht[2 * h + 1]
                    if (e >> 32) != stamp:  # a new state
                        ht[2 * h] = key
                        ht[2 * h + 1] = (stamp << 32) | top
                        s_key[top] = key
                        s_val[top] = moves[j, 1]
                        s_bits[top] = np.uint64(moves[j, 2])
                        s_parent[top] = i
                        s_opt[top] = moves[j, 3]
                        top += 1
                        if top >= s_key.shape[0] - 1:
                            return -1
                        if 2 * (top - end) > (np.int64(1) << hb):  # the layer outgrows its table
                            if hb >= HB_MAX:
                                return -1
                            hb += 1
                            stamp += 1
                            _rehash(end, top, ht, hb, stamp, s_key)
                        break
                    if ht[2 * h] == key:  # a state met before: keep the better path, and every used type
                        slot = e & 0xFFFFFFFF
                        s_bits[slot] |= np.uint64(moves[j, 2])
                        if moves[j, 1] > s_val[slot]:
                            s_val[slot] = moves[j, 1]
                            s_parent[slot] = i
                            s_opt[slot] = moves[j, 3]
                        break
                    h = (h + 1) & ((np.int64(1) << hb) - 1)
        top = _prune(end, top, jhi, threshold, by_bits, hb, stamp, store)
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
        jused = (key >> _F_J) & 7
        rcap = (key >> _F_R) & 7
        bits |= s_bits[i]
        if rcap > jlo:
            joker_more = True
        jokers = rcap if joker_weight >= 0 else max(jused, jlo)
        v = s_val[i] + joker_weight * jokers
        if v > best_val:
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
def one_pass(lo, hi, jlo, jhi, weight, joker_weight, jcap, floor, bonus, valued, threshold, fixed, store):
    """One forward pass for the best play: (store index of the best layout or -1, its value), or (-2, 0)."""
    top = forward(lo, hi, jhi, weight, NO, jcap, floor, bonus, np.uint64(0), valued, threshold, fixed, store)
    if top < 0:
        return -2, np.int64(0)
    best, _, _ = summarise(jlo, joker_weight, threshold, store)
    if best < 0:
        return -1, NO_FLOOR
    key = store.key[best]
    jokers = (key >> _F_R) & 7 if joker_weight >= 0 else max((key >> _F_J) & 7, jlo)
    return best, store.value[best] + joker_weight * jokers


@njit(cache=True)
def best_layout(lo, hi, jlo, jhi, weight, joker_weight, valued, threshold, fixed, store):
    """The best layout of a position; returns its store index (-1: none, -2: the store overflowed).

    The exact pass is costly when jokers may stand in for pieces, so two cheap passes come first. With
    no joker standing in, the search is small and its best play is a floor. Most often every piece can
    go down, and a pass that asks for exactly that (the floor at the bound, every piece) is small too.
    Only when both fall short does the exact pass run, with the better floor found.
    """
    bonus = joker_weight * (jhi if joker_weight >= 0 else jlo)
    ceiling = bonus
    for t in range(52):
        ceiling += weight[t] * hi[t]
    if jhi == 0:
        return one_pass(lo, hi, jlo, jhi, weight, joker_weight, ZERO, NO_FLOOR, bonus, valued, threshold, fixed,
                        store)[0]
    best, floor = one_pass(lo, hi, jlo, jhi, weight, joker_weight, ZERO, NO_FLOOR, bonus, valued, threshold, fixed,
                           store)
    if best == -2 or (best >= 0 and floor >= ceiling):
        return best
    best, value = one_pass(lo, hi, jlo, jhi, weight, joker_weight, jhi, ceiling, bonus, valued, threshold, fixed,
                           store)
    if best == -2 or (best >= 0 and value >= ceiling):
        return best
    return one_pass(lo, hi, jlo, jhi, weight, joker_weight, jhi, max(floor, value), bonus, valued, threshold, fixed,
                    store)[0]


@njit(cache=True)
def used_pieces(index, lo, hi, jlo, joker_weight, store, used):
    """The pieces of each type (jokers last) in the layout at ``index``; fills ``store.path`` with its options.

    Returns False when the path is not whole. Spare jokers count as the objective wants them: all that
    fit (``joker_weight >= 0``), or only those that must go down.
    """
    if path(index, store) != SUBSTEPS:
        return False
    row = np.empty(54, dtype=np.int64)
    _witness_row(store.path, colour_order(lo, hi), store.key[index], row)
    used[:52] = row[:52]
    used[52] = row[53] if joker_weight >= 0 else max(row[52], jlo)
    return True
