"""The 52-card pack (F1): card identities, notation and values.

A card is an index ``suit * 13 + rank - 1`` with suits in the order S H D C and
ranks A=1 .. K=13, so that a hand fits a 52-long numpy vector and a suit is a
contiguous slice of it (runs are slices, groups are stride-13 picks).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from rummienv.errors import NotationError

RANKS = "A23456789TJQK"
SUITS = "SHDC"
NUM_CARDS = 52
ACE = 1
# F4: an ace is worth 15 unless it is the low end of a run (A-2-3), where it is worth 1.
ACE_HIGH_VALUE = 15
ACE_LOW_VALUE = 1

CARD_STRINGS: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
_BY_STRING = {text: i for i, text in enumerate(CARD_STRINGS)}
_ALLOWED = "rank A 2-9 T (or 10) J Q K followed by suit S H D C, e.g. AS, TD, 10H"

# F4 values of a card held or laid anywhere but the low end of a run.
CARD_VALUES: np.ndarray = np.array(
    [ACE_HIGH_VALUE if r == ACE else min(r, 10) for _ in SUITS for r in range(1, 14)],
    dtype=np.int64,
)
CARD_VALUES.setflags(write=False)


def card_index(rank: int, suit: int) -> int:
    """The card of ``rank`` (1..13, ace 1) and ``suit`` (0..3 for S H D C)."""
    return suit * 13 + rank - 1


def card_rank(card: int) -> int:
    return card % 13 + 1


def card_suit(card: int) -> int:
    return card // 13


def card_to_str(card: int) -> str:
    return CARD_STRINGS[card]


def parse_card(token: str) -> int:
    """The index of a card token; case is ignored and ``10`` is read as ``T``."""
    card = _BY_STRING.get(token) if isinstance(token, str) else None
    if card is not None:
        return card
    if not isinstance(token, str):
        raise NotationError(f"card {token!r} is not a string; allowed: {_ALLOWED}")
    text = token.strip().upper()
    if text.startswith("10"):
        text = "T" + text[2:]
    card = _BY_STRING.get(text)
    if card is None:
        raise NotationError(f"bad card {token!r}; allowed: {_ALLOWED}")
    return card


def parse_cards(tokens: str | Iterable[str]) -> list[int]:
    """Card indices of a space-separated string or an iterable of tokens."""
    if isinstance(tokens, str):
        tokens = tokens.split()
    return [parse_card(t) for t in tokens]
