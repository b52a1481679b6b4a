"""Why an action the mask forbids is illegal, in words, for error messages.

The mask says only yes or no; a person (or a bug report) needs the rule. This is
read only after the mask has refused an action, so it may be slow and it only
has to pick the right sentence, not decide legality.
"""

from __future__ import annotations

import numpy as np

from rummienv.cards import CARD_STRINGS
from rummienv.rummy500 import actions as act
from rummienv.rummy500 import board as bd
from rummienv.rummy500.kernels import layoff_target


def why_illegal(board: np.ndarray, action: int) -> str:
    """The rule ``action`` breaks on ``board``, given that the mask refused it."""
    kind, arg = act.decode(action)
    seat = int(board[bd.CURRENT])
    drawing = board[bd.STEP] == bd.DRAW_STEP
    if kind in ("DRAW_STOCK", "TAKE", "END_HAND"):
        if not drawing:
            return "the player has already drawn this turn (F6); meld, lay off or discard"
        if kind == "DRAW_STOCK":
            return "the stock is empty: take from the discard pile or END_HAND (F10)"
        if kind == "END_HAND":
            return "END_HAND is only for a player who must draw from an empty stock (F10)"
        if arg not in bd.pile(board):
            return f"{CARD_STRINGS[arg]} is not in the discard pile"
        return (
            f"{CARD_STRINGS[arg]} could not be used this turn: no meld or lay-off with it "
            "from the hand plus the cards above it (F6)"
        )
    if drawing:
        return "the turn starts with a draw: DRAW_STOCK or TAKE a card (F6)"
    cards = act.MELD_CARDS[arg] if kind == "MELD" else (arg,)
    missing = [CARD_STRINGS[c] for c in cards if not bd.hands(board)[seat, c]]
    if missing:
        return f"seat {seat} does not hold {' '.join(missing)}"
    if kind.startswith("LAYOFF") and layoff_target(board, arg, kind == "LAYOFF_RUN")[0] < 0:
        target = "run" if kind == "LAYOFF_RUN" else "group of three"
        return f"no {target} on the table takes {CARD_STRINGS[arg]} (F7)"
    owed = CARD_STRINGS[board[bd.MUST_USE]]
    if kind == "DISCARD":
        return f"{owed}, taken from the pile, must be melded or laid off before the discard (F6, F8)"
    return f"it would leave {owed}, taken from the pile, impossible to use this turn (F6)"
