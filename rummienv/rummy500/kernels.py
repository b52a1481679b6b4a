"""Compiled rules on the packed board (board.py): moves and the legal-action mask.

The mask is computed on every step, and the F6 condition on taking a discard is a
search ("can this card still reach the table this turn?"), so these run under
numba. ``usable`` answers that search in closed form; the tests compare it with a
plain search over every sequence of melds and lay-offs. A hypothetical move is
tried by playing it on a copy of the board with the same code as a real one.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from rummienv.cards import ACE_LOW_VALUE, CARD_VALUES
from rummienv.rummy500.actions import (
    DISCARD,
    DRAW_STOCK,
    END_HAND,
    GROUP,
    GROUP_INDEX,
    LAYOFF_GROUP,
    LAYOFF_RUN,
    MELD,
    MELD_HI,
    MELD_KEY,
    MELD_KIND,
    MELD_LEN,
    MELD_LO,
    MELD_PAD,
    NUM_ACTIONS,
    NUM_MELDS,
    RUN,
    RUN_INDEX,
    TAKE,
)
from rummienv.rummy500.board import (
    CURRENT,
    DRAW_STEP,
    HANDS,
    HI,
    KEY,
    KIND,
    LO,
    MELD_OF,
    MELDS,
    MUST_USE,
    N_MELDS,
    OWNER,
    PILE,
    PILE_N,
    PLAY_STEP,
    ROW,
    SIZE,
    STEP,
    STOCK,
    STOCK_N,
    VALUE,
    num_players,
)

_GROUP_SUBSETS = (7, 11, 13, 14, 15)  # suit bitmasks of the 3- and 4-card groups


@njit(cache=True)
def _known_start(board):
    return HANDS + num_players(board) * 52


@njit(cache=True)
def _held(board, hand, suit, pos):
    """Whether the hand starting at ``hand`` holds run position ``pos`` of ``suit``."""
    return board[hand + suit * 13 + (0 if pos == 14 else pos - 1)] > 0


@njit(cache=True)
def usable(board, seat, card):
    """Whether ``card``, held by ``seat``, can reach the table this turn (F6).

    It can iff it forms a new meld with held cards, or fits a table group, or is
    joined to the end of a table run by a chain of held cards of its suit laid off
    one by one. Melding other cards first never helps: a meld that could take the
    card later could equally be made with the card in it.
    """
    hand = HANDS + seat * 52
    rank = card % 13 + 1
    suit = card // 13
    same_rank = 0
    for s in range(4):
        same_rank += board[hand + s * 13 + rank - 1] > 0
    if same_rank >= 3:
        return True
    n_melds = board[N_MELDS]
    for m in range(n_melds):
        row = MELDS + m * ROW
        if board[row + KIND] == GROUP and board[row + KEY] == rank and board[row + SIZE] == 3:
            return True
    for k in range(2 if rank == 1 else 1):
        pos = rank if rank != 1 else (1 if k == 0 else 14)
        lo = pos
        while lo > 1 and _held(board, hand, suit, lo - 1):
            lo -= 1
        hi = pos
        while hi < 14 and _held(board, hand, suit, hi + 1):
            hi += 1
        if hi - lo >= 2:
            return True
        for m in range(n_melds):
            row = MELDS + m * ROW
            if board[row + KIND] == RUN and board[row + KEY] == suit:
                if board[row + HI] == lo - 1 or board[row + LO] == hi + 1:
                    return True
    return False


@njit(cache=True)
def layoff_target(board, card, as_run):
    """The table meld row ``card`` is laid off on (-1 if none) and whether at a run's high end.

    Only one group can take a card. A card can fit two runs (6S between 3-5S and
    7-9S; an ace after K and before 2): the run ending just below the card wins,
    which for an ace is the high end, worth 15 to its layer instead of 1 (F4).
    Otherwise the choice changes nothing: the same cards stay open at the same ends.
    """
    rank = card % 13 + 1
    n_melds = board[N_MELDS]
    if not as_run:
        for m in range(n_melds):
            row = MELDS + m * ROW
            if board[row + KIND] == GROUP and board[row + KEY] == rank and board[row + SIZE] == 3:
                return m, False
        return -1, False
    suit = card // 13
    below = 13 if rank == 1 else rank - 1
    above = 2 if rank == 1 else rank + 1
    for m in range(n_melds):
        row = MELDS + m * ROW
        if board[row + KIND] == RUN and board[row + KEY] == suit and board[row + HI] == below:
            return m, True
    for m in range(n_melds):
        row = MELDS + m * ROW
        if board[row + KIND] == RUN and board[row + KEY] == suit and board[row + LO] == above:
            return m, False
    return -1, False


@njit(cache=True)
def table_fits(board):
    """Which cards ``layoff_target`` finds a meld for, in one pass over the table: bit r of ``groups`` for rank
    r + 1 in any suit (a group of three takes the fourth card of its rank), bit r of ``runs[suit]`` for that
    suit's rank r + 1 (a run takes the card beyond either end: the ace above a king, below a two)."""
    groups = run0 = run1 = run2 = run3 = 0
    for m in range(board[N_MELDS]):
        row = MELDS + m * ROW
        if board[row + KIND] == GROUP:
            if board[row + SIZE] == 3:
                groups |= 1 << (board[row + KEY] - 1)
            continue
        lo, hi, ends = board[row + LO], board[row + HI], 0
        if hi < 14:
            ends |= 1 << (0 if hi == 13 else hi)
        if lo > 1:
            ends |= 1 << (lo - 2)
        suit = board[row + KEY]
        run0 |= ends if suit == 0 else 0
        run1 |= ends if suit == 1 else 0
        run2 |= ends if suit == 2 else 0
        run3 |= ends if suit == 3 else 0
    return groups, (run0, run1, run2, run3)


@njit(cache=True)
def fits_at(table, card, as_run):
    """Whether ``table`` (``table_fits`` of a board) takes ``card`` on a run (``as_run``) or on a group."""
    groups, runs = table
    return ((runs[card // 13] if as_run else groups) >> (card % 13)) & 1 == 1


@njit(cache=True)
def _lay(board, seat, card, m, value):
    """Move ``card`` from the seat's hand to table meld ``m`` in front of the seat (F7)."""
    board[HANDS + seat * 52 + card] = 0
    board[_known_start(board) + seat * 52 + card] = 0
    board[OWNER + card] = seat
    board[MELD_OF + card] = m
    board[VALUE + card] = value
    if board[MUST_USE] == card:
        board[MUST_USE] = -1


@njit(cache=True)
def play_meld(board, seat, meld):
    m = board[N_MELDS]
    row = MELDS + m * ROW
    board[row + KIND] = MELD_KIND[meld]
    board[row + KEY] = MELD_KEY[meld]
    board[row + LO] = MELD_LO[meld]
    board[row + HI] = MELD_HI[meld]
    board[row + SIZE] = MELD_LEN[meld]
    board[N_MELDS] = m + 1
    low_ace = MELD_KIND[meld] == RUN and MELD_LO[meld] == 1
    for i in range(MELD_LEN[meld]):
        card = MELD_PAD[meld, i]
        _lay(board, seat, card, m, ACE_LOW_VALUE if low_ace and i == 0 else CARD_VALUES[card])


@njit(cache=True)
def play_layoff(board, seat, card, as_run):
    m, high = layoff_target(board, card, as_run)
    row = MELDS + m * ROW
    board[row + SIZE] += 1
    if as_run:
        if high:
            board[row + HI] += 1
        else:
            board[row + LO] -= 1
    low_ace = as_run and not high and card % 13 == 0
    _lay(board, seat, card, m, ACE_LOW_VALUE if low_ace else CARD_VALUES[card])


@njit(cache=True)
def _hand_empty(board, seat):
    hand = HANDS + seat * 52
    for c in range(52):
        if board[hand + c]:
            return False
    return True


@njit(cache=True)
def play(board, action, free_top):
    """Play a legal ``action`` for the seat to move; True if it ends the hand (F9, F10)."""
    seat = board[CURRENT]
    hand = HANDS + seat * 52
    if action == END_HAND:
        return True
    if action == DRAW_STOCK:
        n = board[STOCK_N] - 1
        board[STOCK_N] = n
        board[hand + board[STOCK + n]] = 1
        board[STEP] = PLAY_STEP
        return False
    if action < MELD:  # F6: the card and every card above it; the card is owed
        card = action - TAKE
        top = board[PILE_N]
        depth = top - 1
        while board[PILE + depth] != card:
            depth -= 1
        known = _known_start(board) + seat * 52
        for i in range(depth, top):
            board[hand + board[PILE + i]] = 1
            board[known + board[PILE + i]] = 1
        board[PILE_N] = depth
        board[MUST_USE] = -1 if free_top and depth == top - 1 else card
        board[STEP] = PLAY_STEP
        return False
    if action < LAYOFF_GROUP:
        play_meld(board, seat, action - MELD)
    elif action < LAYOFF_RUN:
        play_layoff(board, seat, action - LAYOFF_GROUP, False)
    elif action < DISCARD:
        play_layoff(board, seat, action - LAYOFF_RUN, True)
    else:
        card = action - DISCARD
        board[hand + card] = 0
        board[_known_start(board) + seat * 52 + card] = 0
        board[PILE + board[PILE_N]] = card
        board[PILE_N] += 1
        if not _hand_empty(board, seat):
            board[CURRENT] = (seat + 1) % num_players(board)
            board[STEP] = DRAW_STEP
            return False
    return _hand_empty(board, seat)


@njit(cache=True)
def held_melds(board, hand, found):
    """Every meld of the action table made of cards the hand starting at ``hand`` holds, into ``found``; how many."""
    n = 0
    for rank in range(1, 14):
        bits = 0
        for s in range(4):
            if board[hand + s * 13 + rank - 1]:
                bits |= 1 << s
        for sub in _GROUP_SUBSETS:
            if bits & sub == sub:
                found[n] = GROUP_INDEX[rank, sub]
                n += 1
    for suit in range(4):
        for lo in range(1, 13):
            if not _held(board, hand, suit, lo):
                continue
            hi = lo
            while hi < 14 and _held(board, hand, suit, hi + 1):
                hi += 1
                if hi - lo >= 2 and RUN_INDEX[suit, lo, hi] >= 0:
                    found[n] = RUN_INDEX[suit, lo, hi]
                    n += 1
    return n


@njit(cache=True)
def meld_keeps_owed(board, seat, meld, must_use):
    """Whether laying ``meld`` leaves the owed card ``must_use`` (-1: none) a way to the table (F6)."""
    if must_use < 0:
        return True
    for i in range(MELD_LEN[meld]):
        if MELD_PAD[meld, i] == must_use:
            return True
    after = board.copy()
    play_meld(after, seat, meld)
    return usable(after, seat, must_use)


@njit(cache=True)
def layoff_keeps_owed(board, seat, card, as_run, must_use):
    """Whether laying ``card`` off leaves the owed card ``must_use`` (-1: none) a way to the table (F6)."""
    if must_use < 0 or card == must_use:
        return True
    after = board.copy()
    play_layoff(after, seat, card, as_run)
    return usable(after, seat, must_use)


@njit(cache=True)
def fill_mask(out, board, free_top):
    """Legal actions of the seat to move into zeroed ``out``.

    While a card taken from the pile is owed to the table (MUST_USE), no discard
    is legal, and a meld or lay-off is legal only if the card can still be used
    after it: the first step of any way of using it passes, so no dead end.
    """
    seat = board[CURRENT]
    hand = HANDS + seat * 52
    if board[STEP] == DRAW_STEP:
        out[DRAW_STOCK if board[STOCK_N] > 0 else END_HAND] = 1
        after = board.copy()
        top = board[PILE_N] - 1
        for i in range(top, -1, -1):
            card = board[PILE + i]
            after[hand + card] = 1
            if (free_top and i == top) or usable(after, seat, card):
                out[TAKE + card] = 1
        return
    if board[STEP] != PLAY_STEP:
        return
    must_use = board[MUST_USE]
    found = np.empty(NUM_MELDS, dtype=np.int16)
    for i in range(held_melds(board, hand, found)):
        if meld_keeps_owed(board, seat, found[i], must_use):
            out[MELD + found[i]] = 1
    table = table_fits(board)
    for card in range(52):
        if not board[hand + card]:
            continue
        for as_run in (False, True):
            if fits_at(table, card, as_run) and layoff_keeps_owed(board, seat, card, as_run, must_use):
                out[(LAYOFF_RUN if as_run else LAYOFF_GROUP) + card] = 1
        if must_use < 0:
            out[DISCARD + card] = 1


@njit(cache=True)
def play_drawn(board, free_top, draw, seats):
    """Play the legal action that a uniform ``draw`` in [0, 1) picks, as ``State.play_uniform`` picks it.

    The envs' random opponents: mask, pick and move in one compiled call rather than three, since the
    Python around each call costs more than the move. Returns the action, whether it ended the hand, and
    whether the seat to move next is one of ``seats`` (a random one too).
    """
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    fill_mask(mask, board, free_top)
    legal = np.flatnonzero(mask)
    action = legal[int(draw * len(legal))]
    over = play(board, action, free_top)
    return action, over, not over and seats[board[CURRENT]]


@njit(cache=True)
def hand_points(board):
    """F11 for the hand in progress, per seat: value laid on the table minus value held."""
    players = num_players(board)
    points = np.zeros(players, dtype=np.int64)
    for c in range(52):
        if board[OWNER + c] >= 0:
            points[board[OWNER + c]] += board[VALUE + c]
        for seat in range(players):
            if board[HANDS + seat * 52 + c]:
                points[seat] -= CARD_VALUES[c]
    return points
