"""The colours people see pieces in, shared by every game's pictures and replay page so that both look alike."""

from __future__ import annotations

from rummienv.tiles import JOKER, NUMBERS

Ink = tuple[int, int, int]  # RGB

_TILE_INK: dict[int, Ink] = {0: (25, 25, 25), 1: (30, 80, 210), 2: (225, 120, 0), 3: (205, 30, 40)}  # k b o r
_JOKER_INK: Ink = (150, 40, 160)
_SUIT_INK: dict[str, Ink] = {"S": (25, 25, 25), "C": (25, 25, 25), "H": (205, 30, 40), "D": (205, 30, 40)}


def tile_ink(t: int) -> Ink:
    """A Rummikub piece's colour (its type index, ``rummienv.tiles``)."""
    return _JOKER_INK if t == JOKER else _TILE_INK[t // NUMBERS]


def card_ink(card: str) -> Ink:
    """A card's colour, red or black by its suit (``TD``: ten of diamonds)."""
    return _SUIT_INK[card[-1]]


def hex_ink(rgb: Ink) -> str:
    """A colour as the page's script writes it (``#rrggbb``)."""
    return "#" + "".join(f"{c:02x}" for c in rgb)
