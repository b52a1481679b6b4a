"""The whole legal-action mask of a Rummikub state, computed from scratch with no memory of the turn.

The state machine keeps what a turn's masks have learnt and reuses it; this asks every question
afresh, so it is the oracle that the state's mask is checked against (in the tests and in
``benchmarks/mask_cost.py``).
"""

from __future__ import annotations

import numpy as np

from rummienv.rummikub import solver
from rummienv.rummikub.state import RummikubState


def reference_mask(state: RummikubState) -> np.ndarray:
    """The int8 mask of ``state`` (length ``actions.NUM_ACTIONS``), each answer from a fresh solve."""
    return state.mask_from(_fresh_answers, swaps_from_places=False)


def _fresh_answers(table, rack, staged, **args) -> tuple[np.ndarray, bool]:
    """``TurnMemory.masks``'s answers from the stateless solver."""
    return (solver.legal_mask(table, rack, staged, **args),
            bool(staged.any()) and solver.is_legal_play(table, staged, **args))
