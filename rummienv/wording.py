"""How messages count things ("1 tile", "2 tiles"): one rule, so that no message says "1 tiles"."""

from __future__ import annotations


def counted(n: int, noun: str, many: str | None = None) -> str:
    """``n`` as a reader says it ("2,000") and ``noun``, with an s (or ``many``) unless there is exactly one."""
    return f"{n:,} {noun if n == 1 else many or noun + 's'}"
