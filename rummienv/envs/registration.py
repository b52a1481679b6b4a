"""Gymnasium ids of the envs. Entry points are strings, so registering imports no game.

``gym.make_vec(id, num_envs=n)`` with no vectorization mode builds the package's vector env, which resets a
finished sub-env in the same step so that no observation with an empty mask reaches the policy
(``rummienv.envs.vector``); with an explicit "sync" or "async" mode use ``rummienv.make_vec``.
"""

from __future__ import annotations

import gymnasium as gym

from rummienv.envs.vector import vector_entry_point

ENV_IDS = {
    "rummienv/Rummikub-v0": "rummienv.envs.rummikub_env:RummikubEnv",
    "rummienv/RummikubCards-v0": "rummienv.envs.rummikub_env:RummikubCardsEnv",
    "rummienv/Rummy500-v0": "rummienv.envs.rummy500_env:Rummy500Env",
}


def register_envs() -> None:
    for env_id, entry_point in ENV_IDS.items():
        if env_id not in gym.registry:
            gym.register(id=env_id, entry_point=entry_point, vector_entry_point=vector_entry_point(env_id))
