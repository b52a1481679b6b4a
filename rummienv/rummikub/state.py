"""Rummikub with tiles (T) and the card edition (K) as one state machine.

The two games differ only in their rules preset (``rummienv.rules``), so one
engine plays both. The state keeps count vectors for everything the solver
reads, and the table's concrete sets for positions and people. Every legality
question goes to the solver, which is exact, so the mask never offers a move
that leads into a dead end: a staged piece always belongs to some legal play.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np

from rummienv.core import TIMEOUT, Game, RulesArg, State
from rummienv.errors import IllegalActionError
from rummienv.rules import RummikubRules
from rummienv.rummikub import actions as A
from rummienv.rummikub import observation as seat_knowledge
from rummienv.rummikub import solver
from rummienv.rummikub.describe import state_to_dict
from rummienv.rummikub.sets import set_numbers
from rummienv.rummikub.turn_memory import TurnMemory
from rummienv.tiles import (
    COPIES,
    JOKER,
    NUM_TYPES,
    NUMBER_OF_TYPE,
    NUMBERS,
    counts_text,
    face_points,
    number_of,
    tiles_of,
)

TableSet = tuple[str, tuple[int, ...]]  # (kind, pieces in order)


def full_set(rules: RummikubRules) -> np.ndarray:
    """C1/T1/K1: two of each numbered piece plus the preset's jokers."""
    counts = np.full(NUM_TYPES, COPIES, dtype=np.int8)
    counts[JOKER] = rules.jokers
    return counts


def rack_value(rack: np.ndarray, joker_penalty: int) -> int:
    """T9/K7: a rack's minus points; jokers at the preset's penalty."""
    return face_points(rack, joker_penalty)


class RummikubGame(Game):
    """Factory of states for one preset and player count (OpenSpiel's Game)."""

    num_actions = A.NUM_ACTIONS
    rules_type = RummikubRules
    default_rules = "rummikub"

    def __init__(self, rules: RulesArg = None, num_players: int = 2, whole_game: bool = False) -> None:
        super().__init__(rules, num_players, whole_game)
        self.num_rounds = self.rules.rounds or self.num_players  # T11/K10: one round per player by default

    @property
    def episode_rounds(self) -> int:
        """The rounds an episode plays: the game's agreed number when it is whole, else the one round."""
        return self.num_rounds if self.whole_game else 1

    @property
    def observation_layout(self) -> dict[str, slice]:
        return seat_knowledge.layout(self.num_players)

    @property
    def score_scale(self) -> float:
        return seat_knowledge.POINTS_SCALE

    def wide_parts(self) -> dict[str, tuple[float, float]]:
        """Rack sizes reach every piece; totals, every piece's points in every round."""
        pieces = full_set(self.rules)
        most = self.episode_rounds * rack_value(pieces, self.rules.joker_penalty) / seat_knowledge.POINTS_SCALE
        return {"rack_sizes": (0.0, int(pieces.sum()) / seat_knowledge.RACK_SCALE), "totals": (-most, most)}

    def _new_state(self) -> RummikubState:
        return RummikubState(self)

    def new_initial_state(self, seed: int | None = None) -> RummikubState:
        seed = self.deal_seed(seed)
        state = self._new_state()
        state.seed = seed
        state._deal(0)
        return state


class RummikubState(State):
    num_actions = A.NUM_ACTIONS

    def __init__(self, game: RummikubGame) -> None:
        self.game = game
        self.rules = game.rules
        self.num_players = game.num_players
        p = game.num_players
        self.seed = 0
        self.racks = np.zeros((p, NUM_TYPES), dtype=np.int8)
        self.table = np.zeros(NUM_TYPES, dtype=np.int8)  # index 52: free jokers only
        self.fixed = np.zeros(NUMBERS + 1, dtype=np.int64)  # K5: table jokers by number
        self._table_sets: list[TableSet] = []
        self._pending_sets: PendingSets | None = None  # a layout not yet made (_lay_down)
        self.pool: list[int] = []  # next draw last, so drawing is a pop
        self.opened = np.zeros(p, dtype=bool)
        self.plays = np.zeros(p, dtype=np.int64)  # turns this round on which each seat laid pieces: public
        self.staged = np.zeros(NUM_TYPES, dtype=np.int8)
        self.swapped: list[int] = []  # tiles put in jokers' places this turn (K6); the jokers are staged
        self._turn_start: tuple | None = None
        self._current = 0
        self.passes = 0
        self.round = 0
        self.totals = [Fraction(0)] * p
        self.rounds_won = [0] * p
        self.round_scores: list[Fraction] | None = None
        self.history: list[int] = []
        self._terminal = False
        self._mask: np.ndarray | None = None
        self._memory = [TurnMemory() for _ in range(p)]  # what each seat's masks learnt, for its next ones

    # ----------------------------------------------------------------- set-up
    def _deal(self, round_index: int) -> None:
        """Deal a round from the game seed and the round number, so any round replays alone."""
        rng = np.random.default_rng([self.seed, round_index])
        rules, p = self.rules, self.num_players
        starter = _draw_for_start(rng, p, rules) if rules.start == "highest_tile" else int(rng.integers(p))
        pieces = np.repeat(np.arange(NUM_TYPES), full_set(rules).astype(np.int64))
        rng.shuffle(pieces)
        self.racks[:] = 0
        for seat in range(p):
            np.add.at(self.racks[seat], pieces[seat * rules.hand_size:(seat + 1) * rules.hand_size], 1)
        self.pool = pieces[p * rules.hand_size:][::-1].tolist()
        self.table[:] = 0
        self.fixed[:] = 0
        self._table_sets, self._pending_sets = [], None
        self.opened[:] = False
        self.plays[:] = 0
        self.staged[:] = 0
        self.swapped = []
        self.passes = 0
        self.round = round_index
        self.round_scores = None
        self._current = starter
        self._begin_turn()

    def _begin_turn(self) -> None:
        self._turn_start = None
        self._mask = None

    def restore(self, table_sets: list[TableSet], current: int, *, over: bool) -> None:
        """Adopt, on a fresh state, the sets, seat to move and end of a position the loader has checked: the
        loader owns the checks, the state these fields. ``table`` must already count the sets' pieces."""
        self._set_table(table_sets)
        self._current = current
        self._terminal = over

    # -------------------------------------------------------------- contract
    @property
    def current_player(self) -> int:
        return -1 if self._terminal else self._current

    @property
    def turn_seat(self) -> int:
        """The seat whose turn it is, kept once the game is over (``current_player`` is then -1), so that a
        position written at the end reads back the same."""
        return self._current

    @property
    def phase(self) -> str:
        if self._terminal:
            return "over"
        return "staging" if self.staged.any() else "turn start"

    def is_terminal(self) -> bool:
        return self._terminal

    def _threshold(self) -> int:
        return self.rules.opening_threshold

    def solver_args(self) -> dict[str, Any]:
        """The solver's keyword arguments for the seat to move: an opened seat plays onto the table (and its
        fixed jokers, K5), an unopened one needs an opening worth the threshold (T4/K3)."""
        p = self._current
        if self.opened[p]:
            return {"fixed": self.fixed, "opened": True}
        return {"opened": False, "threshold": self._threshold()}

    def legal_action_mask(self) -> np.ndarray:
        if self._mask is None:
            self._mask = self.mask_from(self._memory[self._current].masks)
        return self._mask

    def mask_from(self, answers: Callable[..., tuple[np.ndarray, bool]], *, swaps_from_places: bool = True
                  ) -> np.ndarray:
        """The mask, its PLACE and COMMIT parts from ``answers`` (called as ``TurnMemory.masks`` is).

        The state answers from what its turn has learnt (``TurnMemory``); the stateless solver, passed
        here, answers every question afresh, which makes it the oracle the state's masks are checked against.

        A joker swap (K6) of a piece that may be placed is playable: the legal layout holding the piece
        holds the table's joker at its number too, and the joker, freed, may stand there as before, so only
        the other swaps need a solve (``swaps_from_places``; the oracle solves every one).
        """
        mask = np.zeros(A.NUM_ACTIONS, dtype=np.int8)
        if self._terminal:
            return mask
        p = self._current
        rack, staged, args = self.racks[p], self.staged, self.solver_args()
        mask[A.PLACE:A.PLACE + NUM_TYPES], mask[A.COMMIT] = answers(self.table, rack, staged, **args)
        if self.rules.joker_swap_action and self.opened[p]:
            for t in self._swap_candidates():
                mask[A.SWAP + t] = (swaps_from_places and mask[A.PLACE + t]) or self._swap_is_playable(t)
        if self.pool:
            mask[A.DRAW] = 1
        elif not mask.any():
            mask[A.PASS] = 1  # T7: only a player who cannot play passes
        return mask

    def _swap_candidates(self) -> list[int]:
        """K6: rack pieces (not yet staged) whose number a table joker stands for."""
        if not self.fixed.any():
            return []
        free = self.racks[self._current][:52] > self.staged[:52]
        return np.flatnonzero(free & (self.fixed[NUMBER_OF_TYPE] > 0)).tolist()

    def _swap_is_playable(self, tile: int) -> bool:
        """A swap is offered only if some legal play follows it (the freed joker goes down again)."""
        table, fixed, rack, staged = self._after_swap(tile)
        return solver.can_play(table, rack, staged, fixed=fixed, opened=True)

    def _after_swap(self, tile: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        fixed = self.fixed.copy()
        fixed[number_of(tile)] -= 1
        rack = self.racks[self._current].copy()
        rack[JOKER] += 1
        staged = self.staged.copy()
        staged[tile] += 1
        staged[JOKER] += 1
        return self.table, fixed, rack, staged

    def apply_action(self, action: int) -> None:
        self.check_legal(action)
        action = int(action)
        self.history.append(action)
        p = self._current
        if action <= JOKER:
            self._save_turn_start()
            self.staged[action] += 1
        elif action >= A.SWAP:
            self._save_turn_start()
            _, self.fixed, self.racks[p], self.staged = self._after_swap(action - A.SWAP)
            self.swapped = [*self.swapped, action - A.SWAP]
        elif action == A.COMMIT:
            self._commit()
            return
        elif action == A.DRAW:
            self._restore_turn_start()
            self.racks[p, self.pool.pop()] += 1
            self._next_player()
            return
        else:  # PASS
            self.passes += 1
            if self.passes == self.num_players:
                self._end_round(None)  # T7: everyone in turn had to pass
                return
            self._next_player()
            return
        self._mask = None

    def apply_play(self, play: np.ndarray) -> None:
        """Lay down a whole play (53 counts, staged pieces included) and end the turn, with one legality check.

        A player who has decided its whole play would otherwise pay a full mask for
        every piece; this checks only that the play itself is legal, and computes no
        mask. The state ends exactly as ``PLACE`` of each new piece (ascending index,
        each copy) and ``COMMIT`` leave it, history included. A joker swap (K6) is
        an action of its own: a turn that swapped can still end here, since the swap
        already staged its piece and the freed joker. The empty play, with nothing
        staged, is the turn's other choice (T3): it draws, which needs no mask either.
        """
        counts = self._play_counts(play)
        if not counts.any() and self.pool and not self.staged.any():
            self.apply_action(A.DRAW)
            return
        self._check_play(counts)
        self._lay_play(counts)

    def _lay_play(self, counts: np.ndarray) -> None:
        """Lay down a play known to be legal, written in the history as its PLACEs and COMMIT."""
        self.history += [A.PLACE + t for t in tiles_of(counts - self.staged)]
        self.history.append(A.COMMIT)
        self.staged[:] = counts
        self._commit()

    def check_legal(self, action: int) -> None:
        """DRAW is legal whenever the pool holds a piece (T3), so it is allowed without computing the mask."""
        if isinstance(action, (int, np.integer)) and action == A.DRAW and self.pool and not self._terminal:
            return
        super().check_legal(action)

    def _play_counts(self, play: np.ndarray) -> np.ndarray:
        """``play`` as piece counts, or a clear IllegalActionError saying what a play is."""
        if self._terminal:
            raise IllegalActionError("play refused: the game is over")
        counts = np.asarray(play)
        if counts.shape != (NUM_TYPES,) or counts.dtype.kind not in "iu":
            raise IllegalActionError(f"a play is {NUM_TYPES} integer piece counts (index 52: jokers), "
                                     f"got {counts.dtype} of shape {counts.shape}")
        return counts

    def _check_play(self, counts: np.ndarray) -> None:
        """Raise a clear IllegalActionError unless ``counts`` is a legal play now: what is wrong, and what a play
        must be."""
        p, staged, rack = self._current, self.staged, self.racks[self._current]

        def named(pieces: np.ndarray) -> str:  # the pieces in words, made only when a play is refused
            return counts_text(pieces.clip(0))

        if (counts < staged).any():
            raise IllegalActionError(f"play [{named(counts)}] leaves out staged [{named(staged - counts)}]: a play "
                                     f"holds everything staged [{counts_text(staged)}]")
        if (counts > rack).any():
            raise IllegalActionError(f"play [{named(counts)}] needs [{named(counts - rack)}], which seat {p} does not "
                                     f"hold; its rack: [{counts_text(rack)}]")
        if not counts.any():
            raise IllegalActionError("an empty play lays nothing down: with pieces staged, or the pool empty, a turn"
                                     " without a play ends with DRAW (staged pieces go back) or PASS")
        if not solver.is_legal_play(self.table, counts, **self.solver_args()):
            need = ("with the table, every set must be a valid group or run" if self.opened[p] else
                    f"an initial meld is valid sets of one's own pieces worth at least {self._threshold()}")
            raise IllegalActionError(f"play [{named(counts)}] is not legal for seat {p}: {need}")

    def _save_turn_start(self) -> None:
        if self._turn_start is None:
            p = self._current
            self._turn_start = (self.racks[p].copy(), self.fixed.copy())

    def _restore_turn_start(self) -> None:
        """Undo staging and swaps: DRAW and the time-out rules return everything."""
        if self._turn_start is not None:
            rack, fixed = self._turn_start
            self.racks[self._current] = rack
            self.fixed = fixed
        self.staged[:] = 0
        self.swapped = []

    def _commit(self) -> None:
        self._lay_down(self.staged.copy())
        p = self._current
        self.plays[p] += 1
        if not self.racks[p].any():
            self._end_round(p)  # T8
        else:
            self._next_player()

    def _lay_down(self, play: np.ndarray) -> None:
        """Move ``play`` from the rack to the table and record the new concrete sets.

        Laying the pieces out (a search, then the sets rebuilt in Python) costs more than the rest of a move,
        and only people and positions read the sets, unless a free joker is to keep the number it comes to
        stand for (K5): then the sets are made at once, otherwise when first read (``table_sets``), the same
        sets either way. Jokers that keep their numbers already stand where any layout puts them, so a play
        without a joker leaves ``fixed`` as it was.
        """
        p = self._current
        if self.opened[p]:
            layout = PendingSets(None, self.table.copy(), play.copy(), self.fixed.copy(), None)
        else:
            layout = PendingSets(self._sets_source(), None, play.copy(), None, self._threshold())
        self.racks[p] -= play
        self.table = self.table.copy()
        self.table[:52] += play[:52]
        if self.rules.jokers_keep_number and (play[JOKER] > 0 or self.table[JOKER] > 0):
            self._set_table(layout())
        else:  # no joker comes to keep a number: the free ones go into sets, the fixed ones stay where they are
            self.table[JOKER] += play[JOKER]
            self._pending_sets = layout
        self.opened[p] = True
        self.staged[:] = 0
        self.swapped = []
        self.passes = 0

    @property
    def table_sets(self) -> list[TableSet]:
        """The table's concrete sets, in display order."""
        if self._pending_sets is not None:
            self._table_sets, self._pending_sets = self._pending_sets(), None
        return self._table_sets

    def _sets_source(self) -> PendingSets | list[TableSet]:
        """The table's sets as they are now, or what makes them."""
        return self._pending_sets if self._pending_sets is not None else self._table_sets

    def _set_table(self, sets: list[TableSet]) -> None:
        """Adopt a table layout; in the card edition every joker now keeps its number (K5)."""
        self._table_sets, self._pending_sets = sorted(sets, key=_set_order), None
        jokers = sum(s.count(JOKER) for _, s in sets)
        self.fixed = np.zeros(NUMBERS + 1, dtype=np.int64)
        if self.rules.jokers_keep_number:
            self.table[JOKER] = 0
            for kind, pieces in sets:
                if JOKER not in pieces:
                    continue
                for piece, number in zip(pieces, set_numbers(pieces, kind), strict=True):
                    if piece == JOKER:
                        self.fixed[number] += 1
        else:
            self.table[JOKER] = jokers

    def _next_player(self) -> None:
        self._current = (self._current + 1) % self.num_players
        self._begin_turn()

    def apply_timeout(self) -> None:
        """T12/K8: the turn clock ran out for the player to move.

        A front end that runs a clock calls this; bots play untimed. Under T12
        everything goes back and the player draws ``timeout_draws`` (3) pieces.
        Under K8 the valid part of what was staged stays (if it is a legal play
        on its own); a player who net placed nothing draws ``timeout_draws`` (1).
        """
        if self._terminal:
            raise IllegalActionError("time-out refused: the game is over")
        self.history.append(TIMEOUT)
        p = self._current
        kept = None
        if self.rules.timeout_rule == "keep_valid" and self.staged.any():
            must = np.zeros(NUM_TYPES, dtype=np.int8)
            must[JOKER] = len(self.swapped)  # freed jokers cannot go back to the rack (C6)
            sol = solver.best_play(self.table, self.staged, must, **self.solver_args())
            kept = None if sol is None else sol.play
        if kept is not None:
            self.staged[:] = kept  # staged pieces are still in the rack: the rest simply stays there
            self._commit()
            return
        self._restore_turn_start()
        for _ in range(min(self.rules.timeout_draws, len(self.pool))):
            self.racks[p, self.pool.pop()] += 1
        self._next_player()

    # ---------------------------------------------------------------- scoring
    def _end_round(self, winner: int | None) -> None:
        values = [rack_value(self.racks[s], self.rules.joker_penalty) for s in range(self.num_players)]
        if winner is not None:  # T9
            scores = [Fraction(-v) for v in values]
            scores[winner] = Fraction(sum(values) - values[winner])
            winners = [winner]
        else:  # T10: lowest rack wins, co-winners share
            low = min(values)
            winners = [s for s, v in enumerate(values) if v == low]
            scores = [Fraction(-(v - low)) for v in values]
            plus = Fraction(sum(v - low for v in values), len(winners))
            for s in winners:
                scores[s] = plus
        self.round_scores = scores
        self.totals = [t + s for t, s in zip(self.totals, scores, strict=True)]
        for s in winners:
            self.rounds_won[s] += 1
        if self.game.whole_game and self.round + 1 < self.game.num_rounds:
            self._deal(self.round + 1)
            return
        self._terminal = True
        self._mask = None

    def exact_scores(self) -> list[Fraction]:
        """The round's points (or the game's totals), exact: co-winners may share a fraction."""
        if self.game.whole_game:
            return list(self.totals)
        return list(self.round_scores) if self.round_scores is not None else [Fraction(0)] * self.num_players

    def scores(self) -> np.ndarray:
        return np.array([float(s) for s in self.exact_scores()], dtype=np.float64)

    def winners(self) -> list[int]:
        """T11 in a whole game: highest total; ties broken by rounds won, then shared. One round: the top score."""
        if not self.game.whole_game:
            return super().winners()
        best = max(self.totals)
        tied = [s for s in range(self.num_players) if self.totals[s] == best]
        most = max(self.rounds_won[s] for s in tied)
        return [s for s in tied if self.rounds_won[s] == most]

    # ----------------------------------------------------------------- helpers
    def action_to_string(self, action: int) -> str:
        return A.action_to_string(int(action))

    def string_to_action(self, text: str) -> int:
        return A.string_to_action(text)

    def clone(self) -> RummikubState:
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.racks = self.racks.copy()
        new.table = self.table.copy()
        new.fixed = self.fixed.copy()
        new._table_sets = list(self._table_sets)
        new.pool = list(self.pool)
        new.opened = self.opened.copy()
        new.plays = self.plays.copy()
        new.staged = self.staged.copy()
        new.totals = list(self.totals)
        new.rounds_won = list(self.rounds_won)
        new.history = list(self.history)
        new._memory = [memory.copy() for memory in self._memory]
        return new

    def table_counts(self) -> np.ndarray:
        """Every piece on the table, jokers included (fixed or free)."""
        counts = self.table.copy()
        counts[JOKER] += int(self.fixed.sum())
        return counts

    def view(self, player: int) -> dict[str, Any]:
        return seat_knowledge.view(self, player)

    def observation(self, player: int) -> np.ndarray:
        return seat_knowledge.encode(self, player)

    def to_dict(self) -> dict[str, Any]:
        return state_to_dict(self)


class PendingSets:
    """The table's sets after a lay-down, made when first read (``RummikubState._lay_down``).

    An object rather than a closure, so that a state pickles as it is (self-play moves games in flight
    between worker processes): an opened seat's play is laid out anew with the whole ``table``; an opening
    (T4/K3) is laid out alone, worth ``threshold``, beside the sets ``before`` it (made, or pending).
    """

    def __init__(self, before: PendingSets | list[TableSet] | None, table: np.ndarray | None, play: np.ndarray,
                 fixed: np.ndarray | None, threshold: int | None) -> None:
        self.before, self.table, self.play, self.fixed, self.threshold = before, table, play, fixed, threshold

    def __call__(self) -> list[TableSet]:
        if self.threshold is None:
            sets = _sets_of(solver.lay_out(self.table, self.play, fixed=self.fixed, opened=True))
        else:
            before = self.before() if isinstance(self.before, PendingSets) else list(self.before or [])
            sets = before + _sets_of(solver.lay_out(np.zeros(NUM_TYPES, np.int8), self.play, opened=False,
                                                    threshold=self.threshold))
        return sorted(sets, key=_set_order)


def _sets_of(layout: solver.Layout) -> list[TableSet]:
    return list(zip(layout.kinds, map(tuple, layout.sets), strict=True))


def _set_order(s: TableSet) -> tuple:
    kind, pieces = s
    first = next(t for t in pieces if t != JOKER)
    return (kind != "group", first % NUMBERS if kind == "group" else first, len(pieces), pieces)


def _draw_for_start(rng: np.random.Generator, players: int, rules: RummikubRules) -> int:
    """T2: each draws a piece, the highest number starts; jokers and ties draw again."""
    contenders = list(range(players))
    pieces = np.repeat(np.arange(NUM_TYPES), full_set(rules).astype(np.int64))
    while True:
        numbered = (int(t) for t in rng.permutation(pieces) if t != JOKER)  # a joker is drawn again
        numbers = [number_of(next(numbered)) for _ in contenders]
        best = max(numbers)
        top = [c for c, n in zip(contenders, numbers, strict=True) if n == best]
        if len(top) == 1:
            return top[0]
        contenders = top
