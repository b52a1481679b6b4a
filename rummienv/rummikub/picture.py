"""The Rummikub editions' picture of one seat's knowledge (``render_mode="rgb_array"``), drawn from the state's
``view`` on the frame every game shares (``rummienv.drawing``).

Like the text render it reads ``view(seat)`` and nothing else, so a frame can show no more than the
observation holds: other racks appear only as counts.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rummienv.core import Game
from rummienv.drawing import FAINT, HEIGHT, PANEL, Canvas
from rummienv.rummikub.faces import set_faces, staged_marks, tile_face
from rummienv.rummikub.text import heading
from rummienv.seat_table import seat_label


def rummikub_frame(view: dict[str, Any], game: Game, you: int | None = None) -> np.ndarray:
    """The table's sets, the seat's rack (staged pieces outlined), every seat's piece count, whether it has
    opened and its total, the pool and whose turn it is. Only ``you``, the seat a person played, is called
    "you": the seat whose view it is may be a bot's."""
    canvas = Canvas()
    me, to_move = view["player"], view["current_player"]
    status = "game over" if to_move < 0 else f"seat {to_move} to move ({view['phase']})"
    canvas.text(12, 10, f"{heading(view, game)}: {status}", 16)
    canvas.text(12, 40, f"Table: {len(view['table_sets'])} sets", 13, FAINT)
    x, y = 12, 60
    for kind, pieces in view["table_sets"]:
        faces = [(*face, False) for face in set_faces(kind, pieces)]
        if x + len(faces) * 25 > PANEL - 10 and x > 12:  # a set starts a new line rather than split
            x, y = 12, y + 36
        x, y = canvas.pieces(faces, x, y, PANEL - 10, 400, (22, 32))
        x += 14
    staged = view["staged"]  # a part of the rack, laid out this turn and not yet committed
    canvas.text(12, 412, f"Rack of seat {me}: {len(view['rack'])} pieces"
                + (f", {len(staged)} staged (outlined)" if staged else ""), 13, FAINT)
    rack = [(*tile_face(t), marked) for t, marked in zip(view["rack"], staged_marks(view["rack"], staged),
                                                         strict=True)]
    canvas.pieces(rack, 12, 432, PANEL - 10, HEIGHT - 8, (22, 32))
    rows = [(seat_label(s, you, to_move), str(n), "yes" if o else "no", f"{t:g}")
            for s, n, o, t in zip(view["seats"], view["rack_sizes"], view["opened_by_seat"], view["totals"],
                                  strict=True)]
    y = canvas.seats(("seat", "pieces", "open", "total"), rows, 40)
    canvas.text(PANEL + 10, y, f"pool: {view['pool_size']}", 14)
    canvas.text(PANEL + 10, y + 22, f"passes in a row: {view['passes']}", 12, FAINT)
    return canvas.array()
