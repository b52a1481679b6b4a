"""Rummy 500's picture of one seat's knowledge (``render_mode="rgb_array"``), drawn from the state's ``view``
on the frame every game shares (``rummienv.drawing``).

Like the text render it reads ``view(seat)`` and nothing else, so a frame can show no more than the
observation holds: other hands appear only as counts, with the cards their seats took from the pile.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rummienv.core import Game
from rummienv.drawing import FAINT, HEIGHT, PANEL, WIDTH, Canvas, Face
from rummienv.inks import card_ink
from rummienv.seat_table import seat_label


def _card_face(card: str) -> Face:
    """A card in the project's notation (``TD``: ten of diamonds), as written."""
    return card, card_ink(card), "", False


def rummy500_frame(view: dict[str, Any], game: Game, you: int | None = None) -> np.ndarray:
    """The melds and who laid them, the discard pile, the seat's hand, every seat's card count, score and
    the cards it took from the pile, the stock and whose turn it is. Only ``you``, the seat a person played,
    is called "you": the seat whose view it is may be a bot's."""
    canvas = Canvas()
    me, to_move, players = view["player"], view["current_player"], view["num_players"]
    status = "hand over" if to_move < 0 else f"seat {to_move} to move ({view['phase']})"
    canvas.text(12, 10, f"Rummy 500, hand {view['hand_number'] + 1}: {status}; dealer seat {view['dealer']}", 16)
    canvas.text(12, 40, f"Melds: {len(view['melds'])}, each after the seats that laid its cards", 13, FAINT)
    x, y = 12, 60
    for meld in view["melds"]:
        faces = [_card_face(c) for c in meld["cards"]]
        if x + len(faces) * 33 + 30 > PANEL - 10 and x > 12:
            x, y = 12, y + 44
        canvas.text(x, y + 12, ",".join(map(str, sorted(set(meld["owners"])))), 11, FAINT)  # who laid it
        x, y = canvas.pieces(faces, x + 24, y, PANEL - 10, 300, (30, 40))
        x += 12
    canvas.text(12, 306, f"Discard pile, bottom to top: {len(view['discard'])} cards"
                + (f"; owed to the table: {view['must_use']}" if view["must_use"] is not None else ""), 13, FAINT)
    canvas.pieces([_card_face(c) for c in view["discard"]], 12, 326, PANEL - 10, 420, (30, 40))
    canvas.text(12, 432, f"Hand of seat {me}: {len(view['hand'])} cards", 13, FAINT)
    canvas.pieces([_card_face(c) for c in view["hand"]], 12, 452, PANEL - 10, HEIGHT - 8, (30, 40))
    seats = [(me + i) % players for i in range(players)]
    rows = [(seat_label(s, you, to_move), str(view["hand_sizes"][s]), str(view["scores"][s])) for s in seats]
    y = canvas.seats(("seat", "cards", "total"), rows, 40)
    canvas.text(PANEL + 10, y, f"stock: {view['stock_size']}", 14)
    y += 30
    for s in seats:
        if view["known"][s]:
            canvas.text(PANEL + 10, y, f"seat {s} took from the pile:", 11, FAINT)
            canvas.pieces([_card_face(c) for c in view["known"][s]], PANEL + 10, y + 16, WIDTH - 6, HEIGHT - 8,
                          (30, 40))
            y += 64
    return canvas.array()
