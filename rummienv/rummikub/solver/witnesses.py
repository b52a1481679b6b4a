"""Witnesses: legal layouts as rows of piece counts, and new sets of the pieces such a layout leaves over.

A witness row holds the pieces of each numbered type a legal layout uses, its jokers placed and its room;
sets of one's own pieces laid beside a legal layout keep it legal, so a witness can be extended.
"""

from __future__ import annotations

from numba import njit

from .store import joker_room, jokers_placed


@njit(cache=True, inline="always")
def _witness_row(opts, order, key, row):
    """The witness row of the layout whose path has options ``opts`` and whose last state is ``key``."""
    step = 0
    for n in range(13):
        for kc in range(4):
            row[order[n, kc] * 13 + n] = (opts[step] >> 10) & 7
            step += 1
        step += 1
    row[52] = jokers_placed(key)
    row[53] = joker_room(key)


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
