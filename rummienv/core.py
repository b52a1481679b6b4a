"""The state-machine contract every game implements.

The environments, agents and tools are written against this contract only, so a
new game (or a new rules preset) plugs in without touching them. It follows
OpenSpiel's shape: one mutable ``State`` per game in progress, with a fixed-size
action space whose legal subset is given by an exact mask.
"""

from __future__ import annotations

import secrets
from abc import ABC, abstractmethod
from collections.abc import Iterable
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from rummienv.errors import IllegalActionError, RulesError
from rummienv.outcome import top_seats
from rummienv.rules import make_rules

TIMEOUT = -1  # how a history records a turn clock running out (a game's apply_timeout); a replay calls it there
RulesArg = Any  # a rules object of the game, a preset's name, a dict of overrides, a YAML Path, or None


class Game(ABC):
    """One game at one table size under one rules preset: the factory of its states (OpenSpiel's Game).

    Every game is built with the same three arguments and refuses bad ones with a RulesError, so that the
    registry, the envs and the tools build any game alike; what a network and an env need to know of it
    (actions, observation layout and bounds, the points that make one unit of reward) it answers here.
    """

    num_actions: int
    rules_type: ClassVar[type]  # the rules dataclass this engine plays
    default_rules: ClassVar[str]  # the registered game whose preset plays when no rules are given
    whole_turns: ClassVar[bool] = False  # whether this is a whole-turn action mode (rummienv.rummikub.whole_turns)

    def __init__(self, rules: RulesArg = None, num_players: int = 2, whole_game: bool = False) -> None:
        if rules is None or isinstance(rules, str):
            rules = make_rules(rules or self.default_rules)
        elif isinstance(rules, (dict, Path)):
            rules = make_rules(self.default_rules, rules)
        if not isinstance(rules, self.rules_type):
            raise RulesError(f"{type(self).__name__} needs {self.rules_type.__name__}, got {type(rules).__name__}")
        if isinstance(num_players, bool) or num_players not in (2, 3, 4):
            raise RulesError(f"num_players must be 2, 3 or 4 (every game here is for 2-4 players), "
                             f"got {num_players!r}")
        if not isinstance(whole_game, bool):
            raise RulesError(f"whole_game must be True or False, got {whole_game!r}")
        self.rules = rules
        self.num_players = int(num_players)
        self.whole_game = whole_game

    @property
    @abstractmethod
    def observation_layout(self) -> dict[str, slice]:
        """Named slices of the observation vector at this table size; callers must not change the dict."""

    @property
    def observation_size(self) -> int:
        return max(part.stop for part in self.observation_layout.values())

    def network_shapes(self) -> list[tuple[int, int]]:
        """The (observations, actions) of the networks that can play this game: its own first, then those of
        earlier versions of its action mode that a network of theirs is still shown as it was trained."""
        return [(self.observation_size, self.num_actions)]

    def wide_parts(self) -> dict[str, tuple[float, float]]:
        """The parts of the observation that are not in [0, 1], with their bounds."""
        return {}

    def observation_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Per-entry lower and upper bounds of the observation (the Gymnasium Box)."""
        low = np.zeros(self.observation_size, dtype=np.float32)
        high = np.ones(self.observation_size, dtype=np.float32)
        for part, (lo, hi) in self.wide_parts().items():
            low[self.observation_layout[part]] = lo
            high[self.observation_layout[part]] = hi
        return low, high

    @property
    @abstractmethod
    def score_scale(self) -> float:
        """Points per unit of reward under ``reward="score"``, so that a deal's reward lands in about [-1, 1]."""

    @abstractmethod
    def new_initial_state(self, seed: int | None = None) -> State:
        """A fresh deal; every chance event of the game comes from ``seed`` (None: a random one)."""

    @staticmethod
    def deal_seed(seed: int | None) -> int:
        """The seed a deal is made from: the one given, or a fresh random one for None."""
        return secrets.randbits(63) if seed is None else int(seed)

    def replay(self, seed: int, actions: Iterable[int]) -> State:
        """The state a replay record (seed and action list) leads to."""
        state = self.new_initial_state(seed)
        for action in actions:
            state.apply_action(action)
        return state


class State(ABC):
    """One game in progress: who is to move, what they may do, and what happens.

    A state pickles (no closures or open handles in it): training's workers hand games in flight from
    process to process, the game object, where a state keeps one, going by reference to the receiver's."""

    num_players: int
    num_actions: int

    @property
    @abstractmethod
    def current_player(self) -> int:
        """Seat to move; ``-1`` once the state is terminal."""

    @abstractmethod
    def legal_action_mask(self) -> np.ndarray:
        """``int8`` array of length ``num_actions``; 1 marks a legal action."""

    def legal_actions(self) -> list[int]:
        return np.flatnonzero(self.legal_action_mask()).tolist()

    @abstractmethod
    def apply_action(self, action: int) -> None:
        """Play ``action`` for the current player; raise IllegalActionError if not legal."""

    @abstractmethod
    def is_terminal(self) -> bool: ...

    @abstractmethod
    def scores(self) -> np.ndarray:
        """The round's (or hand's) points per seat under the rules' scoring."""

    def winners(self) -> list[int]:
        """The seats that won a finished game: the top score, shared by all who reach it."""
        return top_seats(self.scores())

    def returns(self) -> np.ndarray:
        """Scores once terminal, zeros before: the usual RL return convention."""
        if self.is_terminal():
            return self.scores()
        return np.zeros(self.num_players, dtype=np.float64)

    @abstractmethod
    def action_to_string(self, action: int) -> str: ...

    @abstractmethod
    def string_to_action(self, text: str) -> int: ...

    @abstractmethod
    def clone(self) -> State: ...

    @abstractmethod
    def to_dict(self) -> dict[str, Any]:
        """The JSON-able position; ``load_state`` of it rebuilds an equal state."""

    @abstractmethod
    def view(self, player: int) -> dict[str, Any]:
        """What ``player`` may know, structured, for heuristic agents and renderers."""

    @abstractmethod
    def observation(self, player: int) -> np.ndarray:
        """What ``player`` may know, as the flat float32 vector of the game's ``observation_layout``."""

    def play_uniform(self, rng: np.random.Generator, seats: np.ndarray) -> None:
        """Play uniformly random legal actions while a seat with ``seats[seat]`` set is to move.

        The envs' random opponents. A game may override it with a compiled loop, which must draw the
        same numbers from ``rng`` in the same way, so that a seed plays the same moves either way.
        """
        while not self.is_terminal() and seats[self.current_player]:
            legal = self.legal_action_mask().nonzero()[0]
            self.apply_action(int(legal[int(rng.random() * len(legal))]))

    def check_legal(self, action: int) -> None:
        """Raise a clear IllegalActionError unless ``action`` is legal now."""
        if self.is_terminal():
            raise IllegalActionError(f"action {_one_line(action)} refused: the game is over")
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or \
                not 0 <= int(action) < self.num_actions:
            raise IllegalActionError(
                f"action {_one_line(action)} is not an action index (allowed: 0..{self.num_actions - 1})")
        if not self.legal_action_mask()[int(action)]:
            legal = ", ".join(self.action_to_string(a) for a in self.legal_actions()[:12])
            raise IllegalActionError(
                f"{self.action_to_string(int(action))} is not legal for seat "
                f"{self.current_player} in phase {self.phase!r}; legal now: {legal}"
                + (" ..." if len(self.legal_actions()) > 12 else "")
            )

    @property
    def phase(self) -> str:
        """A short name of the turn phase, used in error messages and observations."""
        return "play"


def _one_line(action: Any) -> str:
    """``action`` as a refusal shows it: an array's repr spans lines, a refusal is one. Made only when refusing,
    since every move is checked."""
    return " ".join(repr(action).split())
