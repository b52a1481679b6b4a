"""Opt-in wrappers over the Gymnasium envs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from rummienv import replay_record
from rummienv.errors import IllegalActionError


class IllegalActionPenalty(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """End the episode with ``penalty`` on an illegal action, instead of raising.

    The raw envs raise, because an illegal action is almost always a bug in the
    agent's masking; this wrapper is for learners that act without the mask (or
    generic tools that sample the whole action space). The state is left as it
    was: the episode ends, the observation is the last one with an all-zero mask,
    and ``info["illegal_action"]`` says what was refused and why.
    """

    def __init__(self, env: gym.Env, penalty: float = -1.0) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, penalty=penalty)
        super().__init__(env)
        self.penalty = float(penalty)
        self._last_obs: dict[str, np.ndarray] | None = None
        self._ended = False

    def reset(self, **kwargs: Any) -> tuple[dict[str, np.ndarray], dict]:
        obs, info = self.env.reset(**kwargs)
        self._last_obs, self._ended = obs, False
        return obs, info

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], float, bool, bool, dict]:
        if self._ended:
            raise gym.error.ResetNeeded("the episode ended on an illegal action; call reset()")
        try:
            self.env.unwrapped.check_action(action)
        except IllegalActionError as exc:
            self._ended = True
            mask = np.zeros_like(self._last_obs["action_mask"])
            obs = {"observation": self._last_obs["observation"].copy(), "action_mask": mask}
            return obs, self.penalty, True, False, {"action_mask": mask, "illegal_action": str(exc)}
        obs, reward, terminated, truncated, info = self.env.step(action)
        self._last_obs = obs
        return obs, reward, terminated, truncated, info


class RecordReplays(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Write every episode's game, when it ends, as a replay (``rummienv.replay_record``) into ``folder``:
    ``<name_prefix>-<episode>.json``, numbered from 0, with every seat's moves and who played each seat.
    ``python -m rummienv.replay`` draws one; ``rummienv.replay.states`` plays it again."""

    def __init__(self, env: gym.Env, folder: str | Path, name_prefix: str = "episode") -> None:
        gym.utils.RecordConstructorArgs.__init__(self, folder=folder, name_prefix=name_prefix)
        super().__init__(env)
        self.folder, self.name_prefix = Path(folder), name_prefix
        self.episode = 0
        self._given_seed: int | None = None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict]:
        """Keep the seed a user gave for this episode: the replay shows it, not the deal's seed drawn from it."""
        self._given_seed = seed
        return self.env.reset(seed=seed, options=options)

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], float, bool, bool, dict]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        if terminated or truncated:
            env = self.env.unwrapped
            path = self.folder / f"{self.name_prefix}-{self.episode:05d}.json"
            replay_record.write(path, env.state, env.seat_names(), given_seed=self._given_seed)
            self.episode += 1
        return obs, reward, terminated, truncated, info
