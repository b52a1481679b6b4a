"""The state-machine contract every game implements.

The environments, agents and tools are written against this contract only, so a
new game (or a new rules preset) plugs in without touching them. It follows
OpenSpiel's shape: one mutable ``State`` per game in progress, with a fixed-size
action space whose legal subset is given by an exact mask.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from rummienv.errors import IllegalActionError


class State(ABC):
    """One game in progress: who is to move, what they may do, and what happens."""

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
            raise IllegalActionError(f"action {action} refused: the game is over")
        if not isinstance(action, (int, np.integer)) or not 0 <= int(action) < self.num_actions:
            raise IllegalActionError(
                f"action {action!r} is not an action index (allowed: 0..{self.num_actions - 1})"
            )
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
