"""Gymnasium ids of the registered games' envs. Entry points are strings, so registering imports no game.

``gym.make_vec(id, num_envs=n)`` with no vectorization mode builds the package's vector env, which resets a
finished sub-env in the same step so that no observation with an empty mask reaches the policy
(``rummienv.envs.vector``); with an explicit "sync" or "async" mode use ``rummienv.make_vec``.
"""

from __future__ import annotations

import gymnasium as gym

from rummienv import games
from rummienv.envs.vector import vector_entry_point
from rummienv.games import env_ids

GENERIC_ENV = "rummienv.envs.base:RummyEnv"  # a game with no env class of its own gets the shared one


def register_envs() -> None:
    """Register the id of every registered game that has one and is not registered yet."""
    for env_id, name in env_ids().items():
        if env_id not in gym.registry:
            info = games.info(name)
            kwargs = {} if info.env else {"game": name}
            gym.register(id=env_id, entry_point=info.env or GENERIC_ENV, kwargs=kwargs,
                         vector_entry_point=vector_entry_point(env_id))
