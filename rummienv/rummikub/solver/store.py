"""The solver's store: where a pass keeps its states, the hash table that merges them, and the state key.

A state of the programme is one int64, its key (fields below). A forward pass (``passes``) keeps its states
in the store's columns, one layer after the other: ``key``, ``value`` (the best objective value of a path
to the state), ``bits`` (the piece types some path to it used beyond the lower bound), ``parent`` (the
state it came from on its best path) and ``option`` (the choice that led there, see ``programme``);
``layer_start[k]`` is where the layer after sub-step k begins, and ``skipped[k]`` marks a sub-step that
changed no state. A layer's states are merged through ``hash_table``, open addressing with (key, stamp
<< 32 | slot) entries: a fresh ``stamp`` empties the table without clearing it. ``path`` takes the options
of one path, ``memo`` (with its own ``memo_stamp``) the states the depth-first searches found to lead
nowhere (``search``).

All of it is one ``Store``, a numba structref allocated once per process and passed whole to the compiled
functions; in Python the same object holds its arrays as attributes of the same names.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.experimental import structref

# What one compiled function hands another, constants and a loop variable's first value alike, is a numpy
# scalar (``ZERO``, ``search.LEGAL_BUDGET``): numba compiles a callee afresh for each literal Python constant
# it is given, and those copies of the searches and the pass made the first compile take five minutes instead
# of one, for no speed (tests/test_kernel_specializations.py counts the compiles).
ZERO, ONE = np.int64(0), np.int64(1)
NO, YES = np.bool_(False), np.bool_(True)

STORE_CAP = 1 << 21  # states a pass may store
HASH_BITS_MIN, HASH_BITS_MAX = 10, 21  # the hash table's size: 2^HASH_BITS_MIN to 2^HASH_BITS_MAX slots
SUBSTEPS = 65  # five a number: its four colours, then its jokers
# The table of a turn's dead states (a cache, search._remember), and the slots it looks at for a key: on
# recorded random play, with every mask timed beside the build before, 2^12 slots and 4 probes cut the mean
# most (2^10 to 2^16 slots, 2 to 8 probes tried); a larger table is read slower than its fewer misses save.
MEMO_BITS = np.int64(12)

_F_J, _F_R, _F_GS, _F_GM = 16, 19, 22, 26
_F_P1, _F_P2, _F_FU = 28, 31, 34  # joker-only runs (length 1, 2+) and fixed jokers placed at this number
_F_V = 37  # an opening's value so far, capped at its threshold
_V_FIELD = np.int64(255) << _F_V
_DEAD = np.int64(1) << 62


# The key's fields by name. Each is inlined where it is read (the moves read them for every state they expand);
# a move writes a successor's fields with the same shifts.
@njit(cache=True, inline="always")
def run_pair(key, shift):
    """The open runs of the colour whose four bits start at ``shift``: a row of ``programme.PAIRS``."""
    return (key >> shift) & 15


@njit(cache=True, inline="always")
def jokers_placed(key):
    """J: the jokers the layout has placed so far."""
    return (key >> _F_J) & 7


@njit(cache=True, inline="always")
def joker_room(key):
    """R: how many jokers the layout's sets could hold, placed ones included (spares go there)."""
    return (key >> _F_R) & 7


@njit(cache=True, inline="always")
def group_pieces(key):
    """GS: the pieces in the groups of the number being laid."""
    return (key >> _F_GS) & 15


@njit(cache=True, inline="always")
def group_most(key):
    """GM: the most pieces of one colour in those groups (a group holds one of each colour)."""
    return (key >> _F_GM) & 3


@njit(cache=True, inline="always")
def joker_runs(key):
    """P1 and P2: the joker-only runs still waiting for their first piece, of one joker and of two or more."""
    return (key >> _F_P1) & 7, (key >> _F_P2) & 7


@njit(cache=True, inline="always")
def fixed_placed(key):
    """FU: the jokers fixed to the number being laid (K5) placed so far."""
    return (key >> _F_FU) & 7


@njit(cache=True, inline="always")
def value_laid(key):
    """V: an opening's value laid so far, capped at its threshold."""
    return (key >> _F_V) & 255
NO_FLOOR = -(np.int64(1) << 60)


@structref.register
class StoreType(types.StructRef):
    """numba's type of a ``Store``."""

    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(t)) for name, t in fields)


class Store(structref.StructRefProxy):
    """The store as Python holds it (``open_store``): passed whole to the compiled functions, and holding
    its arrays as attributes of the same names, which Python reads without a compiled call."""


structref.define_boxing(StoreType, Store)
_INT64S = types.Array(types.int64, 1, "C")
FIELDS = ("hash_table", "stamp", "key", "value", "bits", "parent", "option", "layer_start", "skipped", "path",
          "memo", "memo_stamp")
STORE_TYPE = StoreType([(name, types.Array(types.uint64, 1, "C") if name == "bits" else _INT64S)
                        for name in FIELDS])


@njit(cache=True)
def _new_store():
    store = structref.new(STORE_TYPE)
    store.hash_table = np.zeros(2 << HASH_BITS_MAX, dtype=np.int64)
    store.stamp = np.zeros(1, dtype=np.int64)
    store.key = np.zeros(STORE_CAP, dtype=np.int64)
    store.value = np.zeros(STORE_CAP, dtype=np.int64)
    store.bits = np.zeros(STORE_CAP, dtype=np.uint64)
    store.parent = np.zeros(STORE_CAP, dtype=np.int64)
    store.option = np.zeros(STORE_CAP, dtype=np.int64)
    store.layer_start = np.zeros(SUBSTEPS + 2, dtype=np.int64)
    store.skipped = np.zeros(SUBSTEPS + 2, dtype=np.int64)
    store.path = np.zeros(SUBSTEPS + 1, dtype=np.int64)
    store.memo = np.zeros(2 << MEMO_BITS, dtype=np.int64)
    store.memo_stamp = np.zeros(1, dtype=np.int64)
    return store


@njit(cache=True)
def _arrays(store):
    return (store.hash_table, store.stamp, store.key, store.value, store.bits, store.parent, store.option,
            store.layer_start, store.skipped, store.path, store.memo, store.memo_stamp)


def open_store() -> Store:
    """A new store, its arrays also Python attributes; allocating them per call would cost more than solving."""
    store = _new_store()
    for name, array in zip(FIELDS, _arrays(store), strict=True):
        setattr(store, name, array)
    return store


@njit(cache=True, inline="always")
def _slot(key, hash_bits):
    return ((key * np.int64(0x9E3779B97F4A7C15)) >> np.int64(64 - hash_bits)) & ((np.int64(1) << hash_bits) - 1)


@njit(cache=True, inline="always")
def _fslot(key, filter_bits):
    return ((key * np.int64(0xC2B2AE3D27D4EB4F)) >> np.int64(64 - filter_bits)) & ((np.int64(1) << filter_bits) - 1)


@njit(cache=True, inline="always")
def _get(key, hash_table, hash_bits, stamp, probes):
    """The value (the store slot, for the programme's tables) kept for ``key``, or -1; looking at most at
    ``probes`` slots (all of them for a table that never drops a key, ``PROBES`` for a cache)."""
    mask = (np.int64(1) << hash_bits) - 1
    h = _slot(key, hash_bits)
    for _ in range(probes):
        e = hash_table[2 * h + 1]
        if (e >> 32) != stamp:
            return -1
        if hash_table[2 * h] == key:
            return e & 0xFFFFFFFF
        h = (h + 1) & mask
    return -1


@njit(cache=True)
def _rehash(begin, top, hash_table, hash_bits, stamp, s_key):
    for i in range(begin, top):
        key = s_key[i]
        mask = (np.int64(1) << hash_bits) - 1
        h = _slot(key, hash_bits)
        while (hash_table[2 * h + 1] >> 32) == stamp:
            h = (h + 1) & mask
        hash_table[2 * h] = key
        hash_table[2 * h + 1] = (stamp << 32) | i


@njit(cache=True)
def _hash_bits_for(size):
    hash_bits = HASH_BITS_MIN
    while (np.int64(1) << hash_bits) < 3 * size and hash_bits < HASH_BITS_MAX:
        hash_bits += 1
    return hash_bits


@njit(cache=True)
def _fresh_stamp(hash_table, ws_stamp):
    """A stamp no entry of ``hash_table`` carries yet: a new, empty table without clearing it."""
    stamp = ws_stamp[0]
    if stamp > (np.int64(1) << 30):
        hash_table[:] = 0
        stamp = 0
    stamp += 1
    ws_stamp[0] = stamp
    return stamp
