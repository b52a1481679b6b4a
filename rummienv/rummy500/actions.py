"""The fixed Rummy 500 action table: one index per concrete decision.

An agent's output layer needs every index to mean the same thing in every state,
so the table lists every meld a 52-card pack allows once, up front, and the
state's mask says which of them are possible now.

Layout (``NUM_ACTIONS`` = 579)::

    0          DRAW_STOCK
    1 + c      TAKE c          take card c and every card above it (F6)
    53 + m     MELD ...        meld m of MELD_CARDS (65 groups, then 304 runs)
    422 + c    LAYOFF c GROUP  lay c off on the group of its rank
    474 + c    LAYOFF c RUN    lay c off on a run of its suit
    526 + c    DISCARD c
    578        END_HAND        stock empty: end the hand instead of drawing (F10)

Run positions go 1..14 where both 1 and 14 are the ace (low and high), so a run
is a pair (lo, hi) of positions and the ace's value (F4) follows from where it
sits. The one run with two readings, the whole suit A..K, is listed once, as
2..K-A, because the ace counts 15 there against 1 read low: the high reading is
never worse for the player who lays it.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from rummienv.cards import CARD_STRINGS, NUM_CARDS, SUITS, card_index, parse_cards
from rummienv.errors import NotationError

GROUP, RUN = 0, 1
KIND_NAMES = ("group", "run")
ACE_HIGH_POS = 14


def position_card(pos: int, suit: int) -> int:
    """The card at run position ``pos`` (1..14, both ends being the ace) of ``suit``."""
    return card_index(1 if pos == ACE_HIGH_POS else pos, suit)


def _enumerate_melds() -> list[tuple[int, int, int, int, tuple[int, ...]]]:
    melds = []
    for rank in range(1, 14):
        for size in (3, 4):
            for suits in combinations(range(4), size):
                melds.append((GROUP, rank, 0, 0, tuple(card_index(rank, s) for s in suits)))
    for suit in range(4):
        for lo in range(1, 13):
            for hi in range(lo + 2, ACE_HIGH_POS + 1):
                if lo == 1 and hi >= 13:  # two aces, or the whole suit read low
                    continue
                cards = tuple(position_card(p, suit) for p in range(lo, hi + 1))
                melds.append((RUN, suit, lo, hi, cards))
    return melds


_MELDS = _enumerate_melds()
NUM_MELDS = len(_MELDS)
MELD_CARDS: tuple[tuple[int, ...], ...] = tuple(m[4] for m in _MELDS)
MELD_KIND = np.array([m[0] for m in _MELDS], dtype=np.int8)
MELD_KEY = np.array([m[1] for m in _MELDS], dtype=np.int8)  # rank of a group, suit of a run
MELD_LO = np.array([m[2] for m in _MELDS], dtype=np.int8)
MELD_HI = np.array([m[3] for m in _MELDS], dtype=np.int8)
MELD_LEN = np.array([len(m[4]) for m in _MELDS], dtype=np.int8)
MELD_PAD = np.full((NUM_MELDS, 13), -1, dtype=np.int8)  # card lists for numba, -1 padded
for _m, _cards in enumerate(MELD_CARDS):
    MELD_PAD[_m, : len(_cards)] = _cards
# RUN_INDEX[suit, lo, hi] and GROUP_INDEX[rank, suit bitmask]: meld number or -1.
RUN_INDEX = np.full((4, ACE_HIGH_POS + 1, ACE_HIGH_POS + 1), -1, dtype=np.int16)
GROUP_INDEX = np.full((14, 16), -1, dtype=np.int16)
for _m, (_kind, _key, _lo, _hi, _cards) in enumerate(_MELDS):
    if _kind == RUN:
        RUN_INDEX[_key, _lo, _hi] = _m
    else:
        GROUP_INDEX[_key, sum(1 << (c // 13) for c in _cards)] = _m
for _table in (MELD_KIND, MELD_KEY, MELD_LO, MELD_HI, MELD_LEN, MELD_PAD, RUN_INDEX, GROUP_INDEX):
    _table.setflags(write=False)
_MELD_BY_CARDS = {frozenset(cards): m for m, cards in enumerate(MELD_CARDS)}

DRAW_STOCK = 0
TAKE = 1
MELD = TAKE + NUM_CARDS
LAYOFF_GROUP = MELD + NUM_MELDS
LAYOFF_RUN = LAYOFF_GROUP + NUM_CARDS
DISCARD = LAYOFF_RUN + NUM_CARDS
END_HAND = DISCARD + NUM_CARDS
NUM_ACTIONS = END_HAND + 1

ACTION_STRINGS: tuple[str, ...] = tuple(
    ["DRAW_STOCK"]
    + [f"TAKE {c}" for c in CARD_STRINGS]
    + ["MELD " + " ".join(CARD_STRINGS[c] for c in cards) for cards in MELD_CARDS]
    + [f"LAYOFF {c} GROUP" for c in CARD_STRINGS]
    + [f"LAYOFF {c} RUN" for c in CARD_STRINGS]
    + [f"DISCARD {c}" for c in CARD_STRINGS]
    + ["END_HAND"]
)
_BY_STRING = {text: a for a, text in enumerate(ACTION_STRINGS)}
_FORMS = (
    "DRAW_STOCK, TAKE <card>, MELD <3+ cards>, LAYOFF <card> GROUP|RUN, "
    f"DISCARD <card>, END_HAND; cards like AS, TD (suits {' '.join(SUITS)})"
)


_BLOCKS = (
    ("DRAW_STOCK", DRAW_STOCK),
    ("TAKE", TAKE),
    ("MELD", MELD),
    ("LAYOFF_GROUP", LAYOFF_GROUP),
    ("LAYOFF_RUN", LAYOFF_RUN),
    ("DISCARD", DISCARD),
    ("END_HAND", END_HAND),
)


_ARITY = {"DRAW_STOCK": 0, "END_HAND": 0, "TAKE": 1, "DISCARD": 1, "LAYOFF_GROUP": 1, "LAYOFF_RUN": 1}


def decode(action: int) -> tuple[str, int]:
    """The kind of an action and its argument (card or meld number; 0 for the bare ones)."""
    for name, start in reversed(_BLOCKS):
        if action >= start:
            return name, action - start
    raise ValueError(f"action {action} is not in 0..{NUM_ACTIONS - 1}")


def action_to_string(action: int) -> str:
    return ACTION_STRINGS[action]


def string_to_action(text: str) -> int:
    """Parse an action string; card order inside MELD and letter case are free."""
    if not isinstance(text, str):
        raise NotationError(f"action {text!r} is not a string; allowed forms: {_FORMS}")
    exact = _BY_STRING.get(text)
    if exact is not None:
        return exact
    kind, *args = text.split() or [""]
    kind = kind.upper()
    if kind == "LAYOFF" and len(args) == 2 and args[1].upper() in ("GROUP", "RUN"):
        kind, args = f"LAYOFF_{args[1].upper()}", args[:1]
    if not (len(args) == _ARITY.get(kind) or kind == "MELD" and args):
        raise NotationError(f"unknown action {text!r}; allowed forms: {_FORMS}")
    try:
        cards = parse_cards(args)
    except NotationError as exc:
        raise NotationError(f"bad action {text!r}: {exc}") from exc
    if kind != "MELD":
        return dict(_BLOCKS)[kind] + (cards[0] if cards else 0)
    meld = _MELD_BY_CARDS.get(frozenset(cards))
    if meld is None or len(cards) != len(set(cards)):
        raise NotationError(f"bad action {text!r}: {' '.join(args)} is not a group or run (F5)")
    return MELD + meld
