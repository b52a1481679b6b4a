"""An outside agent that draws on chance and cannot be reseeded: the evaluator must make it afresh for every deal
(``module:Class`` spec ``seedless_agent:Seedless``), so that a deal's games still hang on that deal alone."""

from __future__ import annotations

import numpy as np


class Seedless:
    """Plays a uniformly random legal action from a generator seeded once, at its making."""

    def __init__(self, rules: object, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(self.rng.choice(np.flatnonzero(action_mask)))
