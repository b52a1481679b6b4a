"""The compiled dynamic programme behind every Rummikub question.

Whether a multiset of pieces can be laid out as valid sets is decided number by
number (1..13), in the manner of van Rijn, Takes and Vis (2015). Only runs cross
from one number to the next, so the state at a boundary is, per colour, the
lengths of the open runs (0, 1, 2 or "3 or more"; at most two per colour), plus:

* ``J``, the jokers placed so far, and ``R`` = min(J + room of the sets so far,
  the jokers available). A joker that no set needs can always be added to a set
  with room: a run that does not span 1..13 takes one at an end, a group of
  three takes a fourth. So a layout with J jokers placed and room r stands for
  every joker count in J..J+r, and spare jokers are never placed. Room is counted
  as it becomes known: a run starting at s brings s - 1 places below it, a run
  whose last number is e brings 13 - e above it, groups bring 4 * groups -
  pieces. A state with fewer jokers placed and an R as large covers another.
* ``P1``/``P2``: runs made of jokers only so far (one joker, two or more), headed
  by jokers fixed to a number (K5), which are never spares. The first numbered
  piece that extends one gives it a colour, and no set is ever made of jokers
  alone (C4). Otherwise the jokers that lead a run are placed when its first
  numbered piece comes (at most two; up to four in an opening, whose jokers all
  stand for pieces).
* ``V``: the value laid, capped at the opening threshold (T4/K3), only when an
  opening is judged; every joker then stands for a piece and counts its number.

Within a number the colours are taken one at a time (the one with the fewest
choices first), so the state also carries what has been put into groups at
this number (how many pieces, and the most of one colour); the last colour's
step, or a step of its own when jokers are fixed to numbers, gives the groups
their jokers and checks that they can be formed.

Every state carries the best objective value of a path to it (for the best play)
and the union of the piece types that some path used beyond its lower bound: any
path into a state combines with any path out of it, so that union, taken over
the accepting states, is exactly the set of piece types one more copy of which
fits in some legal play. One forward pass therefore answers the full mask.
Duplicate states are merged through an open-addressing hash table, and parent
pointers allow the best path to be rebuilt into concrete sets.
"""

from __future__ import annotations

import itertools

import numpy as np
from numba import njit

# What one compiled function hands another, constants and a loop variable's first value alike, is a numpy
# scalar (``_ZERO``, ``LEGAL_BUDGET``): numba compiles a callee afresh for each literal Python constant it
# is given, and those copies of the searches and the pass made the first compile take five minutes instead
# of one, for no speed (tests/test_kernel_specializations.py counts the compiles).
_ZERO, _ONE, _THREE = np.int64(0), np.int64(1), np.int64(3)
_NO, _YES = np.bool_(False), np.bool_(True)

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
STORE_CAP = 1 << 21


@njit(cache=True, inline="always")
def _field_zero(s_key, begin, end, shift):
    """No state of the layer has anything in the 4-bit field at ``shift``: the sub-step changes nothing."""
    for i in range(begin, end):
        if (s_key[i] >> shift) & 15:
            return False
    return True


def _group_room() -> np.ndarray:
    """GROUP_ROOM[s, m, j]: the most places left in groups of s pieces (m of one colour) and j jokers, or -1."""
    out = np.full((9, 3, 9), -1, dtype=np.int64)
    for s in range(9):
        for m in range(3):
            for j in range(9):
                if s == 0:
                    if j == 0:
                        out[s, m, j] = 0
                    continue
                best = -1
                for g in range(max(m, 1), s + 1):
                    if 3 * g <= s + j <= 4 * g:
                        best = max(best, 4 * g - s - j)
                out[s, m, j] = best
    return out


GROUP_ROOM = _group_room()


def _group_viable() -> np.ndarray:
    """GROUP_VIABLE[s, m, r, j]: s group pieces (m of one colour) can still become groups with at most r more
    pieces and at most j jokers."""
    out = np.zeros((9, 3, 9, 9), dtype=np.bool_)
    for s in range(9):
        for m in range(3):
            for r in range(9):
                for j in range(9):
                    out[s, m, r, j] = any(GROUP_ROOM[s2, m, j2] >= 0 for s2 in range(s, min(8, s + r) + 1)
                                          for j2 in range(j + 1))
    return out


GROUP_VIABLE = _group_viable()

# SHORT_RUNS[p] and SINGLE_RUNS[p]: the open runs of pair p shorter than three (each needs the colour's next
# piece, or a joker) and those of one piece (they need the piece after it as well).
SHORT_RUNS = np.array([(0 < a < 3) + (0 < b < 3) for a, b in PAIRS], dtype=np.int64)
SINGLE_RUNS = np.array([(a == 1) + (b == 1) for a, b in PAIRS], dtype=np.int64)


def _group_jokers() -> np.ndarray:
    """GROUP_JOKERS[s, m, n1, n2]: the fewest jokers with which s group pieces (m of one colour), joined by at
    most one piece from each of n1 other colours and two from each of n2, can be laid out as groups; 99 when
    no number can."""
    out = np.full((9, 3, 4, 4), 99, dtype=np.int64)
    for s, m, n1, n2 in np.ndindex(out.shape):
        if n1 + n2 > 3:
            continue
        for added in itertools.product(*[range(cap + 1) for cap in (1,) * n1 + (2,) * n2]):
            s2, m2 = s + sum(added), max((m, *added))
            fits = [j for j in range(9) if s2 <= 8 and GROUP_ROOM[s2, m2, j] >= 0]
            if fits:
                out[s, m, n1, n2] = min(out[s, m, n1, n2], fits[0])
    return out


GROUP_JOKERS = _group_jokers()

# New runs started at one number of one colour: (count, leading jokers of the first, of the second), by count.
# More than two leading jokers serve openings only, where no joker is a spare (at most four jokers, K1).
NEW_RUNS = np.array([(0, 0, 0), (1, 0, 0), (1, 1, 0), (1, 2, 0), (1, 3, 0), (1, 4, 0), (2, 0, 0), (2, 0, 1),
                     (2, 0, 2), (2, 1, 1), (2, 1, 2), (2, 2, 2), (2, 0, 3), (2, 0, 4), (2, 1, 3)], dtype=np.int64)

_F_J, _F_R, _F_GS, _F_GM = 16, 19, 22, 26
_F_P1, _F_P2, _F_FU = 28, 31, 34  # joker-only runs (length 1, 2+) and fixed jokers placed at this number
_F_V = 37  # an opening's value so far, capped at its threshold
_V_FIELD = np.int64(255) << _F_V
HB_MIN, HB_MAX = 10, 21
_DEAD = np.int64(1) << 62
NO_FLOOR = -(np.int64(1) << 60)


@njit(cache=True, inline="always")
def _slot(key, hb):
    return ((key * np.int64(0x9E3779B97F4A7C15)) >> np.int64(64 - hb)) & ((np.int64(1) << hb) - 1)


@njit(cache=True, inline="always")
def _fslot(key, fb):
    return ((key * np.int64(0xC2B2AE3D27D4EB4F)) >> np.int64(64 - fb)) & ((np.int64(1) << fb) - 1)


@njit(cache=True, inline="always")
def _get(key, ht, hb, stamp, probes):
    """The value (the store slot, for the programme's tables) kept for ``key``, or -1; looking at most at
    ``probes`` slots (all of them for a table that never drops a key, ``PROBES`` for a cache)."""
    mask = (np.int64(1) << hb) - 1
    h = _slot(key, hb)
    for _ in range(probes):
        e = ht[2 * h + 1]
        if (e >> 32) != stamp:
            return -1
        if ht[2 * h] == key:
            return e & 0xFFFFFFFF
        h = (h + 1) & mask
    return -1


@njit(cache=True)
def _rehash(begin, top, ht, hb, stamp, s_key):
    for i in range(begin, top):
        key = s_key[i]
        mask = (np.int64(1) << hb) - 1
        h = _slot(key, hb)
        while (ht[2 * h + 1] >> 32) == stamp:
            h = (h + 1) & mask
        ht[2 * h] = key
        ht[2 * h + 1] = (stamp << 32) | i


@njit(cache=True)
def _hash_bits(size):
    hb = HB_MIN
    while (np.int64(1) << hb) < 3 * size and hb < HB_MAX:
        hb += 1
    return hb


@njit(cache=True)
def _prune(begin, end, first, last, jhi, threshold, by_bits, ht, hb, stamp, s_key, s_val, s_bits, s_parent,
                s_opt):
    """Drop the states of a layer that another covers; returns the new end.

    Covering: the same open runs and group pieces, no more jokers placed and an R
    as large (checked when ``first < 0``... always), or open runs of one colour in
    ``first..last`` that cover these one to one (``DOMINATED_BY``) with J and R
    equal, or (an opening) the same state with its threshold reached; and a value
    as good (best play) or the used-type bits a superset (mask).
    """
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
            for c in range(first, last + 1):
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
def colour_order(lo, hi):
    """ORDER[n - 1]: the colours in the order the programme takes them at number n.

    The colour with the fewest choices goes first, so the layers within a number grow as late as possible.
    """
    order = np.empty((13, 4), dtype=np.int64)
    cost = np.empty(4, dtype=np.int64)
    for n in range(1, 14):
        for c in range(4):
            t = c * 13 + n - 1
            cost[c] = (hi[t] - lo[t]) * 3 + hi[t]
            order[n - 1, c] = c
        for a in range(1, 4):  # insertion sort, stable
            b = a
            while b > 0 and cost[order[n - 1, b - 1]] > cost[order[n - 1, b]]:
                tmp = order[n - 1, b - 1]
                order[n - 1, b - 1] = order[n - 1, b]
                order[n - 1, b] = tmp
                b -= 1
    return order


def _new_run_info() -> np.ndarray:
    """NEW_RUN_INFO[valued, n, f, w]: what row w of NEW_RUNS means at number n (fields f: ``_W_*``)."""
    out = np.zeros((2, 14, 7, NEW_RUNS.shape[0]), dtype=np.int64)
    for valued in range(2):
        for n in range(1, 14):
            for w, (m, *leads) in enumerate(NEW_RUNS):
                ok, room, plain, jokers, jval = True, 0, 0, 0, 0
                for e in range(m):
                    kk = int(leads[e])
                    # a run led by jokers needs them only when it cannot take them on
                    # top instead: J 12 13, J 12 J, J J 13 (longer runs shed them as spares)
                    if kk != 0 and kk != n - 11 and not (valued and kk < n):
                        ok = False
                    jval += kk * n - kk * (kk + 1) // 2  # what the leading jokers stand for
                    ln = min(1 + kk, 3)
                    if ln < 3 and n + 3 - ln > 13:
                        ok = False
                    plain += kk == 0
                    room += n - kk - 1
                    jokers += kk
                    out[valued, n, _W_LEN + e, w] = ln
                out[valued, n, :_W_LEN, w] = ok, jokers, room, plain, jval
    return out


_W_OK, _W_JOKERS, _W_ROOM, _W_PLAIN, _W_JVAL, _W_LEN = range(6)  # _W_LEN, _W_LEN + 1: the new runs' lengths
NEW_RUN_INFO = _new_run_info()

# The constants of one sub-step (a row of ``_contexts``): its number and colour, the bounds and weight of its
# type and the type's bit, what the next two numbers of the colour offer (short runs must go on), what the
# later colours of the number could still give to groups, whether the step places the groups' jokers, the
# fixed jokers of the number and of the next two, the weight and points of every piece still to come, and
# (joker steps) whether free jokers may head joker-only runs; then the problem's own constants; then, for the
# look-ahead of the passes (``_C_AHEAD``: the jokers fixed to numbers, -1 without it), what each colour's next
# two pieces after the step offer to its open runs (``_C_NEXT1``, ``_C_NEXT2``, four each) and what each colour
# not yet taken at the number could give to it (``_C_LATER``, four).
(_C_N, _C_SHIFT, _C_LO, _C_HI, _C_WT, _C_TBIT, _C_AVAIL1, _C_AVAIL2, _C_REST_GROUP, _C_LAST, _C_FIXED_N,
 _C_FIX_NEXT, _C_TO_COME, _C_POINTS, _C_FREE_HEADS, _C_JHI, _C_JFREE, _C_FLOOR, _C_THRESHOLD, _C_VALUED,
 _C_JOKER_VALUES, _C_AHEAD) = range(22)
_C_NEXT1, _C_NEXT2, _C_LATER = 22, 26, 30
_CONTEXT_COLUMNS = 34
SUBSTEPS = 65
MOVES_CAP = 1024  # successors of one state: at most 65 run choices x 3 groups x 5 group jokers, or 9 x 9


@njit(cache=True)
def _contexts(lo, hi, jhi, jcap, weight, joker_bonus, known, valued, threshold, fixed, order, floor, ahead):
    """The constants of every sub-step, computed once so that each state's moves only read them; ``ahead``: the
    moves look ahead at the jokers that open runs and groups will need (``_lacking``)."""
    ctx = np.zeros((SUBSTEPS, _CONTEXT_COLUMNS), dtype=np.int64)
    to_come = np.int64(0)  # the weight of every piece of the types still to be taken
    for t in range(52):
        to_come += weight[t] * hi[t]
    to_come += joker_bonus
    points_to_come = 13 * jhi  # the most the pieces still to be taken (and every joker) can add to V
    for t in range(52):
        points_to_come += (t % 13 + 1) * hi[t]
    has_fixed = fixed[1:].sum() > 0
    for n in range(1, 14):
        fix_next = (fixed[n + 1] if n <= 12 else 0) + (fixed[n + 2] if n <= 11 else 0)
        for kc in range(5):
            s = 5 * (n - 1) + kc
            ctx[s, _C_N] = n
            ctx[s, _C_FIXED_N] = fixed[n]
            ctx[s, _C_JHI] = jhi
            ctx[s, _C_JFREE] = min(jhi, jcap)
            ctx[s, _C_FLOOR] = floor
            ctx[s, _C_THRESHOLD] = threshold
            ctx[s, _C_VALUED] = valued
            ctx[s, _C_JOKER_VALUES] = valued and threshold == 0
            ctx[s, _C_AHEAD] = fixed[1:].sum() if ahead else -1
            for k in range(4):
                col = order[n - 1, k]
                last_n = n if k <= kc else n - 1  # the colour's runs end there after the step
                ctx[s, _C_NEXT1 + col] = min(hi[col * 13 + last_n], 2) if last_n <= 12 else 0
                ctx[s, _C_NEXT2 + col] = min(hi[col * 13 + last_n + 1], 2) if last_n <= 11 else 0
                ctx[s, _C_LATER + col] = min(hi[col * 13 + n - 1], 2) if k > kc else 0
            if kc == 4:
                ctx[s, _C_FREE_HEADS] = n <= 12 and fixed[n + 1] > 0
                continue
            c = order[n - 1, kc]
            t = c * 13 + n - 1
            to_come -= weight[t] * hi[t]
            points_to_come -= n * hi[t]
            rest_group = 0
            for k2 in range(kc + 1, 4):
                rest_group += min(hi[order[n - 1, k2] * 13 + n - 1], 2)
            ctx[s, _C_SHIFT] = 4 * c
            ctx[s, _C_LO] = lo[t]
            ctx[s, _C_HI] = hi[t]
            ctx[s, _C_WT] = weight[t]
            ctx[s, _C_TBIT] = np.int64((np.uint64(1) << np.uint64(t)) & ~known)
            ctx[s, _C_AVAIL1] = min(hi[t + 1], 2) if n <= 12 else 0
            ctx[s, _C_AVAIL2] = min(hi[t + 2], 2) if n <= 11 else 0
            ctx[s, _C_REST_GROUP] = rest_group
            ctx[s, _C_LAST] = kc == 3 and not has_fixed
            ctx[s, _C_FIX_NEXT] = fix_next
            ctx[s, _C_TO_COME] = to_come
            ctx[s, _C_POINTS] = points_to_come
    return ctx


@njit(cache=True, inline="always")
def _step_constants(ctx, s):
    """Sub-step ``s``'s row of ``_contexts`` as a tuple: a layer's moves read it once, and the compiler keeps
    it out of the loop over states."""
    return (ctx[s, 0], ctx[s, 1], ctx[s, 2], ctx[s, 3], ctx[s, 4], ctx[s, 5], ctx[s, 6], ctx[s, 7], ctx[s, 8],
            ctx[s, 9], ctx[s, 10], ctx[s, 11], ctx[s, 12], ctx[s, 13], ctx[s, 14], ctx[s, 15], ctx[s, 16],
            ctx[s, 17], ctx[s, 18], ctx[s, 19], ctx[s, 20], ctx[s, 21], ctx[s, 22], ctx[s, 23], ctx[s, 24],
            ctx[s, 25], ctx[s, 26], ctx[s, 27], ctx[s, 28], ctx[s, 29], ctx[s, 30], ctx[s, 31], ctx[s, 32],
            ctx[s, 33])


@njit(cache=True, inline="always")
def _lacking(c, key, skip_shift):
    """What the open runs of the colours other than the one at ``skip_shift`` (-1: none) lack after the step:
    the jokers their next pieces leave them short of, and how many colours not yet taken at the number could
    each give one piece, or two, to its groups once their own short runs have theirs.

    Every short run must go on at the colour's next numbers, by a piece or a joker; a colour's piece put in a
    group instead leaves its run a joker short, which the group could have taken itself. So no layout from a
    state places fewer jokers from here on than these shortages and ``GROUP_JOKERS`` of the groups begun, and
    a state that cannot place them leads to no layout: the passes store no such state. Such a state is on no
    path to a finished layout, so it is first to reach no state that is, covers none (a state covering one
    lacks no more) and leaves the answer unchanged; the layers only hold fewer dead ends."""
    short = 0
    ones = 0
    twos = 0
    for k in range(4):
        if 4 * k == skip_shift:
            continue
        pair = (key >> (4 * k)) & 15
        short += max(SHORT_RUNS[pair] - c[_C_NEXT1 + k], 0) + max(SINGLE_RUNS[pair] - c[_C_NEXT2 + k], 0)
        spare = c[_C_LATER + k] - SHORT_RUNS[pair]
        ones += spare == 1
        twos += spare >= 2
    return short, ones, twos


@njit(cache=True, inline="always")
def _colour_moves(c, key, val, bits, moves):
    """Colour step: how many of its type go down, into which runs (open, new, joker-led) and groups; returns how many
    successors of the state it wrote."""
    n = c[_C_N]
    shift = c[_C_SHIFT]
    tlo = c[_C_LO]
    thi = c[_C_HI]
    wt = c[_C_WT]
    tbit = np.uint64(c[_C_TBIT])
    avail1 = c[_C_AVAIL1]
    avail2 = c[_C_AVAIL2]
    rest_group = c[_C_REST_GROUP]
    last = c[_C_LAST] != 0
    fixed_n = c[_C_FIXED_N]
    fix_next = c[_C_FIX_NEXT]
    to_come = c[_C_TO_COME]
    points_to_come = c[_C_POINTS]
    jhi = c[_C_JHI]
    floor = c[_C_FLOOR]
    threshold = c[_C_THRESHOLD]
    valued = c[_C_VALUED] != 0
    joker_values = c[_C_JOKER_VALUES] != 0
    vi = c[_C_VALUED]
    clear = ~((np.int64(15) << shift) | (np.int64(63) << _F_J) | (np.int64(63) << _F_GS)
              | (np.int64(511) << _F_P1) | (np.int64(255) << _F_V))
    pair = (key >> shift) & 15
    ra = PAIRS[pair, 0]
    rb = PAIRS[pair, 1]
    jused = (key >> _F_J) & 7
    rcap = (key >> _F_R) & 7
    gs = (key >> _F_GS) & 15
    gm = (key >> _F_GM) & 3
    p1 = (key >> _F_P1) & 7
    p2 = (key >> _F_P2) & 7
    fu = (key >> _F_FU) & 7
    v = (key >> _F_V) & 255
    frem = fixed_n - fu  # fixed jokers of this number still to place
    jfree = c[_C_JFREE] - jused
    if jfree < 0:
        jfree = 0
    base_key = key & clear
    ahead = c[_C_AHEAD]
    others, later1, later2 = _lacking(c, key, shift) if ahead >= 0 else (_ZERO, _ZERO, _ZERO)
    count = 0
    # the floor asks for this many pieces of t at least (jokers' values aside, which only raise it)
    xlo = tlo
    lack = floor - val - to_come
    if lack > 0 and not joker_values:
        if wt <= 0:
            return 0
        xlo = max(tlo, (lack + wt - 1) // wt)
        if xlo > thi:
            return 0
    for cont in range(4):
        ca = cont & 1
        cb = (cont >> 1) & 1
        if ca and ra == 0:
            continue
        if cb and rb == 0:
            continue
        if not ca and 0 < ra < 3:
            continue
        if not cb and 0 < rb < 3:
            continue
        if ra == rb and cont == 2:
            continue
        k = ca + cb
        nclose = (1 if (ra == 3 and not ca) else 0) + (1 if (rb == 3 and not cb) else 0)
        n_a = min(ra + 1, 3) if ca else 0
        n_b = min(rb + 1, 3) if cb else 0
        if (0 < n_a < 3 and n + 3 - n_a > 13) or (0 < n_b < 3 and n + 3 - n_b > 13):
            continue
        room0 = nclose * (14 - n)
        # y jokers continue runs (yf of them fixed), u1/u2 joker-only runs get their first piece
        ny = min(k, jfree + frem) + 1
        n1 = min(p1, 2) + 1
        for yu in range(ny * n1 * (min(p2, 2) + 1)):
            y = yu % ny
            u1 = (yu // ny) % n1
            u2 = yu // (ny * n1)
            ku = k + u1 + u2
            if ku > 2:
                continue
            yf = min(y, frem)  # fixed first: jokers at one number can trade places
            if y - yf > jfree:
                continue
            for w in range(NEW_RUNS.shape[0]):
                m = NEW_RUNS[w, 0]
                if ku + m > 2:
                    break
                real = k - y + m + u1 + u2
                if real > thi:
                    break  # rows go by count of new runs
                if real + 2 < xlo or not NEW_RUN_INFO[vi, n, _W_OK, w]:
                    continue
                jnew = y - yf + NEW_RUN_INFO[vi, n, _W_JOKERS, w]
                if jnew > jfree:
                    continue
                room = 0 if valued else room0 + NEW_RUN_INFO[vi, n, _W_ROOM, w]
                jv = y * n + NEW_RUN_INFO[vi, n, _W_JVAL, w] if valued else 0
                plain = NEW_RUN_INFO[vi, n, _W_PLAIN, w]
                l0 = n_a
                l1 = n_b
                for e in range(m + u1 + u2):
                    ln = NEW_RUN_INFO[vi, n, _W_LEN + e, w] if e < m else (2 if e < m + u1 else 3)
                    if l0 == 0:
                        l0 = ln
                    else:
                        l1 = ln
                # a run closing where a plain one of its colour starts is one longer
                # run; that matters only while the room is short
                if plain > 0 and nclose > 0 and rcap == jhi:
                    continue
                if l0 == 0 and l1 > 0:
                    l0 = l1
                    l1 = 0
                short = (1 if 0 < l0 < 3 else 0) + (1 if 0 < l1 < 3 else 0)
                ones = (1 if l0 == 1 else 0) + (1 if l1 == 1 else 0)
                if max(short - avail1, 0) + max(ones - avail2, 0) > jfree - jnew + fix_next:
                    continue
                lacking = others + max(short - avail1, 0) + max(ones - avail2, 0)
                npair = PAIR_INDEX[l0, l1]
                nr = rcap + jnew + room
                if nr > jhi:
                    nr = jhi
                for g in range(3):
                    x = real + g
                    if x < xlo:
                        continue
                    if x > thi:
                        break
                    ngm = gm if gm > g else g
                    if not GROUP_VIABLE[gs + g, ngm, rest_group, min(jfree - jnew + frem - yf, 8)]:
                        continue
                    if ahead >= 0 and not last and (lacking + GROUP_JOKERS[gs + g, ngm, later1, later2]
                                                    > jfree - jnew + ahead):
                        continue
                    jo = jv if joker_values else 0
                    if val + wt * x + jo + to_come < floor:
                        continue
                    nv = 0
                    if threshold > 0:
                        nv = min(v + n * x + jv, threshold)
                        if nv + points_to_come < threshold:
                            continue
                    nbits = bits
                    if x > tlo:
                        nbits |= tbit
                    opt = cont | (y << 2) | (w << 4) | (g << 8) | (x << 10) | (u1 << 16) | (u2 << 18)
                    if not last:
                        moves[count, 0] = (base_key | (npair << shift) | ((jused + jnew) << _F_J) | (nr << _F_R)
                                        | ((gs + g) << _F_GS) | (ngm << _F_GM) | ((p1 - u1) << _F_P1)
                                        | ((p2 - u2) << _F_P2) | ((fu + yf) << _F_FU) | (nv << _F_V))
                        moves[count, 1] = val + wt * x + jo
                        moves[count, 2] = np.int64(nbits)
                        moves[count, 3] = opt
                        count += 1
                        continue
                    # the last colour of the number: its groups take their jokers here, so the
                    # layer before the group step (the largest) is never stored
                    nbase = base_key | (npair << shift) | ((p1 - u1) << _F_P1) | ((p2 - u2) << _F_P2)
                    for jg in range(jfree - jnew + 1):
                        groom = GROUP_ROOM[gs + g, ngm, jg]
                        if groom < 0:
                            continue
                        if ahead >= 0 and lacking > jfree - jnew - jg + ahead:
                            break
                        nr2 = nr + jg + (0 if valued else groom)
                        if nr2 > jhi:
                            nr2 = jhi
                        nkey = nbase | ((jused + jnew + jg) << _F_J) | (nr2 << _F_R)
                        if threshold > 0:
                            nkey |= min(nv + jg * n, threshold) << _F_V
                        moves[count, 0] = nkey
                        moves[count, 1] = val + wt * x + jo + (jg * n if joker_values else 0)
                        moves[count, 2] = np.int64(nbits)
                        moves[count, 3] = opt | (jg << 13)
                        count += 1
    return count


@njit(cache=True, inline="always")
def _joker_moves(c, key, val, bits, moves):
    """Joker step: how many jokers join the number's groups and start joker-only runs; returns successors written."""
    n = c[_C_N]
    jhi = c[_C_JHI]
    threshold = c[_C_THRESHOLD]
    valued = c[_C_VALUED] != 0
    joker_values = c[_C_JOKER_VALUES] != 0
    jused = (key >> _F_J) & 7
    rcap = (key >> _F_R) & 7
    gs = (key >> _F_GS) & 15
    gm = (key >> _F_GM) & 3
    pend = ((key >> _F_P1) & 7) + ((key >> _F_P2) & 7)
    if n == 13 and pend > 0:
        return 0  # joker-only runs that never got a piece (C4)
    frem = c[_C_FIXED_N] - ((key >> _F_FU) & 7)
    jfree = max(c[_C_JFREE] - jused, 0)
    base_key = key & ~((np.int64(63) << _F_J) | (np.int64(63) << _F_GS) | (np.int64(511) << _F_P1)
                       | (np.int64(255) << _F_V))
    v = (key >> _F_V) & 255
    heads = 0 if n == 13 else frem + (jfree if c[_C_FREE_HEADS] else 0)
    ahead = c[_C_AHEAD]
    lacking = _lacking(c, key, -1)[0] if ahead >= 0 else _ZERO
    count = 0
    for knew in range(heads + 1):
        for jg in range(frem + jfree + 1):
            jf = pend + knew + jg - frem  # free jokers placed here
            if jf < 0:
                continue
            if jf > jfree or (ahead >= 0 and lacking > jfree - jf + ahead):
                break
            room = GROUP_ROOM[gs, gm, jg]
            if room < 0:
                continue
            nr = rcap + jf + (0 if valued else room + knew * (n - 1))
            if nr > jhi:
                nr = jhi
            nkey = base_key | ((jused + jf) << _F_J) | (nr << _F_R) | (knew << _F_P1) | (pend << _F_P2)
            nkey |= min(v + (pend + knew + jg) * n, threshold) << _F_V
            moves[count, 0] = nkey
            moves[count, 1] = val + ((pend + knew + jg) * n if joker_values else 0)
            moves[count, 2] = np.int64(bits)
            moves[count, 3] = jg | (knew << 3)
            count += 1
    return count


@njit(cache=True, inline="always")
def _moves(c, s, key, val, bits, moves):
    """The successors of one state at sub-step ``s`` (constants ``c``), whichever kind of step it is."""
    if s % 5 == 4:
        return _joker_moves(c, key, val, bits, moves)
    return _colour_moves(c, key, val, bits, moves)


@njit(cache=True)
def _fresh_stamp(ht, ws_stamp):
    """A stamp no entry of ``ht`` carries yet: a new, empty table without clearing it."""
    stamp = ws_stamp[0]
    if stamp > (np.int64(1) << 30):
        ht[:] = 0
        stamp = 0
    stamp += 1
    ws_stamp[0] = stamp
    return stamp


@njit(cache=True)
def forward(lo, hi, jhi, weight, by_bits, ht, ws_stamp, s_key, s_val, s_bits, s_parent, s_opt, layer_start,
            skip, jcap, floor, joker_bonus, known, valued, threshold, fixed):
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
    stamp = _fresh_stamp(ht, ws_stamp)
    s_key[0] = 0
    s_val[0] = 0
    s_bits[0] = 0
    s_parent[0] = -1
    s_opt[0] = 0
    top = _ONE
    layer_start[0] = 0
    begin, end = _ZERO, _ONE
    order = colour_order(lo, hi)
    ctx = _contexts(lo, hi, jhi, jcap, weight, joker_bonus, known, valued, threshold, fixed, order, floor, _YES)
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
        top = _prune(end, top, _ZERO, _THREE, jhi, threshold, by_bits, ht, hb, stamp, s_key, s_val, s_bits, s_parent,
                     s_opt)
        layer_start[step + 1] = end
        begin, end = end, top
    layer_start[SUBSTEPS + 1] = top
    ws_stamp[0] = stamp
    return top


@njit(cache=True, inline="always")
def _accepts(key, jlo, threshold):
    """A finished layout: no run left shorter than three, room for every joker that must go down, and (an
    opening) the threshold reached."""
    for c in range(4):
        pair = (key >> (4 * c)) & 15
        if PAIRS[pair, 0] in (1, 2) or PAIRS[pair, 1] in (1, 2):
            return False
    return ((key >> _F_R) & 7) >= jlo and ((key >> _F_V) & 255) >= threshold


@njit(cache=True)
def summarise(begin, end, jlo, jhi, joker_weight, threshold, s_key, s_val, s_bits):
    """Best finished layout (objective with its jokers), used-type bits, whether a joker more fits."""
    best = -1
    best_val = np.int64(-(1 << 60))
    bits = np.uint64(0)
    joker_more = False
    for i in range(begin, end):
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
def path(index, s_parent, s_opt, skip, steps, out):
    """The options of the path into ``index`` (0 for skipped sub-steps), first first; returns the sub-steps
    read, which is ``steps`` when the path is whole."""
    i = index
    k = steps
    while k > 0:
        if skip[k]:
            out[k - 1] = 0
        else:
            if i <= 0:
                return -1
            out[k - 1] = s_opt[i] & ~_DEAD
            i = s_parent[i]
        k -= 1
    return steps if i == 0 else -1


@njit(cache=True)
def _record_witnesses(best, lo, jlo, threshold, doubt, covered, s_key, s_bits, s_parent, s_opt, layer_start, skip,
                      order, path_buf, wit, nwit):
    """Keep finished layouts of the last pass as witnesses: rows of ``wit`` holding the pieces of each
    numbered type the layout uses (table and staged ones included), its jokers placed and its room R.

    The best layout is kept, and any other that used a type in ``doubt`` no witness holds yet. A later
    question whose bounds a witness meets is answered by it without a pass. Returns (witnesses, types held).
    """
    for i in range(layer_start[65], layer_start[66]):
        if nwit >= wit.shape[0]:
            break
        if (i != best and (s_bits[i] & doubt & ~covered) == 0) or not _accepts(s_key[i], jlo, threshold):
            continue
        if path(i, s_parent, s_opt, skip, 65, path_buf) != 65:
            continue
        _witness_row(path_buf, order, s_key[i], wit[nwit])
        for t in range(52):
            if wit[nwit, t] > lo[t]:
                covered |= np.uint64(1) << np.uint64(t)
        nwit += 1
    return nwit, covered


@njit(cache=True, inline="always")
def _witness_row(opts, order, key, row):
    """The witness row of the layout whose path has options ``opts`` and whose last state is ``key``."""
    step = 0
    for n in range(13):
        for kc in range(4):
            row[order[n, kc] * 13 + n] = (opts[step] >> 10) & 7
            step += 1
        step += 1
    row[52] = (key >> _F_J) & 7
    row[53] = (key >> _F_R) & 7


@njit(cache=True, inline="always")
def _remember(key, value, ht, hb, stamp):
    """Map ``key`` to the largest ``value`` given for it, in the table kept in ``ht`` under ``stamp``.

    The table is a cache: a key that finds its ``PROBES`` slots taken replaces the first, so a table of any
    size never fills, and one a turn keeps stays small enough to be quick to read."""
    mask = (np.int64(1) << hb) - 1
    home = _slot(key, hb)
    h = home
    for _ in range(PROBES):
        if (ht[2 * h + 1] >> 32) != stamp:
            ht[2 * h] = key
            ht[2 * h + 1] = (stamp << 32) | value
            return
        if ht[2 * h] == key:
            if value > (ht[2 * h + 1] & 0xFFFFFFFF):
                ht[2 * h + 1] = (stamp << 32) | value
            return
        h = (h + 1) & mask
    ht[2 * home] = key
    ht[2 * home + 1] = (stamp << 32) | value


@njit(cache=True, inline="always")
def _promise(key):
    """How far a state is from finishing: its short runs and group pieces still to complete, and its jokers
    placed. The walk tries the closest states first."""
    score = ((key >> _F_GS) & 15) + ((key >> _F_J) & 7) + ((key >> _F_P1) & 7) + ((key >> _F_P2) & 7)
    for c in range(4):
        pair = (key >> (4 * c)) & 15
        score += (PAIRS[pair, 0] in (1, 2)) + (PAIRS[pair, 1] in (1, 2))
    return score


@njit(cache=True, inline="always")
def _by_promise(moves, count):
    """Sort the first ``count`` moves by ``_promise``, the closest first (stable: the moves' own order breaks ties)."""
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


FOUND, NOT_FOUND, UNKNOWN = 1, 0, -1
# States the searches of one mask may expand in all before the passes answer the rest, and those of one play's
# legality: on random play, the mean and p99 mask fell with the budget up to 10,000, not beyond; since the
# searches take turns in both directions, 30,000 cut the slowest masks' cost by a third (the mean unchanged).
MASK_BUDGET = np.int64(30000)
LEGAL_BUDGET = np.int64(10000)
FIRST_WALK = 1000  # states of a layout search's first walk in either direction (_layout_exists)
# The table of a turn's dead states (a cache, _remember), and the slots it looks at for a key: on recorded
# random play, with every mask timed beside the build before, 2^12 slots and 4 probes cut the mean most
# (2^10 to 2^16 slots, 2 to 8 probes tried); a larger table is read slower than its fewer misses save.
MEMO_BITS = np.int64(12)
PROBES = 4


# The dead states a mask's searches share are tagged with the walk's space (bits 55-56: from 1 up, from 13
# down, from 1 up with an opening's value) and, for those a search's own extra piece may have killed, its
# number (bits 57-62).
_F_SPACE, _F_SEARCH = 55, 57
UP, DOWN, VALUED_UP = 0, 1, 2
NO_EXTRA = np.int64(-1)  # the extra piece of a search no other search shares its table with (_memo)


@njit(cache=True)
def _step_of(order, t):
    """The sub-step at which ``order`` takes numbered type ``t``."""
    n = t % 13
    for kc in range(4):
        if order[n, kc] == t // 13:
            return 5 * n + kc
    return -1


@njit(cache=True, inline="always")
def _idle(ctx, s, key):
    """Sub-step ``s`` can only pass ``key`` on unchanged (option 0), as ``_moves`` would: a colour step with no
    piece of its type and no open run of its colour, or a joker step with no fixed joker, no joker-only run
    to head or carry; in either, no group begun and no opening's value to check. Most of a walk's steps."""
    if ctx[s, _C_THRESHOLD] > 0 or (key >> _F_GS) & 15 != 0:
        return False
    if s % 5 < 4:
        return ctx[s, _C_HI] == 0 and (key >> ctx[s, _C_SHIFT]) & 15 == 0
    return ctx[s, _C_FIXED_N] == 0 and ctx[s, _C_FREE_HEADS] == 0 and (key >> _F_P1) & 63 == 0


@njit(cache=True)
def exists(lo, hi, jlo, jhi, fixed, valued, threshold, budget, order, memo, s_key, path_buf, witness_out):
    """Whether some legal layout uses ``lo..hi`` of each type and ``jlo..jhi`` jokers: FOUND (its witness row,
    as ``_record_witnesses`` keeps them, in ``witness_out``), NOT_FOUND, or UNKNOWN after ``budget`` states;
    and the states it expanded.

    The questions asked are mostly answered yes, which a depth-first walk over the programme's moves finds
    along one path and its dead ends, where the forward pass builds every layer. Each state's moves are tried
    closest to finishing first (``_promise``). States that led nowhere are kept in the table ``memo`` names
    (``_memo``, a cache), so a no visits most states once, and the budget bounds the worst case; the caller
    falls back to the passes when it runs out. The walk keeps its moves in ``s_key``; ``order`` is the colour
    order it takes.
    """
    ht, hb, stamp, shared, own, extra_step = memo
    ctx = _contexts(lo, hi, jhi, jhi, np.zeros(52, dtype=np.int64), _ZERO, np.uint64(0), valued, threshold, fixed,
                    order, NO_FLOOR, _NO)
    count = np.empty(SUBSTEPS, dtype=np.int64)
    pos = np.zeros(SUBSTEPS, dtype=np.int64)
    stack = s_key[:SUBSTEPS * MOVES_CAP * 4].reshape((SUBSTEPS, MOVES_CAP, 4))  # the moves of each level
    count[0] = _moves(_step_constants(ctx, 0), 0, 0, 0, np.uint64(0), stack[0])
    _by_promise(stack[0], count[0])
    nodes = 1
    d = 0
    while True:
        if pos[d] == count[d]:  # every move of the state chosen at level d - 1 led nowhere
            d -= 1
            if d < 0:
                return NOT_FOUND, nodes
            dead = stack[d, pos[d] - 1, 0] | ((d + 1) << 48)
            tag = shared if extra_step <= d else own
            _remember((dead & ~_V_FIELD) | tag, (dead >> _F_V) & 255, ht, hb, stamp)
            continue
        key = stack[d, pos[d], 0]
        path_buf[d] = stack[d, pos[d], 3]
        pos[d] += 1
        if d == SUBSTEPS - 1:
            if _accepts(key, jlo, threshold):
                _witness_row(path_buf, order, key, witness_out)
                return FOUND, nodes
            continue
        here = (key | ((d + 1) << 48)) & ~_V_FIELD
        known_dead = _get(here | shared, ht, hb, stamp, PROBES)
        if extra_step > d:
            known_dead = max(known_dead, _get(here | own, ht, hb, stamp, PROBES))
        if known_dead >= (key >> _F_V) & 255:
            continue  # it, or the same state with as much value laid, led nowhere
        if nodes >= budget:
            return UNKNOWN, nodes
        nodes += 1
        if _idle(ctx, d + 1, key):
            stack[d + 1, 0, 0] = key
            stack[d + 1, 0, 3] = 0
            count[d + 1] = 1
        else:
            count[d + 1] = _moves(_step_constants(ctx, d + 1), d + 1, key, 0, np.uint64(0), stack[d + 1])
            _by_promise(stack[d + 1], count[d + 1])
        pos[d + 1] = 0
        d += 1


@njit(cache=True)
def _raise_value(row, hi, jlo, threshold):
    """Make the layout ``row`` worth ``threshold`` as an opening by adding valid sets of the pieces it leaves
    over (``hi`` less its own), the most valuable first; returns whether it could.

    Its jokers count one each, the least they can stand for (those it must place but does not, ``jlo``, go
    in its room), so the value reached is never more than the layout is worth.
    """
    value = max(row[52], jlo)
    for t in range(52):
        value += (t % 13 + 1) * row[t]
    left = hi - row[:52]
    for n in range(12, -1, -1):
        if value >= threshold:
            return True
        colours = 0
        for c in range(4):
            colours += left[c * 13 + n] > 0
        if colours >= 3:  # a group of every colour left
            for c in range(4):
                if left[c * 13 + n] > 0:
                    _take(c * 13 + n, row, left)
                    value += n + 1
        for c in range(4):  # runs of three ending at n
            base = c * 13
            while n >= 2 and left[base + n] > 0 and left[base + n - 1] > 0 and left[base + n - 2] > 0:
                for m in range(n - 2, n + 1):
                    _take(base + m, row, left)
                value += 3 * n
    return value >= threshold


@njit(cache=True, inline="always")
def _mirror(counts, out):
    """``counts`` of the 52 numbered types with every number n read as 14 - n."""
    for c in range(4):
        for n in range(13):
            out[c * 13 + 12 - n] = counts[c * 13 + n]


@njit(cache=True)
def _orders(lo, hi):
    """The colour orders of the walks from 1 up and from 13 down (``colour_order`` of the mirrored counts)."""
    lo_m, hi_m = np.empty(52, dtype=np.int64), np.empty(52, dtype=np.int64)
    _mirror(lo, lo_m)
    _mirror(hi, hi_m)
    orders = np.empty((2, 13, 4), dtype=np.int64)
    orders[UP] = colour_order(lo, hi)
    orders[DOWN] = colour_order(lo_m, hi_m)
    return orders


@njit(cache=True, inline="always")
def _memo(ht, hb, stamp, space, orders, extra):
    """The dead-state table of one walk (see ``exists``) among searches that share ``stamp``.

    The searches of a turn ask for a layout of the pieces staged (never fewer as the turn goes on) and one
    piece more, of type ``extra`` (52: a joker; ``NO_EXTRA``: no other search shares the table). A state that led
    nowhere after its walk had passed the extra piece's sub-step leads nowhere in any of them, as each asks
    at least as much from there on; one before it, only in the searches for the same extra piece."""
    shared = np.int64(space) << _F_SPACE
    if extra < 0:
        step = NO_EXTRA  # no sub-step: every dead state is its own search's
    elif extra == 52:
        step = SUBSTEPS
    elif space == DOWN:
        step = _step_of(orders[DOWN], (extra // 13) * 13 + 12 - extra % 13)
    else:
        step = _step_of(orders[UP], extra)
    return ht, hb, stamp, shared, shared | (np.int64(extra + 1) << _F_SEARCH), step


@njit(cache=True)
def _layout_exists(lo, hi, jlo, jhi, fixed, budget, orders, ht, hb, stamp, extra, s_key, path_buf, found):
    """``exists`` for any layout (no opening's value), walking the numbers from 13 down and from 1 up in
    turn, each walk given four times the states of the last before the other starts again.

    The sets read the same either way along the numbers, so the answers agree, but a walk's cost does not:
    on logged random play one direction often needed a tenth of the other's states, and neither was the
    cheaper one throughout (from the top in most card-edition positions, whose jokers keep their numbers,
    from the bottom in more of the tile game's). Taking turns bounds a question's cost by a few times the
    cheaper walk's; from the top first, as it was the cheaper on the whole. A walk starting again keeps the
    dead states of its direction's walks before.
    """
    lo_m, hi_m, fixed_m = np.empty(52, dtype=np.int64), np.empty(52, dtype=np.int64), np.empty_like(fixed)
    _mirror(lo, lo_m)
    _mirror(hi, hi_m)
    fixed_m[0] = fixed[0]
    for n in range(1, 14):
        fixed_m[n] = fixed[14 - n]
    down = _memo(ht, hb, stamp, DOWN, orders, extra)
    up = _memo(ht, hb, stamp, UP, orders, extra)
    spent = 0
    turn = FIRST_WALK
    while spent < budget:
        walk = min(turn, budget - spent)
        answer, used = exists(lo_m, hi_m, jlo, jhi, fixed_m, _NO, _ZERO, walk, orders[DOWN], down, s_key, path_buf,
                              found)
        spent += used
        if answer == FOUND:
            _mirror(found[:52].copy(), found)
        if answer != UNKNOWN or spent >= budget:
            return answer, spent
        walk = min(turn, budget - spent)
        answer, used = exists(lo, hi, jlo, jhi, fixed, _NO, _ZERO, walk, orders[UP], up, s_key, path_buf, found)
        spent += used
        if answer != UNKNOWN:
            return answer, spent
        turn *= 4
    return UNKNOWN, spent


@njit(cache=True)
def _search(lo, hi, jlo, jhi, fixed, valued, threshold, budget, orders, ht, hb, stamp, extra, s_key, path_buf,
            found):
    """``exists``, asked first without an opening's value: the value multiplies the states, and a layout of
    the pieces asked for is mostly worth the threshold once sets of the rest are added (``_raise_value``),
    while with no layout at all there is no opening either. The walks keep their dead states in ``ht`` under
    ``stamp`` (``_memo``)."""
    if valued and threshold <= 0:
        return exists(lo, hi, jlo, jhi, fixed, valued, threshold, budget, orders[UP],
                      _memo(ht, hb, stamp, VALUED_UP, orders, extra), s_key, path_buf, found)
    answer, spent = _layout_exists(lo, hi, jlo, jhi, fixed, budget, orders, ht, hb, stamp, extra, s_key, path_buf,
                                   found)
    if not valued or answer != FOUND or _raise_value(found, hi, jlo, threshold):
        return answer, spent
    more, spent_more = exists(lo, hi, jlo, jhi, fixed, valued, threshold, budget - spent, orders[UP],
                              _memo(ht, hb, stamp, VALUED_UP, orders, extra), s_key, path_buf, found)
    return more, spent + spent_more


@njit(cache=True)
def _lone_search(lo, hi, jlo, jhi, fixed, valued, threshold, budget, ht, ws_stamp, s_key, path_buf, found):
    """``_search`` of a question no other search shares, with a table of its own."""
    stamp = _fresh_stamp(ht, ws_stamp)
    return _search(lo, hi, jlo, jhi, fixed, valued, threshold, budget, _orders(lo, hi), ht, _hash_bits(budget),
                   stamp, NO_EXTRA, s_key, path_buf, found)


@njit(cache=True)
def _mask_passes(lo, hi, jlo, jhi, doubt, joker_doubt, weight, ht, ws_stamp, s_key, s_val, s_bits, s_parent, s_opt,
                 layer_start, skip, fixed, valued, threshold, path_buf, wit, nwit):
    """Which types of ``doubt`` fit in some legal layout, and (if ``joker_doubt``) whether a joker more fits;
    whether the store sufficed; and the witnesses kept (``_record_witnesses``, until ``wit`` is full).

    A first pass with no joker standing in for a piece is small and often shows every type in ``doubt`` to
    fit; then one with at most one joker standing in, still far smaller than the exact pass that follows if
    types remain in doubt. Each pass compares states only on the types still in doubt. An opening
    (``valued``) carries its value laid in the state, and only layouts reaching ``threshold`` count.
    """
    bits = np.uint64(0)
    joker_more = False
    jcap = _ZERO
    order = colour_order(lo, hi)
    covered = np.uint64(0)
    while True:
        top = forward(lo, hi, jhi, weight, _YES, ht, ws_stamp, s_key, s_val, s_bits, s_parent, s_opt,
                      layer_start, skip, jcap, NO_FLOOR, _ZERO, bits | ~doubt, valued, threshold, fixed)
        if top < 0:
            return bits, joker_more, False, nwit
        best, more_bits, more_joker = summarise(layer_start[65], layer_start[66], jlo, jhi, _ONE, threshold, s_key,
                                                s_val, s_bits)
        bits |= more_bits & doubt
        joker_more = joker_more or more_joker
        if best >= 0 and nwit < wit.shape[0]:
            nwit, covered = _record_witnesses(best, lo, jlo, threshold, doubt, covered, s_key, s_bits, s_parent,
                                              s_opt, layer_start, skip, order, path_buf, wit, nwit)
        if jcap >= jhi or (doubt & ~bits == 0 and (joker_more or not joker_doubt)):
            break
        jcap = 1 if jcap == 0 else jhi
    return bits, joker_more, True, nwit


@njit(cache=True)
def _bounds(table, rack, staged):
    """lo, hi, jlo, jhi of a position, and the types in doubt (one more than staged is in the rack)."""
    lo = np.empty(52, dtype=np.int64)
    hi = np.empty(52, dtype=np.int64)
    doubt = np.uint64(0)
    for t in range(52):
        lo[t] = table[t] + staged[t]
        hi[t] = table[t] + rack[t]
        if rack[t] > staged[t]:
            doubt |= np.uint64(1) << np.uint64(t)
    return lo, hi, table[52] + staged[52], table[52] + rack[52], doubt


@njit(cache=True)
def mask(table, rack, staged, fixed, weight, valued, threshold, ht, ws_stamp, s_key, s_val, s_bits, s_parent,
         s_opt, layer_start, skip, path_buf):
    """The whole mask of a position in one compiled call, asking every question afresh: of an opened player
    (the table given), or of an opening (``valued``, an empty table: the rack alone, in valid sets, worth
    ``threshold`` or more, T4/K3).

    Returns the 53 mask bools and whether the store sufficed.
    """
    lo, hi, jlo, jhi, doubt = _bounds(table, rack, staged)
    out = np.zeros(53, dtype=np.bool_)
    bits, joker_more, ok, _ = _mask_passes(lo, hi, jlo, jhi, doubt, jhi > jlo, weight, ht, ws_stamp, s_key, s_val,
                                           s_bits, s_parent, s_opt, layer_start, skip, fixed, valued, threshold,
                                           path_buf, np.zeros((0, 54), dtype=np.int64), _ZERO)
    for t in range(52):
        out[t] = (bits >> np.uint64(t)) & np.uint64(1)
    out[52] = joker_more
    return out, ok


@njit(cache=True, inline="always")
def _fewest_jokers_set(t, counts, jokers):
    """The valid set of three holding a piece of type ``t``, its other pieces from ``counts``, that needs the
    fewest of ``jokers`` to fill what is missing: (jokers it needs, the first number of the run or -1 for a
    group), or (-1, 0) when there is none."""
    n = t % 13
    base = t - n
    others = 0
    for c in range(4):
        if c * 13 != base and counts[c * 13 + n] > 0:
            others += 1
    for jk in range(min(jokers, 2) + 1):
        if others >= 2 - jk:
            return jk, -1
        for start in range(max(n - 2, 0), min(n, 10) + 1):  # runs of three holding n
            missing = 0
            for m in range(start, start + 3):
                if m != n and counts[base + m] == 0:
                    missing += 1
            if missing == jk:
                return jk, start
    return -1, 0


@njit(cache=True, inline="always")
def _could_fit(t, hi, jhi):
    """A necessary condition for a piece of type ``t`` to lie in any valid set of ``hi`` and ``jhi`` free
    jokers (no joker fixed to a number): enough other colours at its number for a group, or enough
    neighbours of its colour for a run, with the jokers filling what is missing."""
    return jhi >= 2 or _fewest_jokers_set(t, hi, jhi)[0] >= 0


@njit(cache=True, inline="always")
def _witness_holds(row, lo, jlo, extra):
    """Witness ``row`` holds at least ``lo`` (and ``jlo`` jokers), plus one more of ``extra`` (-1: nothing)."""
    for t in range(52):
        if row[t] < lo[t] + (1 if t == extra else 0):
            return False
    return row[53] >= jlo + (1 if extra == 52 else 0)


@njit(cache=True, inline="always")
def _take(t, x, left):
    x[t] += 1
    left[t] -= 1


@njit(cache=True)
def _add_set(t, x, left, jokers):
    """Add to the layout ``x`` a new valid set of leftover pieces (``left``) holding a piece of type ``t``,
    with as few of the ``jokers`` left as possible: a group or a run of three. Returns (jokers used, value
    of the set), or (-1, 0) when there is none."""
    jk, start = _fewest_jokers_set(t, left, jokers)
    if jk < 0:
        return -1, 0
    n = t % 13
    base = t - n
    if start < 0:  # a group
        _take(t, x, left)
        need = 2 - jk
        for c in range(4):
            if need > 0 and c * 13 != base and left[c * 13 + n] > 0:
                _take(c * 13 + n, x, left)
                need -= 1
        return jk, 3 * (n + 1)
    for m in range(start, start + 3):
        if m == n or left[base + m] > 0:
            _take(base + m, x, left)
    return jk, 3 * start + 6


@njit(cache=True)
def _extend(row, lo, hi, jlo, jhi, extra, out):
    """Make ``row``, a legal layout of this table and rack, hold ``lo`` plus one more ``extra`` by adding
    new sets of the pieces it leaves over; the result goes to ``out``. Returns whether it could.

    Sets of the player's own pieces laid beside a legal layout keep it legal (and an opening's value only
    grows), so the result is a legal layout too: a witness found without a search. It places every joker
    it holds (its room counts none spare).
    """
    if row[53] < jlo:
        return False  # it could not hold the staged jokers
    jokers = max(row[52], jlo)  # jokers the layout holds; more than it places are its spares
    spare = jhi - jokers
    added = 0
    for t in range(52):
        out[t] = row[t]
    left = hi - out[:52]
    for t in range(52):
        want = lo[t] + (1 if t == extra else 0)
        while out[t] < want:
            used, _ = _add_set(t, out, left, spare - added)
            if used < 0:
                return False
            added += used
    if extra == 52:
        return False
    out[52] = jokers + added
    out[53] = jokers + added
    return True


@njit(cache=True)
def turn_mask(table, rack, staged, fixed, valued, threshold, last_mask, same_rack, last_staged, wit, nwit, memo,
              memo_counter, turn_memo, ht, ws_stamp, s_key, s_val, s_bits, s_parent, s_opt, layer_start, skip,
              path_buf):
    """The mask of a position given what the turn has learnt so far; returns (53 bools, store sufficed,
    witnesses kept, whether the staged pieces are a legal play now): the whole of a move mask but the
    joker swaps, in one call.

    ``last_mask`` (53 bools), the mask asked before with ``last_staged`` staged, is a superset of the answer
    when the table and rack are the same (``same_rack``) and no staged piece went back, since a play that holds
    one more staged piece holds everything staged before. ``wit[:nwit]`` are legal layouts of this table and
    rack found earlier in the turn; one that holds everything staged plus a piece proves that piece without
    a search. A witness short of a staged piece is mended with a new set of the pieces it leaves over
    (``_extend``), or dropped, and one short of a piece in doubt extended the same way. Types no
    set could hold are ruled out by ``_could_fit``. Each type left is searched depth first (``exists``), within
    a budget the mask's searches share: the layout found is a witness, and proves every other type it holds
    too. The searches keep the states that led nowhere in ``memo`` for the rest of the turn (``turn_memo``:
    their stamp and the colour orders they were taken in; ``memo_counter`` hands out stamps): with
    more pieces staged, or one more asked for, such a state still leads nowhere (``_memo``). Only the types
    left unknown when the budget runs out go to the passes, which compare states on those types alone and add
    the layouts they find to the witnesses.
    """
    lo, hi, jlo, jhi, _ = _bounds(table, rack, staged)
    candidates = np.ones(53, dtype=np.bool_)
    if same_rack and np.all(staged >= last_staged):
        candidates = last_mask
    else:
        turn_memo[0] = 0  # the dead states kept answer for no other table, rack or fewer pieces staged
    legal, legal_ok = False, True
    if staged.sum() > 0:  # are the staged pieces a legal play now (COMMIT)?
        legal, legal_ok = legal_layout(lo, lo, jlo, jlo, fixed, valued and threshold > 0, threshold, ht,
                                       ws_stamp, s_key, s_val, s_bits, s_parent, s_opt, layer_start, skip)
    kept = _ZERO
    for k in range(nwit):  # a witness short of a staged piece is mended with a set holding it, or dropped
        if _witness_holds(wit[k], lo, jlo, NO_EXTRA) or _extend(wit[k], lo, hi, jlo, jhi, NO_EXTRA, wit[k]):
            wit[kept] = wit[k]
            kept += 1
    has_fixed = fixed[1:].sum() > 0
    out = np.zeros(53, dtype=np.bool_)
    mended = np.empty(54, dtype=np.int64)
    doubt = np.uint64(0)
    for t in range(53):
        if not candidates[t] or rack[t] <= staged[t]:
            continue
        for k in range(kept):
            if _witness_holds(wit[k], lo, jlo, t):
                out[t] = True
                break
        if out[t] or t == 52:
            continue
        if not has_fixed and not _could_fit(t, hi, jhi):
            continue
        for k in range(kept):
            if _extend(wit[k], lo, hi, jlo, jhi, t, mended):
                out[t] = True
                if kept < wit.shape[0]:
                    wit[kept] = mended
                    kept += 1
                break
        if not out[t]:
            doubt |= np.uint64(1) << np.uint64(t)
    joker_doubt = candidates[52] and rack[52] > staged[52] and not out[52]
    found = np.empty(54, dtype=np.int64)
    budget = MASK_BUDGET
    orders = turn_memo[1:].reshape((2, 13, 4))
    for t in range(53):  # a short search for each type left, whose layout is a witness for others too
        if not (joker_doubt if t == 52 else (doubt >> np.uint64(t)) & np.uint64(1)):
            continue
        if turn_memo[0] == 0:
            orders[:] = _orders(lo, hi)
            turn_memo[0] = _fresh_stamp(memo, memo_counter)
        if t < 52:
            lo[t] += 1
        answer, spent = _search(lo, hi, jlo + (t == 52), jhi, fixed, valued, threshold, budget, orders, memo,
                                MEMO_BITS, turn_memo[0], t, s_key, path_buf, found)
        if t < 52:
            lo[t] -= 1
        budget -= spent
        if answer == UNKNOWN:
            break  # the passes answer the rest at once
        if answer == FOUND:
            for u in range(52):
                if (doubt >> np.uint64(u)) & np.uint64(1) and _witness_holds(found, lo, jlo, u):
                    out[u] = True
                    doubt &= ~(np.uint64(1) << np.uint64(u))
            if joker_doubt and _witness_holds(found, lo, jlo, 52):
                out[52] = True
                joker_doubt = False
            if kept < wit.shape[0]:
                wit[kept] = found
                kept += 1
        if t == 52:
            joker_doubt = False
        else:
            doubt &= ~(np.uint64(1) << np.uint64(t))
    if doubt == 0 and not joker_doubt:
        return out, legal_ok, kept, legal
    # each stored state keeps its path with the most pieces: the witnesses hold as many types as they can
    weight = np.ones(52, dtype=np.int64)
    bits, joker_more, ok, kept = _mask_passes(lo, hi, jlo, jhi, doubt, joker_doubt, weight, ht, ws_stamp, s_key,
                                              s_val, s_bits, s_parent, s_opt, layer_start, skip, fixed, valued,
                                              threshold, path_buf, wit, kept)
    for t in range(52):
        if (bits >> np.uint64(t)) & np.uint64(1):
            out[t] = True
    if joker_doubt:
        out[52] = joker_more
    return out, ok and legal_ok, kept, legal


@njit(cache=True)
def one_pass(lo, hi, jlo, jhi, weight, joker_weight, ht, ws_stamp, s_key, s_val, s_bits, s_parent, s_opt,
             layer_start, skip, jcap, floor, bonus, valued, threshold, fixed):
    """One forward pass for the best play: (store index of the best layout or -1, its value), or (-2, 0)."""
    top = forward(lo, hi, jhi, weight, _NO, ht, ws_stamp, s_key, s_val, s_bits, s_parent, s_opt,
                  layer_start, skip, jcap, floor, bonus, np.uint64(0), valued, threshold, fixed)
    if top < 0:
        return -2, np.int64(0)
    best, _, _ = summarise(layer_start[65], layer_start[66], jlo, jhi, joker_weight, threshold, s_key, s_val,
                                s_bits)
    if best < 0:
        return -1, NO_FLOOR
    jokers = (s_key[best] >> _F_R) & 7 if joker_weight >= 0 else max((s_key[best] >> _F_J) & 7, jlo)
    return best, s_val[best] + joker_weight * jokers


@njit(cache=True)
def legal_layout(lo, hi, jlo, jhi, fixed, valued, threshold, ht, ws_stamp, s_key, s_val, s_bits, s_parent, s_opt,
                 layer_start, skip):
    """Whether some layout in valid sets holds at least ``lo`` and at most ``hi`` (``jlo``..``jhi`` jokers, and
    the ``fixed`` ones), worth ``threshold`` for an opening (``valued``): with ``lo == hi`` the legality of a
    play, otherwise whether any legal play holds the staged pieces; in one compiled call.

    Most plays asked about are far from legal, and two necessary conditions say so without a pass: an
    opening needs the value, and every piece needs enough neighbours for some set (``_could_fit``). A legal
    play asked about is mostly found at once by a depth-first search (``exists``); only when its budget runs
    out do the passes try no joker standing in for a piece, at most one, and all, the first two being far
    smaller.
    """
    total = jhi
    value = 13 * jhi
    for t in range(52):
        total += hi[t]
        value += (t % 13 + 1) * hi[t]
    has_fixed = fixed[1:].sum() > 0
    if (total < 3 and not has_fixed) or (valued and value < threshold):
        return False, True
    if not has_fixed:
        for t in range(52):
            if lo[t] > 0 and not _could_fit(t, hi, jhi):
                return False, True
    answer, _ = _lone_search(lo, hi, jlo, jhi, fixed, valued, threshold, LEGAL_BUDGET, ht, ws_stamp, s_key,
                             np.empty(SUBSTEPS, dtype=np.int64), np.empty(54, dtype=np.int64))
    if answer != UNKNOWN:
        return answer == FOUND, True
    if valued:  # T4/K3: the most valuable layout, searched with the threshold as a floor
        weight = np.empty(52, dtype=np.int64)
        for t in range(52):
            weight[t] = t % 13 + 1
        best, got = one_pass(lo, hi, jlo, jhi, weight, _ZERO, ht, ws_stamp, s_key, s_val, s_bits, s_parent, s_opt,
                             layer_start, skip, jhi, threshold, 13 * jhi, _YES, _ZERO, fixed)
        return best >= 0 and got >= threshold, best != -2
    weight = np.ones(52, dtype=np.int64)
    jcap = _ZERO
    while True:
        best, _ = one_pass(lo, hi, jlo, jhi, weight, _ONE, ht, ws_stamp, s_key, s_val, s_bits, s_parent, s_opt,
                           layer_start, skip, jcap, NO_FLOOR, _ZERO, _NO, _ZERO, fixed)
        if best == -2:
            return False, False
        if best >= 0 or jcap >= jhi:
            return best >= 0, True
        jcap = 1 if jcap == 0 else jhi


@njit(cache=True)
def play_path(lo, jlo, fixed, valued, threshold, ht, ws_stamp, s_key, path_buf):
    """The choices (in ``path_buf``) of a layout of exactly ``lo`` and ``jlo`` jokers found by the search,
    and the key of its last state holding its jokers placed and room; (UNKNOWN, 0) when the budget runs out,
    (NOT_FOUND, 0) when there is none. The layout a commit lays down, for a play known legal: the search
    finds one at once where the best play's passes build every layer."""
    found = np.empty(54, dtype=np.int64)
    orders = _orders(lo, lo)
    memo = _memo(ht, _hash_bits(LEGAL_BUDGET), _fresh_stamp(ht, ws_stamp), UP, orders, NO_EXTRA)
    answer, _ = exists(lo, lo, jlo, jlo, fixed, valued, threshold, LEGAL_BUDGET, orders[UP], memo, s_key,
                       path_buf, found)
    if answer != FOUND:
        return answer, np.int64(0)
    return answer, (found[52] << _F_J) | (found[53] << _F_R)


@njit(cache=True)
def best_layout(lo, hi, jlo, jhi, weight, joker_weight, ht, ws_stamp, s_key, s_val, s_bits, s_parent, s_opt,
                layer_start, skip, valued, threshold, fixed):
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
        return one_pass(lo, hi, jlo, jhi, weight, joker_weight, ht, ws_stamp, s_key, s_val, s_bits, s_parent,
                        s_opt, layer_start, skip, _ZERO, NO_FLOOR, bonus, valued, threshold, fixed)[0]
    best, floor = one_pass(lo, hi, jlo, jhi, weight, joker_weight, ht, ws_stamp, s_key, s_val, s_bits,
                           s_parent, s_opt, layer_start, skip, _ZERO, NO_FLOOR, bonus, valued, threshold, fixed)
    if best == -2 or (best >= 0 and floor >= ceiling):
        return best
    best, value = one_pass(lo, hi, jlo, jhi, weight, joker_weight, ht, ws_stamp, s_key, s_val, s_bits,
                           s_parent, s_opt, layer_start, skip, jhi, ceiling, bonus, valued, threshold, fixed)
    if best == -2 or (best >= 0 and value >= ceiling):
        return best
    return one_pass(lo, hi, jlo, jhi, weight, joker_weight, ht, ws_stamp, s_key, s_val, s_bits, s_parent,
                    s_opt, layer_start, skip, jhi, max(floor, value), bonus, valued, threshold, fixed)[0]


@njit(cache=True)
def used_pieces(index, lo, hi, jlo, joker_weight, s_key, s_parent, s_opt, skip, out_path, used):
    """The pieces of each type (jokers last) in the layout at ``index``; fills ``out_path`` with its options.

    Returns False when the path is not whole. Spare jokers count as the objective wants them: all that
    fit (``joker_weight >= 0``), or only those that must go down.
    """
    if path(index, s_parent, s_opt, skip, 65, out_path) != 65:
        return False
    key = s_key[index]
    row = np.empty(54, dtype=np.int64)
    _witness_row(out_path, colour_order(lo, hi), key, row)
    used[:52] = row[:52]
    used[52] = row[53] if joker_weight >= 0 else max(row[52], jlo)
    return True

