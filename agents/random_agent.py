"""Uniform random play over the legal actions: the floor every other agent must clear."""

from __future__ import annotations

import numpy as np

from agents.base import BaseAgent


class RandomAgent(BaseAgent):
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        if len(legal) == 0:
            raise ValueError("no legal action in the mask")
        return int(legal[self.rng.integers(len(legal))])

    def act_batch(self, observations: np.ndarray, masks: np.ndarray, views=None) -> np.ndarray:
        """Vectorised: the largest uniform draw among the legal entries is a uniform legal pick."""
        masks = np.asarray(masks) > 0
        if not masks.any(axis=1).all():
            raise ValueError("a row of the masks has no legal action")
        draws = self.rng.random(masks.shape)
        draws[~masks] = -1.0
        return draws.argmax(axis=1)
