"""What a seat's masks have learnt, kept so that its next mask is mostly answered already.

Within a turn the table and rack are fixed and only the staged pieces grow, so each mask is a subset of
the one before (a play that holds one more staged piece holds the others too), and every legal layout a
search finds (a witness) answers later questions whose staged pieces it still holds. Only the types these
leave in doubt are searched (``solver.masks.turn_mask``), and the states those searches found to lead nowhere are
kept for the rest of the turn: with more pieces staged they still lead nowhere. Between the seat's turns
the witnesses stay while the table is the same and the rack has only grown (it drew): each is still a
legal play. An opening does not depend on the table at all, so an unopened seat keeps them while others
play. Anything else starts the memory afresh, so it never answers for another table or rack.
"""

from __future__ import annotations

import numpy as np

from rummienv.rummikub import solver
from rummienv.rummikub.solver import masks
from rummienv.tiles import NUM_TYPES

WITNESSES = 16  # layouts kept per turn; more found no more answers on logged play


class TurnMemory:
    """The last mask, the position it was for, and the witnesses found, for one seat."""

    def __init__(self) -> None:
        self._context: bytes | None = None
        self._rack = np.zeros(NUM_TYPES, dtype=np.int64)
        self._staged = np.zeros(NUM_TYPES, dtype=np.int64)
        self._mask = np.ones(NUM_TYPES, dtype=np.bool_)
        self._witnesses = np.zeros((WITNESSES, 54), dtype=np.int64)
        self._count = 0
        # the stamp of the turn's dead states in the workspace's table (0: none) and the colour orders the
        # searches took them in (masks.turn_mask)
        self._turn_memo = np.zeros(1 + 2 * 13 * 4, dtype=np.int64)

    def copy(self) -> TurnMemory:
        """A memory that goes on from here on its own: the copy keeps the witnesses, but not the turn's dead
        states, which hold only for the pieces this memory stages from here on."""
        new = TurnMemory()
        new._context, new._count, new._rack = self._context, self._count, self._rack.copy()
        new._staged, new._mask, new._witnesses = self._staged.copy(), self._mask.copy(), self._witnesses.copy()
        return new

    def masks(self, table: np.ndarray, rack: np.ndarray, staged: np.ndarray, *, fixed: np.ndarray | None = None,
              opened: bool = True, threshold: int = 30) -> tuple[np.ndarray, bool]:
        """``solver.legal_mask`` of the same position, from what the turn has learnt so far, and whether the
        staged pieces are a legal play now (``solver.is_legal_play``; False with nothing staged): one call."""
        table, fixed, valued, threshold = solver.mask_problem(table, fixed, opened, threshold)
        rack = np.array(rack, dtype=np.int64)  # copies: the memory keeps them
        staged = np.array(staged, dtype=np.int64)
        context = b"".join((table.tobytes(), fixed.tobytes(), bytes((valued, threshold))))
        same_rack = context == self._context and rack.tobytes() == self._rack.tobytes()
        if not same_rack:
            if context != self._context or not (rack >= self._rack).all():  # no witness holds
                self._context, self._count = context, 0
            self._rack = rack
        ws = solver.workspace()
        mask, ok, self._count, legal = masks.turn_mask(
            (table, rack, staged, fixed, valued, threshold), self._mask, same_rack, self._staged, self._witnesses,
            self._count, self._turn_memo, ws)
        if not ok:
            raise solver.overflow_error()
        self._staged, self._mask = staged, mask
        return mask, legal
