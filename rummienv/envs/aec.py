"""The PettingZoo AEC env: every seat an agent, for self-play and multi-agent libraries.

Agents are ``player_0`` .. ``player_{P-1}`` by seat. Each observes
``{"observation", "action_mask"}`` from its own seat (the same encoding as the
Gymnasium envs); the mask is all zero for an agent that is not to move. Rewards
come once, when the episode ends, in the same modes as the Gymnasium envs.

Version history (``metadata["name"]``: ``rummikub_v0``, ``rummikub_cards_v0``,
``rummy500_v0``):

- v0: initial version.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from rummienv.core import RulesArg, State
from rummienv.envs.base import Observation, action_index, observation_space
from rummienv.envs.games import RENDER_MODES, check_choice, make_adapter
from rummienv.outcome import REWARDS


class RummyAECEnv(AECEnv):
    """One game at one table size; get it from ``rummienv.aec_env``.

    It is not wrapped in PettingZoo's OrderEnforcingWrapper: the wrapper's attribute
    forwarding cost about a quarter of a step, and the env refuses use before
    ``reset`` itself. An illegal action raises IllegalActionError.
    """

    metadata = {"render_modes": list(RENDER_MODES), "name": "rummy_v0", "is_parallelizable": False,
                "render_fps": 4}

    def __init__(
        self,
        game: str,
        num_players: int = 2,
        rules: RulesArg = None,
        reward: str = "score",
        whole_game: bool = False,
        render_mode: str | None = None,
        whole_turns: bool = False,
    ) -> None:
        super().__init__()
        self.adapter = make_adapter(game, num_players, rules, whole_game, whole_turns)
        self.metadata = {**self.metadata, "name": f"{game}_v0"}
        self.reward_mode = check_choice("reward", reward, REWARDS)
        self.render_mode = check_choice("render_mode", render_mode, (None, *RENDER_MODES))
        self.possible_agents = [f"player_{seat}" for seat in range(self.adapter.num_players)]
        self._seat_of = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        self.observation_layout = dict(self.adapter.observation_layout)
        self.observation_spaces = {a: observation_space(self.adapter) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.adapter.num_actions) for a in self.possible_agents}
        self._no_moves = np.zeros(self.adapter.num_actions, dtype=np.int8)
        self._np_random: np.random.Generator | None = None
        self.game_state: State | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None or self._np_random is None:
            self._np_random, _ = seeding.np_random(seed)
        self.game_state = self.adapter.new_state(int(self._np_random.integers(2**63)))
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self.agent_selection = self.possible_agents[self.game_state.current_player]
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> Observation:
        seat, state = self._seat_of[agent], self._live_state()
        # the agent selected is the seat to move until the game ends, when every agent is terminated
        to_move = agent == self.agent_selection and not self.terminations[agent]
        mask = state.legal_action_mask() if to_move else self._no_moves
        return {"observation": state.observation(seat), "action_mask": mask.copy()}

    def step(self, action: int | None) -> None:
        state = self._live_state()
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state.apply_action(action_index(action))  # an illegal action raises before anything changes
        self._cumulative_rewards[agent] = 0.0
        if state.is_terminal():
            rewards = self.adapter.rewards(state, self.reward_mode)
            self.rewards = {a: float(rewards[self._seat_of[a]]) for a in self.agents}
            self.terminations = dict.fromkeys(self.agents, True)
            self._accumulate_rewards()  # rewards are all zero before the end
        else:
            self.agent_selection = self.possible_agents[state.current_player]
        if self.render_mode == "human":
            self.render()

    def _live_state(self) -> State:
        if self.game_state is None:
            raise RuntimeError("call reset() before using the env")
        return self.game_state

    def render(self) -> str | np.ndarray | None:
        """The view of the agent to act: text ("ansi", printed for "human") or a picture ("rgb_array")."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi', 'human' or "
                                  "'rgb_array'")
            return None
        if self.render_mode == "rgb_array":
            return self.adapter.frame(self._live_state(), self._seat_of[self.agent_selection])
        text = self.adapter.render(self._live_state(), self._seat_of[self.agent_selection])
        if self.render_mode == "ansi":
            return text
        print(text + "\n")
        return None

    def close(self) -> None:
        pass

