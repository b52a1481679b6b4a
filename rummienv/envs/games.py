"""What the env layer needs from each game, behind one small interface.

The Gymnasium and PettingZoo envs are written once for all three games; an
adapter builds the game from the env's arguments and answers the few questions
that differ between games: the observation's layout and bounds, how points
become a reward, who won, and the text of a render.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np

from rummienv.core import State
from rummienv.rules import RummikubRules, Rummy500Rules, make_rules

GAMES = ("rummikub", "rummikub_cards", "rummy500")
REWARDS = ("score", "win")
RENDER_MODES = ("ansi", "human", "rgb_array")

# Points per unit of reward in "score" mode, chosen so that a typical round lands
# in about [-1, 1]: a Rummikub round's plus is the sum of the others' racks, a
# Rummy 500 hand scores what was laid minus what is held (tens of points).
RUMMIKUB_POINTS_SCALE = 200.0
RUMMY500_HAND_SCALE = 100.0

RulesArg = dict[str, Any] | str | Path | RummikubRules | Rummy500Rules | None


def check_choice(name: str, value: Any, allowed: tuple) -> Any:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {list(allowed)}, got {value!r}")
    return value


def _rules(game: str, rules: RulesArg) -> RummikubRules | Rummy500Rules:
    if isinstance(rules, (RummikubRules, Rummy500Rules)):
        if rules.game != game:
            raise ValueError(f"rules are for game {rules.game!r}, not {game!r}")
        return rules
    if rules is not None and not isinstance(rules, (dict, str, Path)):
        raise ValueError(f"rules must be a dict of overrides, a YAML file path or None, got {type(rules).__name__}")
    return make_rules(game, rules)


class GameAdapter:
    """One game at one table size, as the envs see it."""

    title: str
    num_actions: int
    score_scale: float
    observation_layout: dict[str, slice]
    # Parts of the observation that are not in [0, 1], with their bounds.
    _wide_parts: dict[str, tuple[float, float]]

    def __init__(self, game: str, num_players: int) -> None:
        self.name = game
        self.num_players = num_players

    @property
    def observation_size(self) -> int:
        return max(part.stop for part in self.observation_layout.values())

    def observation_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        low = np.zeros(self.observation_size, dtype=np.float32)
        high = np.ones(self.observation_size, dtype=np.float32)
        for part, (lo, hi) in self._wide_parts.items():
            low[self.observation_layout[part]] = lo
            high[self.observation_layout[part]] = hi
        return low, high

    def new_state(self, seed: int) -> State:
        return self.game.new_initial_state(seed)

    def winners(self, state: State) -> list[int]:
        scores = state.scores()
        return np.flatnonzero(scores == scores.max()).tolist()

    def rewards(self, state: State, mode: str) -> np.ndarray:
        """Every seat's reward for a finished episode: scaled points, or +1 win / 0 shared / -1 loss."""
        if mode == "score":
            return state.scores() / self.score_scale
        winners = self.winners(state)
        out = np.full(self.num_players, -1.0)
        out[winners] = 1.0 if len(winners) == 1 else 0.0
        return out

    def render(self, state: State, seat: int) -> str:
        raise NotImplementedError

    def frame(self, state: State, seat: int) -> np.ndarray:
        """The picture of what ``seat`` knows (``picture.FRAME_SHAPE``, uint8 RGB)."""
        raise NotImplementedError


class RummikubAdapter(GameAdapter):
    def __init__(self, game: str, num_players: int, rules: RulesArg, whole_game: bool, whole_turns: bool) -> None:
        from rummienv.rummikub import RummikubGame, observation
        from rummienv.rummikub import whole_turns as whole
        from rummienv.rummikub.state import full_set, rack_value

        super().__init__(game, num_players)
        self.rules = _rules(game, rules)
        kind = whole.WholeTurnGame if whole_turns else RummikubGame
        self.game = kind(self.rules, num_players, whole_game=whole_game)
        self.title = "Rummikub" if game == "rummikub" else "Rummikub card edition"
        self.num_actions = self.game.num_actions
        self.score_scale = RUMMIKUB_POINTS_SCALE
        self.observation_layout = whole.layout(num_players) if whole_turns else observation.layout(num_players)
        pieces = full_set(self.rules)
        rounds = self.game.num_rounds if whole_game else 1
        points = rack_value(pieces, self.rules.joker_penalty)
        most = rounds * points / 200.0  # every piece's points, each round
        self._wide_parts = {"rack_sizes": (0.0, int(pieces.sum()) / 30.0), "totals": (-most, most)}
        if whole_turns:  # a play's pieces / 30 and points / 100 (whole_turns.features)
            self._wide_parts |= {f"{play}_facts": (0.0, points / 100.0) for play in whole.PLAYS}

    def winners(self, state: State) -> list[int]:
        if self.game.whole_game:
            return state.winners()  # T11: ties on points go to the most rounds won
        return super().winners(state)

    def render(self, state: State, seat: int) -> str:
        from rummienv.envs.render import rummikub_text

        return rummikub_text(state.view(seat), self.title, self.game.num_rounds if self.game.whole_game else 1)

    def frame(self, state: State, seat: int) -> np.ndarray:
        from rummienv.envs.picture import rummikub_frame

        return rummikub_frame(state.view(seat), self.title, self.game.num_rounds if self.game.whole_game else 1)


class Rummy500Adapter(GameAdapter):
    def __init__(self, num_players: int, rules: RulesArg, whole_game: bool) -> None:
        from rummienv.cards import CARD_VALUES
        from rummienv.rummy500 import NUM_ACTIONS, Rummy500Game

        super().__init__("rummy500", num_players)
        self.rules = _rules("rummy500", rules)
        if whole_game:
            self.rules = dataclasses.replace(self.rules, whole_game=True)
        self.game = Rummy500Game(self.rules, num_players)
        self.title = "Rummy 500"
        self.num_actions = NUM_ACTIONS
        self.score_scale = float(self.rules.target_score) if self.rules.whole_game else RUMMY500_HAND_SCALE
        self.observation_layout = dict(self.game.observation_layout)
        # One hand moves a total by at most the pack's points; a whole game has no bound.
        most = np.inf if self.rules.whole_game else CARD_VALUES.sum() / self.rules.target_score
        self._wide_parts = {"scores": (-most, most)}

    def render(self, state: State, seat: int) -> str:
        from rummienv.envs.render import rummy500_text

        return rummy500_text(state.view(seat))

    def frame(self, state: State, seat: int) -> np.ndarray:
        from rummienv.envs.picture import rummy500_frame

        return rummy500_frame(state.view(seat))


def make_adapter(game: str, num_players: int, rules: RulesArg = None, whole_game: bool = False,
                 whole_turns: bool = False) -> GameAdapter:
    """Check the arguments every env shares and build the game they describe."""
    check_choice("game", game, GAMES)
    if isinstance(num_players, bool) or num_players not in (2, 3, 4):
        raise ValueError(f"num_players must be 2, 3 or 4, got {num_players!r}")
    for name, value in (("whole_game", whole_game), ("whole_turns", whole_turns)):
        if not isinstance(value, bool):
            raise ValueError(f"{name} must be True or False, got {value!r}")
    num_players = int(num_players)
    if game == "rummy500":
        if whole_turns:
            raise ValueError("whole_turns is an action mode of the Rummikub games; Rummy 500 has none")
        return Rummy500Adapter(num_players, rules, whole_game)
    return RummikubAdapter(game, num_players, rules, whole_game, whole_turns)
