"""What the terminal game prints and how it reads a person's moves, for every registered game.

A person types a move in a plain form (``play r7 r8 r9``, ``take 9S``); it becomes one
or more actions of the fixed action space, so a person is held to exactly the same
mask as a bot. Every refusal says what was wrong in words. Each game's own words are
in its display module (the registry's ``display``, e.g. ``rummienv.rummikub.display``);
this module finds it and holds what the games share.
"""

from __future__ import annotations

import importlib
from typing import Any, cast

from rummienv import games
from rummienv.display_protocol import Display
from rummienv.errors import IllegalActionError, NotationError

RULES_NOTE = "rule ids in messages, like (T7) or (F6), are explained in docs/RULES.md"


def display(game: Any) -> Display:
    """The display module of a game named, or of its rules, Game or State: what ``rummienv.display_protocol``
    names (``ClockedDisplay`` for a game with a turn clock)."""
    entry = games.of(game)
    if entry.display is None:
        raise ValueError(f"{entry.title} has no display module: it cannot be played in the terminal or replayed "
                         "as a page")
    return cast(Display, importlib.import_module(entry.display))


def help_text(game: str) -> str:
    return display(game).HELP


def render(state: Any, me: int, names: list[str], seen: list | None = None) -> str:
    """The position as seat ``me`` sees it; where the game marks table changes, those not among ``seen`` (the
    table shown at the seat's last turn)."""
    return display(state).render(state, me, names, seen)


def who_starts(state: Any, names: list[str], from_position: bool) -> str:
    """Why the seat to move first does: a person who sees the bots play before their first prompt asks."""
    seat = state.current_player
    first = f"seat {seat} ({names[seat]}) moves first"
    if from_position:
        return f"{first}, as the position says"
    return display(state).who_starts(state, first)


def parse_move(game: str, text: str, state: Any) -> list[int]:
    """The actions a typed move stands for; NotationError names the problem."""
    words = text.split()
    if not words:
        raise NotationError(f"empty move; {help_text(game)}")
    return display(game).parse_move(words[0].lower(), words[1:], text, state)


def why_not(state: Any, action: int, error: IllegalActionError) -> str:
    """A person's reason for a refused action."""
    return display(state).why_not(state, action, error)


def gained(game: str, before: dict[str, Any], after: dict[str, Any]) -> str:
    """The pieces or cards that came into a seat's hand between two of its views."""
    return display(game).gained(before, after)


def describe_turn(game: str, actions: list[int]) -> str:
    """One line for what a seat did in its turn (the person reads the bots' moves here)."""
    return display(game).describe_turn(actions)


def as_command(game: str, actions: list[int]) -> str:
    """The move a person would type for ``actions`` (used by ``hint``)."""
    return display(game).as_command(actions)
