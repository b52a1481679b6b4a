"""Where the programme keeps its states, and the hash tables that find them again.

Allocating buffers per question would cost more than answering it, so one ``Store`` of preallocated arrays
serves every question of the process and is handed whole to each compiled function. The forward pass
(``forward.py``) appends each layer's states to the parallel arrays ``key``/``value``/``bits``/``parent``/
``option`` and merges duplicates through an open-addressing table in ``table``. The depth-first search
(``search.py``) uses ``key`` as its stack and ``table`` (or ``memo``, kept across a turn) as a cache of
dead states.

A table is never cleared: each use takes a fresh *stamp*, and an entry whose stamp is not the current one
counts as empty. ``HashTable`` names a table, its size (in bits) and the stamp in use.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

STORE_CAP = 1 << 21
SUBSTEPS = 65  # five per number: four colours, then the groups' jokers
TABLE_BITS_MIN, TABLE_BITS_MAX = 10, 21
# The table of a turn's dead states (a cache, ``remember``), and the slots it looks at for a key: on recorded
# random play, with every mask timed beside the build before, 2^12 slots and 4 probes cut the mean most
# (2^10 to 2^16 slots, 2 to 8 probes tried); a larger table is read slower than its fewer misses save.
MEMO_BITS = np.int64(12)
PROBES = 4
DEAD = np.int64(1) << 62  # set in ``option`` of a state another covers, until the layer is compacted


class Store(NamedTuple):
    """The buffers every question reuses."""

    key: np.ndarray  # the states, layer after layer (the search: its stack of moves)
    value: np.ndarray  # the best objective value of a path into each state
    bits: np.ndarray  # the union of the piece types some path into it used beyond their lower bound
    parent: np.ndarray  # the state before, on the best path
    option: np.ndarray  # the choice made from the parent (``moves.py`` says how it is packed)
    layer: np.ndarray  # layer[k]: where the states after sub-step k begin
    skipped: np.ndarray  # skipped[k]: sub-step k - 1 changed no state, so its layer is the one before
    path: np.ndarray  # the options of one path, first first
    table: np.ndarray  # key and (stamp, slot) pairs of the open-addressing table
    stamp: np.ndarray  # the last stamp handed out for ``table``
    memo: np.ndarray  # the dead states a turn's searches keep (``turn_memory.py``)
    memo_stamp: np.ndarray


def new_store() -> Store:
    return Store(key=np.zeros(STORE_CAP, dtype=np.int64), value=np.zeros(STORE_CAP, dtype=np.int64),
                 bits=np.zeros(STORE_CAP, dtype=np.uint64), parent=np.zeros(STORE_CAP, dtype=np.int64),
                 option=np.zeros(STORE_CAP, dtype=np.int64), layer=np.zeros(SUBSTEPS + 2, dtype=np.int64),
                 skipped=np.zeros(SUBSTEPS + 2, dtype=np.int64), path=np.zeros(SUBSTEPS + 1, dtype=np.int64),
                 table=np.zeros(2 << TABLE_BITS_MAX, dtype=np.int64), stamp=np.zeros(1, dtype=np.int64),
                 memo=np.zeros(2 << MEMO_BITS, dtype=np.int64), memo_stamp=np.zeros(1, dtype=np.int64))


class HashTable(NamedTuple):
    """A table in use: its slots (``Store.table`` or ``Store.memo``), their count in bits and its stamp."""

    slots: np.ndarray
    size_bits: np.int64
    stamp: np.int64


@njit(cache=True, inline="always")
def _home(key, size_bits):
    return ((key * np.int64(0x9E3779B97F4A7C15)) >> np.int64(64 - size_bits)) & ((np.int64(1) << size_bits) - 1)


@njit(cache=True, inline="always")
def filter_slot(key, size_bits):
    """A second hash of ``key``, independent of the table's, for the bit filters of ``forward._prune``."""
    return ((key * np.int64(0xC2B2AE3D27D4EB4F)) >> np.int64(64 - size_bits)) & ((np.int64(1) << size_bits) - 1)


@njit(cache=True)
def fresh_stamp(slots, counter):
    """A stamp no entry of ``slots`` carries yet: a new, empty table without clearing it."""
    stamp = counter[0]
    if stamp > (np.int64(1) << 30):
        slots[:] = 0
        stamp = 0
    stamp += 1
    counter[0] = stamp
    return stamp


@njit(cache=True)
def size_bits_for(size):
    """The table size (in bits) for about ``size`` keys: three slots a key, within the table's bounds."""
    size_bits = TABLE_BITS_MIN
    while (np.int64(1) << size_bits) < 3 * size and size_bits < TABLE_BITS_MAX:
        size_bits += 1
    return size_bits


@njit(cache=True, inline="always")
def lookup(key, slots, size_bits, stamp, probes):
    """The value (the store slot, for the programme's tables) kept for ``key`` in the table ``slots`` of
    ``size_bits`` under ``stamp``, or -1; looking at most at ``probes`` slots (all of them for a table that
    never drops a key, ``PROBES`` for a cache). The table comes in parts, not as a ``HashTable``: the loops
    that look keys up hand their helpers no tuple holding an array (``forward.py`` says why)."""
    mask = (np.int64(1) << size_bits) - 1
    h = _home(key, size_bits)
    for _ in range(probes):
        entry = slots[2 * h + 1]
        if (entry >> 32) != stamp:
            return -1
        if slots[2 * h] == key:
            return entry & 0xFFFFFFFF
        h = (h + 1) & mask
    return -1


@njit(cache=True, inline="always")
def claim(key, slots, size_bits, stamp, top):
    """The store slot of ``key`` in the layer being built: the one it has, or ``top``, which it is given when
    it has none (the caller then writes the state there). The caller grows the table (``rehash``) before it
    fills."""
    mask = (np.int64(1) << size_bits) - 1
    h = _home(key, size_bits)
    while True:
        entry = slots[2 * h + 1]
        if (entry >> 32) != stamp:
            slots[2 * h] = key
            slots[2 * h + 1] = (stamp << 32) | top
            return top
        if slots[2 * h] == key:
            return entry & 0xFFFFFFFF
        h = (h + 1) & mask


@njit(cache=True)
def rehash(states, slots, size_bits, stamp, begin, top):
    """Enter the keys ``states[begin:top]`` afresh, into a table of ``size_bits`` under a new ``stamp``: the
    layer outgrew the old size."""
    mask = (np.int64(1) << size_bits) - 1
    for i in range(begin, top):
        key = states[i]
        h = _home(key, size_bits)
        while (slots[2 * h + 1] >> 32) == stamp:
            h = (h + 1) & mask
        slots[2 * h] = key
        slots[2 * h + 1] = (stamp << 32) | i


@njit(cache=True, inline="always")
def remember(key, value, slots, size_bits, stamp):
    """Map ``key`` to the largest ``value`` given for it (the table in parts, as for ``lookup``).

    The table is a cache: a key that finds its ``PROBES`` slots taken replaces the first, so a table of any
    size never fills, and one a turn keeps stays small enough to be quick to read."""
    mask = (np.int64(1) << size_bits) - 1
    home = _home(key, size_bits)
    h = home
    for _ in range(PROBES):
        if (slots[2 * h + 1] >> 32) != stamp:
            slots[2 * h] = key
            slots[2 * h + 1] = (stamp << 32) | value
            return
        if slots[2 * h] == key:
            if value > (slots[2 * h + 1] & 0xFFFFFFFF):
                slots[2 * h + 1] = (stamp << 32) | value
            return
        h = (h + 1) & mask
    slots[2 * home] = key
    slots[2 * home + 1] = (stamp << 32) | value
