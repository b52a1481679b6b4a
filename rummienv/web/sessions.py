"""A game held on the server: one person's seat, bots in the others, and everything that may change the game.

The state never leaves the server: a page sends moves as strings or action lists, each checked by the state
(``text_interface.parse_move`` and ``play_text.why_not`` give the one-line reasons), and gets back its own seat's
position (``seat_view``). Every change is made on a copy of the state and adopted whole, so that a refused move
changes nothing and a bot's turn can be worked out off the event loop while pages still read the position
before it. Each change raises ``version``; a page's request names the version it answers, and one that answers
an older position (a message sent twice, or sent before the bots moved) is refused.

The pieces are the terminal game's (``rummienv.play``): its clock and time-out rule (the display module's
``time_out``), the bots' moves (``make_move``), the hint bot (the display module's ``HINT``), the words for
turns (``play_text``). This module only keeps time and order; the ``live`` module runs it on the event loop.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

from rummienv import games, replay_record, text_interface
from rummienv import play_text as text
from rummienv.core import State
from rummienv.envs.opponents import Agent, make_move
from rummienv.errors import IllegalActionError, NotationError
from rummienv.play import MAX_BOT_ACTIONS, deal_number, hint_actions
from rummienv.web.seat_view import has_staged, seat_message
from rummienv.web.settings import Settings

LOG_LINES = 200  # the moves a page keeps showing; a whole game of bots' turns would be a long list


class Refused(ValueError):
    """A person's request that was not carried out, in one line: nothing changed."""


@dataclass(frozen=True)
class Turn:
    """The person's turn in progress: the state it started from (what undo goes back to), where its moves
    begin in the history, which deal it is in, and when the clock runs out (monotonic seconds; None: no clock)."""

    start: State
    moves: int
    deal: int
    deadline: float | None


@dataclass(frozen=True)
class BotTurn:
    """A bot's whole turn, worked out on a copy of the state at ``version``: the state after it and its actions."""

    version: int
    seat: int
    state: State
    actions: list[int]


class GameSession:
    """One game: its state, the person's seat and turn, the bots, the log of moves in words, and ``version``."""

    def __init__(self, game_id: str, settings: Settings, state: State, bots: dict[int, Agent], names: list[str],
                 now: float) -> None:
        self.id = game_id
        self.settings = settings
        self.state = state
        self.seat = settings.seat
        self.bots = bots
        self.names = names
        self.clock = settings.clock
        self.game = settings.game
        self.version = 0
        self.log: deque[str] = deque(maxlen=LOG_LINES)
        self.turn: Turn | None = None
        self.failure: str | None = None
        self._deal = deal_number(state)
        self.log.append(f"{games.of(self.game).title}, seed {settings.seed}: you are seat {self.seat}; "
                        + text.who_starts(state, names, from_position=False))
        self._begin_turn_if_due(now)

    # ------------------------------------------------------------------ who moves
    @property
    def over(self) -> bool:
        return self.state.is_terminal()

    @property
    def person_to_move(self) -> bool:
        return not self.over and self.state.current_player == self.seat

    @property
    def bot_to_move(self) -> bool:
        return not self.over and self.failure is None and self.state.current_player != self.seat

    def time_left(self, now: float) -> float | None:
        """Seconds left on the person's clock; None when it is not running."""
        if self.turn is None or self.turn.deadline is None:
            return None
        return max(0.0, self.turn.deadline - now)

    def check_turn(self, version: int, now: float) -> None:
        """Refuse a request unless it answers the position shown now, on the person's turn, in time."""
        if self.failure is not None:
            raise Refused(f"the game stopped: {self.failure}")
        if self.over:
            raise Refused("the game is over: no move is legal; start a new game")
        if version != self.version:
            raise Refused(f"this answers position {version}, and the game is at position {self.version}: "
                          "look at the table again and move")
        if not self.person_to_move:
            seat = self.state.current_player
            raise Refused(f"not your turn: seat {seat} ({self.names[seat]}) is to move")
        left = self.time_left(now)
        if left is not None and left <= 0:
            raise Refused("time is up: the turn clock ran out before this move came")

    # ------------------------------------------------------------------ the person
    def move(self, move: str | list[int], version: int, now: float) -> None:
        """Play a move string (several steps joined by ``;`` allowed) or a list of actions, all or nothing."""
        self.check_turn(version, now)
        trial = self.state.clone()
        if not isinstance(move, str):
            move = _as_move_string(trial, move)
        try:
            text_interface.apply_move(trial, move)
        except NotationError as exc:  # the words the terminal game uses for either refusal
            raise Refused(f"not understood: {' '.join(str(exc).split())}") from None
        except IllegalActionError as exc:
            raise Refused(f"not legal: {' '.join(str(exc).split())}") from None
        self._adopt_person_move(trial, now)

    def _adopt_person_move(self, trial: State, now: float) -> None:
        """Take the state after the person's move; where the turn ended, say what it was, as the terminal does."""
        turn = self.turn
        assert turn is not None
        before, self.state = self.state.view(self.seat), trial
        self.version += 1
        if self.over or trial.current_player != self.seat or deal_number(trial) != turn.deal:
            self.log.append(f"you: {text.describe_turn(self.game, trial.history[turn.moves:])}")
            self.turn = None
        got = text.gained(self.game, before, trial.view(self.seat))
        if got != "-":
            self.log.append(f"you got: {got}")
        self._after_change(now)

    def undo(self, version: int, now: float) -> None:
        """Take back what the turn staged: the turn's start again, its clock still running."""
        self.check_turn(version, now)
        if not has_staged(self.state.view(self.seat)):
            raise Refused("nothing to take back: only pieces staged and not yet committed can be")
        assert self.turn is not None
        self.state = self.turn.start.clone()
        self.version += 1
        self.log.append("you took back what you had staged")

    def hint_position(self, version: int, now: float) -> State:
        """A copy of the position to ask the hint bot about (``hint``, which may take a while, off the loop)."""
        self.check_turn(version, now)
        return self.state.clone()

    def hint(self, position: State) -> str:
        """The hint bot's move at ``position`` (a copy), as the person would type it: the terminal game's hint."""
        return text.as_command(self.game, hint_actions(position))

    def time_out(self, now: float) -> bool:
        """Run out the person's clock if it has run out: the rules' time-out (T12, K8); whether it did."""
        left = self.time_left(now)
        if not self.person_to_move or left is None or left > 0:
            return False
        trial = self.state.clone()
        said = text.display(trial).time_out(trial, self.seat, self.clock)
        self.state, self.turn = trial, None
        self.version += 1
        self.log.append(said)
        self._after_change(now)
        return True

    # ------------------------------------------------------------------ the bots
    def bot_position(self) -> tuple[int, State]:
        """The position for the bot to move to work on: its version and a copy of the state, made here, on the
        event loop, so that the worker thread that plays the bot's turn touches nothing a page's request reads."""
        return self.version, self.state.clone()

    def plan_bot_turn(self, version: int, trial: State) -> BotTurn:
        """The whole turn of the bot to move in ``trial`` (``bot_position``'s copy), played on it: safe to run off
        the event loop. The turn ends where the bot's seat or the deal changes."""
        seat, deal, start = trial.current_player, deal_number(trial), len(trial.history)
        while not trial.is_terminal() and trial.current_player == seat and deal_number(trial) == deal:
            if len(trial.history) - start >= MAX_BOT_ACTIONS:
                raise RuntimeError(f"bot {self.names[seat]} did not end its turn in {MAX_BOT_ACTIONS} actions")
            make_move(self.bots[seat], trial)
        return BotTurn(version, seat, trial, list(trial.history[start:]))

    def adopt_bot_turn(self, planned: BotTurn, now: float) -> None:
        """Take a bot's turn worked out by ``plan_bot_turn``, unless the game changed meanwhile."""
        if planned.version != self.version:
            return
        self.state = planned.state
        self.version += 1
        self.log.append(f"seat {planned.seat} ({self.names[planned.seat]}): "
                        f"{text.describe_turn(self.game, planned.actions)}")
        self._after_change(now)

    def fail(self, reason: str) -> None:
        """Stop the game: a bot failed, and the game cannot go on without its seat."""
        self.failure = " ".join(reason.split())
        self.version += 1
        self.log.append(f"the game stopped: {self.failure}")

    # ------------------------------------------------------------------ turns and deals
    def _after_change(self, now: float) -> None:
        deal = deal_number(self.state)
        if self.over:
            scores = ", ".join(f"{self.names[s]} {float(x):+g}" for s, x in enumerate(self.state.scores()))
            self.log.append(f"game over. scores: {scores}; winner: "
                            + ", ".join(self.names[s] for s in self.state.winners()))
        elif deal != self._deal:
            totals = ", ".join(f"{self.names[s]} {v}"
                               for s, v in enumerate(text.display(self.state).totals(self.state)))
            self.log.append(f"--- next {games.of(self.game).deal}; totals so far: {totals} ---")
        self._deal = deal
        self._begin_turn_if_due(now)

    def _begin_turn_if_due(self, now: float) -> None:
        if self.person_to_move and self.turn is None:
            deadline = None if self.clock is None else now + self.clock
            self.turn = Turn(self.state.clone(), len(self.state.history), deal_number(self.state), deadline)

    # ------------------------------------------------------------------ what is sent
    def message(self, now: float) -> dict[str, Any]:
        """The position for the person's page, with the game's names, clock, log and version."""
        return {"type": "state", "id": self.id, "version": self.version, "seat": self.seat, "names": self.names,
                "game": self.game, "title": games.of(self.game).title, "seed": self.settings.seed,
                "settings": self.settings.as_json(), "clock": self.clock, "left": self.time_left(now),
                "log": list(self.log), "help": text_interface.move_help(self.game), "failure": self.failure,
                **seat_message(self.state, self.seat)}

    def record(self) -> dict[str, Any]:
        """The game's replay (``rummienv-replay/1``), once it is over: before that the deal's seed, which the
        record holds, would tell every rack."""
        if not self.over:
            raise Refused("the replay is there once the game is over: its deal seed would show every rack")
        return replay_record.record(self.state, self.names)


def _as_move_string(state: State, actions: Any) -> str:
    """A list of action indices as the move string of its steps, so that it is checked as a typed move is (a
    turn that ends, or a draw, ends it; each refusal in a person's words, ``play_text.why_not``)."""
    if not isinstance(actions, list) or not actions or not all(
            isinstance(a, int) and not isinstance(a, bool) for a in actions):
        raise Refused("'actions' must be a list of action indices (whole numbers), at least one")
    wrong = next((a for a in actions if not 0 <= a < state.num_actions), None)
    if wrong is not None:
        raise Refused(f"not legal: action {wrong} is not an action index (allowed: 0..{state.num_actions - 1})")
    return f"{text_interface.STEP_SEPARATOR} ".join(text_interface.action_text(state, a) for a in actions)

