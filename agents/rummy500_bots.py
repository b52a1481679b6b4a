"""Hand-written players for Rummy 500.

``greedy`` is the plain baseline. ``value`` weighs what it sees: which discard
takes pay (points it can lay at once, cards that fit its hand, dead weight it
would be stuck with), melds and lays off everything it can as soon as it can
(so it goes out when it can), and discards dead weight that does not feed the
next player. ``value_hold`` is the same player keeping its melds in hand until it
can go out or the hand may end soon, so that opponents get nothing to lay off on.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from agents.base import BaseAgent, View, first_legal
from rummienv.cards import CARD_STRINGS, CARD_VALUES, card_rank, card_suit
from rummienv.rummy500 import actions as act

_INDEX = {name: i for i, name in enumerate(CARD_STRINGS)}
_MELDS = range(act.MELD, act.MELD + act.NUM_MELDS)
_LAYOFFS = range(act.LAYOFF_GROUP, act.DISCARD)
_VALUE = CARD_VALUES.tolist()
ACE_HIGH_POS = act.ACE_HIGH_POS


def _meld_points(meld: int) -> int:
    """F4: the meld's points, an ace low in a run counting 1."""
    cards = act.MELD_CARDS[meld]
    low_ace = act.MELD_KIND[meld] == act.RUN and act.MELD_LO[meld] == 1
    return sum(_VALUE[c] for c in cards) - (_VALUE[cards[0]] - 1 if low_ace else 0)


MELD_POINTS = np.array([_meld_points(m) for m in range(act.NUM_MELDS)], dtype=np.int64)


def cards_of(names: list[str]) -> list[int]:
    return [_INDEX[n] for n in names]


def run_positions(card: int) -> tuple[int, ...]:
    """Where a card can stand in a run: an ace low (1) or high (14)."""
    return (1, ACE_HIGH_POS) if card_rank(card) == 1 else (card_rank(card),)


@dataclass
class Table:
    """The melds on the table, as far as lay-offs are concerned."""

    groups: dict[int, int] = field(default_factory=dict)  # rank -> cards in its group
    runs: list[tuple[int, int, int]] = field(default_factory=list)  # (suit, lo, hi) positions

    def fits(self, card: int) -> bool:
        if self.groups.get(card_rank(card)) == 3:
            return True
        suit = card_suit(card)
        return any(s == suit and (p == lo - 1 or p == hi + 1)
                   for s, lo, hi in self.runs for p in run_positions(card))

    def lay_off(self, card: int) -> None:
        rank, suit = card_rank(card), card_suit(card)
        if self.groups.get(rank) == 3:
            self.groups[rank] = 4
            return
        for i, (s, lo, hi) in enumerate(self.runs):
            for p in run_positions(card):
                if s == suit and p in (lo - 1, hi + 1):
                    self.runs[i] = (s, min(lo, p), max(hi, p))
                    return

    def copy(self) -> Table:
        return Table(dict(self.groups), list(self.runs))


def table_of(view: View) -> Table:
    table = Table()
    for meld in view["melds"]:
        cards = cards_of(meld["cards"])
        if meld["kind"] == "group":
            table.groups[card_rank(cards[0])] = len(cards)
        else:
            lo = 1 if card_rank(cards[0]) == 1 else card_rank(cards[0])
            table.runs.append((card_suit(cards[0]), lo, lo + len(cards) - 1))
    return table


def partners(card: int, cards: set[int]) -> int:
    """Held cards that could share a meld with ``card``: same rank, or same suit within two places."""
    rank, suit = card_rank(card), card_suit(card)
    count = 0
    for other in cards:
        if other == card:
            continue
        if card_rank(other) == rank:
            count += 1
        elif card_suit(other) == suit and min(abs(p - q) for p in run_positions(card)
                                             for q in run_positions(other)) <= 2:
            count += 1
    return count


def _candidate_melds(cards: set[int]) -> list[tuple[int, list[int], tuple]]:
    """Every group of all held cards of a rank, and every maximal held run: (points, cards, meld)."""
    found = []
    by_rank: dict[int, list[int]] = {}
    for c in cards:
        by_rank.setdefault(card_rank(c), []).append(c)
    for rank, same in by_rank.items():
        if len(same) >= 3:
            found.append((sum(_VALUE[c] for c in same), same, ("group", rank, len(same))))
    for suit in range(4):
        held = [act.position_card(p, suit) in cards for p in range(ACE_HIGH_POS + 1)]
        held[0] = False
        p = 1
        while p <= ACE_HIGH_POS:
            if not held[p]:
                p += 1
                continue
            lo = p
            while p + 1 <= ACE_HIGH_POS and held[p + 1]:
                p += 1
            hi, p = p, p + 1
            lo = 2 if hi - lo == 13 else lo  # the whole suit: the ace only once, high
            if hi - lo >= 2:
                run = [act.position_card(q, suit) for q in range(lo, hi + 1)]
                points = sum(_VALUE[c] for c in run) - (_VALUE[run[0]] - 1 if lo == 1 else 0)
                found.append((points, run, ("run", suit, lo, hi)))
    return found


def plan(cards: set[int], table: Table) -> tuple[int, set[int]]:
    """What a hand could lay now, greedily (largest meld first, then lay-offs): points and cards left."""
    left, table, points = set(cards), table.copy(), 0
    while True:
        candidates = _candidate_melds(left)
        if not candidates:
            break
        gain, used, meld = max(candidates, key=lambda m: (m[0], len(m[1])))
        points += gain
        left -= set(used)
        if meld[0] == "group":
            table.groups[meld[1]] = meld[2]
        else:
            table.runs.append(meld[1:])
    laid = True
    while laid:
        laid = False
        for c in sorted(left):
            if table.fits(c):
                table.lay_off(c)
                points += _VALUE[c]
                left.discard(c)
                laid = True
    return points, left


class GreedyAgent(BaseAgent):
    """Takes the deepest discard it can use (the first legal take, bottom up), melds and lays
    off the first thing it can, and discards its highest card."""

    reads_view = True

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        view = self._require_view()
        if view["phase"] == "draw":
            pile = [act.TAKE + c for c in cards_of(view["discard"])]
            action = first_legal(action_mask, (*pile, act.DRAW_STOCK, act.END_HAND))
        else:
            action = first_legal(action_mask, (*_MELDS, *_LAYOFFS))
            if action is None:
                hand = sorted(cards_of(view["hand"]), key=lambda c: -_VALUE[c])
                action = first_legal(action_mask, [act.DISCARD + c for c in hand])
        return action if action is not None else int(np.flatnonzero(action_mask)[0])


class ValueAgent(BaseAgent):
    """Scores hands by points it could lay now minus dead weight, and plays to raise that score.

    Dead weight counts half (``dead_weight``) and an unseen stock card costs 8
    (``stock_cost``): cards taken from the pile often meld later, and these
    values, set on 2- and 3-player matches against ``greedy``, take the pile
    more often than full weight would, which won more.

    ``hold``: keep melds (not lay-offs owed by a take) in hand until the hand can go
    out this turn, an opponent is down to ``short_hand`` cards or the stock to
    ``low_stock``.
    """

    reads_view = True

    def __init__(self, seed: int | None = None, *, hold: bool = False, short_hand: int = 4,
                 low_stock: int = 6, fit_credit: float = 0.5, stock_cost: float = 8.0,
                 dead_weight: float = 0.5) -> None:
        super().__init__(seed)
        self.hold = hold
        self.short_hand = short_hand
        self.low_stock = low_stock
        self.fit_credit = fit_credit
        self.stock_cost = stock_cost
        self.dead_weight = dead_weight

    def worth(self, cards: set[int], table: Table) -> float:
        """Points layable now, less the cards left, each discounted by how well it fits the rest."""
        points, left = plan(cards, table)
        dead = sum(_VALUE[c] * (1.0 - self.fit_credit * min(partners(c, left), 2) / 2) for c in left)
        return points - self.dead_weight * dead

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        view = self._require_view()
        hand, table = set(cards_of(view["hand"])), table_of(view)
        if view["phase"] == "draw":
            return self._draw(view, hand, table, action_mask)
        if view["phase"] == "meld" or not self.hold or self._release(view, hand, table):
            action = self._best_lay(action_mask)
            if action is not None:
                return action
        action = self._discard(view, hand, table, action_mask)
        return action if action is not None else self._best_lay(action_mask)

    def _draw(self, view: View, hand: set[int], table: Table, mask: np.ndarray) -> int:
        pile = cards_of(view["discard"])
        if mask[act.DRAW_STOCK]:
            best, choice = self.worth(hand, table) - self.stock_cost, act.DRAW_STOCK
        else:  # F10: the alternative is ending the hand with every held card counting against us
            best, choice = -float(sum(_VALUE[c] for c in hand)), act.END_HAND
        for i, card in enumerate(pile):
            if mask[act.TAKE + card]:
                worth = self.worth(hand | set(pile[i:]), table)
                if worth > best:
                    best, choice = worth, act.TAKE + card
        return choice

    def _release(self, view: View, hand: set[int], table: Table) -> bool:
        """Whether a holding player should lay its melds now."""
        _, left = plan(hand, table)
        others = [n for seat, n in enumerate(view["hand_sizes"]) if seat != view["player"]]
        return len(left) <= 1 or min(others) <= self.short_hand or view["stock_size"] <= self.low_stock

    def _best_lay(self, mask: np.ndarray) -> int | None:
        """The legal meld with the most points, else the legal lay-off of the highest card."""
        melds = np.flatnonzero(mask[act.MELD:act.MELD + act.NUM_MELDS])
        if len(melds):
            return act.MELD + int(melds[np.argmax(MELD_POINTS[melds])])
        layoffs = np.flatnonzero(mask[act.LAYOFF_GROUP:act.DISCARD])
        if len(layoffs):
            return act.LAYOFF_GROUP + int(max(layoffs, key=lambda i: _VALUE[i % 52]))
        return None

    def _discard(self, view: View, hand: set[int], table: Table, mask: np.ndarray) -> int | None:
        """Dead weight first, high cards first among it, and nothing the next player can surely use."""
        nxt = (view["player"] + 1) % view["num_players"]
        their = set(cards_of(view["known"][nxt]))
        best, choice = None, None
        for card in hand:
            if not mask[act.DISCARD + card]:
                continue
            feeds = table.fits(card) or partners(card, their) >= 2
            cost = 8 * partners(card, hand) - _VALUE[card] + (20 if feeds else 0)
            if best is None or cost < best:
                best, choice = cost, act.DISCARD + card
        return choice
