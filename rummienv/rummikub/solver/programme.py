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
from collections import namedtuple

import numpy as np
from numba import njit

from .store import (
    _F_FU,
    _F_GM,
    _F_GS,
    _F_J,
    _F_P1,
    _F_P2,
    _F_R,
    _F_V,
    SUBSTEPS,
    ZERO,
    fixed_placed,
    group_most,
    group_pieces,
    joker_room,
    joker_runs,
    jokers_placed,
    run_pair,
    value_laid,
)

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
MOVES_CAP = 1024  # successors of one state: at most 65 run choices x 3 groups x 5 group jokers, or 9 x 9


# The bounds of one question to the programme: how many of each numbered type a layout uses (``lo`` to ``hi``,
# table and staged pieces forced, rack pieces optional), how many jokers (``jlo`` to ``jhi``) and the jokers
# fixed to each number (``fixed``, K5); and for an opening (``valued``, T4/K3) the value it must reach
# (``threshold``; 0: the jokers' numbers add to the objective instead). Python hands a compiled entry point
# the same seven as a plain tuple, which numba's dispatch types three times faster than the named tuple, and
# the entry point names them.
Question = namedtuple("Question", ("lo", "hi", "jlo", "jhi", "fixed", "valued", "threshold"))


@njit(cache=True)
def _contexts(q, weight, jcap, joker_bonus, known, floor, order, ahead):
    """The constants of every sub-step, computed once so that each state's moves only read them; ``ahead``: the
    moves look ahead at the jokers that open runs and groups will need (``_lacking``)."""
    lo, hi, jhi, fixed, valued, threshold = q.lo, q.hi, q.jhi, q.fixed, q.valued, q.threshold
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


# A sub-step's row of ``_contexts`` by name (``_step_constants``): the ``_C_*`` columns, the last three four
# colours wide.
Step = namedtuple("Step", ("n", "shift", "lo", "hi", "weight", "type_bit", "avail1", "avail2", "rest_group", "last",
                           "fixed_n", "fix_next", "to_come", "points_to_come", "free_heads", "jhi", "jfree", "floor",
                           "threshold", "valued", "joker_values", "ahead", "next1", "next2", "later"))


@njit(cache=True, inline="always")
def _step_constants(ctx, s):
    """Sub-step ``s``'s row of ``_contexts`` as a ``Step``: a layer's moves read it once, and the compiler keeps
    it out of the loop over states."""
    return Step(ctx[s, 0], ctx[s, 1], ctx[s, 2], ctx[s, 3], ctx[s, 4], ctx[s, 5], ctx[s, 6], ctx[s, 7], ctx[s, 8],
                ctx[s, 9], ctx[s, 10], ctx[s, 11], ctx[s, 12], ctx[s, 13], ctx[s, 14], ctx[s, 15], ctx[s, 16],
                ctx[s, 17], ctx[s, 18], ctx[s, 19], ctx[s, 20], ctx[s, 21],
                (ctx[s, 22], ctx[s, 23], ctx[s, 24], ctx[s, 25]), (ctx[s, 26], ctx[s, 27], ctx[s, 28], ctx[s, 29]),
                (ctx[s, 30], ctx[s, 31], ctx[s, 32], ctx[s, 33]))


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
        pair = run_pair(key, 4 * k)
        short += max(SHORT_RUNS[pair] - c.next1[k], 0) + max(SINGLE_RUNS[pair] - c.next2[k], 0)
        spare = c.later[k] - SHORT_RUNS[pair]
        ones += spare == 1
        twos += spare >= 2
    return short, ones, twos


# What a colour step reads of the state it moves from (``_colour_state``): its colour's open runs (``ra`` >=
# ``rb``), jokers placed and room, group pieces and the most of one colour, joker-only runs and fixed jokers
# placed, value laid, fixed jokers of the number still to place, free jokers left, the key less the fields
# the step rewrites, what the other colours lack (``_lacking``), the state's value, and the fewest pieces of
# the step's type a move must lay to reach the floor (``fewest``; more than the type has: none can).
ColourState = namedtuple("ColourState", ("ra", "rb", "jused", "rcap", "gs", "gm", "p1", "p2", "fu", "v", "frem",
                                         "jfree", "base_key", "others", "later1", "later2", "val", "fewest"))


@njit(cache=True, inline="always")
def _colour_state(c, key, val):
    """The ``ColourState`` of ``key`` (value ``val``) at the colour step of constants ``c``."""
    clear = ~((np.int64(15) << c.shift) | (np.int64(63) << _F_J) | (np.int64(63) << _F_GS)
              | (np.int64(511) << _F_P1) | (np.int64(255) << _F_V))
    pair = run_pair(key, c.shift)
    jused = jokers_placed(key)
    fu = fixed_placed(key)
    others, later1, later2 = _lacking(c, key, c.shift) if c.ahead >= 0 else (ZERO, ZERO, ZERO)
    # the floor asks for this many pieces of the type at least (jokers' values aside, which only raise it)
    fewest = c.lo
    lack = c.floor - val - c.to_come
    if lack > 0 and c.joker_values == 0:
        fewest = max(c.lo, (lack + c.weight - 1) // c.weight) if c.weight > 0 else c.hi + 1
    p1, p2 = joker_runs(key)
    return ColourState(PAIRS[pair, 0], PAIRS[pair, 1], jused, joker_room(key), group_pieces(key),
                       group_most(key), p1, p2, fu, value_laid(key),
                       c.fixed_n - fu, max(c.jfree - jused, 0), key & clear, others, later1, later2, val, fewest)


@njit(cache=True, inline="always")
def _continued(cont, ra, rb, n):
    """Which of a colour's open runs (classes ``ra`` >= ``rb``) the bits of ``cont`` continue: whether that
    may be (a run shorter than three must go on, and must still be able to reach three by 13), how many
    go on, how many of three or more close, and the two runs' classes after the step (0: closed, or none)."""
    ca = cont & 1
    cb = (cont >> 1) & 1
    if ((ca and ra == 0) or (cb and rb == 0) or (not ca and 0 < ra < 3) or (not cb and 0 < rb < 3)
            or (ra == rb and cont == 2)):
        return False, ZERO, ZERO, ZERO, ZERO
    n_a = min(ra + 1, 3) if ca else 0
    n_b = min(rb + 1, 3) if cb else 0
    if (0 < n_a < 3 and n + 3 - n_a > 13) or (0 < n_b < 3 and n + 3 - n_b > 13):
        return False, ZERO, ZERO, ZERO, ZERO
    nclose = (1 if (ra == 3 and not ca) else 0) + (1 if (rb == 3 and not cb) else 0)
    return True, ca + cb, nclose, n_a, n_b


@njit(cache=True, inline="always")
def _runs_after(c, s, w, runs, jokers, real):
    """A colour step's open runs once the new runs of ``NEW_RUNS`` row ``w`` are added, given the runs
    continued (``runs``: ``_continued``'s count, closed, classes) and the jokers (``jokers``: continuing runs,
    fixed ones among them, joker-only runs given their first piece, of one joker and of more); ``real``
    pieces of the type go into runs. Returns whether that may be, the free jokers it places, what its jokers
    stand for (an opening), what the runs then lack, the runs' pair and the room R."""
    k, nclose, n_a, n_b = runs
    y, yf, u1, u2 = jokers
    n = c.n
    vi = c.valued
    if real + 2 < s.fewest or not NEW_RUN_INFO[vi, n, _W_OK, w]:
        return False, ZERO, ZERO, ZERO, ZERO, ZERO
    jnew = y - yf + NEW_RUN_INFO[vi, n, _W_JOKERS, w]
    if jnew > s.jfree:
        return False, ZERO, ZERO, ZERO, ZERO, ZERO
    room = 0 if vi != 0 else nclose * (14 - n) + NEW_RUN_INFO[vi, n, _W_ROOM, w]
    jv = y * n + NEW_RUN_INFO[vi, n, _W_JVAL, w] if vi != 0 else 0
    # a run closing where a plain one of its colour starts is one longer run; that matters only while the room
    # is short
    if NEW_RUN_INFO[vi, n, _W_PLAIN, w] > 0 and nclose > 0 and s.rcap == c.jhi:
        return False, ZERO, ZERO, ZERO, ZERO, ZERO
    m = NEW_RUNS[w, 0]
    l0 = n_a
    l1 = n_b
    for e in range(m + u1 + u2):
        ln = NEW_RUN_INFO[vi, n, _W_LEN + e, w] if e < m else (2 if e < m + u1 else 3)
        if l0 == 0:
            l0 = ln
        else:
            l1 = ln
    if l0 == 0 and l1 > 0:
        l0 = l1
        l1 = 0
    short = (1 if 0 < l0 < 3 else 0) + (1 if 0 < l1 < 3 else 0)
    ones = (1 if l0 == 1 else 0) + (1 if l1 == 1 else 0)
    lacking = max(short - c.avail1, 0) + max(ones - c.avail2, 0)
    if lacking > s.jfree - jnew + c.fix_next:
        return False, ZERO, ZERO, ZERO, ZERO, ZERO
    return True, jnew, jv, s.others + lacking, PAIR_INDEX[l0, l1], min(s.rcap + jnew + room, c.jhi)


@njit(cache=True, inline="always")
def _groups_fit(c, s, g, x, jnew, jv, lacking, yf):
    """``g`` more pieces of the type go into the number's groups (``x`` laid in all): whether the groups can
    still be formed, the jokers they would need can still be placed (look-ahead), the floor and an opening's
    threshold can still be reached; and the groups' most of one colour and the value laid after it."""
    ngm = s.gm if s.gm > g else g
    jleft = s.jfree - jnew
    if not GROUP_VIABLE[s.gs + g, ngm, c.rest_group, min(jleft + s.frem - yf, 8)]:
        return False, ngm, ZERO
    if c.ahead >= 0 and c.last == 0 and lacking + GROUP_JOKERS[s.gs + g, ngm, s.later1, s.later2] > jleft + c.ahead:
        return False, ngm, ZERO
    if s.val + c.weight * x + (jv if c.joker_values != 0 else 0) + c.to_come < c.floor:
        return False, ngm, ZERO
    nv = ZERO
    if c.threshold > 0:
        nv = min(s.v + c.n * x + jv, c.threshold)
        if nv + c.points_to_come < c.threshold:
            return False, ngm, ZERO
    return True, ngm, nv


@njit(cache=True, inline="always")
def _colour_moves(c, key, val, bits, moves):
    """Colour step: how many of its type go down, into which runs (open, new, joker-led) and groups; returns how
    many successors of the state it wrote. The loops go by the open runs continued (``cont``), the jokers that
    continue them or head joker-only runs given a piece (``yu``), the new runs (``w``, a row of ``NEW_RUNS``),
    the pieces put in groups (``g``) and, at the last colour of a number, the groups' jokers (``jg``)."""
    s = _colour_state(c, key, val)
    if s.fewest > c.hi:
        return 0
    joker_values = c.joker_values != 0
    count = 0
    for cont in range(4):
        ok, k, nclose, n_a, n_b = _continued(cont, s.ra, s.rb, c.n)
        if not ok:
            continue
        # y jokers continue runs (yf of them fixed), u1/u2 joker-only runs get their first piece
        ny = min(k, s.jfree + s.frem) + 1
        n1 = min(s.p1, 2) + 1
        for yu in range(ny * n1 * (min(s.p2, 2) + 1)):
            y = yu % ny
            u1 = (yu // ny) % n1
            u2 = yu // (ny * n1)
            ku = k + u1 + u2
            if ku > 2:
                continue
            yf = min(y, s.frem)  # fixed first: jokers at one number can trade places
            if y - yf > s.jfree:
                continue
            for w in range(NEW_RUNS.shape[0]):
                m = NEW_RUNS[w, 0]
                if ku + m > 2:
                    break
                real = k - y + m + u1 + u2
                if real > c.hi:
                    break  # rows go by count of new runs
                ok, jnew, jv, lacking, npair, nr = _runs_after(c, s, w, (k, nclose, n_a, n_b), (y, yf, u1, u2), real)
                if not ok:
                    continue
                for g in range(3):
                    x = real + g
                    if x < s.fewest:
                        continue
                    if x > c.hi:
                        break
                    ok, ngm, nv = _groups_fit(c, s, g, x, jnew, jv, lacking, yf)
                    if not ok:
                        continue
                    gain = val + c.weight * x + (jv if joker_values else 0)
                    nbits = bits | np.uint64(c.type_bit) if x > c.lo else bits
                    opt = cont | (y << 2) | (w << 4) | (g << 8) | (x << 10) | (u1 << 16) | (u2 << 18)
                    if c.last == 0:
                        moves[count, 0] = (s.base_key | (npair << c.shift) | ((s.jused + jnew) << _F_J) | (nr << _F_R)
                                           | ((s.gs + g) << _F_GS) | (ngm << _F_GM) | ((s.p1 - u1) << _F_P1)
                                           | ((s.p2 - u2) << _F_P2) | ((s.fu + yf) << _F_FU) | (nv << _F_V))
                        moves[count, 1] = gain
                        moves[count, 2] = np.int64(nbits)
                        moves[count, 3] = opt
                        count += 1
                        continue
                    # the last colour of the number: its groups take their jokers here, so the layer before the
                    # group step (the largest) is never stored
                    nbase = s.base_key | (npair << c.shift) | ((s.p1 - u1) << _F_P1) | ((s.p2 - u2) << _F_P2)
                    for jg in range(s.jfree - jnew + 1):
                        groom = GROUP_ROOM[s.gs + g, ngm, jg]
                        if groom < 0:
                            continue
                        if c.ahead >= 0 and lacking > s.jfree - jnew - jg + c.ahead:
                            break
                        nr2 = min(nr + jg + (0 if c.valued != 0 else groom), c.jhi)
                        nkey = nbase | ((s.jused + jnew + jg) << _F_J) | (nr2 << _F_R)
                        if c.threshold > 0:
                            nkey |= min(nv + jg * c.n, c.threshold) << _F_V
                        moves[count, 0] = nkey
                        moves[count, 1] = gain + (jg * c.n if joker_values else 0)
                        moves[count, 2] = np.int64(nbits)
                        moves[count, 3] = opt | (jg << 13)
                        count += 1
    return count


@njit(cache=True, inline="always")
def _joker_moves(c, key, val, bits, moves):
    """Joker step: how many jokers join the number's groups and start joker-only runs; returns successors written."""
    n = c.n
    jhi = c.jhi
    threshold = c.threshold
    valued = c.valued != 0
    joker_values = c.joker_values != 0
    jused = jokers_placed(key)
    rcap = joker_room(key)
    gs = group_pieces(key)
    gm = group_most(key)
    p1, p2 = joker_runs(key)
    pend = p1 + p2
    if n == 13 and pend > 0:
        return 0  # joker-only runs that never got a piece (C4)
    frem = c.fixed_n - fixed_placed(key)
    jfree = max(c.jfree - jused, 0)
    base_key = key & ~((np.int64(63) << _F_J) | (np.int64(63) << _F_GS) | (np.int64(511) << _F_P1)
                       | (np.int64(255) << _F_V))
    v = value_laid(key)
    heads = 0 if n == 13 else frem + (jfree if c.free_heads else 0)
    ahead = c.ahead
    lacking = _lacking(c, key, -1)[0] if ahead >= 0 else ZERO
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


@njit(cache=True, inline="always")
def _accepts(key, jlo, threshold):
    """A finished layout: no run left shorter than three, room for every joker that must go down, and (an
    opening) the threshold reached."""
    for c in range(4):
        pair = run_pair(key, 4 * c)
        if PAIRS[pair, 0] in (1, 2) or PAIRS[pair, 1] in (1, 2):
            return False
    return joker_room(key) >= jlo and value_laid(key) >= threshold


@njit(cache=True, inline="always")
def _idle(ctx, s, key):
    """Sub-step ``s`` can only pass ``key`` on unchanged (option 0), as ``_moves`` would: a colour step with no
    piece of its type and no open run of its colour, or a joker step with no fixed joker, no joker-only run
    to head or carry; in either, no group begun and no opening's value to check. Most of a walk's steps."""
    if ctx[s, _C_THRESHOLD] > 0 or group_pieces(key) != 0:
        return False
    if s % 5 < 4:
        return ctx[s, _C_HI] == 0 and run_pair(key, ctx[s, _C_SHIFT]) == 0
    p1, p2 = joker_runs(key)
    return ctx[s, _C_FIXED_N] == 0 and ctx[s, _C_FREE_HEADS] == 0 and p1 == 0 and p2 == 0
