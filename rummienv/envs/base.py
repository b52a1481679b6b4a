"""The single-agent Gymnasium env shared by the three games.

The learner holds one seat; ``step`` plays its action, then the other seats'
moves, until the learner is to move again or the episode is over, so an agent
only ever sees its own decisions. The game logic is the state machine's; this
class adds seating, opponents, rewards and the Gymnasium conventions (a Dict
observation with the mask, the mask again in ``info`` and ``action_masks()``).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from rummienv.core import RulesArg, State
from rummienv.envs.games import RENDER_MODES, GameAdapter, check_choice, make_adapter
from rummienv.envs.opponents import action_index, make_move, opponent_names, resolve_opponents
from rummienv.errors import IllegalActionError
from rummienv.outcome import REWARDS

Observation = dict[str, np.ndarray]


def observation_space(adapter: GameAdapter) -> spaces.Dict:
    """``{"observation": float32 vector, "action_mask": int8 0/1}``: PettingZoo's classic convention."""
    low, high = adapter.game.observation_bounds()
    return spaces.Dict({
        "observation": spaces.Box(low, high, dtype=np.float32),
        "action_mask": spaces.Box(0, 1, shape=(adapter.num_actions,), dtype=np.int8),
    })


def _check_seat(seat: Any, num_players: int) -> int | None:
    """The fixed seat, or None for a seat drawn at each reset."""
    if isinstance(seat, str) and seat == "random":
        return None
    if isinstance(seat, (int, np.integer)) and not isinstance(seat, bool) and 0 <= seat < num_players:
        return int(seat)
    raise ValueError(f"seat must be a seat number 0..{num_players - 1} or 'random', got {seat!r}")


class RummyEnv(gym.Env[Observation, int]):
    """The env of any registered game: the package's games subclass it to hold their documentation, and a game
    registered without an env class of its own is played by this class with ``game`` set to its name."""

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 4}
    game_name = ""

    def __init__(
        self,
        num_players: int = 2,
        opponents: Any = None,
        seat: int | str = 0,
        rules: RulesArg = None,
        reward: str = "score",
        whole_game: bool = False,
        render_mode: str | None = None,
        whole_turns: bool = False,
        game: str | None = None,
    ) -> None:
        self.game_name = game or self.game_name
        self.adapter = make_adapter(self.game_name, num_players, rules, whole_game, whole_turns)
        self.num_players = self.adapter.num_players
        self.reward_mode = check_choice("reward", reward, REWARDS)
        self.render_mode = check_choice("render_mode", render_mode, (None, *RENDER_MODES))
        self._fixed_seat = _check_seat(seat, self.num_players)
        self._opponents = resolve_opponents(opponents, self.game_name, self.num_players)
        self._opponent_names = opponent_names(opponents, self.num_players)
        self.observation_layout = dict(self.adapter.observation_layout)
        self.observation_space = observation_space(self.adapter)
        self.action_space = spaces.Discrete(self.adapter.num_actions)
        self.seat = self._fixed_seat or 0
        self._random_seats = np.zeros(self.num_players, dtype=bool)  # seats played uniformly at random
        self._state: State | None = None

    @property
    def state(self) -> State:
        """The game in progress, for heuristics and tools; read it, never change it."""
        if self._state is None:
            raise gym.error.ResetNeeded("call reset() before using the env")
        return self._state

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Observation, dict]:
        super().reset(seed=seed)
        rng = self.np_random
        self.seat = self._fixed_seat if self._fixed_seat is not None else int(rng.integers(self.num_players))
        self._random_seats = np.array([seat != self.seat and self._opponent_at(seat) is None
                                       for seat in range(self.num_players)])
        for opponent in self._opponents:  # agents with chance of their own follow the env's seed
            if hasattr(opponent, "reseed"):
                opponent.reseed(int(rng.integers(2**63)))
        while True:  # a deal the others finish before the learner's first move is dealt again
            self._state = self.adapter.new_state(int(rng.integers(2**63)))
            self._play_opponents()
            if not self._state.is_terminal():
                break
        obs, info = self._observe(False)
        if self.render_mode == "human":
            self.render()
        return obs, info

    def step(self, action: int) -> tuple[Observation, float, bool, bool, dict]:
        state = self._live_state()
        state.apply_action(action_index(action))  # an illegal action raises before anything changes
        self._play_opponents()
        terminated = state.is_terminal()
        reward = float(self.adapter.rewards(state, self.reward_mode)[self.seat]) if terminated else 0.0
        obs, info = self._observe(terminated)
        if self.render_mode == "human":
            self.render()
        return obs, reward, terminated, False, info

    def seat_names(self) -> list[str]:
        """Who plays each seat this episode: "learner", or the opponent as it was named."""
        return ["learner" if seat == self.seat else self._opponent_names[(seat - self.seat) % self.num_players - 1]
                for seat in range(self.num_players)]

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now (int8): the method sb3-contrib's MaskablePPO calls."""
        return self.state.legal_action_mask().copy()

    def check_action(self, action: Any) -> None:
        """Raise the state's IllegalActionError (action, phase, why) unless ``action`` is legal now."""
        self._live_state().check_legal(action_index(action))

    def render(self) -> str | np.ndarray | None:
        """The learner's view: text ("ansi", printed for "human") or a picture ("rgb_array", ``FRAME_SHAPE``
        of ``rummienv.drawing``, for ``RecordVideo``)."""
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; pass render_mode='ansi', 'human' or "
                            "'rgb_array'")
            return None
        if self.render_mode == "rgb_array":
            return self.adapter.frame(self.state, self.seat)
        text = self.adapter.render(self.state, self.seat)
        if self.render_mode == "ansi":
            return text
        print(text + "\n")
        return None

    def _live_state(self) -> State:
        state = self.state
        if state.is_terminal():
            raise gym.error.ResetNeeded("the episode is over; call reset()")
        return state

    def _opponent_at(self, seat: int) -> Any:
        """The opponent playing ``seat`` (None: uniformly random), counted from the learner's left."""
        return self._opponents[(seat - self.seat) % self.num_players - 1]

    def _play_opponents(self) -> None:
        state, me, rng = self._state, self.seat, self.np_random
        while True:
            seat = state.current_player
            if seat == me or seat < 0:
                return
            opponent = self._opponent_at(seat)
            if opponent is None:
                state.play_uniform(rng, self._random_seats)
                continue
            try:
                make_move(opponent, state)
            except IllegalActionError as exc:
                raise IllegalActionError(f"opponent {opponent!r} at seat {seat}: {exc}") from None

    def _observe(self, terminated: bool) -> tuple[Observation, dict]:
        state = self._state
        mask = state.legal_action_mask().copy()
        info: dict[str, Any] = {"action_mask": mask}
        if terminated:
            info["scores"] = state.scores()
            info["winners"] = state.winners()
        return {"observation": state.observation(self.seat), "action_mask": mask}, info
