"""Whole-turn actions for Rummikub, an opt-in action mode beside the per-piece one.

Built piece by piece, a turn is one decision per piece, and a learner has to carry
a plan through all of them; cloned that way, ``hold_back`` lost most of its edge
(docs/results.md). Most turns come down to a few choices: draw, lay the most
pieces, lay the most pieces without spending one's jokers, or, when an opponent
is about to go out, shed the most points. This mode adds the three plays as one
action each, so those turns are one decision, and adds to the observation what
each play would lay down, so the choice is made knowing it:

| index | action           | legal when                                                       |
|-------|------------------|------------------------------------------------------------------|
| 108   | MAX_PLAY         | some legal play holds the staged pieces; lays the one with the most pieces |
| 109   | KEEP_JOKERS_PLAY | such a play adds none of the rack's jokers; lays the one with the most pieces |
| 110   | MOST_POINTS_PLAY | as MAX_PLAY; lays the one that sheds the most points (a joker counts its penalty, T9) |

Each is the solver's exact best play completing what is staged, committed at
once (``apply_play``), so the mode stays exact and free of dead ends, and the
game's history holds the pieces and COMMIT it stands for: a replay is the same
in either mode. ``max_tiles`` plays only DRAW and MAX_PLAY at turn start, and
``hold_back`` only DRAW, MAX_PLAY and KEEP_JOKERS_PLAY.

The observation appends, per play (MAX_PLAY, KEEP_JOKERS_PLAY, MOST_POINTS_PLAY),
for the seat to move only (zeros otherwise, or when the play does not exist):

| part          | size | meaning                                          | scale                 |
|---------------|------|--------------------------------------------------|-----------------------|
| <play>        | 53   | the pieces the play lays, staged ones included   | 0.5 a copy, joker 0.25 |
| <play>_facts  | 4    | exists; pieces / 30; points / 100; empties the rack | 0/1, as said          |

The points play came last (networks trained before it know the first two plays only): a
network of the two-play mode sees the first two plays' parts, which are where they were
(``agents.whole_turn_policy`` and ``agents.checkpoint`` carry such networks on).
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from rummienv.errors import IllegalActionError
from rummienv.rummikub import actions as A
from rummienv.rummikub import observation, solver
from rummienv.rummikub.state import RummikubGame, RummikubState, full_set, rack_value
from rummienv.tiles import JOKER, NUM_TYPES

MAX_PLAY = A.NUM_ACTIONS
KEEP_JOKERS_PLAY = A.NUM_ACTIONS + 1
MOST_POINTS_PLAY = A.NUM_ACTIONS + 2
NUM_ACTIONS = A.NUM_ACTIONS + 3
PLAYS = ("max_play", "keep_jokers_play", "most_points_play")
NAMES = {MAX_PLAY: "MAX_PLAY", KEEP_JOKERS_PLAY: "KEEP_JOKERS_PLAY", MOST_POINTS_PLAY: "MOST_POINTS_PLAY"}
TWO_PLAYS = 2  # the plays of the mode before MOST_POINTS_PLAY, whose networks still play (network_shapes)
FACTS = 4
_SCALE = np.where(np.arange(NUM_TYPES) == JOKER, observation.JOKER_SCALE, observation.PIECE_SCALE).astype(np.float32)
PLAY_POINTS_SCALE = 100.0  # a play's points

Plays = tuple[np.ndarray | None, ...]  # in the order of PLAYS, or its first two


@cache
def layout(num_players: int) -> dict[str, slice]:
    """The per-piece observation's slices, then each play's pieces and facts; callers must not change it."""
    out = dict(observation.layout(num_players))
    start = observation.size(num_players)
    for name in PLAYS:
        out[name] = slice(start, start + NUM_TYPES)
        out[f"{name}_facts"] = slice(start + NUM_TYPES, start + NUM_TYPES + FACTS)
        start += NUM_TYPES + FACTS
    return out


def size(num_players: int, plays: int = len(PLAYS)) -> int:
    """The observation's size with the first ``plays`` of PLAYS (TWO_PLAYS: the mode before the points play)."""
    return observation.size(num_players) + plays * (NUM_TYPES + FACTS)


def plays(table: np.ndarray, rack: np.ndarray, staged: np.ndarray, solver_args: dict[str, Any],
          mask: np.ndarray | None = None) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The two plays by pieces completing ``staged`` (MAX_PLAY's, KEEP_JOKERS_PLAY's), None where there is none.

    ``mask``, the per-piece mask of the same position, saves both solves when it has
    no legal PLACE or COMMIT: then no play holds what is staged.
    """
    if mask is not None and not mask[A.PLACE:A.COMMIT + 1].any():
        return None, None
    best = solver.best_play(table, rack, staged, **solver_args)
    if best is None:
        return None, None
    most = best.play.astype(np.int64)
    if rack[JOKER] <= staged[JOKER]:
        return most, most  # no joker of the rack's to keep
    kept_rack = rack.astype(np.int64)
    kept_rack[JOKER] = staged[JOKER]  # a joker freed by a swap (K6) is staged and must go down
    kept = solver.best_play(table, kept_rack, staged, **solver_args)
    return most, None if kept is None else kept.play.astype(np.int64)


def most_points(table: np.ndarray, rack: np.ndarray, staged: np.ndarray, solver_args: dict[str, Any],
                joker_penalty: int, most: np.ndarray | None) -> np.ndarray | None:
    """MOST_POINTS_PLAY's play, given MAX_PLAY's (``most``): the legal play completing ``staged`` that sheds the
    most points. A play exists exactly when ``most`` does, and one that empties the rack is both, so the solve
    is spent only on a rack that stays, and ``most``'s points are its floor."""
    if most is None or most.sum() == rack.sum():
        return most
    best = solver.best_play(table, rack, staged, objective="points", joker_penalty=joker_penalty, known=most,
                            **solver_args)
    return None if best is None else best.play.astype(np.int64)


def whole_plays(table: np.ndarray, rack: np.ndarray, staged: np.ndarray, solver_args: dict[str, Any],
                joker_penalty: int, mask: np.ndarray | None = None, count: int = len(PLAYS)) -> Plays:
    """The first ``count`` plays of PLAYS completing ``staged``, None where there is none (``plays``,
    ``most_points``)."""
    most, kept = plays(table, rack, staged, solver_args, mask)
    if count == TWO_PLAYS:
        return most, kept
    return most, kept, most_points(table, rack, staged, solver_args, joker_penalty, most)


def widen(mask: np.ndarray, found: Plays) -> np.ndarray:
    """The whole-turn mask: the per-piece one, then one bit per play found."""
    wide = np.zeros(A.NUM_ACTIONS + len(found), dtype=np.int8)
    wide[:A.NUM_ACTIONS] = mask
    wide[A.NUM_ACTIONS:] = [play is not None for play in found]
    return wide


def features(found: Plays, rack: np.ndarray, joker_penalty: int) -> np.ndarray:
    """What each play found would lay down, as the observation appends it (zeros for a play not found)."""
    out = np.zeros(len(found) * (NUM_TYPES + FACTS), dtype=np.float32)
    total = int(rack.sum())
    for k, play in enumerate(found):
        if play is None:
            continue
        part = out[k * (NUM_TYPES + FACTS):(k + 1) * (NUM_TYPES + FACTS)]
        part[:NUM_TYPES] = play * _SCALE
        pieces = int(play.sum())
        part[NUM_TYPES:] = (1.0, pieces / observation.RACK_SCALE, rack_value(play, joker_penalty) / PLAY_POINTS_SCALE,
                            float(pieces == total))
    return out


class WholeTurnGame(RummikubGame):
    """A Rummikub game whose states offer the whole-turn actions and observation."""

    num_actions = NUM_ACTIONS
    whole_turns = True

    @property
    def observation_layout(self) -> dict[str, slice]:
        return layout(self.num_players)

    def network_shapes(self) -> list[tuple[int, int]]:
        """This mode's, and the two-play mode's before MOST_POINTS_PLAY (``agents.whole_turn_policy``)."""
        return super().network_shapes() + [(size(self.num_players, TWO_PLAYS), A.NUM_ACTIONS + TWO_PLAYS)]

    def wide_parts(self) -> dict[str, tuple[float, float]]:
        """A play's pieces and points reach the whole set's (``features``)."""
        most = rack_value(full_set(self.rules), self.rules.joker_penalty) / PLAY_POINTS_SCALE
        return super().wide_parts() | {f"{play}_facts": (0.0, most) for play in PLAYS}

    def _new_state(self) -> WholeTurnState:
        return WholeTurnState(self)


class WholeTurnState(RummikubState):
    """A Rummikub state in the whole-turn action mode; its history stays per piece."""

    num_actions = NUM_ACTIONS
    _whole: tuple[np.ndarray, np.ndarray, Plays] | None = None  # (per-piece mask, whole-turn mask, plays)

    def _found(self) -> tuple[np.ndarray, Plays]:
        """The whole-turn mask and the plays, worked out once per per-piece mask."""
        base = super().legal_action_mask()
        if self._whole is None or self._whole[0] is not base:
            found: Plays = (None,) * len(PLAYS)
            if not self._terminal:
                found = whole_plays(self.table, self.racks[self._current], self.staged, self.solver_args(),
                                    self.rules.joker_penalty, base)
            self._whole = (base, widen(base, found), found)
        return self._whole[1], self._whole[2]

    def legal_action_mask(self) -> np.ndarray:
        return self._found()[0]

    def observation(self, player: int) -> np.ndarray:
        found: Plays = self._found()[1] if player == self.current_player else (None,) * len(PLAYS)
        return np.concatenate([super().observation(player),
                               features(found, self.racks[player], self.rules.joker_penalty)])

    def apply_action(self, action: int) -> None:
        if isinstance(action, (int, np.integer)) and action >= A.NUM_ACTIONS:
            self.check_legal(action)
            self._lay_play(self._found()[1][int(action) - A.NUM_ACTIONS])  # the solver's play: legal as found
            return
        super().apply_action(action)

    def action_for(self, play: np.ndarray) -> int | None:
        """The one action that makes ``play`` (counts, staged included) this turn, if there is one: DRAW for
        the empty play at turn start, or the whole play that lays exactly it. Lets a planning agent's turn be
        written as the single decision it is in this mode (a warm start's labels)."""
        if not play.any():
            return A.DRAW if self.pool and not self.staged.any() else None
        for k, found in enumerate(self._found()[1]):
            if found is not None and np.array_equal(found, play):
                return A.NUM_ACTIONS + k
        return None

    def action_to_string(self, action: int) -> str:
        return NAMES.get(int(action)) or super().action_to_string(action)

    def string_to_action(self, text: str) -> int:
        for action, name in NAMES.items():
            if isinstance(text, str) and text.strip().upper() == name:
                return action
        try:
            return super().string_to_action(text)
        except IllegalActionError:
            raise IllegalActionError(
                f"unknown action {text!r}; allowed: 'PLACE <tile>', 'COMMIT', 'DRAW', 'PASS', 'SWAP_JOKER <tile>',"
                " 'MAX_PLAY', 'KEEP_JOKERS_PLAY', 'MOST_POINTS_PLAY'") from None
