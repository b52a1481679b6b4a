"""Masks and legality: which pieces may be placed next, and whether what is staged may go down.

A mask asks, for every type in the rack, whether some legal play holds everything staged plus one more
piece of it. The stateless ``mask`` answers with the forward passes alone (``_mask_passes``): one pass
whose states carry the types their paths used answers every type at once. A first pass lets no joker stand
in for a piece, then one at most, and only then the exact pass, each comparing states only on the types
still in doubt; the first two are far smaller and often leave nothing in doubt.

Through a turn, ``turn_mask`` answers the same question from what the turn has learnt (``Turn``): each mask
is a subset of the one before, witnesses (``witnesses.py``) prove most pieces without a search, pieces that
no set could hold are ruled out, and each piece still in doubt is asked of the depth-first search
(``search.py``), whose layouts are new witnesses; only what its shared budget leaves unknown goes to the
passes. ``legal_layout`` answers legality the same way: cheap refusals, a search, then passes.

An opening (``valued``, T4/K3) is the rack alone, in valid sets worth ``threshold``; its passes carry the
value laid in the state and accept only layouts that reach it.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from rummienv.rummikub.solver.forward import NO, NO_FLOOR, ONE, YES, ZERO, forward, one_pass, summarise
from rummienv.rummikub.solver.moves import Pass, Problem, colour_order
from rummienv.rummikub.solver.search import FOUND, LEGAL_BUDGET, MASK_BUDGET, UNKNOWN, lone_search, orders_of, search
from rummienv.rummikub.solver.store import MEMO_BITS, HashTable, fresh_stamp
from rummienv.rummikub.solver.witnesses import NO_EXTRA, could_fit, extend, holds, record_witnesses


class Position(NamedTuple):
    """A mask question: the table (empty for an opening), rack, staged pieces, the jokers fixed to a number
    (K5), whether it is an opening and the value an opening must reach."""

    table: np.ndarray
    rack: np.ndarray
    staged: np.ndarray
    fixed: np.ndarray
    valued: bool
    threshold: np.int64


class Turn(NamedTuple):
    """What a seat's turn has learnt (``turn_memory.TurnMemory``)."""

    mask: np.ndarray  # the last mask (53 bools)
    staged: np.ndarray  # what was staged when it was asked
    same_rack: bool  # the table and rack are those of the last mask
    witnesses: np.ndarray  # legal layouts of this table and rack (rows of 54), ``count`` of them kept
    count: np.int64
    searches: np.ndarray  # the stamp of the turn's dead states in ``Store.memo`` (0: none), then the colour
    # orders the searches took them in


@njit(cache=True)
def _bounds(position):
    """The problem of a position, and the types in doubt (one more than staged is in the rack)."""
    table, rack, staged = position.table, position.rack, position.staged
    lo = np.empty(52, dtype=np.int64)
    hi = np.empty(52, dtype=np.int64)
    doubt = np.uint64(0)
    for t in range(52):
        lo[t] = table[t] + staged[t]
        hi[t] = table[t] + rack[t]
        if rack[t] > staged[t]:
            doubt |= np.uint64(1) << np.uint64(t)
    problem = Problem(lo, hi, table[52] + staged[52], table[52] + rack[52], position.fixed, position.valued,
                      position.threshold)
    return problem, doubt


@njit(cache=True)
def _mask_passes(problem, doubt, joker_doubt, store, witnesses, count):
    """Which types of ``doubt`` fit in some legal layout, and (if ``joker_doubt``) whether a joker more fits;
    whether the store sufficed; and the witnesses kept (``record_witnesses``, until ``witnesses`` is full).
    Each stored state keeps its path with the most pieces, so the witnesses hold as many types as they can.
    """
    weight = np.ones(52, dtype=np.int64)
    bits = np.uint64(0)
    joker_more = False
    joker_cap = ZERO
    order = colour_order(problem.lo, problem.hi)
    covered = np.uint64(0)
    while True:
        if forward(problem, Pass(weight, ZERO, joker_cap, NO_FLOOR, bits | ~doubt, YES), store) < 0:
            return bits, joker_more, False, count
        best, more_bits, more_joker = summarise(store, problem.jokers_lo, ONE, problem.threshold)
        bits |= more_bits & doubt
        joker_more = joker_more or more_joker
        if best >= 0 and count < witnesses.shape[0]:
            count, covered = record_witnesses(store, problem, best, doubt, covered, order, witnesses, count)
        if joker_cap >= problem.jokers_hi or (doubt & ~bits == 0 and (joker_more or not joker_doubt)):
            break
        joker_cap = 1 if joker_cap == 0 else problem.jokers_hi
    return bits, joker_more, True, count


@njit(cache=True)
def mask(position, store):
    """The whole mask of a position in one compiled call, asking every question afresh: 53 bools and whether
    the store sufficed."""
    problem, doubt = _bounds(position)
    out = np.zeros(53, dtype=np.bool_)
    bits, joker_more, ok, _ = _mask_passes(problem, doubt, problem.jokers_hi > problem.jokers_lo, store,
                                           np.zeros((0, 54), dtype=np.int64), ZERO)
    for t in range(52):
        out[t] = (bits >> np.uint64(t)) & np.uint64(1)
    out[52] = joker_more
    return out, ok


@njit(cache=True)
def _mend(problem, witnesses, count):
    """Keep the witnesses that hold everything staged, mending one short of a staged piece with a set
    holding it (``extend``) or dropping it; returns how many are kept."""
    kept = ZERO
    for k in range(count):
        if (holds(witnesses[k], problem.lo, problem.jokers_lo, NO_EXTRA)
                or extend(witnesses[k], problem, NO_EXTRA, witnesses[k])):
            witnesses[kept] = witnesses[k]
            kept += 1
    return kept


@njit(cache=True)
def _from_witnesses(problem, position, candidates, witnesses, count, out):
    """Answer what the witnesses prove, or prove once extended by a set, and rule out the types no set could
    hold; returns the numbered types still in doubt and the witnesses kept."""
    has_fixed = position.fixed[1:].sum() > 0
    extended = np.empty(54, dtype=np.int64)
    doubt = np.uint64(0)
    for t in range(53):
        if not candidates[t] or position.rack[t] <= position.staged[t]:
            continue
        for k in range(count):
            if holds(witnesses[k], problem.lo, problem.jokers_lo, t):
                out[t] = True
                break
        if out[t] or t == 52:
            continue
        if not has_fixed and not could_fit(t, problem.hi, problem.jokers_hi):
            continue
        for k in range(count):
            if extend(witnesses[k], problem, t, extended):
                out[t] = True
                if count < witnesses.shape[0]:
                    witnesses[count] = extended
                    count += 1
                break
        if not out[t]:
            doubt |= np.uint64(1) << np.uint64(t)
    return doubt, count


@njit(cache=True)
def _search_one(problem, t, budget, turn, store, found):
    """Search for a layout holding one more piece of type ``t`` (52: a joker), sharing the turn's dead
    states; (answer, states spent)."""
    searches = turn.searches
    orders = searches[1:].reshape((2, 13, 4))
    if searches[0] == 0:
        orders[:] = orders_of(problem.lo, problem.hi)
        searches[0] = fresh_stamp(store.memo, store.memo_stamp)
    asked = Problem(problem.lo, problem.hi, problem.jokers_lo + (t == 52), problem.jokers_hi, problem.fixed,
                    problem.valued, problem.threshold)
    if t < 52:
        problem.lo[t] += 1
    answer, spent = search(asked, budget, orders, HashTable(store.memo, MEMO_BITS, searches[0]), t, store, found)
    if t < 52:
        problem.lo[t] -= 1
    return answer, spent


@njit(cache=True)
def _search_doubts(problem, doubt, joker_doubt, turn, store, out, count):
    """A short search for each type left in doubt, within a budget the mask's searches share; a layout found
    is a witness, and proves every other type it holds too. Returns (types still in doubt, whether a joker
    more still is, witnesses kept): what the budget left unknown."""
    witnesses = turn.witnesses
    found = np.empty(54, dtype=np.int64)
    budget = MASK_BUDGET
    for t in range(53):
        if not (joker_doubt if t == 52 else (doubt >> np.uint64(t)) & np.uint64(1)):
            continue
        answer, spent = _search_one(problem, t, budget, turn, store, found)
        budget -= spent
        if answer == UNKNOWN:
            break  # the passes answer the rest at once
        if answer == FOUND:
            for u in range(52):
                if (doubt >> np.uint64(u)) & np.uint64(1) and holds(found, problem.lo, problem.jokers_lo, u):
                    out[u] = True
                    doubt &= ~(np.uint64(1) << np.uint64(u))
            if joker_doubt and holds(found, problem.lo, problem.jokers_lo, 52):
                out[52] = True
                joker_doubt = False
            if count < witnesses.shape[0]:
                witnesses[count] = found
                count += 1
        if t == 52:
            joker_doubt = False
        else:
            doubt &= ~(np.uint64(1) << np.uint64(t))
    return doubt, joker_doubt, count


@njit(cache=True)
def turn_mask(position, turn, store):
    """The mask of a position given what the turn has learnt so far; returns (53 bools, store sufficed,
    witnesses kept, whether the staged pieces are a legal play now): the whole of a move mask but the
    joker swaps, in one call.

    ``turn.mask``, asked with ``turn.staged`` staged, is a superset of the answer when the table and rack are
    the same and no staged piece went back, since a play that holds one more staged piece holds everything
    staged before. The searches' dead states are kept for the rest of the turn (``turn.searches``): with more
    pieces staged, or one more asked for, such a state still leads nowhere (``search.dead_states``). Only the
    types left unknown when the budget runs out go to the passes, which compare states on those types alone
    and add the layouts they find to the witnesses.
    """
    problem, _ = _bounds(position)
    candidates = np.ones(53, dtype=np.bool_)
    if turn.same_rack and np.all(position.staged >= turn.staged):
        candidates = turn.mask
    else:
        turn.searches[0] = 0  # the dead states kept answer for no other table, rack or fewer pieces staged
    legal, legal_ok = False, True
    if position.staged.sum() > 0:  # are the staged pieces a legal play now (COMMIT)?
        legal, legal_ok = legal_layout(Problem(problem.lo, problem.lo, problem.jokers_lo, problem.jokers_lo,
                                               problem.fixed, problem.valued and problem.threshold > 0,
                                               problem.threshold), store)
    count = _mend(problem, turn.witnesses, turn.count)
    out = np.zeros(53, dtype=np.bool_)
    doubt, count = _from_witnesses(problem, position, candidates, turn.witnesses, count, out)
    joker_doubt = candidates[52] and position.rack[52] > position.staged[52] and not out[52]
    doubt, joker_doubt, count = _search_doubts(problem, doubt, joker_doubt, turn, store, out, count)
    if doubt == 0 and not joker_doubt:
        return out, legal_ok, count, legal
    bits, joker_more, ok, count = _mask_passes(problem, doubt, joker_doubt, store, turn.witnesses, count)
    for t in range(52):
        if (bits >> np.uint64(t)) & np.uint64(1):
            out[t] = True
    if joker_doubt:
        out[52] = joker_more
    return out, ok and legal_ok, count, legal


@njit(cache=True, inline="always")
def _refused_at_once(problem):
    """Two necessary conditions fail: an opening short of its value even with every piece, or a piece with
    too few neighbours for any set (``could_fit``)."""
    total = problem.jokers_hi
    value = 13 * problem.jokers_hi
    for t in range(52):
        total += problem.hi[t]
        value += (t % 13 + 1) * problem.hi[t]
    has_fixed = problem.fixed[1:].sum() > 0
    if (total < 3 and not has_fixed) or (problem.valued and value < problem.threshold):
        return True
    if not has_fixed:
        for t in range(52):
            if problem.lo[t] > 0 and not could_fit(t, problem.hi, problem.jokers_hi):
                return True
    return False


@njit(cache=True)
def legal_layout(problem, store):
    """Whether some layout in valid sets holds at least ``lo`` and at most ``hi``, worth the threshold for an
    opening: with ``lo == hi`` the legality of a play, otherwise whether any legal play holds the staged
    pieces; and whether the store sufficed.

    Most plays asked about are far from legal, and ``_refused_at_once`` says so without a pass. A legal play
    asked about is mostly found at once by a depth-first search; only when its budget runs out do the passes
    try no joker standing in for a piece, at most one, and all, the first two being far smaller.
    """
    if _refused_at_once(problem):
        return False, True
    answer, _ = lone_search(problem, LEGAL_BUDGET, store)
    if answer != UNKNOWN:
        return answer == FOUND, True
    lo, hi, jokers_lo, jokers_hi, fixed = problem.lo, problem.hi, problem.jokers_lo, problem.jokers_hi, problem.fixed
    if problem.valued:  # T4/K3: the most valuable layout, searched with the threshold as a floor
        weight = np.empty(52, dtype=np.int64)
        for t in range(52):
            weight[t] = t % 13 + 1
        best, got = one_pass(Problem(lo, hi, jokers_lo, jokers_hi, fixed, YES, ZERO),
                             Pass(weight, 13 * jokers_hi, jokers_hi, problem.threshold, np.uint64(0), NO), ZERO,
                             store)
        return best >= 0 and got >= problem.threshold, best != -2
    weight = np.ones(52, dtype=np.int64)
    joker_cap = ZERO
    while True:
        best, _ = one_pass(Problem(lo, hi, jokers_lo, jokers_hi, fixed, NO, ZERO),
                           Pass(weight, ZERO, joker_cap, NO_FLOOR, np.uint64(0), NO), ONE, store)
        if best == -2:
            return False, False
        if best >= 0 or joker_cap >= jokers_hi:
            return best >= 0, True
        joker_cap = 1 if joker_cap == 0 else jokers_hi
