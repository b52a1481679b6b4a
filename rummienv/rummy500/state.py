"""Rummy 500 (docs/RULES.md F) as a state machine: one hand, or a whole game to 500.

Turn structure (F6-F8) as phases:

* ``draw``: DRAW_STOCK, TAKE c (only if c can be used this turn, F6), or END_HAND
  instead of DRAW_STOCK once the stock is empty (F10).
* ``meld``: a card taken from the pile is still owed to the table; only melds and
  lay-offs that leave it usable are legal, no discard.
* ``discard``: nothing is owed; melds and lay-offs stay legal, and a discard ends
  the turn. (The phase is named by what ends it, so that it depends on public
  facts only and never hints at what the player could meld.)
* ``over``: terminal.

A hand in progress is one packed int8 board (board.py) that the compiled kernels
play on; this class adds what outlives a hand (totals, dealer, the random
generator for later deals) and the replay record.
"""

from __future__ import annotations

import dataclasses
from functools import cache
from typing import Any

import numpy as np

from rummienv.cards import CARD_STRINGS, CARD_VALUES, NUM_CARDS
from rummienv.core import Game, RulesArg, State
from rummienv.errors import IllegalActionError, RulesError
from rummienv.rules import Rummy500Rules
from rummienv.rummy500 import actions as act
from rummienv.rummy500 import board as bd
from rummienv.rummy500.describe import public_dict, state_to_dict
from rummienv.rummy500.explain import why_illegal
from rummienv.rummy500.kernels import fill_mask, hand_points, play, play_drawn
from rummienv.rummy500.observation import fill_observation, layout_offsets, observation_layout

PHASES = ("draw", "meld", "discard")
HAND_POINTS_SCALE = 100.0  # points per unit of reward for one hand (reward="score")


@cache
def _layout(num_players: int) -> tuple[dict[str, slice], np.ndarray, int]:
    layout = observation_layout(num_players)
    return layout, layout_offsets(layout), layout["to_move"].stop


def hand_size(rules: Rummy500Rules, num_players: int) -> int:
    """Cards dealt to each seat (F2)."""
    return rules.hand_size_two_players if num_players == 2 else rules.hand_size


class Rummy500Game(Game):
    """Builds Rummy 500 states for one rules preset and table size; ``whole_game`` plays to the target (F12)."""

    num_actions = act.NUM_ACTIONS
    rules_type = Rummy500Rules
    default_rules = "rummy500"

    def __init__(self, rules: RulesArg = None, num_players: int = 2, whole_game: bool = False) -> None:
        super().__init__(rules, num_players, whole_game)
        if whole_game:  # the rules carry it, so that positions and replays keep it
            self.rules = dataclasses.replace(self.rules, whole_game=True)
        self.whole_game = self.rules.whole_game
        dealt = self.num_players * hand_size(self.rules, self.num_players)
        if dealt + 1 > NUM_CARDS:
            raise RulesError(f"dealing {dealt} cards to {num_players} players leaves no upcard in a 52-card pack (F2)")

    @property
    def observation_layout(self) -> dict[str, slice]:
        return _layout(self.num_players)[0]

    @property
    def score_scale(self) -> float:
        """A hand's points by a typical hand's (tens of points); a whole game's payouts by the target."""
        return float(self.rules.target_score) if self.whole_game else HAND_POINTS_SCALE

    def wide_parts(self) -> dict[str, tuple[float, float]]:
        """One hand moves a total by at most the pack's points; a whole game has no bound."""
        most = np.inf if self.whole_game else CARD_VALUES.sum() / self.rules.target_score
        return {"scores": (-most, most)}

    def new_initial_state(self, seed: int | None = None) -> Rummy500State:
        """A fresh deal; every chance event of the game comes from ``default_rng(seed)``."""
        seed = self.deal_seed(seed)
        state = Rummy500State(self.rules, self.num_players)
        state._seed = seed
        state._rng = np.random.default_rng(seed)
        state._dealer = int(state._rng.integers(self.num_players))  # F2: first dealer random
        state._deal()
        return state


class Rummy500State(State):
    """One Rummy 500 hand (or game) in progress.

    Get one from ``Rummy500Game.new_initial_state`` or ``load_state``; the
    constructor only makes the empty state that those two fill.
    """

    num_actions = act.NUM_ACTIONS

    def __init__(self, rules: Rummy500Rules, num_players: int):
        self.rules = rules
        self.num_players = num_players
        self.observation_layout, self._offsets, self._obs_size = _layout(num_players)
        self._free_top = rules.free_top_discard
        self._board = bd.new_board(num_players)
        self._totals = np.zeros(num_players, dtype=np.int64)
        self._dealer = 0
        self._hand_number = 0
        self._rng: np.random.Generator | None = None
        self._seed: int | None = None
        self._history: list[int] = []
        self._mask: np.ndarray | None = None

    def restore(self, board: np.ndarray, *, dealer: int, hand_number: int, totals: list[int]) -> None:
        """Adopt, on a fresh state, a hand that the position loader has built and checked: the loader owns the
        checks, the state its fields, which are set here and nowhere else outside play."""
        self._board = board
        self._dealer = dealer
        self._hand_number = hand_number
        self._totals[:] = totals

    def restore_record(self, seed: int | None, history: list[int], rng: np.random.Generator) -> None:
        """Adopt a loaded replay record and the generator of later deals: apart from ``restore`` because the
        loader reads a position's record only once its hand has passed every check (F12 asks the state)."""
        self._seed = seed
        self._history = list(history)
        self._rng = rng

    def _deal(self) -> None:
        """F2: deal round the table from the dealer's left, turn up one card, stock the rest."""
        players = self.num_players
        dealt = players * hand_size(self.rules, players)
        deck = self._rng.permutation(NUM_CARDS).astype(np.int8)
        board = self._board
        bd.reset_board(board)
        seats = (self._dealer + 1 + np.arange(dealt)) % players
        bd.hands(board)[seats, deck[:dealt]] = 1
        board[bd.PILE] = deck[dealt]
        board[bd.PILE_N] = 1
        rest = deck[dealt + 1 :]
        board[bd.STOCK_N] = len(rest)
        board[bd.STOCK : bd.STOCK + len(rest)] = rest[::-1]
        board[bd.CURRENT] = (self._dealer + 1) % players
        board[bd.STEP] = bd.DRAW_STEP
        self._mask = None

    @property
    def current_player(self) -> int:
        board = self._board  # item() reads a Python int, several times cheaper than indexing: asked every step
        return -1 if board.item(bd.STEP) == bd.OVER_STEP else board.item(bd.CURRENT)

    @property
    def phase(self) -> str:
        step = self._board[bd.STEP]
        if step == bd.DRAW_STEP:
            return "draw"
        if step == bd.OVER_STEP:
            return "over"
        return "meld" if self._board[bd.MUST_USE] >= 0 else "discard"

    @property
    def seed(self) -> int | None:
        return self._seed

    @property
    def history(self) -> list[int]:
        """Actions applied since the deal (or the load): with ``seed``, the replay record."""
        return list(self._history)

    @property
    def totals(self) -> np.ndarray:
        """Running totals (F11), including every finished hand."""
        return self._totals.copy()

    @property
    def board(self) -> np.ndarray:
        """The packed hand the compiled kernels play on (board.py): the array itself, not a copy, since views
        read it every step. Read it; never write it."""
        return self._board

    @property
    def hand_number(self) -> int:
        """Hands finished before this one in a whole game (F12), from 0."""
        return self._hand_number

    @property
    def rng_state(self) -> dict[str, Any] | None:
        """State of the generator that deals the later hands (a position keeps it to go on exactly); None
        before any deal."""
        return None if self._rng is None else self._rng.bit_generator.state

    def is_terminal(self) -> bool:
        return self._board.item(bd.STEP) == bd.OVER_STEP

    def legal_action_mask(self) -> np.ndarray:
        """Read-only and cached until the next action, since check_legal asks again."""
        if self._mask is None:
            mask = np.zeros(act.NUM_ACTIONS, dtype=np.int8)
            fill_mask(mask, self._board, self._free_top)
            mask.setflags(write=False)
            self._mask = mask
        return self._mask

    def check_legal(self, action: int) -> None:
        """The contract's check, with the broken rule added to a refusal by the mask."""
        try:
            super().check_legal(action)
        except IllegalActionError as exc:
            is_index = isinstance(action, (int, np.integer)) and 0 <= action < act.NUM_ACTIONS
            if self.is_terminal() or not is_index:
                raise
            raise IllegalActionError(f"{exc} (why: {why_illegal(self._board, int(action))})") from None

    def apply_action(self, action: int) -> None:
        self.check_legal(action)
        action = int(action)
        self._history.append(action)
        self._mask = None
        if play(self._board, action, self._free_top):
            self._end_hand()

    def play_uniform(self, rng: np.random.Generator, seats: np.ndarray) -> None:
        """``State.play_uniform`` with each move's mask, pick and play in one compiled call."""
        while not self.is_terminal() and seats[self.current_player]:
            hand_over, more = False, True
            while more:  # one stretch of random moves within a hand
                action, hand_over, more = play_drawn(self._board, self._free_top, rng.random(), seats)
                self._history.append(int(action))
            self._mask = None
            if hand_over:
                self._end_hand()

    def _end_hand(self) -> None:
        """F11 into the totals; then F12: stop, or deal the next hand from the dealer's left."""
        self._totals += self.hand_points()
        if not self.rules.whole_game or self.game_winner() >= 0:
            self._board[bd.STEP] = bd.OVER_STEP
            return
        self._dealer = (self._dealer + 1) % self.num_players
        self._hand_number += 1
        self._deal()

    def game_winner(self) -> int:
        """The seat that has won the game (F12), or -1: a tie at the top plays one more hand."""
        best = self._totals.max()
        if best < self.rules.target_score or np.count_nonzero(self._totals == best) > 1:
            return -1
        return int(np.argmax(self._totals))

    def hand_points(self) -> np.ndarray:
        """F11 for the hand in progress: value laid on the table minus value held."""
        return hand_points(self._board)

    def scores(self) -> np.ndarray:
        """The hand's points (F11); in a whole game the F12 payouts once it is over, else 0."""
        if not self.rules.whole_game:
            return self.hand_points().astype(np.float64)
        if not self.is_terminal():
            return np.zeros(self.num_players, dtype=np.float64)
        winner = self.game_winner()
        pay = (self._totals - self._totals[winner]).astype(np.float64)
        pay[winner] = -pay.sum()
        return pay

    def action_to_string(self, action: int) -> str:
        return act.action_to_string(action)

    def string_to_action(self, text: str) -> int:
        return act.string_to_action(text)

    def clone(self) -> Rummy500State:
        new = object.__new__(Rummy500State)
        new.__dict__.update(self.__dict__)  # scalars, rules, layout and the read-only mask are shared
        new._board = self._board.copy()
        new._totals = self._totals.copy()
        new._history = list(self._history)
        if self.rules.whole_game and self._rng is not None:
            bit_generator = type(self._rng.bit_generator)()
            bit_generator.state = self._rng.bit_generator.state
            new._rng = np.random.Generator(bit_generator)
        return new

    @property
    def dealer(self) -> int:
        """The seat that dealt this hand (F2): the seat after it played first."""
        return self._dealer

    def to_dict(self) -> dict[str, Any]:
        return state_to_dict(self)

    def _check_seat(self, player: int) -> int:
        is_int = isinstance(player, (int, np.integer)) and not isinstance(player, bool)
        if not is_int or not 0 <= player < self.num_players:
            raise ValueError(f"player must be a seat number 0..{self.num_players - 1}, got {player!r}")
        return int(player)

    def view(self, player: int) -> dict[str, Any]:
        """Public facts plus the seat's own hand; never another hand or the stock order."""
        seat = self._check_seat(player)
        view = public_dict(self)
        view["player"] = seat
        view["hand"] = [CARD_STRINGS[c] for c in np.flatnonzero(bd.hands(self._board)[seat])]
        view["target"] = self.rules.target_score if self.rules.whole_game else None  # None: one hand is the game
        return view

    def observation(self, player: int) -> np.ndarray:
        """The flat float32 encoding of ``view(player)``; see observation.py for the layout."""
        seat = self._check_seat(player)
        out = np.zeros(self._obs_size, dtype=np.float32)
        phase = PHASES.index(self.phase) if not self.is_terminal() else -1
        score_scale = float(self.rules.target_score)
        fill_observation(out, self._offsets, self._board, seat, self._totals, score_scale, phase)
        return out
