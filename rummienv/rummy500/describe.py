"""A state as plain data: the full position (``to_dict``) and its public part (``view``).

Both are built from one list of shared facts so that what a seat sees is always a
subset of the position, and a position written by ``to_dict`` is exactly what
``position.load_state`` reads back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from rummienv.cards import CARD_STRINGS, card_index
from rummienv.rules import rules_fields
from rummienv.rummy500 import board as bd
from rummienv.rummy500.actions import GROUP, KIND_NAMES, position_card

if TYPE_CHECKING:
    from rummienv.rummy500.state import Rummy500State


def _cards(indices: np.ndarray | list[int]) -> list[str]:
    return [CARD_STRINGS[c] for c in indices]


def _meld_cards(board: list[int], row: int) -> list[int]:
    """Cards of table meld ``row`` (of ``board.tolist()``): a group in suit order, a run low to high."""
    kind, key, lo, hi = (board[bd.MELDS + row * bd.ROW + col] for col in (bd.KIND, bd.KEY, bd.LO, bd.HI))
    if kind == GROUP:
        return [c for c in (card_index(key, s) for s in range(4)) if board[bd.MELD_OF + c] == row]
    return [position_card(pos, key) for pos in range(lo, hi + 1)]


def _shared(state: Rummy500State) -> dict[str, Any]:
    board = state.board.tolist()  # plain ints: far faster to pick through than numpy scalars
    melds = []
    for row in range(board[bd.N_MELDS]):
        cards = _meld_cards(board, row)
        melds.append(
            {
                "kind": KIND_NAMES[board[bd.MELDS + row * bd.ROW + bd.KIND]],
                "cards": _cards(cards),
                "owners": [board[bd.OWNER + c] for c in cards],
            }
        )
    must_use = board[bd.MUST_USE]
    return {
        "game": state.rules.game,
        "melds": melds,
        "discard": _cards(bd.pile(board)),
        "scores": state.totals.tolist(),
        "current_player": state.current_player,
        "dealer": state.dealer,
        "phase": state.phase,
        "must_use": CARD_STRINGS[must_use] if must_use >= 0 else None,
        "known": [_cards(np.flatnonzero(row)) for row in bd.known(state.board)],
        "hand_number": state.hand_number,
    }


def state_to_dict(state: Rummy500State) -> dict[str, Any]:
    position = _shared(state)
    rules = rules_fields(state.rules)
    del rules["game"]
    position.update(
        rules=rules,
        hands=[_cards(np.flatnonzero(row)) for row in bd.hands(state.board)],
        stock=_cards(bd.stock(state.board)),
        seed=state.seed,
        actions=state.history,
    )
    if state.rules.whole_game and (rng := state.rng_state) is not None:
        position["rng"] = rng
    return position


def public_dict(state: Rummy500State) -> dict[str, Any]:
    """What every seat knows: the table, the spread pile (F3), sizes and known cards."""
    view = _shared(state)
    view.update(
        num_players=state.num_players,
        stock_size=int(state.board[bd.STOCK_N]),
        hand_sizes=[int(n) for n in bd.hands(state.board).sum(axis=1)],
    )
    return view
