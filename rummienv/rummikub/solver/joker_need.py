"""The pieces that need a joker, and whether one or two jokers can serve them all: a necessary condition.

A hoarder asks every turn whether its whole rack and the table go down at once, and most answers are no; a
search that proves a no visits every state that might lead to a layout, which is most of what a search
expert's play-outs cost. Many of those racks hold pieces that no set without a joker can take: of the copies
of a type, no more can lie in sets of other pieces than there are disjoint groups and runs of three to hold
them (``joker_free``). Every other copy that must go down lies in a set with a joker. One joker is in one
set, so with one joker every such copy must fit in one group or one run; with two, in one set holding both
or in two sets of one each. When they cannot, no layout exists, and no search need say so.
"""

from __future__ import annotations

import numpy as np
from numba import njit

NEEDY_MAX = 12  # copies in need beyond which two jokers' sets are not looked for (no answer: a search decides)


@njit(cache=True)
def joker_free(t, hi):
    """The most copies of numbered type ``t`` that can lie in disjoint valid sets with no joker, each of the
    pieces of ``hi`` (counts, 52) used once: 0, 1 or 2.

    Any such set holds a group or a run of three with the copy, so those are all that need trying: two groups
    need four pieces of the number in the other colours, at most two of each (a group holds one of each
    colour); a group and a run share no piece. The runs of three holding number n take n - 2 and n - 1, n - 1
    and n + 1, or n + 1 and n + 2 of its colour: two of them (or one twice) need a piece twice only where
    they share a number, so two exist exactly when the pieces of the numbers they take allow."""
    n = t % 13
    c = t // 13
    colours = 0
    spare = 0
    for other in range(4):
        if other != c:
            colours += hi[other * 13 + n] > 0
            spare += min(hi[other * 13 + n], 2)
    base = c * 13
    below2 = hi[base + n - 2] if n >= 2 else 0
    below1 = hi[base + n - 1] if n >= 1 else 0
    above1 = hi[base + n + 1] if n <= 11 else 0
    above2 = hi[base + n + 2] if n <= 10 else 0
    low = below2 > 0 and below1 > 0  # n - 2, n - 1, n
    mid = below1 > 0 and above1 > 0  # n - 1, n, n + 1
    high = above1 > 0 and above2 > 0  # n, n + 1, n + 2
    runs = int(low or mid or high)
    if ((low and high) or (low and below2 > 1 and below1 > 1) or (high and above1 > 1 and above2 > 1)
            or (mid and below1 > 1 and above1 > 1) or (low and mid and below1 > 1) or (mid and high and above1 > 1)):
        runs = 2
    most = min(runs + (colours >= 2), 2)
    if spare >= 4:
        most = 2
    return min(most, hi[t])


@njit(cache=True, inline="always")
def _one_set(pieces, take, count, hi, jokers):
    """The copies ``pieces[i]`` with bit i of ``take`` set (of ``count``) fit in one valid set with ``jokers``
    jokers: one group (one number, distinct colours, four in all at most) or one run (one colour, distinct
    numbers, the numbers between missing from ``hi`` no more than the jokers)."""
    seen = np.uint64(0)
    number, colour, low, high, size = -1, -1, 13, -1, 0
    same_number, same_colour = True, True
    for i in range(count):
        if not (take >> i) & 1:
            continue
        t = pieces[i]
        bit = np.uint64(1) << np.uint64(t)
        if seen & bit:
            return False  # two copies of a type never share a set
        seen |= bit
        size += 1
        if number < 0:
            number, colour = t % 13, t // 13
        same_number = same_number and t % 13 == number
        same_colour = same_colour and t // 13 == colour
        low = min(low, t % 13)
        high = max(high, t % 13)
    if size == 0 or (same_number and size + jokers <= 4):
        return True
    if not same_colour:
        return False
    missing = 0
    for m in range(low, high + 1):
        missing += hi[colour * 13 + m] == 0
    return missing <= jokers


@njit(cache=True)
def jokers_cannot_serve(lo, hi, jokers):
    """No layout holds at least ``lo`` and at most ``hi`` of each numbered type with ``jokers`` free jokers (and
    none fixed to a number): some copies that must go down (``lo``) find no set without a joker, and one or
    two jokers cannot serve them all. False says nothing (three jokers or more, or too many such copies)."""
    if jokers < 1 or jokers > 2:
        return False
    pieces = np.empty(NEEDY_MAX, dtype=np.int64)
    count = 0
    for t in range(52):
        if lo[t] == 0:
            continue
        for _ in range(lo[t] - min(joker_free(t, hi), lo[t])):
            if count == NEEDY_MAX:
                return False
            pieces[count] = t
            count += 1
    whole = (1 << count) - 1
    if _one_set(pieces, whole, count, hi, jokers):
        return False
    if jokers == 1:
        return True
    for take in range(1 << max(count - 1, 0)):  # two sets of one joker each; the last copy in the second
        if _one_set(pieces, take, count, hi, 1) and _one_set(pieces, whole & ~take, count, hi, 1):
            return False
    return True
