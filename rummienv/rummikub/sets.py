"""Validity of one Rummikub set (C2-C5), and what its jokers stand for.

The solver works on multisets; this module is for the places where one concrete
set matters: checking a position's table, fixing a joker's number when it goes
down (K5), and rendering.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Literal

from rummienv.tiles import JOKER, NUMBERS, colour_of, number_of, tile_name
from rummienv.wording import counted

Kind = Literal["run", "group"]


def set_kind(tiles: Sequence[int]) -> Kind | None:
    """How a set written without a kind is read: a group where it can be one, else a run.

    Only a set with a single numbered piece and at most four pieces can be both;
    such a run must be marked as one where it is written (positions do so).
    """
    pieces = tuple(int(t) for t in tiles)
    for kind in ("group", "run"):
        if _numbers(pieces, kind) is not None:
            return kind
    return None


def set_numbers(tiles: Sequence[int], kind: Kind) -> list[int] | None:
    """The number each piece of the set stands for, or None if it is not a valid ``kind``.

    A run is read in the order given (low to high), so a joker's place says what
    it stands for; a group's jokers stand for the group's number.
    """
    numbers = _numbers(tuple(int(t) for t in tiles), kind)
    return None if numbers is None else list(numbers)


@lru_cache(maxsize=1 << 14)
def _numbers(tiles: tuple[int, ...], kind: Kind) -> tuple[int, ...] | None:
    """``set_numbers``, remembered: every position written or read checks each table set, and a table's sets
    stay the same through many positions (a soak reads and writes one after every action)."""
    real = [t for t in tiles if t != JOKER]
    if not real or len(tiles) < 3:
        return None  # C4: at least one numbered piece; C2/C3: three pieces at least
    colours = [colour_of(t) for t in real]
    if kind == "group":
        if len({number_of(t) for t in real}) == 1 and len(tiles) <= 4 and len(set(colours)) == len(colours):
            return (number_of(real[0]),) * len(tiles)
        return None
    if len(set(colours)) != 1:
        return None
    first = next(i for i, t in enumerate(tiles) if t != JOKER)
    start = number_of(tiles[first]) - first
    if start < 1 or start + len(tiles) - 1 > NUMBERS:
        return None  # C3: 1 only low, 13 only high
    for i, t in enumerate(tiles):
        if t != JOKER and number_of(t) != start + i:
            return None
    return tuple(range(start, start + len(tiles)))


def set_value(tiles: Sequence[int], kind: Kind) -> int:
    """C5: the sum of the numbers the pieces stand for."""
    numbers = set_numbers(tiles, kind)
    if numbers is None:
        raise ValueError(f"not a valid set: {' '.join(tile_name(t) for t in tiles)}")
    return sum(numbers)


def describe_invalid(tiles: Sequence[int]) -> str:
    """A reason a person can act on, for error messages."""
    names = " ".join(tile_name(t) for t in tiles)
    if len(tiles) < 3:
        return f"set [{names}] has {counted(len(tiles), 'piece')}; a set needs at least 3"
    if all(t == JOKER for t in tiles):
        return f"set [{names}] has only jokers; a set needs a numbered piece"
    return (f"set [{names}] is neither a group (one number, different colours, 3-4) "
            "nor a run (one colour, consecutive, in order, 1 low and 13 high)")
