"""What a game's display module gives the terminal game, the text interface and the replay page: the registry's
``display``.

``rummienv.play_text`` (the terminal game, ``rummienv.play``), ``rummienv.text_interface`` (programs that play
by text) and ``rummienv.replay_page`` are written once for every game and ask its display module
(``rummienv/rummikub/display.py``, ``rummienv/rummy500/display.py``) for everything that depends on the game's
pieces and words. A module meets this Protocol structurally: it defines each constant and function below at
module level, with the same parameters (without ``self``); tests/test_display_protocol.py holds every
registered game's module to it.
"""

from __future__ import annotations

from typing import Any, Protocol

from rummienv.core import Game, State
from rummienv.errors import IllegalActionError

PageParts = tuple[list[dict[str, Any]], list[list[list[Any]]], str, list[str]]  # see Display.page_parts


class Display(Protocol):
    """The names every display module gives."""

    HELP: str  # the moves a person may type, printed on "help" and after a move that is not understood
    HINT: str  # the registered bot whose move "hint" suggests
    NO_CLOCK: str | None  # why the game has no turn clock, said to a person who asks for one; None: it has one
    DRAWS: frozenset[int]  # actions that bring the seat a piece it has not seen: a move string ends there

    def render(self, state: State, me: int, names: list[str], seen: list | None = None) -> str:
        """The position as seat ``me`` sees it, before each of the person's moves; where the game marks table
        changes, what is not among ``seen`` (``table_sets`` at the seat's last turn)."""

    def who_starts(self, state: State, first: str) -> str:
        """Why the seat to move first does, after ``first`` ("seat 1 (greedy) moves first"): a person who
        sees the bots play before their first prompt asks."""

    def parse_move(self, verb: str, args: list[str], text: str, state: State) -> list[int]:
        """The actions a typed move (``text``, split as ``verb`` and ``args``) stands for, so that a person is
        held to the bots' action mask; NotationError names what is not understood."""

    def why_not(self, state: State, action: int, error: IllegalActionError) -> str:
        """A person's reason for a refused action, in the words they type rather than the action table's."""

    def gained(self, before: dict[str, Any], after: dict[str, Any]) -> str:
        """The pieces that came into a seat's hand between two of its views ("-": none), since a person who
        draws should see what came."""

    def describe_turn(self, actions: list[int]) -> str:
        """One line for what a seat did in its turn: how the person follows the bots' moves."""

    def as_command(self, actions: list[int]) -> str:
        """The move a person would type for ``actions``: how ``hint`` shows the hint bot's move."""

    def whole_turns(self, state: State) -> list[list[int]]:
        """Whole turns worth offering a program that moves by text (``rummienv.text_interface``), each as its
        actions: where a turn takes many actions, the best of them, so that it need not be found one by one."""

    def rules_brief(self, game: Game) -> str:
        """The rules a player needs to choose moves, in a paragraph, for the prompt of a program that plays."""

    def deal_number(self, view: dict[str, Any]) -> int:
        """Which round or hand a view is of, so that a bot's turn ends where a deal does."""

    def totals(self, state: State) -> list:
        """Every seat's running total over the game's deals, printed between deals."""

    def table_sets(self, state: State) -> list | None:
        """The table as the person sees it now, handed back to ``render`` as ``seen`` at their next turn;
        None where the game marks no table changes."""

    def page_parts(self, views: list[dict[str, Any]]) -> PageParts:
        """The replay page's table (each set a label and its pieces), every seat's hand (each piece its text,
        colour and, where the game stages, whether it is staged), pile line and totals, from every seat's view:
        the page's script draws them and knows no game."""


class ClockedDisplay(Display, Protocol):
    """A display module of a game with a turn clock (``NO_CLOCK`` None) also gives ``time_out``."""

    def time_out(self, state: State, seat: int, clock: float) -> str:
        """Run out ``seat``'s turn clock (``clock`` seconds, the game's timeout rule) and say what it cost the
        person, who was away from the keyboard."""
