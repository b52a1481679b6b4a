"""What the env layer needs from each game, behind one small interface.

The Gymnasium and PettingZoo envs are written once for every registered game
(``rummienv.games``); an adapter builds the game from the env's arguments and
answers what the envs ask of it besides the Game's own answers: how points become
a reward (``rummienv.outcome``) and the seat's render, as text or a picture.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from rummienv import games
from rummienv.core import RulesArg, State
from rummienv.outcome import rewards

RENDER_MODES = ("ansi", "human", "rgb_array")


def check_choice(name: str, value: Any, allowed: tuple) -> Any:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {list(allowed)}, got {value!r}")
    return value


class GameAdapter:
    """One game at one table size, as the envs see it."""

    def __init__(self, game: str, num_players: int, rules: RulesArg, whole_game: bool, whole_turns: bool) -> None:
        if rules is not None and not isinstance(rules, (dict, str, Path)) and not hasattr(rules, "game"):
            raise ValueError(f"rules must be a dict of overrides, a YAML file path or None, got {type(rules).__name__}")
        self.info = games.info(game)
        self.game = games.make_game(game, num_players, rules, whole_game, whole_turns)  # which checks the rest
        self.rules = self.game.rules
        self.num_players = self.game.num_players
        self.num_actions = self.game.num_actions
        self.observation_layout = self.game.observation_layout

    def new_state(self, seed: int) -> State:
        return self.game.new_initial_state(seed)

    def rewards(self, state: State, mode: str) -> np.ndarray:
        """Every seat's reward for a finished episode (``rummienv.outcome.rewards``)."""
        return rewards(self.game, state, mode)

    def render(self, state: State, seat: int) -> str:
        return games.load(self.info.text)(state.view(seat), self.game)

    def frame(self, state: State, seat: int) -> np.ndarray:
        """The picture of what ``seat`` knows (``rummienv.drawing.FRAME_SHAPE``, uint8 RGB)."""
        if self.info.picture is None:
            raise ValueError(f"{self.info.title} has no pictures: render_mode 'rgb_array' is not available")
        return games.load(self.info.picture)(state.view(seat), self.game)


def make_adapter(game: str, num_players: int, rules: RulesArg = None, whole_game: bool = False,
                 whole_turns: bool = False) -> GameAdapter:
    """Check the arguments every env shares and build the game they describe."""
    check_choice("game", game, games.names())
    return GameAdapter(game, num_players, rules, whole_game, whole_turns)
