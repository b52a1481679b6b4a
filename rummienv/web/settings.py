"""A new game's settings as a page sends them, checked field by field, and the game they deal.

A page (or a script) asks for a game as JSON: ``{"game": "rummikub", "players": 2, "seat": 0, "opponents":
["hoard"], "clock": "off", "seed": 3, "rules": {"hand_size": 7}, "whole_game": false}``, every field but
``game`` optional. Anything wrong is refused with one line that names the field and what it may be, before a
deal is made, so that a typo never starts some other game. The clock is read as the terminal game reads
``--clock`` (``rummienv.play.clock_of``), the agents are made as everywhere (``make_agent``).
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass
from typing import Any

from rummienv import games
from rummienv.core import State
from rummienv.envs.opponents import Agent, make_agent
from rummienv.errors import RulesError
from rummienv.play import clock_of
from rummienv.play_text import display
from rummienv.replay_record import PERSON

DEFAULT_OPPONENT = "greedy"  # the terminal game's default opponent, a baseline of every game
FIELDS = ("game", "players", "seat", "opponents", "clock", "seed", "rules", "whole_game")


class SetupError(ValueError):
    """A new game's settings refused, in one line."""


@dataclass(frozen=True)
class Settings:
    """What deals a game and seats its players: the game's name, table size, the person's seat, one agent spec
    per other seat (in seat order), the turn clock in seconds (None: off), the deal seed, rules overrides and
    whether all rounds are played."""

    game: str
    players: int
    seat: int
    opponents: tuple[str, ...]
    clock: float | None
    seed: int
    rules: dict[str, Any] | None
    whole_game: bool

    def as_json(self) -> dict[str, Any]:
        """The settings as a page sends them back for another game like this one (the seed left out: a new deal)."""
        out = asdict(self)
        out["opponents"] = list(self.opponents)
        out["clock"] = "off" if self.clock is None else self.clock
        del out["seed"]
        return out


def _whole_number(value: Any, field: str, low: int, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low or high is not None and value > high:
        allowed = f"{low}..{high}" if high is not None else f"a whole number from {low}"
        raise SetupError(f"'{field}' must be {allowed}, got {value!r}")
    return value


def read_settings(data: Any, default_clock: str | None = None) -> Settings:
    """The settings ``data`` asks for (a page's JSON object), checked; ``default_clock`` is the server's
    ``--clock``, which games without a turn clock ignore. SetupError says what is wrong."""
    if not isinstance(data, dict):
        raise SetupError(f"a new game is a JSON object with {', '.join(FIELDS)}; got {type(data).__name__}")
    unknown = sorted(set(data) - set(FIELDS))
    if unknown:
        raise SetupError(f"unknown field {unknown[0]!r}; allowed: {', '.join(FIELDS)}")
    name = data.get("game")
    if name not in games.names():
        raise SetupError(f"unknown game {name!r}; allowed: {games.spelled_out()}")
    players = _whole_number(data.get("players", 2), "players", 2, 4)
    seat = _whole_number(data.get("seat", 0), "seat", 0, players - 1)
    opponents = _opponents(data.get("opponents"), players)
    seed = data.get("seed")
    seed = int.from_bytes(os.urandom(4), "little") if seed is None else _whole_number(seed, "seed", 0)
    rules = data.get("rules")
    if rules is not None and not isinstance(rules, dict):
        raise SetupError(f"'rules' must be a mapping of rules fields to values, got {rules!r}")
    whole_game = data.get("whole_game", False)
    if not isinstance(whole_game, bool):
        raise SetupError(f"'whole_game' must be true or false, got {whole_game!r}")
    try:
        game = games.make_game(name, players, rules=rules or None, whole_game=whole_game)
    except RulesError as exc:
        raise SetupError(f"'rules': {exc}") from None
    clock = _clock(data.get("clock"), default_clock, game.rules)
    return Settings(name, players, seat, opponents, clock, seed, rules or None, whole_game)


def _opponents(value: Any, players: int) -> tuple[str, ...]:
    """One agent spec per other seat; one name alone stands for them all."""
    if value is None:
        value = [DEFAULT_OPPONENT]
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise SetupError(f"'opponents' must be agent names, one per other seat, got {value!r}")
    if len(value) == 1:
        value = value * (players - 1)
    if len(value) != players - 1:
        raise SetupError(f"'opponents' must name {players - 1} agents (one per other seat), got {len(value)}")
    return tuple(v.strip() for v in value)


def _clock(asked: Any, default: str | None, rules: Any) -> float | None:
    """The turn clock in seconds or None, read as ``--clock`` is; the server's default where none is asked."""
    if asked is None and default is not None and display(rules).NO_CLOCK:
        return None  # the server's --clock is for the games that have a clock
    if isinstance(asked, (int, float)) and not isinstance(asked, bool):
        asked = repr(asked)
    if asked is not None and not isinstance(asked, str):
        raise SetupError(f"'clock' must be seconds or 'off', got {asked!r}")
    try:
        return clock_of(asked if asked is not None else default, rules)
    except ValueError as exc:
        raise SetupError(str(exc).replace("--clock", "'clock'")) from None


def deal(settings: Settings) -> tuple[State, dict[int, Agent], list[str]]:
    """The deal, each other seat's agent, and every seat's name (the person's is the replays' ``you``), as the
    terminal game seats them: each bot seeded from the deal's seed and its seat. SetupError for an agent that
    cannot be made."""
    game = games.make_game(settings.game, settings.players, rules=settings.rules, whole_game=settings.whole_game)
    state = game.new_initial_state(settings.seed)
    others = [s for s in range(settings.players) if s != settings.seat]
    bots = {}
    for seat, spec in zip(others, settings.opponents, strict=True):
        try:
            bots[seat] = make_agent(spec, game.rules, settings.players, seed=settings.seed + seat)
        except (ValueError, OSError) as exc:
            raise SetupError(" ".join(str(exc).split())) from None
    names = [PERSON if s == settings.seat else settings.opponents[others.index(s)] for s in range(settings.players)]
    return state, bots, names
