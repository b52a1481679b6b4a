"""Gymnasium envs and the PettingZoo AEC env over the game state machines.

This package is imported by ``import rummienv`` (to register the Gymnasium ids),
so its names load on first use: importing it must not pay for the games' compiled
kernels or for PettingZoo.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "RummyEnv": "rummienv.envs.base",
    "RummikubEnv": "rummienv.envs.rummikub_env",
    "RummikubCardsEnv": "rummienv.envs.rummikub_env",
    "Rummy500Env": "rummienv.envs.rummy500_env",
    "IllegalActionPenalty": "rummienv.envs.wrappers",
    "RecordReplays": "rummienv.envs.wrappers",
}

__all__ = [*_LAZY, "aec_env"]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'rummienv.envs' has no attribute {name!r}")


def aec_env(game: str, **kwargs: Any) -> Any:
    """The PettingZoo AEC env of ``game`` ("rummikub", "rummikub_cards" or "rummy500").

    Keyword arguments: ``num_players``, ``rules``, ``reward``, ``whole_game``, ``whole_turns``,
    ``render_mode``, as for the Gymnasium envs. PettingZoo is an optional extra.
    """
    try:
        from rummienv.envs.aec import RummyAECEnv
    except ModuleNotFoundError as exc:
        if exc.name is None or not exc.name.startswith("pettingzoo"):
            raise
        raise ImportError(
            "rummienv.aec_env needs PettingZoo, an optional extra: pip install 'rummienv[pettingzoo]'"
        ) from exc
    return RummyAECEnv(game, **kwargs)
