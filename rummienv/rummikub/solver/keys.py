"""The packed state key: everything the programme knows about a partial layout, in one int64.

The programme goes through the numbers 1..13 and, within a number, one colour at a time; the state at a
boundary is what the sets begun so far still need from the numbers to come. Bits, low to high:

* 0-15, four 4-bit fields (one per colour, at ``4 * colour``): the lengths of that colour's open runs as
  an index into ``PAIRS``. A length is 0 (no run), 1, 2 or 3 for "three or more"; a colour has at most two
  open runs, since a third run would duplicate one of the first two.
* ``jokers_placed`` (3 bits): free jokers placed so far, and ``reach`` (3 bits): min(jokers placed + room
  of the sets so far, the jokers available). A joker no set needs can always be added where there is room,
  so a layout with J jokers placed and room r stands for every joker count in J..J + r.
* ``group_size`` (4 bits) and ``group_most`` (2 bits): pieces put into groups at the current number and
  the most of one colour among them, until the number's groups are formed.
* ``joker_runs_one``/``joker_runs_two`` (3 bits each): runs made of jokers fixed to a number only so far
  (one joker, two or more), waiting for their first numbered piece; ``fixed_used`` (3 bits): the jokers
  fixed to the current number placed at it.
* ``value_laid`` (8 bits): an opening's value laid so far, capped at its threshold.

The search tags keys above bit 48 (``search.py``). Every read and write of a field goes through the
helpers here, so the layout above is stated once.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_F_JOKERS, _F_REACH, _F_GROUP_SIZE, _F_GROUP_MOST = 16, 19, 22, 26
_F_JOKER_RUNS_ONE, _F_JOKER_RUNS_TWO, _F_FIXED_USED = 28, 31, 34
_F_VALUE = 37
# the fields a step rewrites: jokers and reach, groups, joker-only runs and fixed jokers used, value
_JOKER_FIELDS = np.int64(63) << _F_JOKERS
_GROUP_FIELDS = np.int64(63) << _F_GROUP_SIZE
_RUN_AND_FIXED_FIELDS = np.int64(511) << _F_JOKER_RUNS_ONE
_JOKER_RUN_FIELDS = np.int64(63) << _F_JOKER_RUNS_ONE
_VALUE_FIELD = np.int64(255) << _F_VALUE
STEP_FIELDS = _JOKER_FIELDS | _GROUP_FIELDS | _RUN_AND_FIXED_FIELDS | _VALUE_FIELD
GROUPS_AND_JOKER_RUNS = _GROUP_FIELDS | _JOKER_RUN_FIELDS  # what a joker step may have to finish

# Unordered pairs (a >= b) of open-run lengths of one colour, and their index.
PAIRS = np.array([(a, b) for a in range(4) for b in range(a + 1)], dtype=np.int64)
PAIR_INDEX = np.full((4, 4), -1, dtype=np.int64)
for _i, (_a, _b) in enumerate(PAIRS):
    PAIR_INDEX[_a, _b] = _i
    PAIR_INDEX[_b, _a] = _i


def _ge(a: int, b: int) -> bool:
    """An open run of length class ``a`` can do all that one of class ``b`` can (0: no run).

    A run of three or more may close at once or go on, so it covers no run and any shorter run; a run of
    two covers a run of one.
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


@njit(cache=True, inline="always")
def colour_runs(key, shift):
    """The ``PAIRS`` index of the open runs of the colour whose field is at ``shift``."""
    return (key >> shift) & 15


@njit(cache=True, inline="always")
def with_colour_runs(key, shift, pair):
    return (key & ~(np.int64(15) << shift)) | (pair << shift)


@njit(cache=True, inline="always")
def short_runs(key):
    """Open runs still shorter than three, over all colours: each must go on before it may close."""
    count = 0
    for c in range(4):
        pair = colour_runs(key, 4 * c)
        count += (PAIRS[pair, 0] in (1, 2)) + (PAIRS[pair, 1] in (1, 2))
    return count


@njit(cache=True, inline="always")
def jokers_placed(key):
    return (key >> _F_JOKERS) & 7


@njit(cache=True, inline="always")
def reach(key):
    return (key >> _F_REACH) & 7


@njit(cache=True, inline="always")
def group_size(key):
    return (key >> _F_GROUP_SIZE) & 15


@njit(cache=True, inline="always")
def group_most(key):
    return (key >> _F_GROUP_MOST) & 3


@njit(cache=True, inline="always")
def joker_runs_one(key):
    return (key >> _F_JOKER_RUNS_ONE) & 7


@njit(cache=True, inline="always")
def joker_runs_two(key):
    return (key >> _F_JOKER_RUNS_TWO) & 7


@njit(cache=True, inline="always")
def fixed_used(key):
    return (key >> _F_FIXED_USED) & 7


@njit(cache=True, inline="always")
def value_laid(key):
    return (key >> _F_VALUE) & 255


@njit(cache=True, inline="always")
def jokers(placed, reach_):
    """The joker fields of a key."""
    return (placed << _F_JOKERS) | (reach_ << _F_REACH)


@njit(cache=True, inline="always")
def groups(size, most):
    return (size << _F_GROUP_SIZE) | (most << _F_GROUP_MOST)


@njit(cache=True, inline="always")
def joker_runs(one, two):
    return (one << _F_JOKER_RUNS_ONE) | (two << _F_JOKER_RUNS_TWO)


@njit(cache=True, inline="always")
def fixed(used):
    return used << _F_FIXED_USED


@njit(cache=True, inline="always")
def value(laid):
    return laid << _F_VALUE


@njit(cache=True, inline="always")
def without_jokers(key):
    return key & ~_JOKER_FIELDS


@njit(cache=True, inline="always")
def without_value(key):
    return key & ~_VALUE_FIELD

