"""Hand-written players for Rummikub and its card edition.

The solver decides a turn's play as a multiset; the action space lays it down one
piece at a time. So a planning bot decides once at the start of its turn, then
places the planned pieces and commits, re-planning only if what is staged no
longer fits the plan (it may be driven one step at a time, by anyone, in many
games in turn). A driver whose state can lay down a whole play in one transition
asks ``plan_turn`` for it instead, and so skips the mask for every piece.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.base import BaseAgent, View, first_legal
from rummienv.rules import RummikubRules
from rummienv.rummikub import actions as A
from rummienv.rummikub import solver, whole_turns
from rummienv.tiles import JOKER, NUM_TYPES, counts_of

_PLACES = range(A.PLACE, A.PLACE + NUM_TYPES)
# Turns in progress a planning bot keeps plans for: far more than the games it plays side by side.
PLANS_KEPT = 1024


@dataclass
class Position:
    """The solver's inputs as the acting seat sees them."""

    table: np.ndarray  # free jokers only at index 52
    rack: np.ndarray  # staged pieces included
    staged: np.ndarray
    solver_args: dict[str, Any]


def position_of(view: View, rules: RummikubRules) -> Position:
    fixed = np.asarray(view["fixed_jokers"], dtype=np.int64)
    table = np.asarray(view["table"], dtype=np.int64).copy()
    table[JOKER] -= fixed.sum()
    if view["opened"]:
        args: dict[str, Any] = {"opened": True, "fixed": fixed}
    else:
        args = {"opened": False, "threshold": rules.opening_threshold}
    rack = counts_of(view["rack"]).astype(np.int64)
    return Position(table, rack, counts_of(view["staged"]).astype(np.int64), args)


def end_turn(mask: np.ndarray) -> int:
    """Draw, else pass; a forced swap (empty pool, nothing else legal) is the last resort."""
    action = first_legal(mask, (A.DRAW, A.PASS))
    return action if action is not None else int(np.flatnonzero(mask)[0])


class GreedyAgent(BaseAgent):
    """Lays down the first legal play the mask leads to: lowest pieces first, commit at once.

    It opens as soon as it can and never rearranges on purpose; the mask alone
    suffices, because it only offers pieces that some legal play contains.
    """

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        action = first_legal(action_mask, (A.COMMIT, *_PLACES))
        return action if action is not None else end_turn(action_mask)


class PlanningAgent(BaseAgent):
    """Plays a whole turn's plan, chosen by ``choose``: piece by piece (``act``) or at once (``plan_turn``)."""

    reads_view = True

    def __init__(self, rules: RummikubRules, seed: int | None = None) -> None:
        super().__init__(seed)
        self.rules = rules
        self.plans: dict[bytes, tuple[np.ndarray, np.ndarray | None]] = {}  # turn -> (staged when planned, plan)

    def choose(self, pos: Position, view: View) -> np.ndarray | None:
        """The play (counts, staged included) to make this turn, or None to draw."""
        raise NotImplementedError

    def plan_turn(self, view: View) -> np.ndarray | None:
        """The play (counts, staged included) that ``act`` would place piece by piece and commit from here.

        A driver whose state lays down a whole play in one transition asks this first,
        so the turn costs one legality check instead of a mask per piece. An empty
        play when ``act`` would draw at the start of a turn (the pool holds pieces, so
        DRAW is legal and no mask is needed to choose it, T3); None when it would pass
        or make a forced swap, or give up a turn begun: then the driver asks ``act``
        with the mask.
        """
        pos = position_of(view, self.rules)
        turn, plan = self._plan(pos, view)
        if plan is not None:
            del self.plans[turn]  # laid down at once, it ends the turn
        elif view["pool_size"] > 0 and not pos.staged.any():
            del self.plans[turn]  # the turn ends with a draw
            return np.zeros(NUM_TYPES, dtype=np.int64)
        return plan

    def _plan(self, pos: Position, view: View) -> tuple[bytes, np.ndarray | None]:
        """The turn's key and its plan, decided once and kept while what is staged still leads to it.

        Plans are kept per position (table and rack), not in one slot, so a bot that
        plays many games in turn one step at a time (self-play and the warm start
        batch them) plays each game as if it had the bot to itself.
        """
        turn = turn_key(pos, view)
        kept = self.plans.get(turn)
        if kept is None or not _leads_to(kept, pos.staged):
            kept = self.plans[turn] = (pos.staged.copy(), self.choose(pos, view))
            if len(self.plans) > PLANS_KEPT:  # turns abandoned half-way are forgotten, oldest first
                del self.plans[next(iter(self.plans))]
        return turn, kept[1]

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        view = self._require_view()
        pos = position_of(view, self.rules)
        turn, plan = self._plan(pos, view)
        action = None if plan is None else next_piece(plan, pos.staged, action_mask)
        if action is not None:
            return action
        del self.plans[turn]  # the turn ends: the plan is all staged, or there is none, or it no longer fits
        if plan is not None and not (plan > pos.staged).any() and action_mask[A.COMMIT]:
            return A.COMMIT
        return end_turn(action_mask)


def turn_key(pos: Position, view: View) -> bytes:
    """A turn in progress: the table and the rack (staged pieces included) do not change while it stages."""
    return pos.table.tobytes() + pos.rack.tobytes() + np.asarray(view["fixed_jokers"]).tobytes()


def next_piece(plan: np.ndarray, staged: np.ndarray, mask: np.ndarray) -> int | None:
    """The next piece of ``plan`` to stage, or None once all of it is staged."""
    return first_legal(mask, np.flatnonzero(plan > staged) + A.PLACE)


def _leads_to(kept: tuple[np.ndarray, np.ndarray | None], staged: np.ndarray) -> bool:
    """Whether a kept plan still holds for ``staged``: a play it contains, or no play with nothing staged since."""
    staged_then, plan = kept
    return np.array_equal(staged_then, staged) if plan is None else not (staged > plan).any()


class MaxTilesAgent(PlanningAgent):
    """Every turn, the solver's play with the most pieces: the per-turn optimum."""

    def choose(self, pos: Position, view: View) -> np.ndarray | None:
        sol = solver.best_play(pos.table, pos.rack, pos.staged, **pos.solver_args)
        return None if sol is None else sol.play.astype(np.int64)


class HoldBackAgent(PlanningAgent):
    """Keeps its own jokers back: plays the most pieces it can without them.

    The per-turn optimum spends a joker as soon as it adds one piece; kept, a
    joker can later complete the play that goes out. So this bot uses its jokers
    only to open, to go out, or when the pool is empty and it may not draw.
    (Shedding points instead of pieces once an opponent's rack was short cut its
    losses a little but won fewer rounds, so it does not.)
    """

    def choose(self, pos: Position, view: View) -> np.ndarray | None:
        most, kept = whole_turns.plays(pos.table, pos.rack, pos.staged, pos.solver_args)
        if most is None or most.sum() == pos.rack.sum():
            return most  # no play, or one that goes out
        if kept is not None:
            return kept
        return most if not view["opened"] or view["pool_size"] == 0 else None


class HoardAgent(MaxTilesAgent):
    """Opens as soon as it can, then draws until its whole rack goes out in one play.

    Per-turn players lay what they can and leave the table to the others; this bot
    keeps its pieces back instead. The table stays small, so a per-turn player
    finds little to add to and stalls, while the hoarder's growing rack, laid out
    anew with the whole table, can soon go out at once. Against ``max_tiles`` and
    ``hold_back`` at two seats it wins nearly every round (docs/results.md). It
    plays the most pieces it can when the pool is empty, since it may not draw then.
    """

    def choose(self, pos: Position, view: View) -> np.ndarray | None:
        """Once opened, with pieces to draw, the one question is whether the whole rack is a legal play, and
        the play is then the rack itself: a search that stops at the first layout answers that many times
        faster than the most pieces' play would be found on the big racks hoarding makes."""
        if view["opened"] and view["pool_size"] > 0:
            return pos.rack.copy() if solver.is_legal_play(pos.table, pos.rack, **pos.solver_args) else None
        return super().choose(pos, view)
