"""The positions a seat's view allows: its unseen cards dealt to the other hands and the stock.

A player who looks ahead over hidden information (``agents.rummy500_expert``) plays the hand out in
positions that agree with everything it may know (perfect-information Monte Carlo). In Rummy 500 what a seat
knows of another hand is its size and the cards it took from the spread pile and still holds (F3, the view's
``known``); every other unseen card is equally likely to be in any other hand or anywhere in the stock. The
position is built from the view and an assignment of the unseen cards only, so it cannot carry what the seat
may not know, and ``load_state`` checks it like any hand-written position.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from rummienv.cards import CARD_STRINGS, NUM_CARDS
from rummienv.errors import PositionError
from rummienv.rules import Rummy500Rules, rules_fields
from rummienv.rummy500 import board as bd
from rummienv.rummy500.position import load_state
from rummienv.rummy500.state import Rummy500State

View = dict[str, Any]


def unseen_cards(view: View) -> list[int]:
    """The cards the viewing seat cannot place: not in its hand, on the table, in the pile or known held."""
    seen = set(view["hand"]) | set(view["discard"])
    seen.update(card for meld in view["melds"] for card in meld["cards"])
    seen.update(card for cards in view["known"] for card in cards)
    return [c for c in range(NUM_CARDS) if CARD_STRINGS[c] not in seen]


def hidden_slots(view: View) -> list[int]:
    """Per seat, how many of its cards the viewing seat cannot name (0 for its own hand)."""
    me = int(view["player"])
    return [0 if seat == me else int(n) - len(view["known"][seat]) for seat, n in enumerate(view["hand_sizes"])]


def sample_hidden(view: View, rng: np.random.Generator) -> tuple[list[list[int]], list[int]]:
    """Unseen cards dealt uniformly: per seat the hidden part of its hand, then the stock, next draw first."""
    cards = rng.permutation(unseen_cards(view)).tolist()
    hands, start = [], 0
    for n in hidden_slots(view):
        hands.append(cards[start:start + n])
        start += n
    return hands, cards[start:]


def determinize(view: View, rules: Rummy500Rules, hidden: Sequence[Sequence[int]],
                stock: Sequence[int]) -> Rummy500State:
    """The state that shows ``view`` to its seat with ``hidden[seat]`` (card numbers) added to each other hand
    and ``stock`` (next draw first) as the stock; PositionError if that assignment does not fit the view."""
    slots = hidden_slots(view)
    if len(hidden) != len(slots):
        raise PositionError(f"hidden must list one hand per seat ({len(slots)}), got {len(hidden)}")
    for seat, (cards, n) in enumerate(zip(hidden, slots, strict=True)):
        if len(cards) != n:
            raise PositionError(f"hidden[{seat}] must hold {n} cards (the seat's hand size less its known cards), "
                                f"got {len(cards)}")
    if len(stock) != int(view["stock_size"]):
        raise PositionError(f"stock must hold the view's {view['stock_size']} cards, got {len(stock)}")
    dealt = [int(c) for cards in hidden for c in cards] + [int(c) for c in stock]
    if sorted(dealt) != unseen_cards(view):
        raise PositionError("hidden hands and stock must hold each card the seat has not seen exactly once")
    overrides = rules_fields(rules)
    del overrides["game"]
    me = int(view["player"])
    hands = [view["hand"] if seat == me else [*view["known"][seat], *(CARD_STRINGS[c] for c in cards)]
             for seat, cards in enumerate(hidden)]
    return load_state({
        "game": view["game"], "rules": overrides, "hands": hands, "melds": view["melds"],
        "discard": view["discard"], "stock": [CARD_STRINGS[c] for c in stock],
        "current_player": view["current_player"], "dealer": view["dealer"], "phase": view["phase"],
        "scores": view["scores"], "must_use": view["must_use"], "known": view["known"],
        "hand_number": view["hand_number"],
    })


def sample_state(view: View, game: Any, rng: np.random.Generator) -> Rummy500State:
    """A state of ``game`` that shows ``view`` to its seat, the unseen cards dealt by ``rng`` (``sample_hidden``)."""
    return determinize(view, game.rules, *sample_hidden(view, rng))


def sample_boards(view: View, rules: Rummy500Rules, rng: np.random.Generator, count: int) -> np.ndarray:
    """``count`` packed boards (board.py) of ``sample_hidden`` deals, one a row.

    The first deal goes through ``determinize`` and its checks; the others differ from it only in where the
    unseen cards lie, so they are that board with its other hands' hidden cards and its stock dealt again:
    a search wants hundreds of deals per decision, and a full load costs as much as many playouts.
    """
    first = determinize(view, rules, *sample_hidden(view, rng)).board
    boards = np.repeat(first[None, :], count, axis=0)
    unseen = np.array(unseen_cards(view), dtype=np.int8)
    slots = hidden_slots(view)
    hands = boards[:, bd.HANDS:bd.HANDS + len(slots) * NUM_CARDS].reshape(count, len(slots), NUM_CARDS)
    # Row by row, as many calls of rng.permutation(unseen) would deal them (the same draws, in one call).
    cards = rng.permuted(np.tile(unseen, (count - 1, 1)), axis=1)
    rows = np.arange(1, count)[:, None]
    hands[1:, :, unseen] = 0
    start = 0
    for seat, n in enumerate(slots):
        hands[rows, seat, cards[:, start:start + n]] = 1
        start += n
    boards[1:, bd.STOCK:bd.STOCK + int(view["stock_size"])] = cards[:, start:][:, ::-1]
    return boards
