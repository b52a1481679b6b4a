"""Gymnasium vector envs in which every observation handed to the policy holds a move to make.

An episode's last observation has an empty mask: the game is over and nothing is legal. Gymnasium's vector
envs by default reset a finished sub-env on the step after (autoreset "next step"), so they hand that
observation to the policy and ignore the action chosen for it, and a policy that samples from the mask
fails at every episode end. These reset it within the step that ended it (autoreset "same step"): the policy
sees the next episode's first observation, and the last one lies in ``info["final_obs"]`` and
``info["final_info"]``, as in Stable-Baselines3's vector envs.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
from gymnasium.vector import AutoresetMode

from rummienv.games import env_ids

VECTOR_MODES = ("sync", "async")


def make_vec(env_id: str, num_envs: int = 1, vectorization_mode: str = "sync",
             vector_kwargs: dict[str, Any] | None = None, **kwargs: Any) -> gym.vector.VectorEnv:
    """``gym.make_vec`` of one of the package's ids, resetting finished sub-envs in the same step.

    ``vectorization_mode`` is "sync" (one process) or "async" (a process per sub-env); ``vector_kwargs`` go to
    the vector env as in Gymnasium (an ``autoreset_mode`` given there wins); other keyword arguments go to
    each env, e.g. ``num_players`` or ``opponents``.
    """
    if env_id not in env_ids():
        raise ValueError(f"env_id must be one of {sorted(env_ids())}, got {env_id!r}")
    if vectorization_mode not in VECTOR_MODES:
        raise ValueError(f"vectorization_mode must be one of {list(VECTOR_MODES)}, got {vectorization_mode!r}")
    if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
        raise ValueError(f"num_envs must be a positive whole number, got {num_envs!r}")
    vector_kwargs = {"autoreset_mode": AutoresetMode.SAME_STEP, **(vector_kwargs or {})}
    return gym.make_vec(env_id, num_envs=num_envs, vectorization_mode=vectorization_mode,
                        vector_kwargs=vector_kwargs, **kwargs)


def vector_entry_point(env_id: str) -> Any:
    """The registration's ``vector_entry_point`` for ``env_id``: what ``gym.make_vec(env_id, num_envs=n)``
    builds when no vectorization mode is given, a sync vector env resetting in the same step."""

    def create(num_envs: int = 1, **kwargs: Any) -> gym.vector.VectorEnv:
        return make_vec(env_id, num_envs, "sync", **kwargs)

    return create
