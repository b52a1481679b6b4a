"""The depth-first search over the programme's moves, which stops at the first layout.

``exists`` walks the programme's moves depth first and stops at the first finished layout; the states it
found to lead nowhere are kept in a memo. ``_search`` takes the numbers from both ends in turn.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from .programme import MOVES_CAP, PAIRS, Question, _accepts, _contexts, _idle, _moves, _step_constants, colour_order
from .store import (
    _F_J,
    _F_R,
    _V_FIELD,
    NO,
    NO_FLOOR,
    SUBSTEPS,
    ZERO,
    _fresh_stamp,
    _get,
    _hash_bits_for,
    _slot,
    group_pieces,
    joker_runs,
    jokers_placed,
    run_pair,
    value_laid,
)
from .witnesses import _raise_value, _witness_row


@njit(cache=True, inline="always")
def _remember(key, value, hash_table, hash_bits, stamp):
    """Map ``key`` to the largest ``value`` given for it, in the table kept in ``hash_table`` under ``stamp``.

    The table is a cache: a key that finds its ``PROBES`` slots taken replaces the first, so a table of any
    size never fills, and one a turn keeps stays small enough to be quick to read."""
    mask = (np.int64(1) << hash_bits) - 1
    home = _slot(key, hash_bits)
    h = home
    for _ in range(PROBES):
        if (hash_table[2 * h + 1] >> 32) != stamp:
            hash_table[2 * h] = key
            hash_table[2 * h + 1] = (stamp << 32) | value
            return
        if hash_table[2 * h] == key:
            if value > (hash_table[2 * h + 1] & 0xFFFFFFFF):
                hash_table[2 * h + 1] = (stamp << 32) | value
            return
        h = (h + 1) & mask
    hash_table[2 * home] = key
    hash_table[2 * home + 1] = (stamp << 32) | value


@njit(cache=True, inline="always")
def _promise(key):
    """How far a state is from finishing: its short runs and group pieces still to complete, and its jokers
    placed. The walk tries the closest states first."""
    p1, p2 = joker_runs(key)
    score = group_pieces(key) + jokers_placed(key) + p1 + p2
    for c in range(4):
        pair = run_pair(key, 4 * c)
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
PROBES = 4


# The dead states a mask's searches share are tagged with the walk's space (bits 55-56: from 1 up, from 13
# down, from 1 up with an opening's value) and, for those a search's own extra piece may have killed, its
# number (bits 57-62).
_F_SPACE, _F_SEARCH = 55, 57
UP, DOWN, VALUED_UP = 0, 1, 2
NO_EXTRA = np.int64(-1)  # the extra piece of a search no other search shares its table with (_memo)
# The table searches keep their dead states in: its array, its size in bits and the stamp the searches that
# share it read under (``_memo``).
DeadStates = namedtuple("DeadStates", ("table", "bits", "stamp"))
# One walk's view of that table (``_memo``): the table, and the tags of the dead states all searches of the
# stamp share and of those only searches for the same extra piece do, and the sub-step after which a dead
# state is shared.
Memo = namedtuple("Memo", ("table", "bits", "stamp", "shared", "own", "extra_step"))


@njit(cache=True)
def _step_of(order, t):
    """The sub-step at which ``order`` takes numbered type ``t``."""
    n = t % 13
    for kc in range(4):
        if order[n, kc] == t // 13:
            return 5 * n + kc
    return -1


@njit(cache=True)
def exists(q, budget, order, memo, store, path_buf, witness_out):
    """Whether some legal layout meets question ``q`` (``lo..hi`` of each type, ``jlo..jhi`` jokers, worth an
    opening's threshold where it is ``valued``): FOUND (its witness row,
    as ``_record_witnesses`` keeps them, in ``witness_out``), NOT_FOUND, or UNKNOWN after ``budget`` states;
    and the states it expanded.

    The questions asked are mostly answered yes, which a depth-first walk over the programme's moves finds
    along one path and its dead ends, where the forward pass builds every layer. Each state's moves are tried
    closest to finishing first (``_promise``). States that led nowhere are kept in the table ``memo`` names
    (``_memo``, a cache), so a no visits most states once, and the budget bounds the worst case; the caller
    falls back to the passes when it runs out. The walk keeps its moves in the store's key column and its
    path in ``path_buf``; ``order`` is the colour order it takes.
    """
    hash_table, hash_bits, stamp, shared, own, extra_step = memo
    ctx = _contexts(q, np.zeros(52, dtype=np.int64), q.jhi, ZERO, np.uint64(0), NO_FLOOR, order, NO)
    count = np.empty(SUBSTEPS, dtype=np.int64)
    pos = np.zeros(SUBSTEPS, dtype=np.int64)
    stack = store.key[:SUBSTEPS * MOVES_CAP * 4].reshape((SUBSTEPS, MOVES_CAP, 4))  # the moves of each level
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
            _remember((dead & ~_V_FIELD) | tag, value_laid(dead), hash_table, hash_bits, stamp)
            continue
        key = stack[d, pos[d], 0]
        path_buf[d] = stack[d, pos[d], 3]
        pos[d] += 1
        if d == SUBSTEPS - 1:
            if _accepts(key, q.jlo, q.threshold):
                _witness_row(path_buf, order, key, witness_out)
                return FOUND, nodes
            continue
        here = (key | ((d + 1) << 48)) & ~_V_FIELD
        known_dead = _get(here | shared, hash_table, hash_bits, stamp, PROBES)
        if extra_step > d:
            known_dead = max(known_dead, _get(here | own, hash_table, hash_bits, stamp, PROBES))
        if known_dead >= value_laid(key):
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
def _memo(dead, space, orders, extra):
    """The dead-state table of one walk (see ``exists``) among the searches that share ``dead``'s stamp.

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
    return Memo(dead.table, dead.bits, dead.stamp, shared, shared | (np.int64(extra + 1) << _F_SEARCH), step)


@njit(cache=True)
def _layout_exists(q, budget, orders, dead, extra, store, path_buf, found):
    """``exists`` for any layout (no opening's value), walking the numbers from 13 down and from 1 up in
    turn, each walk given four times the states of the last before the other starts again.

    The sets read the same either way along the numbers, so the answers agree, but a walk's cost does not:
    on logged random play one direction often needed a tenth of the other's states, and neither was the
    cheaper one throughout (from the top in most card-edition positions, whose jokers keep their numbers,
    from the bottom in more of the tile game's). Taking turns bounds a question's cost by a few times the
    cheaper walk's; from the top first, as it was the cheaper on the whole. A walk starting again keeps the
    dead states of its direction's walks before.
    """
    fixed = q.fixed
    lo_m, hi_m, fixed_m = np.empty(52, dtype=np.int64), np.empty(52, dtype=np.int64), np.empty_like(fixed)
    _mirror(q.lo, lo_m)
    _mirror(q.hi, hi_m)
    fixed_m[0] = fixed[0]
    for n in range(1, 14):
        fixed_m[n] = fixed[14 - n]
    from_top = Question(lo_m, hi_m, q.jlo, q.jhi, fixed_m, NO, ZERO)
    from_bottom = Question(q.lo, q.hi, q.jlo, q.jhi, q.fixed, NO, ZERO)
    down = _memo(dead, DOWN, orders, extra)
    up = _memo(dead, UP, orders, extra)
    spent = 0
    turn = FIRST_WALK
    while spent < budget:
        walk = min(turn, budget - spent)
        answer, used = exists(from_top, walk, orders[DOWN], down, store, path_buf, found)
        spent += used
        if answer == FOUND:
            _mirror(found[:52].copy(), found)
        if answer != UNKNOWN or spent >= budget:
            return answer, spent
        walk = min(turn, budget - spent)
        answer, used = exists(from_bottom, walk, orders[UP], up, store, path_buf, found)
        spent += used
        if answer != UNKNOWN:
            return answer, spent
        turn *= 4
    return UNKNOWN, spent


@njit(cache=True)
def _search(q, budget, orders, dead, extra, store, path_buf, found):
    """``exists``, asked first without an opening's value: the value multiplies the states, and a layout of
    the pieces asked for is mostly worth the threshold once sets of the rest are added (``_raise_value``),
    while with no layout at all there is no opening either. The walks keep their dead states in ``dead``'s
    table (``_memo``); ``extra`` is the piece the search asks for beyond the staged ones."""
    if q.valued and q.threshold <= 0:
        return exists(q, budget, orders[UP], _memo(dead, VALUED_UP, orders, extra), store, path_buf, found)
    answer, spent = _layout_exists(q, budget, orders, dead, extra, store, path_buf, found)
    if not q.valued or answer != FOUND or _raise_value(found, q.hi, q.jlo, q.threshold):
        return answer, spent
    more, spent_more = exists(q, budget - spent, orders[UP], _memo(dead, VALUED_UP, orders, extra), store, path_buf,
                              found)
    return more, spent + spent_more


@njit(cache=True)
def _lone_search(q, budget, store, path_buf, found):
    """``_search`` of a question no other search shares, with a table of its own (the store's hash table)."""
    hash_table = store.hash_table
    dead = DeadStates(hash_table, _hash_bits_for(budget), _fresh_stamp(hash_table, store.stamp))
    return _search(q, budget, _orders(q.lo, q.hi), dead, NO_EXTRA, store, path_buf, found)


@njit(cache=True)
def play_path(question, store):
    """The choices (in ``store.path``) of a layout of exactly the pieces of ``question`` (a plain tuple of
    ``programme.Question``'s fields whose ``lo`` and ``hi`` agree, as do ``jlo`` and ``jhi``) found by the
    search, and the key of its last state holding its jokers placed and room; (UNKNOWN, 0) when the budget
    runs out, (NOT_FOUND, 0) when there is none. The layout a commit lays down, for a play known legal: the
    search finds one at once where the best play's passes build every layer."""
    q = Question(*question)
    found = np.empty(54, dtype=np.int64)
    orders = _orders(q.lo, q.lo)
    hash_table = store.hash_table
    dead = DeadStates(hash_table, _hash_bits_for(LEGAL_BUDGET), _fresh_stamp(hash_table, store.stamp))
    memo = _memo(dead, UP, orders, NO_EXTRA)
    answer, _ = exists(q, LEGAL_BUDGET, orders[UP], memo, store, store.path, found)
    if answer != FOUND:
        return answer, np.int64(0)
    return answer, (found[52] << _F_J) | (found[53] << _F_R)
