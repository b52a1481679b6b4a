"""Small builders for scripted Rummikub positions in the rule tests."""

from __future__ import annotations

from rummienv.rummikub import load_state
from rummienv.rummikub.state import RummikubState


def position(racks, table=(), *, game="rummikub", opened=None, current=0, pool=None, staged=(),
             rules=None, **extra) -> RummikubState:
    """A state from racks and table written as strings; the pool defaults to every other piece."""
    pos = {
        "game": game,
        "racks": [r.split() for r in racks],
        "table": [s.split() if isinstance(s, str) else s for s in table],
        "opened": list(opened) if opened is not None else [False] * len(racks),
        "current_player": current,
        "staged": list(staged.split()) if isinstance(staged, str) else list(staged),
    }
    if pool is not None:
        pos["pool"] = pool.split() if isinstance(pool, str) else list(pool)
    if rules:
        pos["rules"] = rules
    pos.update(extra)
    return load_state(pos)


def play(state: RummikubState, *moves: str) -> None:
    for move in moves:
        state.apply_action(state.string_to_action(move))


def legal(state: RummikubState, move: str) -> bool:
    return bool(state.legal_action_mask()[state.string_to_action(move)])
