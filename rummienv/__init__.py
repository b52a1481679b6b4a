"""RL environments for Rummikub (tiles), the Rummikub card edition and Rummy 500.

Importing the package registers the Gymnasium ids ``rummienv/Rummikub-v0``,
``rummienv/RummikubCards-v0`` and ``rummienv/Rummy500-v0``; it imports no game
until one is used, so ``import rummienv.tiles`` stays cheap.
"""

from __future__ import annotations

from typing import Any

from rummienv.core import State
from rummienv.envs import aec_env
from rummienv.envs.registration import ENV_IDS, register_envs
from rummienv.errors import PositionError

__all__ = ["ENV_IDS", "aec_env", "load_state"]

register_envs()


def load_state(position: dict[str, Any]) -> State:
    """The state of a position (the JSON of ``State.to_dict``) of any of the three games."""
    game = position.get("game") if isinstance(position, dict) else None
    if game in ("rummikub", "rummikub_cards"):
        from rummienv.rummikub import load_state as load
    elif game == "rummy500":
        from rummienv.rummy500 import load_state as load
    else:
        raise PositionError(
            f"position 'game' must be 'rummikub', 'rummikub_cards' or 'rummy500', got {game!r}"
            if isinstance(position, dict) else f"a position is a JSON object, got {type(position).__name__}"
        )
    return load(position)
