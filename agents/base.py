"""The one agent interface shared by heuristics, learned policies and outside agents.

Every agent answers ``act(observation, action_mask) -> int``; that is all an
outside agent needs, so anything with such a method meets the baselines in the
same tournament. Heuristics also want the structured ``view()`` of the seat they
play. Handing them the state would let them peek at other racks, so the caller
hands them that seat's view instead (``observe``), and ``decide`` is the single
place that does it, for the evaluator, the play command and the environments.
``make_move`` first lets a planning agent lay down its whole play at once
(``plan_turn``); the environment layer defines both, since it must not import
this package, and they are re-exported here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from rummienv.envs.opponents import decide, make_move, play_whole, reads_view, report_logs, take_reports

__all__ = ["Agent", "BaseAgent", "View", "decide", "first_legal", "make_move", "play_whole", "reads_view",
           "report_logs", "take_reports"]

View = dict[str, Any]


@runtime_checkable
class Agent(Protocol):
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int: ...


class BaseAgent:
    """Defaults for the baselines: a seeded generator, a batched form, an optional view.

    Subclasses that set ``reads_view`` get the acting seat's view through
    ``observe`` before each ``act``; the view is all they may know.
    """

    reads_view = False

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)
        self.view: View | None = None

    def reseed(self, seed: int) -> None:
        """Restart the agent's chance from ``seed``: an env calls it at reset, so a seed fixes the episode."""
        self.rng = np.random.default_rng(seed)

    def observe(self, view: View) -> None:
        self.view = view

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        raise NotImplementedError

    def act_batch(self, observations: np.ndarray, masks: np.ndarray,
                  views: Sequence[View] | None = None) -> np.ndarray:
        """One action per row; heuristics need ``views`` (one per row), learned agents do not."""
        if self.reads_view and views is None:
            raise ValueError(f"{type(self).__name__} reads the acting seat's view: pass views= to act_batch")
        actions = np.empty(len(masks), dtype=np.int64)
        for i in range(len(masks)):
            if views is not None:
                self.observe(views[i])
            actions[i] = self.act(observations[i], masks[i])
        return actions

    def _require_view(self) -> View:
        if self.view is None:
            raise ValueError(f"{type(self).__name__} reads the acting seat's view: call observe(view) before act")
        return self.view


def first_legal(mask: np.ndarray, actions: Sequence[int]) -> int | None:
    """The first of ``actions`` that ``mask`` allows, or None."""
    for action in actions:
        if mask[action]:
            return int(action)
    return None


def budget(name: str, value: object, least: int = 1) -> int:
    """A search budget (samples, batches) as an int, or a one-line ValueError saying what is allowed: a bool or
    a float would pass a comparison and mean nothing."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not value >= least:
        raise ValueError(f"{name} must be a whole number of at least {least}, got {value!r}")
    return int(value)
