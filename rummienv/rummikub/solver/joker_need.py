"""The pieces that need a joker, and whether the jokers can serve them all: a necessary condition for a layout.

A hoarder asks every turn whether its whole rack and the table go down at once, and most answers are no; a
search that proves a no visits every state that might lead to a layout, which is most of what a search
expert's play-outs cost. Many of those racks hold pieces that no set without a joker can take: of the copies
of a type, no more can lie in sets of other pieces than there are disjoint groups and runs of three to hold
them (``joker_free``). Every other copy that must go down lies in a set with a joker, and a joker is in one
set: with one joker every such copy must fit in one group or one run, with two in one set holding both or in
two sets of one each, and so on (``_sets_suffice``). When they cannot, no layout exists, and no search need
say so.
"""

from __future__ import annotations

import numpy as np
from numba import njit

NEEDY_MAX = 12  # copies in need beyond which their sets are not looked for (no answer: a search decides)
# Ways of putting them in sets tried before the condition gives up (no answer): of 285,000 questions logged from
# the experts' play-outs none took more than 1,289, and the cap bounds a question's cost at a millisecond or two.
WAYS_MAX = 10000


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
def _set_jokers(pieces, take, count, hi, jokers):
    """The fewest jokers with which the copies ``pieces[i]`` with bit i of ``take`` set (of ``count``), each in
    need of one, lie in one valid set, or ``jokers + 1`` when they cannot: one group (one number, distinct
    colours, four in all at most: one joker) or one run (one colour, distinct numbers, a joker for each number
    between them missing from ``hi``, one at least)."""
    seen = np.uint64(0)
    number, colour, low, high, size = -1, -1, 13, -1, 0
    same_number, same_colour = True, True
    for i in range(count):
        if not (take >> i) & 1:
            continue
        t = pieces[i]
        bit = np.uint64(1) << np.uint64(t)
        if seen & bit:
            return jokers + 1  # two copies of a type never share a set
        seen |= bit
        size += 1
        if number < 0:
            number, colour = t % 13, t // 13
        same_number = same_number and t % 13 == number
        same_colour = same_colour and t // 13 == colour
        low = min(low, t % 13)
        high = max(high, t % 13)
    if same_number and size <= 3:
        return 1
    if not same_colour:
        return jokers + 1
    missing = 0
    for m in range(low, high + 1):
        missing += hi[colour * 13 + m] == 0
    return max(missing, 1)


@njit(cache=True)
def _jokers_needed(pieces, part, placed, hi, jokers):
    """The jokers the first ``placed`` copies need, each set of them (``part[i]``: its set) taking the fewest that
    make it one group or run (``_set_jokers``); more than ``jokers`` when some set needs more, or is none."""
    total = 0
    for p in range(jokers):
        take = 0
        for i in range(placed):
            if part[i] == p:
                take |= 1 << i
        if take != 0:
            total += _set_jokers(pieces, take, placed, hi, jokers)
        if total > jokers:
            break
    return total


@njit(cache=True)
def _sets_suffice(pieces, count, hi, jokers):
    """The copies ``pieces[:count]``, each in need of a joker, can lie in sets with ``jokers`` jokers in all: a
    search over the ways to put them in at most ``jokers`` sets (each copy in one of the sets so far or a new
    one), dropping a way as soon as its sets need more jokers than there are. True, too, when WAYS_MAX ways
    leave it open."""
    part = np.full(count, -1, dtype=np.int64)
    i = 0
    ways = 0
    while i >= 0:
        if i == count or ways == WAYS_MAX:
            return True
        ways += 1
        part[i] += 1
        top = -1
        for k in range(i):
            top = max(top, part[k])
        if part[i] > min(top + 1, jokers - 1):
            part[i] = -1
            i -= 1
            continue
        if _jokers_needed(pieces, part, i + 1, hi, jokers) <= jokers:
            i += 1
    return False


@njit(cache=True)
def jokers_cannot_serve(lo, hi, jokers):
    """No layout holds at least ``lo`` and at most ``hi`` of each numbered type with at most ``jokers`` jokers:
    some copies that must go down (``lo``) find no set without a joker, and the jokers cannot serve them all.
    False says nothing (no joker, more than four, or too many copies in need to look at).

    A joker fixed to a number (K5) serves only sets at its number; counting it among ``jokers`` as if it were
    free asks less of a layout, so a no still holds."""
    if jokers < 1 or jokers > 4:
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
    return count > jokers and not _sets_suffice(pieces, count, hi, jokers)
