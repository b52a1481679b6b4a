"""The programme's moves: from one state, every state a sub-step can lead to.

Whether a multiset of pieces can be laid out as valid sets is decided number by number (1..13), in the
manner of van Rijn, Takes and Vis (2015). Only runs cross from one number to the next, so what a state must
remember is small (``keys.py``). Each number is five sub-steps: one per colour, the colour with the fewest
choices first (``colour_order``), then a joker step. A colour step chooses how many pieces of its type go
down and where: which open runs they continue (some with a joker), how many new runs they start (some led
by jokers, ``NEW_RUNS``), which joker-only runs they give a first piece, and how many go into the number's
groups. The joker step gives the groups their jokers, checks that they can be formed, and lets jokers fixed
to a number head runs that have no piece yet. Without fixed jokers the last colour step does the joker
step's work itself, so the largest layer, the one before the groups are formed, is never stored.

A state carries, besides its key, its best value so far and the piece types some path to it used beyond
their lower bound (``bits``). A sub-step's constants (``contexts``) are computed once per question, so the
moves of a state only read them. Every move is written as a row of ``moves``: (key, value, bits, option),
the option packing the choice (the ``OPTION_*`` shifts) so that a path can be rebuilt into sets.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from rummienv.rummikub.solver import keys
from rummienv.rummikub.solver.keys import PAIR_INDEX, PAIRS
from rummienv.rummikub.solver.store import SUBSTEPS

MOVES_CAP = 1024  # successors of one state: at most 65 run choices x 3 groups x 5 group jokers, or 9 x 9

# A colour step's option: open runs continued (bit per run), jokers continuing them, the row of NEW_RUNS,
# pieces into groups, pieces of the type in all, and for the last colour the groups' jokers; then how many
# joker-only runs of one joker and of two or more get their first piece.
(OPTION_CONTINUED, OPTION_JOKERS, OPTION_NEW_RUNS, OPTION_GROUPED, OPTION_PIECES, OPTION_GROUP_JOKERS,
 OPTION_HEADED_ONE, OPTION_HEADED_TWO) = 0, 2, 4, 8, 10, 13, 16, 18
# A joker step's option: jokers into groups, new joker-only runs.
OPTION_STEP_GROUP_JOKERS, OPTION_STEP_NEW_JOKER_RUNS = 0, 3


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

# New runs started at one number of one colour: (count, leading jokers of the first, of the second), by count.
# More than two leading jokers serve openings only, where no joker is a spare (at most four jokers, K1).
NEW_RUNS = np.array([(0, 0, 0), (1, 0, 0), (1, 1, 0), (1, 2, 0), (1, 3, 0), (1, 4, 0), (2, 0, 0), (2, 0, 1),
                     (2, 0, 2), (2, 1, 1), (2, 1, 2), (2, 2, 2), (2, 0, 3), (2, 0, 4), (2, 1, 3)], dtype=np.int64)
_W_OK, _W_JOKERS, _W_ROOM, _W_PLAIN, _W_JOKER_VALUE, _W_LEN = range(6)  # _W_LEN, _W_LEN + 1: the runs' lengths


def _new_run_info() -> np.ndarray:
    """NEW_RUN_INFO[valued, n, f, w]: what row w of NEW_RUNS means at number n (fields f: ``_W_*``)."""
    out = np.zeros((2, 14, 7, NEW_RUNS.shape[0]), dtype=np.int64)
    for valued in range(2):
        for n in range(1, 14):
            for w, (m, *leads) in enumerate(NEW_RUNS):
                ok, room, plain, jokers, joker_value = True, 0, 0, 0, 0
                for e in range(m):
                    lead = int(leads[e])
                    # a run led by jokers needs them only when it cannot take them on
                    # top instead: J 12 13, J 12 J, J J 13 (longer runs shed them as spares)
                    if lead != 0 and lead != n - 11 and not (valued and lead < n):
                        ok = False
                    joker_value += lead * n - lead * (lead + 1) // 2  # what the leading jokers stand for
                    length = min(1 + lead, 3)
                    if length < 3 and n + 3 - length > 13:
                        ok = False
                    plain += lead == 0
                    room += n - lead - 1
                    jokers += lead
                    out[valued, n, _W_LEN + e, w] = length
                out[valued, n, :_W_LEN, w] = ok, jokers, room, plain, joker_value
    return out


NEW_RUN_INFO = _new_run_info()


class Pass(NamedTuple):
    """What one pass of the programme is asked, besides the position (``Problem``)."""

    weight: np.ndarray  # the objective's value of a piece of each numbered type
    joker_bonus: np.int64  # the most the jokers can add to the objective
    joker_cap: np.int64  # jokers that may stand in for pieces (the others are spares)
    floor: np.int64  # a value some legal play is known to reach: states that cannot are not kept
    known: np.uint64  # types known to fit, left out of the used-type bits
    by_bits: bool  # a mask's pass: states are compared on their bits, not their value


class Problem(NamedTuple):
    """A position as the programme sees it: how many pieces of each numbered type (``lo``..``hi``) and
    jokers (``jokers_lo``..``jokers_hi``) a layout uses, the jokers ``fixed`` to a number (K5), and for an
    opening (``valued``: every joker stands for a piece) the value a layout must reach."""

    lo: np.ndarray
    hi: np.ndarray
    jokers_lo: np.int64
    jokers_hi: np.int64
    fixed: np.ndarray
    valued: bool
    threshold: np.int64


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


# The constants of one sub-step (a row of ``contexts``): its number and colour, the bounds and weight of its
# type and the type's bit, what the next two numbers of the colour offer (short runs must go on), what the
# later colours of the number could still give to groups, whether the step places the groups' jokers, the
# fixed jokers of the number and of the next two, the weight and points of every piece still to come, and
# (joker steps) whether free jokers may head joker-only runs; then the problem's own constants.
(_C_N, _C_SHIFT, _C_LO, _C_HI, _C_WEIGHT, _C_TYPE_BIT, _C_NEXT_ONE, _C_NEXT_TWO, _C_REST_GROUP, _C_LAST,
 _C_FIXED_N, _C_FIXED_NEXT, _C_TO_COME, _C_POINTS, _C_FREE_HEADS, _C_JOKERS_HI, _C_JOKERS_FREE, _C_FLOOR,
 _C_THRESHOLD, _C_VALUED, _C_JOKER_VALUES) = range(21)


@njit(cache=True)
def contexts(problem, spec, order):
    """The constants of every sub-step, computed once so that each state's moves only read them."""
    lo, hi, fixed, weight = problem.lo, problem.hi, problem.fixed, spec.weight
    ctx = np.zeros((SUBSTEPS, 21), dtype=np.int64)
    to_come = spec.joker_bonus  # the weight of every piece of the types still to be taken
    points_to_come = 13 * problem.jokers_hi  # the most the pieces still to be taken (and every joker) add to V
    for t in range(52):
        to_come += weight[t] * hi[t]
        points_to_come += (t % 13 + 1) * hi[t]
    has_fixed = fixed[1:].sum() > 0
    for n in range(1, 14):
        for kc in range(5):
            s = 5 * (n - 1) + kc
            ctx[s, _C_N] = n
            ctx[s, _C_FIXED_N] = fixed[n]
            ctx[s, _C_JOKERS_HI] = problem.jokers_hi
            ctx[s, _C_JOKERS_FREE] = min(problem.jokers_hi, spec.joker_cap)
            ctx[s, _C_FLOOR] = spec.floor
            ctx[s, _C_THRESHOLD] = problem.threshold
            ctx[s, _C_VALUED] = problem.valued
            ctx[s, _C_JOKER_VALUES] = problem.valued and problem.threshold == 0
            if kc == 4:
                ctx[s, _C_FREE_HEADS] = n <= 12 and fixed[n + 1] > 0
                continue
            c = order[n - 1, kc]
            t = c * 13 + n - 1
            to_come -= weight[t] * hi[t]
            points_to_come -= n * hi[t]
            rest_group = 0
            for later in range(kc + 1, 4):
                rest_group += min(hi[order[n - 1, later] * 13 + n - 1], 2)
            ctx[s, _C_SHIFT] = 4 * c
            ctx[s, _C_LO] = lo[t]
            ctx[s, _C_HI] = hi[t]
            ctx[s, _C_WEIGHT] = weight[t]
            ctx[s, _C_TYPE_BIT] = np.int64((np.uint64(1) << np.uint64(t)) & ~spec.known)
            ctx[s, _C_NEXT_ONE] = min(hi[t + 1], 2) if n <= 12 else 0
            ctx[s, _C_NEXT_TWO] = min(hi[t + 2], 2) if n <= 11 else 0
            ctx[s, _C_REST_GROUP] = rest_group
            ctx[s, _C_LAST] = kc == 3 and not has_fixed
            ctx[s, _C_FIXED_NEXT] = (fixed[n + 1] if n <= 12 else 0) + (fixed[n + 2] if n <= 11 else 0)
            ctx[s, _C_TO_COME] = to_come
            ctx[s, _C_POINTS] = points_to_come
    return ctx


@njit(cache=True, inline="always")
def step_constants(ctx, s):
    """Sub-step ``s``'s row of ``contexts`` as a tuple: a layer's moves read it once, and the compiler keeps
    it out of the loop over states."""
    return (ctx[s, 0], ctx[s, 1], ctx[s, 2], ctx[s, 3], ctx[s, 4], ctx[s, 5], ctx[s, 6], ctx[s, 7], ctx[s, 8],
            ctx[s, 9], ctx[s, 10], ctx[s, 11], ctx[s, 12], ctx[s, 13], ctx[s, 14], ctx[s, 15], ctx[s, 16],
            ctx[s, 17], ctx[s, 18], ctx[s, 19], ctx[s, 20])


@njit(cache=True, inline="always")
def colour_step_idle(ctx, s):
    """Sub-step ``s`` is a colour step with no piece of its type: only states with open runs of its colour
    can change."""
    return ctx[s, _C_HI] == 0


@njit(cache=True, inline="always")
def colour_shift(ctx, s):
    return ctx[s, _C_SHIFT]


@njit(cache=True, inline="always")
def joker_step_idle(ctx, s):
    """Sub-step ``s`` is a joker step with no fixed joker to place or to head a run: only states with group
    pieces or joker-only runs can change."""
    return ctx[s, _C_FIXED_N] == 0 and ctx[s, _C_FREE_HEADS] == 0


@njit(cache=True, inline="always")
def passes_unchanged(ctx, s, key):
    """Sub-step ``s`` can only pass ``key`` on unchanged (option 0), as ``moves`` would: an idle colour step
    and no open run of its colour, or an idle joker step and no joker-only run; in either, no group begun
    and no opening's value to check. Most of a search's steps."""
    if ctx[s, _C_THRESHOLD] > 0 or keys.group_size(key) != 0:
        return False
    if s % 5 < 4:
        return colour_step_idle(ctx, s) and keys.colour_runs(key, ctx[s, _C_SHIFT]) == 0
    return joker_step_idle(ctx, s) and keys.joker_runs_one(key) == 0 and keys.joker_runs_two(key) == 0


@njit(cache=True, inline="always")
def accepts(key, jokers_lo, threshold):
    """A finished layout: no run left shorter than three, room for every joker that must go down, and (an
    opening) the threshold reached."""
    return keys.short_runs(key) == 0 and keys.reach(key) >= jokers_lo and keys.value_laid(key) >= threshold


@njit(cache=True, inline="always")
def _emit(moves, count, key, value, bits, option):
    moves[count, 0] = key
    moves[count, 1] = value
    moves[count, 2] = np.int64(bits)
    moves[count, 3] = option
    return count + 1


class _Move(NamedTuple):
    """A colour step's move whose group pieces are still to choose: the successor's key without its groups
    and value laid, its value with the joker values, the bits, and the option without the groups."""

    key: np.int64
    value: np.int64
    bits: np.uint64
    option: np.int64


@njit(cache=True, inline="always")
def _least_pieces(c, val):
    """The fewest pieces of the step's type a move may put down to keep the floor in reach (the jokers'
    values aside, which only raise it), or -1 when none may."""
    lack = c[_C_FLOOR] - val - c[_C_TO_COME]
    if lack <= 0 or c[_C_JOKER_VALUES] != 0:
        return c[_C_LO]
    if c[_C_WEIGHT] <= 0:
        return -1
    least = max(c[_C_LO], (lack + c[_C_WEIGHT] - 1) // c[_C_WEIGHT])
    return -1 if least > c[_C_HI] else least


@njit(cache=True, inline="always")
def _continued_lengths(c, key, continued):
    """The lengths of the colour's two open runs after ``continued`` (bit per run; 0: closed or none), or
    (-1, -1) when that choice is not allowed: no run to continue, a short run closed, the same choice twice
    for two equal runs, or a short run that the numbers left cannot make three long."""
    pair = keys.colour_runs(key, c[_C_SHIFT])
    first, second = PAIRS[pair, 0], PAIRS[pair, 1]
    go_first, go_second = continued & 1, (continued >> 1) & 1
    if (go_first and first == 0) or (go_second and second == 0) or (first == second and continued == 2):
        return -1, -1
    if (not go_first and 0 < first < 3) or (not go_second and 0 < second < 3):
        return -1, -1
    after_first = min(first + 1, 3) if go_first else 0
    after_second = min(second + 1, 3) if go_second else 0
    n = c[_C_N]
    if (0 < after_first < 3 and n + 3 - after_first > 13) or (0 < after_second < 3 and n + 3 - after_second > 13):
        return -1, -1
    return after_first, after_second


@njit(cache=True, inline="always")
def _closed(key, shift, continued):
    """Runs of three or more the choice ``continued`` closes."""
    pair = keys.colour_runs(key, shift)
    return (PAIRS[pair, 0] == 3 and not continued & 1) + (PAIRS[pair, 1] == 3 and not (continued >> 1) & 1)


@njit(cache=True, inline="always")
def _free_jokers(c, key):
    """Free jokers the state may still place as pieces."""
    return max(c[_C_JOKERS_FREE] - keys.jokers_placed(key), 0)


@njit(cache=True, inline="always")
def _colour_moves(c, key, val, bits, moves):
    """Colour step: how many of its type go down, into which runs (open, new, joker-led) and groups; returns
    how many successors of the state it wrote."""
    least = _least_pieces(c, val)
    if least < 0:
        return 0
    count = 0
    for continued in range(4):
        if _continued_lengths(c, key, continued)[0] >= 0:
            count = _joker_choices(c, key, val, bits, moves, count, continued, least)
    return count


@njit(cache=True, inline="always")
def _joker_choices(c, key, val, bits, moves, count, continued, least):
    """The moves that continue the runs ``continued``, for each count of jokers continuing them (fixed ones
    first: jokers at one number can trade places) and of joker-only runs given their first piece."""
    runs = (continued & 1) + ((continued >> 1) & 1)
    free = _free_jokers(c, key)
    fixed_left = c[_C_FIXED_N] - keys.fixed_used(key)
    joker_counts = min(runs, free + fixed_left) + 1
    ones = min(keys.joker_runs_one(key), 2) + 1
    for choice in range(joker_counts * ones * (min(keys.joker_runs_two(key), 2) + 1)):
        jokers = choice % joker_counts
        headed_one = (choice // joker_counts) % ones
        headed_two = choice // (joker_counts * ones)
        if runs + headed_one + headed_two > 2 or jokers - min(jokers, fixed_left) > free:
            continue
        option = ((continued << OPTION_CONTINUED) | (jokers << OPTION_JOKERS) | (headed_one << OPTION_HEADED_ONE)
                  | (headed_two << OPTION_HEADED_TWO))
        count = _new_run_choices(c, key, val, bits, moves, count, option, least)
    return count


@njit(cache=True, inline="always")
def _runs_after(c, first, second, new_runs, headed_one, headed_two):
    """The colour's open-run lengths after the continued ones (``first``, ``second``), the new runs of row
    ``new_runs`` and the joker-only runs given a piece (two and three long), the longer first."""
    vi, n = c[_C_VALUED], c[_C_N]
    started = NEW_RUNS[new_runs, 0]
    for e in range(started + headed_one + headed_two):
        length = NEW_RUN_INFO[vi, n, _W_LEN + e, new_runs] if e < started else (2 if e < started + headed_one else 3)
        if first == 0:
            first = length
        else:
            second = length
    if first == 0 and second > 0:
        return second, 0
    return first, second


@njit(cache=True, inline="always")
def _short_runs_can_grow(c, first, second, jokers_left):
    """The next two numbers of the colour (or jokers) can make every short run three long."""
    short = (0 < first < 3) + (0 < second < 3)
    ones = (first == 1) + (second == 1)
    return max(short - c[_C_NEXT_ONE], 0) + max(ones - c[_C_NEXT_TWO], 0) <= jokers_left + c[_C_FIXED_NEXT]


@njit(cache=True, inline="always")
def _new_run_choices(c, key, val, bits, moves, count, option, least):
    """The moves of a choice of runs continued and jokers (``option``), for each row of ``NEW_RUNS``: the new
    runs the step's pieces start."""
    n, vi, shift, jokers_hi = c[_C_N], c[_C_VALUED], c[_C_SHIFT], c[_C_JOKERS_HI]
    continued = (option >> OPTION_CONTINUED) & 3
    jokers = (option >> OPTION_JOKERS) & 3
    headed_one, headed_two = (option >> OPTION_HEADED_ONE) & 3, (option >> OPTION_HEADED_TWO) & 3
    runs = (continued & 1) + ((continued >> 1) & 1)
    first, second = _continued_lengths(c, key, continued)
    closed = _closed(key, shift, continued)
    free = _free_jokers(c, key)
    fixed_jokers = min(jokers, c[_C_FIXED_N] - keys.fixed_used(key))
    placed, reach = keys.jokers_placed(key), keys.reach(key)
    kept = key & ~(keys.STEP_FIELDS | (np.int64(15) << shift))
    for w in range(NEW_RUNS.shape[0]):
        started = NEW_RUNS[w, 0]
        if runs + headed_one + headed_two + started > 2:
            break
        pieces = runs - jokers + started + headed_one + headed_two
        if pieces > c[_C_HI]:
            break  # rows go by count of new runs
        if pieces + 2 < least or not NEW_RUN_INFO[vi, n, _W_OK, w]:
            continue
        new_jokers = jokers - fixed_jokers + NEW_RUN_INFO[vi, n, _W_JOKERS, w]
        if new_jokers > free:
            continue
        # a run closing where a plain one of its colour starts is one longer run; that matters only while the
        # room is short
        if NEW_RUN_INFO[vi, n, _W_PLAIN, w] > 0 and closed > 0 and reach == jokers_hi:
            continue
        after = _runs_after(c, first, second, w, headed_one, headed_two)
        if not _short_runs_can_grow(c, after[0], after[1], free - new_jokers):
            continue
        room = 0 if vi else closed * (14 - n) + NEW_RUN_INFO[vi, n, _W_ROOM, w]
        joker_value = jokers * n + NEW_RUN_INFO[vi, n, _W_JOKER_VALUE, w] if vi else 0
        successor = (kept | (PAIR_INDEX[after[0], after[1]] << shift)
                     | keys.jokers(placed + new_jokers, min(reach + new_jokers + room, jokers_hi))
                     | keys.joker_runs(keys.joker_runs_one(key) - headed_one, keys.joker_runs_two(key) - headed_two)
                     | keys.fixed(keys.fixed_used(key) + fixed_jokers))
        move = _Move(successor, val + (joker_value if c[_C_JOKER_VALUES] else 0), bits,
                     option | (w << OPTION_NEW_RUNS) | (pieces << OPTION_PIECES))
        count = _group_choices(c, key, move, joker_value, least, moves, count)
    return count


@njit(cache=True, inline="always")
def _group_choices(c, key, move, joker_value, least, moves, count):
    """The moves that put 0, 1 or 2 more pieces of the type into the number's groups, on top of ``move``; the
    last colour of a number also gives the groups their jokers (``_group_joker_choices``)."""
    n, threshold = c[_C_N], c[_C_THRESHOLD]
    size, most = keys.group_size(key), keys.group_most(key)
    in_runs = (move.option >> OPTION_PIECES) & 7
    jokers_left = _free_jokers(c, move.key) + c[_C_FIXED_N] - keys.fixed_used(move.key)
    for grouped in range(3):
        pieces = in_runs + grouped
        if pieces < least:
            continue
        if pieces > c[_C_HI]:
            break
        new_most = most if most > grouped else grouped
        if not GROUP_VIABLE[size + grouped, new_most, c[_C_REST_GROUP], min(jokers_left, 8)]:
            continue
        value = move.value + c[_C_WEIGHT] * pieces
        if value + c[_C_TO_COME] < c[_C_FLOOR]:
            continue
        laid = 0
        if threshold > 0:
            laid = min(keys.value_laid(key) + n * pieces + joker_value, threshold)
            if laid + c[_C_POINTS] < threshold:
                continue
        bits = move.bits | np.uint64(c[_C_TYPE_BIT]) if pieces > c[_C_LO] else move.bits
        option = move.option + (grouped << OPTION_GROUPED) + (grouped << OPTION_PIECES)
        successor = move.key | keys.groups(size + grouped, new_most) | keys.value(laid)
        if c[_C_LAST]:
            count = _group_joker_choices(c, _Move(successor, value, bits, option), moves, count)
        else:
            count = _emit(moves, count, successor, value, bits, option)
    return count


@njit(cache=True, inline="always")
def _group_joker_choices(c, move, moves, count):
    """The last colour of a number: its groups take their jokers here, so the layer before the group step
    (the largest) is never stored. The successor carries no groups and no fixed jokers used."""
    n, threshold = c[_C_N], c[_C_THRESHOLD]
    size, most = keys.group_size(move.key), keys.group_most(move.key)
    placed, reach = keys.jokers_placed(move.key), keys.reach(move.key)
    kept = move.key & ~keys.STEP_FIELDS | keys.joker_runs(keys.joker_runs_one(move.key),
                                                           keys.joker_runs_two(move.key))
    for grouped_jokers in range(_free_jokers(c, move.key) + 1):
        room = GROUP_ROOM[size, most, grouped_jokers]
        if room < 0:
            continue
        successor = kept | keys.jokers(placed + grouped_jokers,
                                       min(reach + grouped_jokers + (0 if c[_C_VALUED] else room), c[_C_JOKERS_HI]))
        if threshold > 0:
            successor |= keys.value(min(keys.value_laid(move.key) + grouped_jokers * n, threshold))
        value = move.value + (grouped_jokers * n if c[_C_JOKER_VALUES] else 0)
        count = _emit(moves, count, successor, value, move.bits,
                      move.option | (grouped_jokers << OPTION_GROUP_JOKERS))
    return count


@njit(cache=True, inline="always")
def _joker_moves(c, key, val, bits, moves):
    """Joker step: how many jokers join the number's groups and start joker-only runs; returns successors
    written."""
    n, jokers_hi, threshold = c[_C_N], c[_C_JOKERS_HI], c[_C_THRESHOLD]
    placed, reach = keys.jokers_placed(key), keys.reach(key)
    size, most = keys.group_size(key), keys.group_most(key)
    pending = keys.joker_runs_one(key) + keys.joker_runs_two(key)
    if n == 13 and pending > 0:
        return 0  # joker-only runs that never got a piece (C4)
    fixed_left = c[_C_FIXED_N] - keys.fixed_used(key)
    free = _free_jokers(c, key)
    kept = key & ~keys.STEP_FIELDS
    heads = 0 if n == 13 else fixed_left + (free if c[_C_FREE_HEADS] else 0)
    count = 0
    for new_runs in range(heads + 1):
        for grouped in range(fixed_left + free + 1):
            free_placed = pending + new_runs + grouped - fixed_left  # free jokers placed here
            if free_placed < 0:
                continue
            if free_placed > free:
                break
            room = GROUP_ROOM[size, most, grouped]
            if room < 0:
                continue
            new_reach = min(reach + free_placed + (0 if c[_C_VALUED] else room + new_runs * (n - 1)), jokers_hi)
            successor = (kept | keys.jokers(placed + free_placed, new_reach) | keys.joker_runs(new_runs, pending)
                         | keys.value(min(keys.value_laid(key) + (pending + new_runs + grouped) * n, threshold)))
            value = val + ((pending + new_runs + grouped) * n if c[_C_JOKER_VALUES] else 0)
            option = (grouped << OPTION_STEP_GROUP_JOKERS) | (new_runs << OPTION_STEP_NEW_JOKER_RUNS)
            count = _emit(moves, count, successor, value, bits, option)
    return count


@njit(cache=True, inline="always")
def moves_of(c, s, key, val, bits, moves):
    """The successors of one state at sub-step ``s`` (constants ``c``), whichever kind of step it is."""
    if s % 5 == 4:
        return _joker_moves(c, key, val, bits, moves)
    return _colour_moves(c, key, val, bits, moves)
