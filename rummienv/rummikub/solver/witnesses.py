"""Witnesses: legal layouts kept as proof, and the cheap reasoning that needs no search.

A witness row holds the count of each numbered type a legal layout uses (table and staged pieces
included), then its jokers placed and its reach (``forward.witness_row``). A later question whose bounds a
witness meets is answered by it: within a turn the table and rack are fixed and only the staged pieces
grow, so a layout that holds everything staged plus one more piece proves that piece fits.

A witness that falls short is often mended rather than searched for: sets of the player's own pieces laid
beside a legal layout keep it legal, and an opening's value only grows (``extend``, ``raise_value``). And
a piece that has too few neighbours of its colour or number for any set, counting jokers, is ruled out at
once (``could_fit``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from rummienv.rummikub.solver.forward import path, witness_row
from rummienv.rummikub.solver.moves import accepts
from rummienv.rummikub.solver.store import SUBSTEPS

NO_EXTRA = np.int64(-1)  # no piece asked for beyond the lower bounds


@njit(cache=True)
def record_witnesses(store, problem, best, doubt, covered, order, rows, count):
    """Keep finished layouts of the last pass as witnesses, in ``rows`` after the first ``count``: the best
    layout, and any other that used a type in ``doubt`` no witness holds yet (``covered``).
    Returns (witnesses, types held)."""
    for i in range(store.layer[SUBSTEPS], store.layer[SUBSTEPS + 1]):
        if count >= rows.shape[0]:
            break
        if ((i != best and (store.bits[i] & doubt & ~covered) == 0)
                or not accepts(store.key[i], problem.jokers_lo, problem.threshold)):
            continue
        if path(store, i) != SUBSTEPS:
            continue
        witness_row(store.path, order, store.key[i], rows[count])
        for t in range(52):
            if rows[count, t] > problem.lo[t]:
                covered |= np.uint64(1) << np.uint64(t)
        count += 1
    return count, covered


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
    for needed in range(min(jokers, 2) + 1):
        if others >= 2 - needed:
            return needed, -1
        for start in range(max(n - 2, 0), min(n, 10) + 1):  # runs of three holding n
            missing = 0
            for m in range(start, start + 3):
                if m != n and counts[base + m] == 0:
                    missing += 1
            if missing == needed:
                return needed, start
    return -1, 0


@njit(cache=True, inline="always")
def could_fit(t, hi, jokers):
    """A necessary condition for a piece of type ``t`` to lie in any valid set of ``hi`` and ``jokers`` free
    jokers (no joker fixed to a number): enough other colours at its number for a group, or enough
    neighbours of its colour for a run, with the jokers filling what is missing."""
    return jokers >= 2 or _fewest_jokers_set(t, hi, jokers)[0] >= 0


@njit(cache=True, inline="always")
def holds(row, lo, jokers_lo, extra):
    """Witness ``row`` holds at least ``lo`` (and ``jokers_lo`` jokers), plus one more of ``extra`` (52: a
    joker; ``NO_EXTRA``: nothing)."""
    for t in range(52):
        if row[t] < lo[t] + (1 if t == extra else 0):
            return False
    return row[53] >= jokers_lo + (1 if extra == 52 else 0)


@njit(cache=True, inline="always")
def _take(t, row, left):
    row[t] += 1
    left[t] -= 1


@njit(cache=True)
def _add_set(t, row, left, jokers):
    """Add to the layout ``row`` a new valid set of leftover pieces (``left``) holding a piece of type ``t``,
    with as few of the ``jokers`` left as possible: a group or a run of three. Returns (jokers used, value
    of the set), or (-1, 0) when there is none."""
    needed, start = _fewest_jokers_set(t, left, jokers)
    if needed < 0:
        return -1, 0
    n = t % 13
    base = t - n
    if start < 0:  # a group
        _take(t, row, left)
        wanted = 2 - needed
        for c in range(4):
            if wanted > 0 and c * 13 != base and left[c * 13 + n] > 0:
                _take(c * 13 + n, row, left)
                wanted -= 1
        return needed, 3 * (n + 1)
    for m in range(start, start + 3):
        if m == n or left[base + m] > 0:
            _take(base + m, row, left)
    return needed, 3 * start + 6


@njit(cache=True)
def extend(row, problem, extra, out):
    """Make ``row``, a legal layout of this table and rack, hold ``problem.lo`` plus one more ``extra`` by
    adding new sets of the pieces it leaves over; the result goes to ``out``. Returns whether it could.

    The result is a legal layout too: a witness found without a search. It places every joker it holds
    (its reach counts none spare).
    """
    if row[53] < problem.jokers_lo:
        return False  # it could not hold the staged jokers
    jokers = max(row[52], problem.jokers_lo)  # jokers the layout holds; more than it places are its spares
    spare = problem.jokers_hi - jokers
    added = 0
    for t in range(52):
        out[t] = row[t]
    left = problem.hi - out[:52]
    for t in range(52):
        want = problem.lo[t] + (1 if t == extra else 0)
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
def raise_value(row, hi, jokers_lo, threshold):
    """Make the layout ``row`` worth ``threshold`` as an opening by adding valid sets of the pieces it leaves
    over (``hi`` less its own), the most valuable first; returns whether it could.

    Its jokers count one each, the least they can stand for (those it must place but does not,
    ``jokers_lo``, go in its room), so the value reached is never more than the layout is worth.
    """
    value = max(row[52], jokers_lo)
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
