"""Gymnasium ids of the envs. Entry points are strings, so registering imports no game."""

from __future__ import annotations

import gymnasium as gym

ENV_IDS = {
    "rummienv/Rummikub-v0": "rummienv.envs.rummikub_env:RummikubEnv",
    "rummienv/RummikubCards-v0": "rummienv.envs.rummikub_env:RummikubCardsEnv",
    "rummienv/Rummy500-v0": "rummienv.envs.rummy500_env:Rummy500Env",
}


def register_envs() -> None:
    for env_id, entry_point in ENV_IDS.items():
        if env_id not in gym.registry:
            gym.register(id=env_id, entry_point=entry_point)
