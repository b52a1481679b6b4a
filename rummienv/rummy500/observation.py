"""The flat float32 observation of one seat, and its named slices.

Everything is relative to the observing seat ("me" first, then the others in turn
order) so that one network plays every seat. Only public facts and the seat's own
hand enter it: the stock order and other hands never do, except the cards a seat
took from the discard pile in view of everyone and still holds.

Parts, in order (P players, "rel" = seats after me in turn order):

    hand        52       1 if I hold the card
    table       52*P     block rel, card c: 1 if seat rel laid c (meld or lay-off)
    discard     52       card in the pile: 1 - depth/52 (top card 1.0), else 0
    must_use    52       1 at the card taken this turn and still owed to the table
    known       52*(P-1) block rel-1: cards seat rel took from the pile and holds
    hand_sizes  P-1      other seats' hand sizes / 52
    stock       1        stock size / 52
    scores      P        running totals / target_score (can be negative or > 1)
    phase       3        one-hot draw, meld, discard (all 0 when over)
    to_move     P        one-hot seat to move, relative (all 0 when over)
"""

from __future__ import annotations

import numpy as np
from numba import njit

from rummienv.cards import NUM_CARDS
from rummienv.rummy500.board import CURRENT, HANDS, MUST_USE, OWNER, PILE, PILE_N, STOCK_N, num_players

PARTS = ("hand", "table", "discard", "must_use", "known", "hand_sizes", "stock", "scores", "phase", "to_move")


def observation_layout(players: int) -> dict[str, slice]:
    sizes = {
        "hand": NUM_CARDS,
        "table": NUM_CARDS * players,
        "discard": NUM_CARDS,
        "must_use": NUM_CARDS,
        "known": NUM_CARDS * (players - 1),
        "hand_sizes": players - 1,
        "stock": 1,
        "scores": players,
        "phase": 3,
        "to_move": players,
    }
    layout, start = {}, 0
    for name in PARTS:
        layout[name] = slice(start, start + sizes[name])
        start += sizes[name]
    return layout


def layout_offsets(layout: dict[str, slice]) -> np.ndarray:
    """Start of each part, in PARTS order, for the compiled encoder."""
    return np.array([layout[name].start for name in PARTS], dtype=np.int64)


@njit(cache=True)
def fill_observation(out, off, board, me, totals, score_scale, phase):
    """Write seat ``me``'s observation into zeroed ``out``; ``phase`` is -1 when over."""
    players = num_players(board)
    hand = HANDS + me * 52
    known = HANDS + players * 52
    for c in range(52):
        out[off[0] + c] = board[hand + c]
        if board[OWNER + c] >= 0:
            out[off[1] + ((board[OWNER + c] - me) % players) * 52 + c] = 1.0
    pile_n = board[PILE_N]
    for i in range(pile_n):
        out[off[2] + board[PILE + i]] = 1.0 - (pile_n - 1 - i) / 52.0
    if board[MUST_USE] >= 0:
        out[off[3] + board[MUST_USE]] = 1.0
    for rel in range(1, players):
        seat = (me + rel) % players
        size = 0
        for c in range(52):
            out[off[4] + (rel - 1) * 52 + c] = board[known + seat * 52 + c]
            size += board[HANDS + seat * 52 + c]
        out[off[5] + rel - 1] = size / 52.0
    out[off[6]] = board[STOCK_N] / 52.0
    for rel in range(players):
        out[off[7] + rel] = totals[(me + rel) % players] / score_scale
    if phase >= 0:
        out[off[8] + phase] = 1.0
        out[off[9] + (board[CURRENT] - me) % players] = 1.0
