"""The other seats of the single-agent env: resolving the ``opponents`` argument.

"random" is played by the env itself, from its own ``np_random``, so that a seed
fixes the whole episode. Every other name (a baseline or a checkpoint path) is
the agents package's business: the env asks its registry lazily, because the
environment layer must work, and be tested, without it.
"""

from __future__ import annotations

import os
from typing import Any, Protocol, runtime_checkable

import numpy as np

RANDOM = "random"
ALLOWED = ("'random', a baseline's name or a checkpoint path (through agents.registry.make_agent), "
           "or an object with act(observation, action_mask)")


@runtime_checkable
class Agent(Protocol):
    """What plays a seat: the seat's flat observation and int8 mask in, an action index out.

    An agent that sets ``reads_view`` (the heuristics) also gets ``observe(view)``
    with the seat's structured view before each ``act``: the same protocol as
    ``agents.base.decide``, kept here without importing the agents package. One
    with ``reseed(seed)`` is reseeded from the env's generator at every reset, so
    the env's seed fixes its choices too.
    """

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int: ...


def _from_registry(spec: str, game: str, num_players: int) -> Agent:
    try:
        from agents.registry import make_agent
    except ModuleNotFoundError as exc:
        if exc.name not in ("agents", "agents.registry"):
            raise
        raise ValueError(
            f"opponent {spec!r} needs the agents package's registry (agents.registry.make_agent), "
            f"which is not installed; without it the allowed opponents are 'random' "
            f"or an object with act(observation, action_mask)"
        ) from None
    return make_agent(spec, game, num_players)  # its ValueError names the baselines of the game


def _resolve(spec: Any, where: str, game: str, num_players: int) -> Agent | None:
    """An opponent, or None for the env's own uniformly random legal play."""
    if isinstance(spec, str) and spec == RANDOM:
        return None
    if isinstance(spec, (str, os.PathLike)):
        return _from_registry(os.fspath(spec), game, num_players)
    if isinstance(spec, Agent):
        return spec
    raise ValueError(f"{where} must be {ALLOWED}; got {spec!r}")


def resolve_opponents(opponents: Any, game: str, num_players: int) -> list[Agent | None]:
    """One opponent per other seat, in turn order from the learner's left.

    ``None`` means all random; a single spec stands for every other seat.
    """
    others = num_players - 1
    if opponents is None:
        opponents = [RANDOM] * others
    elif not isinstance(opponents, (list, tuple)):
        opponents = [opponents] * others
    if len(opponents) != others:
        raise ValueError(
            f"opponents must list one entry per other seat ({others} for num_players={num_players}), "
            f"got {len(opponents)}: {list(opponents)!r}"
        )
    return [_resolve(spec, f"opponents[{i}]", game, num_players) for i, spec in enumerate(opponents)]
