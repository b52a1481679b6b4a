"""Seeded random small solver positions, for comparing the solver with the oracle.

Positions are kept small (a table of at most about 12 pieces, a rack of at most
``max_rack``) because ``bruteforce`` enumerates every sub-multiset of the rack.
They are built to be interesting rather than uniform: the table is a valid
arrangement of random runs and groups (sometimes with jokers), and most rack
pieces are drawn near the table's pieces (same colour one or two numbers away,
or same number in another colour), so that a legal play exists in roughly 60%
of positions and the rest exercise the "no play" answer. Before opening the rack
is often seeded with a high-valued set so that openings of 30 or 40 (T4, K3)
are sometimes reachable and sometimes just short.

Copy limits hold across table and rack together: 2 of each numbered piece (C1),
and at most ``jokers_in_play`` jokers in all (2 in the tile game T1, 4 in the
card game K1).

Count vectors are ``int8`` numpy arrays of length 53 (the encoding of
``bruteforce``); ``fixed`` has length 14 and counts table jokers fixed to a
number (K5), which are not included in ``table[52]``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

NUMBERS = 13
JOKER = 52
NUM_TYPES = 53
MAX_TABLE_TILES = 12


def _idx(c: int, n: int) -> int:
    return c * NUMBERS + n - 1


def _random_set(rng: np.random.Generator, max_len: int) -> list[tuple[int, int]]:
    """A valid run or group as a list of (colour, number) it stands for."""
    if rng.random() < 0.55:
        length = int(rng.integers(3, min(5, max_len) + 1))
        colour = int(rng.integers(4))
        start = int(rng.integers(1, NUMBERS - length + 2))
        return [(colour, n) for n in range(start, start + length)]
    size = int(rng.integers(3, min(4, max_len) + 1))
    number = int(rng.integers(1, NUMBERS + 1))
    colours = rng.permutation(4)[:size]
    return [(int(c), number) for c in colours]


def _opening_set(rng: np.random.Generator) -> list[tuple[int, int]]:
    """A high set for the rack, worth 30-50: around the 30 and 40 thresholds."""
    size = 4 if rng.random() < 0.3 else 3
    if rng.random() < 0.5:
        number = int(rng.integers(9 + (size == 3), NUMBERS + 1))
        return [(int(c), number) for c in rng.permutation(4)[:size]]
    colour = int(rng.integers(4))
    start = int(rng.integers(8, NUMBERS - size + 2))
    return [(colour, n) for n in range(start, start + size)]


def random_position(
    rng: np.random.Generator | int,
    *,
    jokers_in_play: int = 2,
    max_table_sets: int = 3,
    max_rack: int = 6,
    fixed_jokers: bool = False,
    max_set_jokers: int = 1,
) -> dict[str, Any]:
    """One random position: ``table``, ``rack``, ``staged``, ``fixed``, ``opened``, ``threshold``.

    ``fixed_jokers=True`` is the card edition: every joker placed on the table is
    fixed to the number it stands for there (K5) and counted in ``fixed``;
    otherwise table jokers are free and counted in ``table[52]``. Rack jokers are
    always free. ``staged`` is a random sub-multiset of the rack, empty about
    two times in three. A table set holds up to ``max_set_jokers`` jokers (always
    one numbered piece at least), so that several jokers can head a run.
    """
    if not isinstance(rng, np.random.Generator):
        rng = np.random.default_rng(rng)
    jokers_left = min(int(jokers_in_play), 4)
    used = np.zeros(NUM_TYPES, dtype=np.int64)  # copies placed, table and rack
    table = np.zeros(NUM_TYPES, dtype=np.int8)
    fixed = np.zeros(14, dtype=np.int8)
    rack = np.zeros(NUM_TYPES, dtype=np.int8)
    anchors: list[tuple[int, int]] = []  # (colour, number) the table's pieces stand for

    opened = bool(rng.random() < 0.7)
    threshold = int(rng.choice([30, 40]))

    # Table: random valid sets; a joker may replace one piece of a set.
    n_sets = 0 if rng.random() < 0.1 else int(rng.integers(1, max_table_sets + 1))
    table_tiles = 0
    for _ in range(n_sets):
        room = MAX_TABLE_TILES - table_tiles
        if room < 3:
            break
        for _try in range(20):
            pieces = _random_set(rng, room)
            if all(used[_idx(c, n)] < 2 for c, n in pieces):
                break
        else:
            continue
        joker_at: set[int] = set()
        while (jokers_left > len(joker_at) and len(joker_at) < min(max_set_jokers, len(pieces) - 1)
               and rng.random() < 0.3):
            joker_at.add(int(rng.integers(len(pieces))))
        for k, (c, n) in enumerate(pieces):
            if k in joker_at:
                jokers_left -= 1
                if fixed_jokers:
                    fixed[n] += 1
                else:
                    table[JOKER] += 1
            else:
                used[_idx(c, n)] += 1
                table[_idx(c, n)] += 1
            anchors.append((c, n))
        table_tiles += len(pieces)

    # Rack: an optional high set before opening, then pieces near the table.
    # Before opening a rack of one or two pieces can never play: draw at least 3.
    low = (1 if rng.random() < 0.15 else 2) if opened else 3
    low = min(low, max_rack)
    rack_size = int(rng.integers(low, max_rack + 1))
    wanted: list[tuple[int, int]] = []
    if not opened and rack_size >= 3 and rng.random() < 0.8:
        wanted = _opening_set(rng)
    for c, n in wanted:
        if used[_idx(c, n)] < 2:
            used[_idx(c, n)] += 1
            rack[_idx(c, n)] += 1
    tries = 0
    while int(rack.sum()) < rack_size and tries < 100:
        tries += 1
        r = rng.random()
        if r < 0.12:
            if jokers_left > 0:
                jokers_left -= 1
                rack[JOKER] += 1
            continue
        own = [(i // NUMBERS, i % NUMBERS + 1) for i in range(52) if rack[i]]
        if r < 0.85 and (anchors or own):
            pool = anchors if (anchors and (not own or rng.random() < 0.75)) else own
            c, n = pool[int(rng.integers(len(pool)))]
            if rng.random() < 0.6:
                n += int(rng.choice([-2, -1, -1, 1, 1, 2]))
            else:
                c = int((c + rng.integers(1, 4)) % 4)
            if not 1 <= n <= NUMBERS:
                continue
        else:
            c, n = int(rng.integers(4)), int(rng.integers(1, NUMBERS + 1))
        i = _idx(c, n)
        if used[i] < 2:
            used[i] += 1
            rack[i] += 1

    staged = np.zeros(NUM_TYPES, dtype=np.int8)
    if rng.random() < 0.4:
        for i in np.flatnonzero(rack):
            for _ in range(int(rack[i])):
                if rng.random() < 0.3:
                    staged[i] += 1

    return {
        "table": table,
        "rack": rack,
        "staged": staged,
        "fixed": fixed,
        "opened": opened,
        "threshold": threshold,
    }


def random_positions(seed: int, count: int, **kw: Any) -> list[dict[str, Any]]:
    """``count`` positions from one seeded generator: the same seed gives the same list."""
    rng = np.random.default_rng(seed)
    return [random_position(rng, **kw) for _ in range(count)]


def describe(pos: dict[str, Any]) -> str:
    """One readable line for assertion messages."""

    def names(vec: np.ndarray) -> str:
        out = []
        for i in range(NUM_TYPES):
            tok = "J" if i == JOKER else f"{'kbor'[i // NUMBERS]}{i % NUMBERS + 1}"
            out += [tok] * int(vec[i])
        return " ".join(out) or "-"

    fixed = " ".join(f"J{n}" for n in range(1, 14) for _ in range(int(pos["fixed"][n]))) or "-"
    return (
        f"table=[{names(pos['table'])}] fixed=[{fixed}] rack=[{names(pos['rack'])}] "
        f"staged=[{names(pos['staged'])}] opened={pos['opened']} threshold={pos['threshold']}"
    )
