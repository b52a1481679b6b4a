"""What a Rummikub piece shows, wherever a person sees it drawn: the env's pictures and the replay page take
its number, its ink, the number a table joker stands for and the staged outline from here, so both show a
piece alike.
"""

from __future__ import annotations

from collections import Counter
from typing import NamedTuple

from rummienv.inks import Ink, tile_ink
from rummienv.rummikub.sets import Kind, set_numbers
from rummienv.tiles import JOKER, NUMBERS


class TileFace(NamedTuple):
    label: str  # the number printed on the piece, "J" on a joker
    ink: Ink
    note: str  # the number a joker on the table stands for (K5), else ""


def tile_face(t: int, stands_for: int | None = None) -> TileFace:
    """The face of piece type ``t``; ``stands_for``, a table joker's number."""
    if t == JOKER:
        return TileFace("J", tile_ink(t), "" if stands_for is None else str(stands_for))
    return TileFace(str(t % NUMBERS + 1), tile_ink(t), "")


def set_faces(kind: Kind, pieces: tuple[int, ...]) -> list[TileFace]:
    """The faces of a table set, each joker saying the number it stands for (K5 makes it stick in the card
    edition, so a person must see it)."""
    return [tile_face(t, n if t == JOKER else None) for t, n in zip(pieces, set_numbers(pieces, kind), strict=True)]


def staged_marks(rack: list[int], staged: list[int]) -> list[bool]:
    """Which of the rack's pieces are staged, for the renders that mark them in the rack rather than list them
    apart (the pictures, the replay page): a piece held twice and staged once is marked once."""
    unmarked, marks = Counter(staged), []
    for t in rack:
        marks.append(unmarked[t] > 0)
        unmarked[t] -= 1
    return marks
