"""A search player for Rummy 500: perfect-information Monte Carlo over the cards its seat cannot see.

At each decision with a choice, the expert deals the unseen cards at random in ``samples`` ways consistent
with its view (``rummienv.rummy500.determinize``), plays every legal action in every deal and the rest of the
hand after it with a fast compiled policy for every seat, and takes the action whose hands end best for it
on average by the rules' measure (``worth``): in one hand its points less the best other seat's (F11), in a
game to 500 the chance to win the game (F12). Every action meets the same deals (common
random numbers), so the comparison between actions is not drowned by the luck of the deal.

The playouts run under numba on the packed board with the rules' own kernels: a Python bot's playout costs
milliseconds, a compiled one tens of microseconds, and the strength of PIMC grows with the playouts it affords.
The playout policy is ``value``'s play (agents.rummy500_bots) in closed form: take a pile card when what it
brings outweighs the dead weight, lay the biggest meld, lay off, discard the card with the fewest partners
that feeds nobody, and, for a seat that holds (``value_hold``), keep its melds until it can nearly go out.
"""

from __future__ import annotations

import hashlib
import json
import math
import secrets

import numpy as np
from numba import njit

from agents.base import BaseAgent, View, budget
from agents.rummy500_bots import MELD_POINTS
from rummienv.cards import CARD_VALUES
from rummienv.rules import Rummy500Rules
from rummienv.rummy500 import actions as act
from rummienv.rummy500 import board as bd
from rummienv.rummy500.determinize import sample_boards
from rummienv.rummy500.kernels import (
    fits_at,
    hand_points,
    held_melds,
    layoff_keeps_owed,
    meld_keeps_owed,
    play,
    table_fits,
    usable,
)

# Deals per decision. Against value_hold (duplicate deals): 32 and 128 won 0.632 and 0.698 of the hands of 300
# deals; 256 and 512 won 0.743 and 0.720 of 200 other deals, so more buys nothing but time.
SAMPLES = 256
# A whole game's hands (``worth``): a seat adds 75-132 points a hand and one hand's margin between two seats has
# a standard deviation of 76 (expert against value_hold, 120 hands, seed 777).
PACE = 100
SPREAD = 75
MAX_STEPS = 2000  # moves per playout before it is scored as it stands; hands end long before (F9, F10)
_SHORT_HAND, _LOW_STOCK = 4, 6  # when a holding seat lays its melds: as ValueAgent's defaults


def _near_ranks() -> np.ndarray:
    """NEAR[a]: bit b set for ranks b != a (0-based) of one suit that can share a run, at most two places apart."""
    pos = [(1, 14) if r == 0 else (r + 1,) for r in range(13)]
    return np.array([sum(1 << b for b in range(13) if a != b and min(abs(p - q) for p in pos[a] for q in pos[b]) <= 2)
                     for a in range(13)], dtype=np.int64)


_NEAR = _near_ranks()
_BITS = np.array([bin(m).count("1") for m in range(1 << 13)], dtype=np.int64)  # set bits of a suit's ranks
_VALUES = CARD_VALUES.astype(np.int64)
_MELD_POINTS = MELD_POINTS.astype(np.int64)

# The compiled policy keeps a hand as four suits of 13 rank bits: a playout's hands hold a handful of the 52
# cards, so each block of the board is read once a move and the questions asked of it are bit operations.


@njit(cache=True)
def _suits(board, start):
    """Per suit, bit r set when the 0/1 block at ``start`` holds that suit's rank r + 1."""
    s0 = s1 = s2 = s3 = 0
    for r in range(13):
        s0 |= (board[start + r] > 0) << r
        s1 |= (board[start + 13 + r] > 0) << r
        s2 |= (board[start + 26 + r] > 0) << r
        s3 |= (board[start + 39 + r] > 0) << r
    return s0, s1, s2, s3


@njit(cache=True)
def _with(suits, card):
    """``suits`` with ``card`` added."""
    suit, bit = card // 13, 1 << (card % 13)
    return (suits[0] | (bit if suit == 0 else 0), suits[1] | (bit if suit == 1 else 0),
            suits[2] | (bit if suit == 2 else 0), suits[3] | (bit if suit == 3 else 0))


@njit(cache=True)
def _partners(suits, card):
    """Cards of ``suits`` that could share a meld with ``card``: its rank in another suit, or its suit within
    two places (agents.rummy500_bots.partners)."""
    rank, suit = card % 13, card // 13
    count = _BITS[suits[suit] & _NEAR[rank]]
    for s in range(4):
        if s != suit:
            count += (suits[s] >> rank) & 1
    return count


@njit(cache=True)
def _on_table(table, card):
    """Whether ``card`` can be laid off on a table meld; ``table``: ``table_fits`` of the board."""
    return fits_at(table, card, False) or fits_at(table, card, True)


@njit(cache=True)
def _positions(bits):
    """A suit's rank bits as run positions: bit p for position p, 1..14, the ace at both ends."""
    return (bits << 1) | ((bits & 1) << 14)


@njit(cache=True)
def _in_meld(suits, card):
    """Whether ``card`` is in a meld of the action table made of ``suits``' cards: a group of three or four of its
    rank, or a run of three or more (every three running positions, 1..14 with the ace at both ends, are one)."""
    rank, suit = card % 13, card // 13
    same = 0
    for s in range(4):
        same += (suits[s] >> rank) & 1
    if same >= 3:
        return True
    held = _positions(suits[suit])
    starts = held & (held >> 1) & (held >> 2)
    covered = starts | (starts << 1) | (starts << 2)
    return (covered >> (rank + 1)) & 1 == 1 or (rank == 0 and (covered >> 14) & 1 == 1)


@njit(cache=True)
def _beats(m, other):
    """Whether meld ``m`` comes before meld ``other`` (-1: none) in the policy's order: more points, then the
    first in the action table."""
    return other < 0 or _MELD_POINTS[m] > _MELD_POINTS[other] or (_MELD_POINTS[m] == _MELD_POINTS[other] and m < other)


@njit(cache=True)
def _best_held_meld(suits):
    """The first meld in the policy's order among those made of ``suits``' cards, else -1. Only a hand's biggest
    melds can be first, since every card adds points: all four of a rank over any three of them, a whole
    stretch of running cards over any part of it (the whole suit is listed once, ace high)."""
    best = -1
    for rank in range(13):
        bits = 0
        for s in range(4):
            bits |= ((suits[s] >> rank) & 1) << s
        if _BITS[bits] >= 3 and _beats(act.GROUP_INDEX[rank + 1, bits], best):
            best = act.GROUP_INDEX[rank + 1, bits]
    for s in range(4):
        held = _positions(suits[s])
        p = 1
        while p <= 14:
            lo = p
            while p <= 14 and (held >> p) & 1:
                p += 1
            if p - lo >= 3:
                m = act.RUN_INDEX[s, 2 if p == 15 and lo == 1 else lo, p - 1]
                if _beats(m, best):
                    best = m
            p += 1
    return act.MELD + best if best >= 0 else -1


@njit(cache=True)
def _best_layoff(fits):
    """The legal lay-off of the highest card (ties: the first in the action table), else -1; ``fits[r, card]``:
    a legal lay-off on a group (r 0) or a run (r 1)."""
    best, choice = -1, -1
    for r in range(2):
        for card in range(52):
            if fits[r, card] and _VALUES[card] > best:
                best, choice = _VALUES[card], act.LAYOFF_GROUP + r * 52 + card
    return choice


@njit(cache=True)
def _held_fits(board, seat, table):
    """fits[r, card]: the seat holds ``card`` and the table takes it on a group (r 0) or a run (r 1)."""
    fits = np.zeros((2, 52), dtype=np.bool_)
    for card in range(52):
        if board[bd.HANDS + seat * 52 + card]:
            fits[0, card] = fits_at(table, card, False)
            fits[1, card] = fits_at(table, card, True)
    return fits


@njit(cache=True)
def _owed_lay(board, seat, must_use):
    """The first legal meld in the policy's order, else the best legal lay-off, while ``must_use`` is owed: only
    melds and lay-offs that leave it a way to the table (F6) are legal."""
    hand = bd.HANDS + seat * 52
    melds = np.empty(act.NUM_MELDS, dtype=np.int16)
    best = -1
    for i in range(held_melds(board, hand, melds)):
        if _beats(melds[i], best) and meld_keeps_owed(board, seat, melds[i], must_use):
            best = melds[i]
    if best >= 0:
        return act.MELD + best
    fits = _held_fits(board, seat, table_fits(board))
    for card in range(52):
        for r in range(2):
            fits[r, card] = fits[r, card] and layoff_keeps_owed(board, seat, card, r == 1, must_use)
    return _best_layoff(fits)


@njit(cache=True)
def _free_lay(board, seat, suits, table):
    """The first held meld in the policy's order, else the best lay-off, when no card is owed: then every held
    meld and every lay-off that fits is legal."""
    choice = _best_held_meld(suits)
    if choice >= 0:
        return choice
    return _best_layoff(_held_fits(board, seat, table))


@njit(cache=True)
def _draw(board, free_top, seat):
    """Take the pile card whose take pays most (the owed card counts in full, cards that fit the hand a
    quarter, dead weight minus a half), if that beats the stock; else the stock or, when empty, END_HAND.

    A take's gain is the owed card's value plus what each card above it adds, so the gains of every depth
    come from one pass down the pile; every term is a multiple of a quarter, so the sums are exact in any
    order. Whether a take is legal (F6, as ``fill_mask`` asks it) is a search, asked only of a take that
    would be chosen, on the board itself with the taken cards put in the hand for the question."""
    hand = bd.HANDS + seat * 52
    top = board[bd.PILE_N] - 1
    table = table_fits(board)
    after = _suits(board, hand)  # the hand with every pile card: what a taken card would join
    for i in range(top + 1):
        after = _with(after, board[bd.PILE + i])
    best, choice = 0.0, act.DRAW_STOCK if board[bd.STOCK_N] > 0 else act.END_HAND
    above, lent = 0.0, top + 1  # pile cards from ``lent`` up are in the hand for the question
    for i in range(top, -1, -1):
        card = board[bd.PILE + i]
        gain = float(_VALUES[card]) + above
        if gain > best and not (free_top and i == top):
            for j in range(i, lent):
                board[hand + board[bd.PILE + j]] = 1
            lent = min(lent, i)
            if usable(board, seat, card):
                best, choice = gain, act.TAKE + card
        elif gain > best:
            best, choice = gain, act.TAKE + card
        fits = _partners(after, card) >= 2 or _on_table(table, card)
        above += 0.25 * _VALUES[card] if fits else -0.5 * _VALUES[card]
    for j in range(lent, top + 1):
        board[hand + board[bd.PILE + j]] = 0
    return choice


@njit(cache=True)
def _release(board, seat, suits, table):
    """Whether a holding seat lays its melds now: it can (nearly) go out, or the hand may soon end. Only when
    no card is owed: then every held meld and every lay-off that fits is legal."""
    if board[bd.STOCK_N] <= _LOW_STOCK:
        return True
    for other in range(bd.num_players(board)):
        if other != seat and board[bd.HANDS + other * 52: bd.HANDS + other * 52 + 52].sum() <= _SHORT_HAND:
            return True
    stuck = 0  # held cards no meld or lay-off takes
    for card in range(52):
        if board[bd.HANDS + seat * 52 + card] and not _on_table(table, card) and not _in_meld(suits, card):
            stuck += 1
            if stuck > 1:
                return False
    return True


@njit(cache=True)
def _discard(board, seat, suits, table):
    """Dead weight first, high cards first among it, and nothing that fits the table or the next seat's known
    cards (ValueAgent._discard's costs). Only when no card is owed: then every held card is legal."""
    players = bd.num_players(board)
    nxt = _suits(board, bd.HANDS + (players + (seat + 1) % players) * 52)  # the next seat's known cards
    best, choice = 1 << 30, -1
    for card in range(52):
        if not board[bd.HANDS + seat * 52 + card]:
            continue
        feeds = _on_table(table, card) or _partners(nxt, card) >= 2
        cost = 8 * _partners(suits, card) - _VALUES[card] + (20 if feeds else 0)
        if cost < best:
            best, choice = cost, act.DISCARD + card
    return choice


@njit(cache=True)
def policy(board, free_top, hold):
    """The playout move of the seat to move; ``hold`` per seat: keep melds in hand (value_hold).

    It asks only the legality its choice needs, not the whole mask: the mask is most of a playout's cost, and
    a holding seat that keeps its melds needs only to know which cards could go to the table."""
    seat = board[bd.CURRENT]
    if board[bd.STEP] == bd.DRAW_STEP:
        return _draw(board, free_top, seat)
    must_use = board[bd.MUST_USE]
    if must_use >= 0:
        return _owed_lay(board, seat, must_use)
    suits = _suits(board, bd.HANDS + seat * 52)
    table = table_fits(board)
    if not hold[seat] or _release(board, seat, suits, table):
        choice = _free_lay(board, seat, suits, table)
        if choice >= 0:
            return choice
    return _discard(board, seat, suits, table)


@njit(cache=True)
def playout(board, free_top, hold):
    """Play the hand on ``board`` to its end with ``policy``; the hand's points per seat (F11)."""
    for _ in range(MAX_STEPS):
        if board[bd.STEP] == bd.OVER_STEP or play(board, policy(board, free_top, hold), free_top):
            break
    return hand_points(board)


@njit(cache=True)
def worth(points, totals, me, target):
    """What a hand ending with ``points`` (F11, by seat) is worth to seat ``me`` in the game it is playing.

    One hand (``target`` 0) is won by points: its margin, ``me``'s points less the best other seat's. A game to
    ``target`` (F12) is won by the highest total once a total reaches it, so a hand is worth the chance to
    finish first: certain or lost when it ends the game (a tie at the top plays on: half), and before that the
    margin the hands left add is taken as normal with ``SPREAD`` a hand, about one hand per ``PACE`` points
    the leader still needs; the chance against each other seat is multiplied. Near the end this is what the
    margin misses: a seat 30 points short plays for the points that cross the line, and a seat behind a
    leader about to cross plays for the swing that can still beat it, not for a smaller loss.
    """
    if target <= 0:
        others = -(1 << 30)
        for seat in range(len(points)):
            if seat != me and points[seat] > others:
                others = points[seat]
        return float(points[me] - others)
    after = totals + points
    ended = after.max() >= target
    scale = SPREAD * np.sqrt(1.0 + max(target - after.max(), 0) / PACE) * np.sqrt(2.0)
    value = 1.0
    for seat in range(len(points)):
        if seat == me:
            continue
        ahead = after[me] - after[seat]
        if ended:
            value *= 1.0 if ahead > 0 else (0.5 if ahead == 0 else 0.0)
        else:
            value *= 0.5 * (1.0 + math.erf(ahead / scale))
    return value


@njit(cache=True)
def action_values(boards, actions, free_top, hold, me, totals, target):
    """values[k, n]: what it is worth to seat ``me`` (``worth``) to play ``actions[k]`` in deal ``boards[n]``
    and have everyone play the rest of the hand out; ``totals`` before the hand, ``target`` 0 for one hand."""
    values = np.empty((len(actions), len(boards)))
    for k in range(len(actions)):
        for n in range(len(boards)):
            board = boards[n].copy()
            if not play(board, actions[k], free_top):
                playout(board, free_top, hold)
            values[k, n] = worth(hand_points(board), totals, me, target)
    return values


class ExpertAgent(BaseAgent):
    """PIMC search over ``samples`` deals of the unseen cards per decision, played out by the compiled policy.

    ``hold``: whether the playouts play the expert's seat and the others as ``value_hold`` (True) or ``value``
    (False). Against value_hold the expert's own seat holding won the same 150 deals' hands by +49.7 a hand
    against +42.2 (seed 4242), and 0.945 of the same 100 deals' whole games against 0.935 (seed 20261206).

    The same seed and the same view give the same decision: each decision's deals come from the seed and the
    view, not from what the agent saw before, and there is no time limit, so a decision does not depend on
    the machine's speed.
    """

    reads_view = True
    name = "expert"

    def __init__(self, rules: Rummy500Rules | None = None, seed: int | None = None, *, samples: int = SAMPLES,
                 hold: tuple[bool, bool] = (True, True)) -> None:
        super().__init__(seed)
        self.rules = rules if rules is not None else Rummy500Rules()
        if not isinstance(self.rules, Rummy500Rules):
            raise ValueError(f"rules must be Rummy500Rules, got {type(rules).__name__}")
        self.samples = budget("samples", samples)
        if not (isinstance(hold, tuple) and len(hold) == 2 and all(isinstance(h, bool) for h in hold)):
            raise ValueError(f"hold must be a pair of True/False (the expert's seat, the others), got {hold!r}")
        self.hold = hold
        self.reseed(secrets.randbits(63) if seed is None else seed)

    def reseed(self, seed: int) -> None:
        super().reseed(seed)
        self.key = int(self.rng.integers(2**63))

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        view = self._require_view()
        legal = np.flatnonzero(action_mask)
        if len(legal) == 1:
            return int(legal[0])
        return int(legal[int(np.argmax(self.values(view, legal).mean(axis=1)))])

    def values(self, view: View, actions: np.ndarray) -> np.ndarray:
        """values[k, n]: the worth of ``actions[k]`` in the n-th deal drawn for this seed and view."""
        digest = hashlib.blake2b(json.dumps(view, sort_keys=True).encode(), digest_size=8).digest()
        rng = np.random.default_rng([self.key, int.from_bytes(digest, "little")])
        boards = sample_boards(view, self.rules, rng, self.samples)
        me = int(view["player"])
        hold = np.array([self.hold[0] if seat == me else self.hold[1] for seat in range(int(view["num_players"]))])
        totals = np.array(view["scores"], dtype=np.int64)
        target = 0 if view["target"] is None else int(view["target"])
        return action_values(boards, actions.astype(np.int64), self.rules.free_top_discard, hold, me, totals, target)
