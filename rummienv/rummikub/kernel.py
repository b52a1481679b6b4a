"""The compiled dynamic programme behind every Rummikub question.

Whether a multiset of pieces can be laid out as valid sets is decided number by
number (1..13), in the manner of van Rijn, Takes and Vis (2015). Only runs cross
from one number to the next, so the state at a boundary is, per colour, the
lengths of the open runs (0, 1, 2 or "3 or more"; at most two per colour), plus:

* ``P1``/``P2``: runs made of jokers only so far (length 1, length 2+). They have
  no colour yet; the first numbered piece that extends them gives them one. This
  is how a run can begin with jokers, and how a joker fixed to a number (K5) can
  head a run, while no set is ever made of jokers alone (C4).
* ``J``: free jokers used so far (table, staged and rack jokers are free; jokers
  fixed to a number are used exactly at their number).
* ``V``: the value laid, capped at the opening threshold (T4/K3), only when an
  opening is being judged.

Within a number the four colours are taken one at a time, so the state also
carries what has been put into groups at this number (how many pieces, and the
most of one colour) and how many jokers stand at this number so far; a last
sub-step per number places jokers in groups and in joker-only runs and checks
that the groups can be formed.

Every state carries the best objective value of a path to it (for the best play)
and the union of the piece types that some path used beyond its lower bound: any
path into a state combines with any path out of it, so that union, taken over
the accepting states, is exactly the set of piece types one more copy of which
fits in some legal play. One forward pass therefore answers the full mask.
Duplicate states are merged through an open-addressing hash table, and parent
pointers allow the best path to be rebuilt into concrete sets.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# Unordered pairs (a >= b) of open-run lengths of one colour, and their index.
PAIRS = np.array([(a, b) for a in range(4) for b in range(a + 1)], dtype=np.int64)
PAIR_INDEX = np.full((4, 4), -1, dtype=np.int64)
for _i, (_a, _b) in enumerate(PAIRS):
    PAIR_INDEX[_a, _b] = _i
    PAIR_INDEX[_b, _a] = _i


def _ge(a: int, b: int) -> bool:
    """An open run of length class ``a`` can do all that one of class ``b`` can (0: no run).

    A run of three or more may close at once or go on, so it covers no run and
    any shorter run; a run of two covers a run of one.
    """
    return a == b or a == 3 or (a == 2 and b == 1)


def _dominating_pairs() -> np.ndarray:
    """DOMINATED_BY[p]: the other pairs whose runs cover pair p's runs one to one (-1 padded)."""
    out = np.full((len(PAIRS), len(PAIRS)), -1, dtype=np.int64)
    for p, (a, b) in enumerate(PAIRS):
        k = 0
        for q, (c, d) in enumerate(PAIRS):
            if q != p and ((_ge(c, a) and _ge(d, b)) or (_ge(c, b) and _ge(d, a))):
                out[p, k] = q
                k += 1
    return out


DOMINATED_BY = _dominating_pairs()


def _group_table() -> np.ndarray:
    """GROUP_OK[s, m, j]: s pieces (most of one colour m) and j jokers form groups.

    Some G groups work iff m <= G <= s (each group distinct colours, one numbered
    piece at least) and 3G <= s + j <= 4G; dealing the pieces round-robin shows
    the condition is also sufficient.
    """
    ok = np.zeros((9, 3, 9), dtype=np.bool_)
    for s in range(9):
        for m in range(3):
            for j in range(9):
                if s == 0:
                    ok[s, m, j] = j == 0
                    continue
                ok[s, m, j] = any(3 * g <= s + j <= 4 * g for g in range(max(m, 1), s + 1))
    return ok


GROUP_OK = _group_table()

# Key layout of a state (bit offsets).
_SH_P1, _SH_P2, _SH_J, _SH_JL, _SH_GS, _SH_GM, _SH_V = 16, 19, 22, 25, 28, 32, 34
MAX_PENDING = 4

# Option code layout (what a transition did), for rebuilding the arrangement.
# colour step: cont bits (2) | joker-continued count (2) | new runs s (2) | u1 (2) | u2 (2) | g (2) | x (2)
# joker step: new pending (3) | group jokers (3) | free jokers used at this number (3)

HASH_BITS = 18
HASH_CAP = 1 << HASH_BITS
STORE_CAP = 1 << 21


@njit(cache=True, inline="always")
def _field(key, shift, width):
    return (key >> shift) & ((1 << width) - 1)


@njit(cache=True)
def _insert(key, val, bits, parent, opt, h_key, h_stamp, h_slot, stamp, s_key, s_val, s_bits, s_parent, s_opt, top):
    """Merge one successor into the current layer; returns the new store top."""
    h = (key * np.int64(0x9E3779B97F4A7C15)) >> np.int64(64 - HASH_BITS)
    h &= HASH_CAP - 1
    while True:
        if h_stamp[h] != stamp:
            h_stamp[h] = stamp
            h_key[h] = key
            h_slot[h] = top
            s_key[top] = key
            s_val[top] = val
            s_bits[top] = bits
            s_parent[top] = parent
            s_opt[top] = opt
            return top + 1
        if h_key[h] == key:
            slot = h_slot[h]
            s_bits[slot] |= bits
            if val > s_val[slot]:
                s_val[slot] = val
                s_parent[slot] = parent
                s_opt[slot] = opt
            return top
        h = (h + 1) & (HASH_CAP - 1)


@njit(cache=True)
def _find(key, h_key, h_stamp, h_slot, stamp):
    """The store slot of a state of the current layer, or -1."""
    h = (key * np.int64(0x9E3779B97F4A7C15)) >> np.int64(64 - HASH_BITS)
    h &= HASH_CAP - 1
    while h_stamp[h] == stamp:
        if h_key[h] == key:
            return h_slot[h]
        h = (h + 1) & (HASH_CAP - 1)
    return -1


@njit(cache=True)
def _prune(begin, end, first, last, jfloor, threshold, by_bits, h_key, h_stamp, h_slot, stamp, s_key, s_val, s_bits,
           s_parent, s_opt):
    """Drop the states of a layer that another state of it covers in one colour; returns the new end.

    A state whose open runs of one colour (``first..last``) are covered
    (``DOMINATED_BY``) by those of a state otherwise equal can be completed in
    every way the other can, with the same pieces; so it is dropped when its
    value is no better (best play) or when the pieces it used beyond the lower
    bounds are among the other's (mask). A dropped state may still cover
    others: what covers it is either kept or covered in turn.

    For the best play, a state that used fewer free jokers, but already at
    least ``jfloor`` (their lower bound), and has a value as good also covers
    it: it can follow the same path with the jokers to spare. (Not for the
    mask, which must also see whether a path ends with a joker more.)
    An opening that has already reached its threshold covers one that has not.
    """
    for i in range(begin, end):
        key = s_key[i]
        if _field(key, _SH_V, 8) < threshold:
            j = _find((key & ~(np.int64(255) << _SH_V)) | (np.int64(threshold) << _SH_V), h_key, h_stamp, h_slot,
                      stamp)
            if j >= 0 and ((s_bits[i] & ~s_bits[j]) == 0 if by_bits else s_val[j] >= s_val[i]):
                s_opt[i] |= np.int64(1) << 62
                continue
        jused = _field(key, _SH_J, 3)
        for jl in range(jfloor, jused):
            j = _find((key & ~(np.int64(7) << _SH_J)) | (jl << _SH_J), h_key, h_stamp, h_slot, stamp)
            if j >= 0 and s_val[j] >= s_val[i]:
                s_opt[i] |= np.int64(1) << 62
                break
        if s_opt[i] >> 62:
            continue
        for c in range(first, last + 1):
            shift = 4 * c
            rest = key & ~(np.int64(15) << shift)
            pair = (key >> shift) & 15
            dead = False
            for k in range(DOMINATED_BY.shape[1]):
                q = DOMINATED_BY[pair, k]
                if q < 0:
                    break
                j = _find(rest | (q << shift), h_key, h_stamp, h_slot, stamp)
                if j < 0:
                    continue
                if (s_bits[i] & ~s_bits[j]) == 0 if by_bits else s_val[j] >= s_val[i]:
                    dead = True
                    break
            if dead:
                s_opt[i] |= np.int64(1) << 62
                break
    out = begin
    for i in range(begin, end):
        if s_opt[i] >> 62:
            continue
        s_key[out] = s_key[i]
        s_val[out] = s_val[i]
        s_bits[out] = s_bits[i]
        s_parent[out] = s_parent[i]
        s_opt[out] = s_opt[i]
        out += 1
    return out


@njit(cache=True)
def forward(lo, hi, jlo, jhi, fixed, weight, joker_weight, threshold, by_bits, ws_hkey, ws_hstamp, ws_hslot,
            ws_stamp, s_key, s_val, s_bits, s_parent, s_opt, layer_start):
    """Run the programme; returns the store top (number of states stored), or -1 on overflow.

    ``lo``/``hi`` bound how many of each numbered type are used (table and staged
    pieces are forced, rack pieces optional); ``jlo``/``jhi`` bound the free
    jokers; ``fixed[n]`` jokers must stand at number n. ``layer_start[k]`` gets the
    store offset of the states after sub-step k (65 sub-steps, five per number), so
    the finished layouts lie in ``layer_start[65]:layer_start[66]``. ``by_bits``
    prunes covered states for the mask (keeping every used-type bit) rather than
    for the best value.
    """
    s_key[0] = 0
    s_val[0] = 0
    s_bits[0] = 0
    s_parent[0] = -1
    s_opt[0] = 0
    top = 1
    layer_start[0] = 0
    begin, end = 0, 1
    step = 0
    for n in range(1, 14):
        fixed_n = fixed[n]
        for c in range(4):
            ws_stamp[0] += 1
            stamp = ws_stamp[0]
            t = c * 13 + n - 1
            tlo = lo[t]
            thi = hi[t]
            wt = weight[t]
            tbit = np.uint64(1) << np.uint64(t)
            shift = 4 * c
            for i in range(begin, end):
                key = s_key[i]
                pair = (key >> shift) & 15
                ra = PAIRS[pair, 0]
                rb = PAIRS[pair, 1]
                p1 = _field(key, _SH_P1, 3)
                p2 = _field(key, _SH_P2, 3)
                jused = _field(key, _SH_J, 3)
                jl = _field(key, _SH_JL, 3)
                gs = _field(key, _SH_GS, 4)
                gm = _field(key, _SH_GM, 2)
                v = _field(key, _SH_V, 8)
                jroom = fixed_n + jhi - jused - jl  # jokers this number may still take
                base_val = s_val[i]
                base_bits = s_bits[i]
                for cont in range(4):
                    if (cont & 1) and ra == 0:
                        continue
                    if (cont & 2) and rb == 0:
                        continue
                    if not (cont & 1) and 0 < ra < 3:
                        continue
                    if not (cont & 2) and 0 < rb < 3:
                        continue
                    if ra == rb and cont == 2:
                        continue
                    k = (cont & 1) + ((cont >> 1) & 1)
                    closes = (ra == 3 and not (cont & 1)) or (rb == 3 and not (cont & 2))
                    n_a = ra + 1 if (cont & 1) else 0
                    n_b = rb + 1 if (cont & 2) else 0
                    if n_a > 3:
                        n_a = 3
                    if n_b > 3:
                        n_b = 3
                    for y in range(k + 1):
                        if y > jroom:
                            break
                        for s in range(3):
                            # a run closing where a new one of its colour starts is the
                            # same layout as one longer run: keep only the longer form
                            if s > 0 and closes:
                                break
                            for u1 in range(min(p1, 2) + 1):
                                for u2 in range(min(p2, 2) + 1):
                                    runs = k + s + u1 + u2
                                    if runs > 2:
                                        continue
                                    real_runs = k - y + s + u1 + u2
                                    for g in range(3):
                                        x = real_runs + g
                                        if x < tlo or x > thi:
                                            continue
                                        # lengths of the (at most two) runs now open in colour c
                                        l0 = 0
                                        l1 = 0
                                        cnt = 0
                                        if n_a > 0:
                                            l0 = n_a
                                            cnt = 1
                                        if n_b > 0:
                                            if cnt == 0:
                                                l0 = n_b
                                            else:
                                                l1 = n_b
                                            cnt += 1
                                        for _ in range(s):
                                            if cnt == 0:
                                                l0 = 1
                                            else:
                                                l1 = 1
                                            cnt += 1
                                        for _ in range(u1):
                                            if cnt == 0:
                                                l0 = 2
                                            else:
                                                l1 = 2
                                            cnt += 1
                                        for _ in range(u2):
                                            if cnt == 0:
                                                l0 = 3
                                            else:
                                                l1 = 3
                                            cnt += 1
                                        npair = PAIR_INDEX[l0, l1]
                                        nv = v
                                        if threshold > 0:
                                            nv = v + n * (x + y)
                                            if nv > threshold:
                                                nv = threshold
                                        ngm = gm if gm > g else g
                                        nkey = (key & ~(np.int64(15) << shift)) | (npair << shift)
                                        nkey = nkey & ~(
                                            (np.int64(63) << _SH_P1)
                                            | (np.int64(7) << _SH_JL)
                                            | (np.int64(63) << _SH_GS)
                                            | (np.int64(255) << _SH_V)
                                        )
                                        nkey |= (
                                            ((p1 - u1) << _SH_P1)
                                            | ((p2 - u2) << _SH_P2)
                                            | ((jl + y) << _SH_JL)
                                            | ((gs + g) << _SH_GS)
                                            | (ngm << _SH_GM)
                                            | (nv << _SH_V)
                                        )
                                        nbits = base_bits
                                        if x > tlo:
                                            nbits |= tbit
                                        opt = cont | (y << 2) | (s << 4) | (u1 << 6) | (u2 << 8) | (g << 10) | (x << 12)
                                        top = _insert(nkey, base_val + wt * x, nbits, i, opt, ws_hkey, ws_hstamp,
                                                      ws_hslot, stamp, s_key, s_val, s_bits, s_parent, s_opt, top)
                                        if top >= STORE_CAP:
                                            return -1
            top = _prune(end, top, c, c, 7, threshold, by_bits, ws_hkey, ws_hstamp, ws_hslot, stamp, s_key, s_val,
                         s_bits, s_parent, s_opt)
            step += 1
            layer_start[step] = end
            begin, end = end, top
        # joker sub-step: pending runs take jokers, new joker-only runs start, groups take jokers
        ws_stamp[0] += 1
        stamp = ws_stamp[0]
        for i in range(begin, end):
            key = s_key[i]
            p1 = _field(key, _SH_P1, 3)
            p2 = _field(key, _SH_P2, 3)
            jused = _field(key, _SH_J, 3)
            jl = _field(key, _SH_JL, 3)
            gs = _field(key, _SH_GS, 4)
            gm = _field(key, _SH_GM, 2)
            v = _field(key, _SH_V, 8)
            forced = jl + p1 + p2
            room = fixed_n + jhi - jused - forced
            if room < 0:
                continue
            max_new = room if n <= 12 else 0
            for knew in range(max_new + 1):
                if p2 + p1 > MAX_PENDING or knew > MAX_PENDING:
                    break
                for jg in range(room - knew + 1):
                    if not GROUP_OK[gs, gm, jg]:
                        continue
                    total = forced + knew + jg
                    if total < fixed_n:
                        continue
                    free = total - fixed_n
                    nv = v
                    if threshold > 0:
                        nv = v + n * (p1 + p2 + knew + jg)
                        if nv > threshold:
                            nv = threshold
                    nkey = (key & np.int64(0xFFFF)) | (knew << _SH_P1) | ((p1 + p2) << _SH_P2)
                    nkey |= ((jused + free) << _SH_J) | (nv << _SH_V)
                    opt = knew | (jg << 3) | (free << 6)
                    top = _insert(nkey, s_val[i] + joker_weight * free, s_bits[i], i, opt, ws_hkey, ws_hstamp,
                                  ws_hslot, stamp, s_key, s_val, s_bits, s_parent, s_opt, top)
                    if top >= STORE_CAP:
                        return -1
        top = _prune(end, top, 0, 3, 7 if by_bits else jlo, threshold, by_bits, ws_hkey, ws_hstamp, ws_hslot, stamp,
                     s_key, s_val, s_bits, s_parent, s_opt)
        step += 1
        layer_start[step] = end
        begin, end = end, top
    layer_start[step + 1] = top
    return top


@njit(cache=True)
def accepting(key, jlo, threshold):
    """A final state is a finished layout: every run long enough, no joker-only run."""
    for c in range(4):
        pair = (key >> (4 * c)) & 15
        if PAIRS[pair, 0] in (1, 2) or PAIRS[pair, 1] in (1, 2):
            return False
    if _field(key, _SH_P1, 3) or _field(key, _SH_P2, 3):
        return False
    if _field(key, _SH_J, 3) < jlo:
        return False
    return _field(key, _SH_V, 8) >= threshold


@njit(cache=True)
def summarise(begin, end, jlo, threshold, s_key, s_val, s_bits):
    """Best accepting state, union of used-type bits, and whether a joker can be added."""
    best = -1
    best_val = np.int64(-(1 << 60))
    bits = np.uint64(0)
    joker_more = False
    for i in range(begin, end):
        key = s_key[i]
        if not accepting(key, jlo, threshold):
            continue
        bits |= s_bits[i]
        if _field(key, _SH_J, 3) > jlo:
            joker_more = True
        if s_val[i] > best_val:
            best_val = s_val[i]
            best = i
    return best, bits, joker_more
