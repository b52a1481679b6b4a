"""Rummikub piece identities and notation (C1).

A piece type is an index 0..52: ``colour * 13 + number - 1`` for the numbered
pieces (colours ``k`` black, ``b`` blue, ``o`` orange, ``r`` red) and 52 for the
joker. Count vectors of length 53 are the currency of the solver and the state
machine; strings exist only at the edges (positions, the CLI, rendering).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from rummienv.errors import NotationError

COLOURS = "kbor"
COLOUR_NAMES = ("black", "blue", "orange", "red")
NUMBERS = 13
JOKER = 52
NUM_TYPES = 53
COPIES = 2

_ALLOWED = "a colour letter k, b, o or r followed by a number 1-13 (r7, k13), or J for a joker"


_NAMES = tuple(f"{COLOURS[t // NUMBERS]}{t % NUMBERS + 1}" for t in range(JOKER)) + ("J",)
_INDEX_OF = {name: index for index, name in enumerate(_NAMES)}


def tile_index(token: str) -> int:
    """Parse one token (``r7``, ``k13``, ``J``) into its type index. A position names every piece it holds, and
    the soak reads one back after every action, so a name as written is looked up before it is parsed."""
    index = _INDEX_OF.get(token) if type(token) is str else None
    if index is not None:
        return index
    if not isinstance(token, str):
        raise NotationError(f"tile {token!r} is not a string; expected {_ALLOWED}")
    text = token.strip()
    if text in ("J", "j"):
        return JOKER
    digits = text[1:]
    if len(text) >= 2 and text[0] in COLOURS and digits.isascii() and digits.isdigit() and digits[0] != "0":
        number = int(digits)
        if 1 <= number <= NUMBERS:
            return COLOURS.index(text[0]) * NUMBERS + number - 1
    raise NotationError(f"bad tile {token!r}: expected {_ALLOWED}")


def tile_name(index: int) -> str:
    return _NAMES[index]


def tile_names(indices: Iterable[int]) -> list[str]:
    """The names of ``indices`` in order (numpy integers too)."""
    return [_NAMES[t] for t in indices]


def parse_tiles(text: str | Iterable[str]) -> list[int]:
    """Parse a space-separated string or a list of tokens into type indices. A position lists every piece of
    the game, and the soak reads one back after every action: names as written are looked up all at once, and
    only a list holding another token is parsed token by token (which names the bad one)."""
    tokens = text.split() if isinstance(text, str) else list(text)
    try:
        return [_INDEX_OF[t] for t in tokens]
    except (KeyError, TypeError):
        return [tile_index(t) for t in tokens]


def counts_of(indices: Iterable[int]) -> np.ndarray:
    return np.bincount(np.fromiter(indices, dtype=np.int64), minlength=NUM_TYPES).astype(np.int8)


def tiles_of(counts: np.ndarray) -> list[int]:
    """Expand a count vector into a sorted list of type indices."""
    return np.repeat(np.arange(NUM_TYPES), counts.astype(np.int64)).tolist()


def counts_text(counts: np.ndarray) -> str:
    """A count vector in notation (``r4 r5 J``), for messages a person reads."""
    return " ".join(tile_names(tiles_of(counts))) or "-"


def number_of(index: int) -> int:
    return index % NUMBERS + 1


# The number of each numbered type (the joker, 52, has none): its face value in scoring (T9) and what a joker
# fixed to a number stands for (K5).
NUMBER_OF_TYPE = np.tile(np.arange(1, NUMBERS + 1, dtype=np.int64), len(COLOURS))


def face_points(counts: np.ndarray, joker_points: int) -> int:
    """The pieces' numbers added up, each joker at ``joker_points``: a rack's minus points (T9/K7) and what a
    play sheds, asked by the rules and the solver alike."""
    return int(counts[:JOKER] @ NUMBER_OF_TYPE) + int(counts[JOKER]) * joker_points


def colour_of(index: int) -> int:
    return index // NUMBERS


def sort_key(index: int) -> tuple[int, int]:
    """Colour then number, jokers last: how players sort a rack."""
    return (4, 0) if index == JOKER else (colour_of(index), number_of(index))
