"""Checks of a position's plain fields, shared by the games' loaders.

A position is often written by hand, so a field of the wrong type must be refused by name with what it may
be, as the loaders refuse an impossible game, rather than fail inside ``int()`` or later in play.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rummienv.errors import PositionError


def whole_number(value: Any, where: str, lo: int, hi: int) -> int:
    """``value`` as an int in ``lo..hi``; true and false are not numbers here, though Python counts them."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not lo <= value <= hi:
        raise PositionError(f"{where} must be a whole number in {lo}..{hi}, got {value!r}")
    return int(value)


def true_or_false(value: Any, where: str) -> bool:
    """``value`` if it is a bool: a string such as "false" would otherwise read as true."""
    if not isinstance(value, bool):
        raise PositionError(f"{where} must be true or false, got {value!r}")
    return value
