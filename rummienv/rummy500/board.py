"""The packed Rummy 500 board: the whole state of a hand in one int8 array.

One flat buffer makes ``clone`` a single copy and lets each compiled kernel (mask,
move, observation) take one argument instead of a dozen, which is most of the
cost of a step at the environment's target speed. Every entry fits in int8.

Layout (offsets in this module; P players)::

    0..5      scalars: CURRENT seat, STEP (0 draw, 1 play, 2 over), MUST_USE card
              or -1, PILE_N, STOCK_N, N_MELDS
    PILE      52  discard pile, bottom first
    STOCK     52  stock, next draw *last* (so drawing is a decrement)
    OWNER     52  seat that laid the card on the table, -1 if not on the table
    MELD_OF   52  table meld row holding the card, -1
    VALUE     52  points the laid card scores (F4: an ace low in a run is 1)
    MELDS     MAX_MELDS rows of (kind, key, lo, hi, size): key is a group's rank
              or a run's suit, lo..hi its run positions 1..14 (1 and 14 both ace)
    HANDS     P x 52 0/1, then KNOWN P x 52 0/1 (cards taken from the pile, held)
"""

from __future__ import annotations

import numpy as np
from numba import njit

from rummienv.cards import NUM_CARDS

CURRENT, STEP, MUST_USE, PILE_N, STOCK_N, N_MELDS = range(6)
DRAW_STEP, PLAY_STEP, OVER_STEP = 0, 1, 2
KIND, KEY, LO, HI, SIZE = range(5)
ROW = 5
MAX_MELDS = 18  # 52 // 3 table melds at most, plus a spare row for a hypothetical one
PILE = 8
STOCK = PILE + NUM_CARDS
OWNER = STOCK + NUM_CARDS
MELD_OF = OWNER + NUM_CARDS
VALUE = MELD_OF + NUM_CARDS
MELDS = VALUE + NUM_CARDS
HANDS = MELDS + MAX_MELDS * ROW


def new_board(num_players: int) -> np.ndarray:
    board = np.zeros(HANDS + 2 * num_players * NUM_CARDS, dtype=np.int8)
    reset_board(board)
    return board


@njit(cache=True)
def num_players(board: np.ndarray) -> int:
    return (len(board) - HANDS) // (2 * NUM_CARDS)


def reset_board(board: np.ndarray) -> None:
    """Everything empty: no cards anywhere, nothing owed, no melds."""
    board[:] = 0
    board[MUST_USE] = -1
    board[OWNER:VALUE] = -1


def hands(board: np.ndarray) -> np.ndarray:
    """Writable (players, 52) view of the hands."""
    players = num_players(board)
    return board[HANDS : HANDS + players * NUM_CARDS].reshape(players, NUM_CARDS)


def known(board: np.ndarray) -> np.ndarray:
    players = num_players(board)
    start = HANDS + players * NUM_CARDS
    return board[start : start + players * NUM_CARDS].reshape(players, NUM_CARDS)


def pile(board: np.ndarray) -> np.ndarray:
    """The discard pile, bottom first (a copy)."""
    return board[PILE : PILE + board[PILE_N]].copy()


def stock(board: np.ndarray) -> np.ndarray:
    """The stock, next draw first (a copy)."""
    return board[STOCK : STOCK + board[STOCK_N]][::-1].copy()


def melds(board: np.ndarray) -> np.ndarray:
    """Writable (MAX_MELDS, 5) view of the table meld rows."""
    return board[MELDS:HANDS].reshape(MAX_MELDS, ROW)
