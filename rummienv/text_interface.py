"""Every game as text for programs: what a seat sees, the moves it may make, and moves read from strings.

A language model, a TextArena env (``rummienv.envs.text_arena``) or a script plays through four questions:
what does my seat see (``seat_text``), what may I do (``legal_moves``), what does this string do
(``parse_move``), and do it (``apply_move``). The words are the terminal game's (``play r7 r8 r9``, ``take
9S``; each game's display module): one move language for people and programs, held to the same exact mask
as every bot. A move string may be a whole turn, its steps separated by ``;`` (``swap k5; play b8 o8``),
so that a model need not be asked once per piece; it ends where the seat draws a piece it has not seen, or
where its turn ends, since what follows would depend on what it cannot yet know.

The text of a seat is made from ``view(seat)`` alone, as the env's ``ansi`` render is, so it holds no more
than the observation does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rummienv import games
from rummienv import play_text as text
from rummienv.core import Game, State
from rummienv.errors import IllegalActionError, NotationError

STEP_SEPARATOR = ";"


def view_text(view: dict[str, Any], game: Game) -> str:
    """What a seat may know, as text: the game's render of the seat's view (its ``ansi`` render)."""
    return games.load(games.of(game).text)(view, game)


def seat_text(state: State, seat: int) -> str:
    """What ``seat`` may know of ``state``, as text."""
    return view_text(state.view(seat), _game(state))


def _game(state: State) -> Game:
    """The Game a state is of: its own where it keeps one, else one made of its rules and table size."""
    kept = getattr(state, "game", None)
    return kept if kept is not None else games.make_game(state.rules.game, state.num_players, rules=state.rules)


def view_state(view: dict[str, Any], game: Game, rng: Any) -> State:
    """A state that shows ``view`` to its seat, what the seat cannot see dealt by ``rng`` (a seed or Generator).

    A player that knows only its view (an agent) asks its moves of this state: the seat's own legal moves and
    what its move strings do hang only on what it can see, up to a draw, where a move string ends.
    """
    sample = games.of(game).sample_state
    if sample is None:
        raise ValueError(f"{games.of(game).title} has no sample_state: it cannot be played from a view as text")
    return games.load(sample)(view, game, np.random.default_rng(rng))


def action_text(state: State, action: int) -> str:
    """One action as a move string that ``parse_move`` reads back as exactly that action."""
    return text.display(state).as_command([int(action)])


def legal_moves(state: State) -> list[str]:
    """The moves open to the seat to move, as strings: the game's whole turns first (in Rummikub the plays that
    lay the most pieces, with and without the rack's jokers, and the most points), then one string per legal
    action."""
    if state.is_terminal():
        return []
    shown = text.display(state)
    turns = [shown.as_command(turn) for turn in shown.whole_turns(state)]
    singles = [action_text(state, a) for a in state.legal_actions()]
    return [*turns, *(move for move in singles if move not in turns)]


def _moves_only(help_text: str) -> str:
    """A game's HELP without what only the terminal offers (hint, auto, quit)."""
    moves, _, notation = help_text.partition(" | hint")
    return moves + notation[notation.index(";"):].replace(";  ", "; ") if ";" in notation else moves


def move_help(game: Any) -> str:
    """The move language, for a prompt: the game's typed moves and how steps join into one move."""
    return (f"{_moves_only(text.help_text(game))}. Several steps of one turn may be sent as one move, "
            f"separated by '{STEP_SEPARATOR}'; a move ends where your turn does, or with a draw of a piece you "
            "have not seen.")


def rules_brief(game: Any) -> str:
    """The game's rules in a paragraph, for a prompt (docs/RULES.md holds them in full)."""
    info = games.of(game)
    made = game if isinstance(game, Game) else games.make_game(info.name)
    return text.display(made).rules_brief(made)


def _step_actions(state: State, step: str) -> list[int]:
    """The actions of one step: the typed form, or an action's own name (``PLACE r7``, ``MAX_PLAY``)."""
    try:
        return text.parse_move(state.rules.game, step, state)
    except NotationError as typed:
        try:
            return [state.string_to_action(step)]
        except (IllegalActionError, NotationError):
            shown = text.display(state).HELP
            raise NotationError(str(typed).replace(shown, _moves_only(shown))) from None


def parse_move(state: State, move: str) -> list[int]:
    """The actions ``move`` stands for, checked one by one on a copy of ``state``, which is left as it was.

    A move that is not understood raises NotationError, one that is understood but not legal now
    IllegalActionError; either says, in one line, which step and why.
    """
    if not isinstance(move, str):
        raise NotationError(f"a move is a string, got {type(move).__name__}; {move_help(state.rules.game)}")
    if state.is_terminal():
        raise IllegalActionError("the game is over: no move is legal")
    steps = [step.strip() for step in move.replace("\n", STEP_SEPARATOR).split(STEP_SEPARATOR) if step.strip()]
    if not steps:
        raise NotationError(f"empty move; {move_help(state.rules.game)}")
    trial, seat = state.clone(), state.current_player
    draws = text.display(state).DRAWS
    actions: list[int] = []
    for n, step in enumerate(steps, 1):
        where = f"step {n} ({step!r})" if len(steps) > 1 else repr(step)
        if trial.is_terminal() or trial.current_player != seat:
            raise IllegalActionError(f"{where}: your turn ended at the step before; send it on your next turn")
        if actions and actions[-1] in draws:
            raise IllegalActionError(f"{where}: nothing may follow a draw in the same move, since the piece drawn "
                                     "is not known yet; send it as the next move")
        try:
            parsed = _step_actions(trial, step)
        except NotationError as exc:
            raise NotationError(f"{where}: {exc}") from None
        except IllegalActionError as exc:  # understood, and refused while being read (Rummy 500's meld)
            raise IllegalActionError(f"{where}: {exc}") from None
        for action in parsed:
            try:
                trial.apply_action(action)
            except IllegalActionError as exc:
                raise IllegalActionError(f"{where}: {text.why_not(trial, action, exc)}") from None
            actions.append(action)
    return actions


def apply_move(state: State, move: str) -> list[int]:
    """Play ``move`` on ``state``; the actions it stood for. A refused move changes nothing."""
    actions = parse_move(state, move)
    for action in actions:
        state.apply_action(action)
    return actions
