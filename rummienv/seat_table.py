"""The seats as every game's text render and picture list them: a table, each seat labelled for whoever looks.

One labelling for every render, so that "you" and the mark of the seat to move read alike in the text, the
picture and across games.
"""

from __future__ import annotations

from typing import Any


def seat_label(seat: int, you: int | None, to_move: int) -> str:
    """The seat's number, with "you" for ``you`` and "*" for the seat to move."""
    return f"{seat}{' you' if seat == you else ''}{' *' if seat == to_move else ''}"


def text_table(header: tuple[str, ...], rows: list[tuple[Any, ...]]) -> list[str]:
    """``rows`` under ``header`` as lines of left-aligned columns, for a fixed-width text render."""
    cells = [tuple(str(c) for c in row) for row in [header, *rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    return ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells]
