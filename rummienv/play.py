"""Play a game against bots in the terminal.

    python -m rummienv.play --game rummikub --opponents max_tiles greedy
    python -m rummienv.play --game rummy500 --opponents value --seed 3

The person's turn runs the rules' clock (T12: 60 s, K8: 2 minutes; ``--clock``
changes or turns it off) and its time-out rule. Input is read with a timeout
on the raw stream, not a blocking readline, so the clock also runs when moves
come from a script through a pipe; the end of input quits.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import sys
import termios
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rummienv import games, replay
from rummienv import play_text as text
from rummienv.envs.opponents import decide, make_agent, make_move, report_logs, take_reports
from rummienv.errors import INTERRUPTED, IllegalActionError, NotationError

REMINDERS = (30.0, 10.0)  # seconds left on the turn clock at which the person is told so
MAX_BOT_ACTIONS = 1000  # a bot that never ends its turn is a bug, not a long turn


class LineReader:
    """Lines from a file descriptor, each read with a deadline."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = b""
        self.ended = False

    def readline(self, timeout: float | None, reminders: Sequence[float] = (),
                 remind: Callable[[float], None] | None = None) -> str | None:
        """The next line, or None when ``timeout`` seconds pass first; EOFError at the end. While waiting,
        ``remind(seconds)`` is called as each of ``reminders`` (seconds left) is reached, so the person
        sees the clock run down without the line being redrawn under their typing.

        Input already waiting counts as typed in time, even if the program was
        slow to get to it: the clock is the person's, not the machine's.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        due = sorted((r for r in reminders if timeout is not None and r < timeout), reverse=True)
        while b"\n" not in self.buffer and not self.ended:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            while due and left is not None and left < due[0] - 0.5:
                due.pop(0)  # passed while input was coming in: too late to say
            wait = left if not due or left is None else max(0.0, left - due[0])
            ready, _, _ = select.select([self.fd], [], [], wait)
            if not ready and due and left is not None and wait < left:
                if remind is not None:
                    remind(due[0])
                due.pop(0)
                continue
            if not ready:
                self._drop_unfinished_line()
                return None
            chunk = os.read(self.fd, 4096)
            self.ended = not chunk
            self.buffer += chunk
        if not self.buffer:
            raise EOFError
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line.decode(errors="replace").strip()

    def _drop_unfinished_line(self) -> None:
        """Forget what was typed but not entered when the time ran out: it belonged to the turn that
        ended, and would otherwise join the next line typed (``dra``, time-out, ``w``: ``draw``). A
        terminal keeps such a line itself until Enter, so its input queue is flushed too."""
        self.buffer = b""
        if os.isatty(self.fd):
            termios.tcflush(self.fd, termios.TCIFLUSH)


def say(*lines: str) -> None:
    print(*lines, sep="\n", flush=True)


def deal_number(state: Any) -> int:
    """Which round (or hand) of the game is being played."""
    return text.display(state).deal_number(state.view(0))


def hint_actions(state: Any) -> list[int]:
    """The actions of the game's hint bot's move for the seat to move (as that seat sees it), tried on a copy:
    what ``hint`` suggests in the terminal and in the browser."""
    trial = state.clone()
    make_move(make_agent(text.display(state).HINT, trial.rules, trial.num_players), trial)
    return list(trial.history[len(state.history):])


class Session:
    """One person, some bots, one game."""

    def __init__(self, state: Any, human: int, bots: dict[int, Any], names: list[str],
                 clock: float | None, reader: LineReader) -> None:
        self.state = state
        self.game = state.rules.game
        self.display = text.display(state)
        self.human = human
        self.bots = bots
        self.names = names
        self.clock = clock
        self.reader = reader
        self._turn_start = len(state.history)
        self._seen = self._table_sets()

    def run(self) -> bool:
        """Play to the end; False if the person quit."""
        say(text.help_text(self.game), text.RULES_NOTE)
        while not self.state.is_terminal():
            deal = deal_number(self.state)
            if self.state.current_player == self.human:
                if not self.human_turn():
                    say("you quit; the game was not finished")
                    return False
                self._seen = self._table_sets()  # what the next turn marks as new is what others did
            else:
                self.bot_turn()
            if not self.state.is_terminal() and deal_number(self.state) != deal:
                say(f"--- next {games.of(self.game).deal}; totals so far: "
                    f"{self.totals()} ---")
        self.final_scores()
        return True

    def human_turn(self) -> bool:
        state = self.state
        deadline = None if self.clock is None else time.monotonic() + self.clock
        say("", text.render(state, self.human, self.names, self._seen))
        deal, moves = deal_number(state), self._moves()
        self._turn_start = moves  # what the log says at the turn's end is every move since
        while self._my_turn(deal):
            left = None if deadline is None else deadline - time.monotonic()
            print(f"seat {self.human}" + ("" if left is None else f" [{max(left, 0):.0f}s]") + "> ",
                  end="", flush=True)
            try:
                line = self.reader.readline(
                    left, REMINDERS, lambda seconds: say("", f"({seconds:g} s left: finish the move and press Enter)"))
            except EOFError:
                return False
            if line is None:
                self.time_out()
                return True
            if not line:
                continue
            verb = line.split()[0].lower()
            if verb == "quit":
                return False
            if verb == "help":
                say(text.help_text(self.game), text.RULES_NOTE)
            elif verb in ("hint", "auto"):
                suggestion = self.suggest()
                if verb == "hint":
                    say(f"hint: {text.as_command(self.game, suggestion)}")
                else:
                    self.apply(suggestion, text.as_command(self.game, suggestion))
            else:
                self.move(line)
            if self._my_turn(deal) and self._moves() != moves:
                say(text.render(self.state, self.human, self.names))
                moves = self._moves()
        return True

    def _table_sets(self) -> list | None:
        """The table as the person last saw it, where the game marks what changed since (else None)."""
        return self.display.table_sets(self.state)

    def _my_turn(self, deal: int) -> bool:
        """Still the person's turn: not over, their seat, and no new round dealt meanwhile."""
        state = self.state
        return not state.is_terminal() and state.current_player == self.human and deal_number(state) == deal

    def _moves(self) -> int:
        return len(self.state.history)

    def move(self, line: str) -> None:
        try:
            actions = text.parse_move(self.game, line, self.state)
        except NotationError as exc:
            say(f"not understood: {exc}")
            return
        except IllegalActionError as exc:  # well written, but no move of the game
            say(f"not legal: {line!r}: {exc}")
            return
        self.apply(actions, line)

    def apply(self, actions: list[int], line: str) -> None:
        """Play all of a move or none of it: it is tried on a copy first."""
        trial = self.state.clone()
        for action in actions:
            try:
                trial.apply_action(action)
            except IllegalActionError as exc:
                say(f"not legal: {line!r}: {text.why_not(trial, action, exc)}")
                return
        before = self.state.view(self.human)
        self.state = trial
        if self.state.is_terminal() or self.state.current_player != self.human:
            say(f"you: {text.describe_turn(self.game, self.state.history[self._turn_start:])}")
        got = text.gained(self.game, before, self.state.view(self.human))
        if got != "-":
            say(f"you got: {got}")

    def time_out(self) -> None:
        say(self.display.time_out(self.state, self.human, self.clock))

    def bot_turn(self) -> None:
        state, seat = self.state, self.state.current_player
        deal, actions = deal_number(state), []
        while not state.is_terminal() and state.current_player == seat and deal_number(state) == deal:
            if len(actions) >= MAX_BOT_ACTIONS:
                raise RuntimeError(f"bot {self.names[seat]} did not end its turn in {MAX_BOT_ACTIONS} actions")
            action = decide(self.bots[seat], state)
            state.apply_action(action)
            actions.append(action)
        say(f"seat {seat} ({self.names[seat]}): {text.describe_turn(self.game, actions)}")

    def suggest(self) -> list[int]:
        return hint_actions(self.state)

    def totals(self) -> str:
        return ", ".join(f"{self.names[s]} {v}" for s, v in enumerate(self.display.totals(self.state)))

    def final_scores(self) -> None:
        state = self.state
        say("", "game over. scores:")
        for seat, score in enumerate(state.scores()):
            say(f"  seat {seat} ({self.names[seat]}): {float(score):+g}")
        say("winner: " + ", ".join(self.names[s] for s in state.winners()))


def build(args: argparse.Namespace) -> tuple[Any, list[str]]:
    """The starting state and the opponents' specs, from a deal or a position file."""
    if args.position:
        state = load_position(args.position)
        opponents = args.opponents or ["greedy"] * (state.num_players - 1)
        if len(opponents) != state.num_players - 1:
            raise ValueError(f"the position has {state.num_players} seats: name {state.num_players - 1} opponents")
        return state, opponents
    opponents = args.opponents or ["greedy"]
    game = games.make_game(args.game, 1 + len(opponents), whole_game=args.whole_game)
    return game.new_initial_state(args.seed), opponents


def load_position(path: str) -> Any:
    """The state a position file holds; its errors name the file, since the person may have several."""
    try:
        return games.load_state(json.loads(Path(path).read_text()))
    except OSError as exc:
        raise ValueError(f"cannot read position file {path!r}: {exc.strerror}") from None
    except ValueError as exc:  # not JSON, or not a position of any game
        raise ValueError(f"position file {path!r}: {exc}") from None


def clock_of(arg: str | None, rules: Any) -> float | None:
    if arg == "off":
        return None
    no_clock = text.display(rules).NO_CLOCK
    if no_clock:
        if arg is not None:
            raise ValueError(f"{no_clock}; use --clock off or leave it out")
        return None
    if arg is None:
        return rules.turn_seconds or None
    try:
        seconds = float(arg)
    except ValueError:
        raise ValueError(f"--clock takes seconds or 'off', got {arg!r}") from None
    if seconds <= 0:
        raise ValueError(f"--clock must be positive seconds or 'off', got {arg!r}")
    return seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rummienv.play", description=__doc__.split("\n\n")[0],
                                     epilog=text.RULES_NOTE)
    parser.add_argument("--game", choices=games.names(), default="rummikub")
    parser.add_argument("--opponents", nargs="+", help="bot names, ppo (the trained agent that ships) or "
                        "checkpoints, one per other seat "
                        "(default: one greedy bot)")
    parser.add_argument("--seat", type=int, default=0, help="your seat (0 = first in the deal's order)")
    parser.add_argument("--seed", type=int, default=None, help="deal seed, a whole number from 0 (default: random)")
    parser.add_argument("--clock", help="turn clock in seconds, or 'off' (default: the rules' clock)")
    parser.add_argument("--position", help="start from a JSON position instead of a new deal")
    parser.add_argument("--whole-game", action="store_true", help="play all rounds, not one")
    parser.add_argument("--replay", type=Path, help="write the game's replay here when it ends, you quit or the "
                        "program stops (python -m rummienv.replay draws it)")
    args = parser.parse_args(argv)
    if args.replay and args.position:
        parser.exit(2, "error: --replay needs a dealt game: a replay starts from the deal, not from a position\n")
    if args.seed is not None and args.seed < 0:
        parser.error(f"argument --seed: must be a whole number from 0, got {args.seed}")
    if args.seed is None:
        args.seed = int.from_bytes(os.urandom(4), "little")
    try:
        if args.replay:
            replay.check_output(args.replay, "--replay")
        state, opponents = build(args)
        clock = clock_of(args.clock, state.rules)
        if not 0 <= args.seat < state.num_players:
            raise ValueError(f"--seat must be 0..{state.num_players - 1}")
        others = [s for s in range(state.num_players) if s != args.seat]
        bots = {s: make_agent(spec, state.rules, state.num_players, seed=args.seed + s)
                for s, spec in zip(others, opponents, strict=True)}
    except (ValueError, OSError) as exc:
        parser.exit(2, f"error: {exc}\n")
    names = [replay.PERSON if s == args.seat else str(opponents[others.index(s)]) for s in range(state.num_players)]
    say(f"{state.rules.game}: you are seat {args.seat}; seed {args.seed}; clock "
        + ("off" if clock is None else f"{clock:g} s"), text.who_starts(state, names, bool(args.position)))
    session = Session(state, args.seat, bots, names, clock, LineReader(sys.stdin.fileno()))
    try:
        session.run()
    except KeyboardInterrupt:
        say("", "interrupted; the game was not finished")
        return INTERRUPTED
    finally:  # the record is kept however the game ends, a crash included
        if args.replay:
            save_replay(args.replay, session.state, names, [bots.get(s) for s in range(state.num_players)])
    return 0


def save_replay(path: Path, state: Any, names: list[str], seats: list[Any]) -> None:
    """Write the game's record, with what its bots kept of it (a chat model's prompts and answers), and say
    where; a failure to write is said, not raised, as the game is over."""
    logs = report_logs(take_reports(seats))
    try:
        say(f"replay written to {replay.write(path, state, names, agent_logs=logs)}")
    except OSError as exc:
        say(f"the replay could not be written to {str(path)!r}: {exc.strerror}")


if __name__ == "__main__":
    sys.exit(main())
