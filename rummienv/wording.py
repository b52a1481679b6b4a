"""How messages count things ("1 tile", "2 tiles"): one rule, so that no message says "1 tiles"."""

from __future__ import annotations


def counted(n: int, noun: str) -> str:
    """``n`` and ``noun``, the noun with an s unless there is exactly one."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
