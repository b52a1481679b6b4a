"""The multi-agent form of the three games for RLlib (``pip install .[rllib]``): every seat an agent,
turn-based, each observation a Dict holding the mask, as RLlib's action-masking module reads it; and the
PPO config that trains one policy shared by every seat with that module (``ppo_config``).

Only the seat to move gets an observation, so RLlib asks only it for an action; when the game ends every
seat gets its last observation and its reward (``reward``: "score", "margin" or "win", as in the Gymnasium envs).
An illegal action raises, as the state machine does: with the action-masking module none is ever chosen.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

from rummienv.envs.base import observation_space
from rummienv.envs.games import check_choice, make_adapter
from rummienv.outcome import REWARDS


class RummyMultiAgentEnv(MultiAgentEnv):
    """``config``: ``game`` ("rummikub", "rummikub_cards" or "rummy500"), ``num_players`` (2-4), ``rules``
    (overrides or a YAML path), ``reward`` ("score", "margin" or "win")."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        config = dict(config or {})
        self.adapter = make_adapter(config.get("game", "rummy500"), config.get("num_players", 2),
                                    config.get("rules"))
        self.reward_mode = check_choice("reward", config.get("reward", "win"), REWARDS)
        self.agents = self.possible_agents = [f"seat_{seat}" for seat in range(self.adapter.num_players)]
        spaces = observation_space(self.adapter)
        space = gym.spaces.Dict({"observations": spaces["observation"],
                                 "action_mask": gym.spaces.Box(0.0, 1.0, (self.adapter.num_actions,), np.float32)})
        self.observation_spaces = dict.fromkeys(self.agents, space)
        self.action_spaces = dict.fromkeys(self.agents, gym.spaces.Discrete(self.adapter.num_actions))
        self._rng = np.random.default_rng()
        self.state = None

    def _observe(self, seat: int) -> dict[str, np.ndarray]:
        mask = self.state.legal_action_mask() if seat == self.state.current_player else None
        return {"observations": self.state.observation(seat).astype(np.float32),
                "action_mask": (np.zeros(self.adapter.num_actions) if mask is None else mask).astype(np.float32)}

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.state = self.adapter.new_state(int(self._rng.integers(2**63)))
        seat = self.state.current_player
        return {self.agents[seat]: self._observe(seat)}, {}

    def step(self, action_dict: dict[str, int]) -> tuple[dict, dict, dict, dict, dict]:
        seat = self.state.current_player
        self.state.apply_action(int(action_dict[self.agents[seat]]))
        if self.state.is_terminal():
            rewards = self.adapter.rewards(self.state, self.reward_mode)
            obs = {agent: self._observe(s) for s, agent in enumerate(self.agents)}
            return (obs, {agent: float(rewards[s]) for s, agent in enumerate(self.agents)},
                    {"__all__": True}, {"__all__": False}, {})
        following = self.state.current_player
        return ({self.agents[following]: self._observe(following)}, {self.agents[seat]: 0.0},
                {"__all__": False}, {"__all__": False}, {})


def ppo_config(game: str, num_players: int = 2, env_runners: int = 2, batch: int = 2000, seed: int = 0,
               reward: str = "win") -> PPOConfig:
    """PPO with one policy for every seat, its logits masked by RLlib's action-masking module;
    ``env_runners`` processes play the games (0: the driver), ``batch`` env steps per iteration."""
    env_config = {"game": game, "num_players": num_players, "reward": reward}
    return (
        PPOConfig()
        # RLlib's env check steps with unmasked random actions, which the games refuse (they raise)
        .environment(RummyMultiAgentEnv, env_config=env_config, disable_env_checking=True)
        .env_runners(num_env_runners=env_runners, num_cpus_per_env_runner=1)
        .multi_agent(policies={"shared"}, policy_mapping_fn=lambda agent_id, episode, **kwargs: "shared")
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={"shared": RLModuleSpec(
            module_class=ActionMaskingTorchRLModule, model_config={"fcnet_hiddens": [256, 256]})}))
        .training(train_batch_size_per_learner=batch, minibatch_size=min(batch, 256), num_epochs=4, lr=3e-4)
        .debugging(seed=seed)
    )
