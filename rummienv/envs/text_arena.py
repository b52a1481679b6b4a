"""The games as TextArena envs, so that language models can be measured on them with TextArena's own tooling.

TextArena (``pip install 'rummienv[textarena]'``) is where language models are compared as game players:
``ta.make(env_id)``, ``env.reset(num_players, seed)``, then ``get_observation`` / ``step(text)`` until done,
and ``close()`` for the rewards. Importing this module registers every game of the package that has a
Gymnasium id and a display module under that id without the ``rummienv/`` prefix (``Rummikub-v0``,
``RummikubCards-v0``, ``Rummy500-v0``), the way TextArena registers its card games: the plain id wraps the
env in ``LLMObservationWrapper`` and ``ActionFormattingWrapper``, ``-train`` shows the prompt, the game's
messages and the latest board, ``-raw`` is unwrapped; each ``-long`` id plays a whole game of several rounds
instead of one (``whole_game=True``, also a keyword of ``ta.make``).

The env plays the real game (``rummienv.games.make_game``) and speaks only through
``rummienv.text_interface``: the seat's board is ``view_text`` of its own view, its moves are
``legal_moves`` and a move is read by ``parse_move`` on a copy, so that a refused move changes nothing. Hidden
information stays hidden: a seat's board is made from its own view; its typed move (which may name what it
holds) goes back to it alone, and the other seats learn the turn from the public one-line summary
(``describe_turn``) that every seat at a real table sees. TextArena's invalid-move convention holds: the
offender is told the reason and may try again ``error_allowance`` times in a row; one more and it loses
(-1, every other seat +1). A finished round scores +1 to each of the state's ``winners()`` and -1 to the
others, 0 to all when every seat ties, as TextArena's card games do.
"""

from __future__ import annotations

import re
from typing import Any

try:
    import textarena as ta
    from textarena.envs.registration import ENV_REGISTRY, register_with_versions
    from textarena.wrappers import (
        ActionFormattingWrapper,
        GameMessagesAndCurrentBoardObservationWrapper,
        LLMObservationWrapper,
    )
except ModuleNotFoundError as exc:  # only a missing TextArena is the extra's to explain; anything else is a bug
    if exc.name is None or exc.name.split(".")[0] != "textarena":
        raise
    raise ImportError("rummienv.envs.text_arena needs TextArena, an optional extra: "
                      "pip install 'rummienv[textarena]'") from exc

from rummienv import games
from rummienv import play_text as shown
from rummienv import text_interface as ti
from rummienv.core import Game, State
from rummienv.errors import IllegalActionError, NotationError

ENTRY_POINT = "rummienv.envs.text_arena:RummyTextArenaEnv"
DEFAULT_WRAPPERS = [LLMObservationWrapper, ActionFormattingWrapper]  # textarena.envs' DEFAULT_WRAPPERS
TRAIN_WRAPPERS = [GameMessagesAndCurrentBoardObservationWrapper, ActionFormattingWrapper]  # its BOARDGAME_WRAPPERS
LEGAL_PREFIX = "Legal moves now:"  # the board's last line starts so, for a script or a model to find the list
_BRACKETED = re.compile(r"\[([^\[\]]*)\]")


def text_arena_ids() -> dict[str, str]:
    """TextArena id -> game name: every registered game with a Gymnasium id and a display module (its move
    language), under that id without the package's prefix (``rummienv/Rummikub-v0`` -> ``Rummikub-v0``)."""
    return {env_id.rsplit("/", 1)[-1]: name for env_id, name in games.env_ids().items()
            if games.info(name).display is not None}


def register_text_arena_envs() -> list[str]:
    """Register each game's id and its ``-long`` (whole game) id with TextArena's wrapped versions; the ids
    registered now. Registering again (a reload) skips ids that are already this module's; an id that
    TextArena holds for something else is refused rather than silently shadowed."""
    done = []
    for base, name in text_arena_ids().items():
        for env_id, whole_game in ((base, False), (f"{base}-long", True)):
            spec = ENV_REGISTRY.get(env_id)
            if spec is not None:
                if spec.entry_point != ENTRY_POINT:
                    raise ValueError(f"TextArena id {env_id!r} is registered already, for {spec.entry_point!r}")
                continue
            register_with_versions(id=env_id, entry_point=ENTRY_POINT,
                                   wrappers={"default": DEFAULT_WRAPPERS, "-train": TRAIN_WRAPPERS},
                                   game=name, whole_game=whole_game)
            done.append(env_id)
    return done


def move_of(answer: str) -> str:
    """The move in an answer: the last ``[...]`` in it (a model's reasoning tends to come first and its answer
    last; ``ActionFormattingWrapper`` brackets a bare answer), or the whole answer when it has no brackets."""
    found = _BRACKETED.findall(answer)
    return (found[-1] if found else answer).strip()


class RummyTextArenaEnv(ta.Env):
    """One game of the package as a TextArena env for 2-4 players.

    ``game``: a registered game's name ("rummikub", "rummikub_cards", "rummy500"); ``whole_game``: an episode
    is a whole game of several rounds rather than one; ``rules``: overrides of the game's preset (a dict or
    a YAML path); ``error_allowance``: invalid answers in a row that a seat may give before it loses
    (TextArena's states default to 1).
    """

    def __init__(self, game: str = "rummikub", whole_game: bool = False, rules: Any = None,
                 error_allowance: int = 1) -> None:
        self.info = games.info(game)
        if self.info.display is None:
            raise ValueError(f"{self.info.title} has no display module, so it has no move language to play by text")
        if isinstance(error_allowance, bool) or not isinstance(error_allowance, int) or error_allowance < 0:
            raise ValueError(f"error_allowance must be a whole number >= 0, got {error_allowance!r}")
        self.game_name = game
        self.whole_game = whole_game
        self.rules = rules
        self.error_allowance = error_allowance
        games.make_game(game, 2, rules, whole_game)  # refuses bad rules now rather than at the first reset
        self.game: Game | None = None
        self.engine: State | None = None  # the rummienv state the episode plays
        self.invalid_moves: list[int] = []
        self._turn: list[int] = []  # the actions of the turn in progress, told to every seat when it ends

    # --- episode ---------------------------------------------------------------------------------------------

    def reset(self, num_players: int = 2, seed: int | None = None) -> None:
        """Deal from ``seed`` (None: a random deal), send each seat its prompt and the first seat its board."""
        if isinstance(num_players, bool) or num_players not in (2, 3, 4):
            raise ValueError(f"{self.info.title} is played by 2, 3 or 4 players, got {num_players!r}")
        if self.game is None or self.game.num_players != num_players:
            self.game = games.make_game(self.game_name, num_players, self.rules, self.whole_game)
        deal_seed = Game.deal_seed(seed)
        self.engine = self.game.new_initial_state(deal_seed)
        kind = ta.TwoPlayerState if num_players == 2 else ta.FFAMultiPlayerState
        self.state = kind(num_players=num_players, seed=seed, error_allowance=self.error_allowance)
        self.state.reset(game_state={"game": self.game_name, "seed": deal_seed, "whole_game": self.whole_game},
                         player_prompt_function=self._prompt)
        for pid in range(num_players):
            self.state.game_info[pid]["invalid_moves"] = 0
        self.invalid_moves = [0] * num_players
        self._turn = []
        first = self.engine.current_player
        self.state.manually_set_current_player_id(first)
        self.state.add_observation(
            message=f"A {self._episode()} of {self.info.title} for {num_players} players begins; "
                    f"Player {first} moves first.",
            observation_type=ta.ObservationType.GAME_MESSAGE)
        self._send_board(first)

    def step(self, action: str) -> tuple[bool, dict[str, Any]]:
        """Play the move in ``action`` for the player to move: all of it, or, if refused, none of it."""
        if self.engine is None or self.state.done:
            raise RuntimeError("the game is over or not started: call reset")
        pid = self.state.current_player_id
        # a typed move, and whatever reasoning came with it, may name what the seat holds: it goes back to it alone
        self.state.add_observation(from_id=pid, to_id=pid, message=action,
                                   observation_type=ta.ObservationType.PLAYER_ACTION)
        move = move_of(action)
        trial = self.engine.clone()
        try:
            actions = ti.apply_move(trial, move)
        except (NotationError, IllegalActionError) as exc:
            return self._refuse(pid, " ".join(str(exc).split()))
        before, deal = self.engine.view(pid), self._deal(self.engine)
        self.engine = trial
        self._turn += actions
        self.state.step_info = {"invalid_move": False, "invalid_moves": self.invalid_moves[pid]}
        turn_over = self.engine.is_terminal() or self.engine.current_player != pid or self._deal(self.engine) != deal
        if not self.engine.is_terminal() and self._deal(self.engine) == deal:  # a new deal is its own news
            got = shown.gained(self.game_name, before, self.engine.view(pid))
            if got != "-":  # a draw or a take: what came is the seat's own news
                self.state.add_observation(to_id=pid, message=f"You got: {got}",
                                           observation_type=ta.ObservationType.GAME_MESSAGE)
        if turn_over:
            self.state.add_observation(message=f"Player {pid} {shown.describe_turn(self.game_name, self._turn)}",
                                       observation_type=ta.ObservationType.GAME_ACTION_DESCRIPTION)
        if self.engine.is_terminal():
            self._finish()
            return self.state.step(rotate_player=False)
        if self._deal(self.engine) != deal:
            totals = ", ".join(f"Player {s} {float(t):g}" for s, t in enumerate(shown.display(self.engine)
                                                                                  .totals(self.engine)))
            self.state.add_observation(message=f"The {self.info.deal} is over; totals so far: {totals}. "
                                               f"A new {self.info.deal} is dealt.",
                                       observation_type=ta.ObservationType.GAME_MESSAGE)
        result = self.state.step(rotate_player=False)  # counts the turn for the seat that moved
        following = self.engine.current_player
        self.state.manually_set_current_player_id(following)
        if turn_over:
            self._turn = []
        self._send_board(following)
        return result

    def get_board_str(self, seat: int | None = None) -> str:
        """The table as ``seat`` knows it (default: the seat to move, or seat 0 once over), for a spectator's
        render (TextArena's render wrappers call it); it is never sent to a player."""
        if self.engine is None:
            return "Game not started"
        if seat is None:
            seat = max(self.engine.current_player, 0)
        return ti.view_text(self.engine.view(seat), self.game)

    # --- what the seats are told ---------------------------------------------------------------------------------

    def _episode(self) -> str:
        return "whole game" if self.whole_game else self.info.deal

    def _prompt(self, player_id: int, game_state: dict[str, Any]) -> str:
        """The rules and the move language, the same for every deal: it is made before the deal is looked at."""
        n = self.state.num_players
        strikes = self.error_allowance + 1
        length = ("a whole game of several rounds, scored on the totals" if self.whole_game else
                  f"one {self.info.deal}, scored at its end")
        return (
            f"You are Player {player_id} in a {n}-player game of {self.info.title}; on the board you are seat "
            f"{player_id}. The episode is {length}.\n{ti.rules_brief(self.game)}\n\n{ti.move_help(self.game)}\n\n"
            f"When it is your turn you get the board as you see it and the list of your legal moves. Answer with "
            f"one move in square brackets, for example [draw]; several steps of one turn go in one bracket, "
            f"separated by ';'. An invalid move is refused with the reason and you answer again; {strikes} invalid "
            f"answer{'s' if strikes > 1 else ''} in a row and you lose. At the end the winner (top score) gets +1 "
            f"and the others -1; if every player ties, all get 0."
        )

    def _send_board(self, pid: int) -> None:
        """The seat to move gets what it may know and its legal moves (as TextArena's card games announce a turn)."""
        moves = " ".join(f"[{move}]" for move in ti.legal_moves(self.engine))
        board = ti.view_text(self.engine.view(pid), self.game)
        self.state.add_observation(to_id=pid, message=f"Your turn, Player {pid}.\n{board}\n{LEGAL_PREFIX} {moves}",
                                   observation_type=ta.ObservationType.GAME_BOARD)

    def _refuse(self, pid: int, reason: str) -> tuple[bool, dict[str, Any]]:
        """TextArena's invalid move: the reason to the offender, who may try again within the allowance and
        loses beyond it. The reason may name what the offender holds, so only it hears it; the end is told to
        every seat in words that name nothing."""
        self.invalid_moves[pid] += 1
        self.state.game_info[pid]["invalid_moves"] = self.invalid_moves[pid]
        self.state.step_info = {"invalid_move": True, "invalid_moves": self.invalid_moves[pid], "reason": reason}
        eliminated = self.state.set_invalid_move(reason=reason)  # the reason quotes the move already
        if self.state.num_players == 2:
            eliminated = self.state.done
        if eliminated:
            why = f"Player {pid} made {self.error_allowance + 1} invalid moves in a row and loses."
            others = [p for p in range(self.state.num_players) if p != pid]
            if self.state.num_players == 2:
                self.state.set_winner(others[0], why)
            else:
                self.state.set_winners(others, why)
            self.state.game_info[pid]["invalid_move"] = True
            self.state.add_observation(message=f"Game over. {why}", observation_type=ta.ObservationType.GAME_MESSAGE)
        return self.state.step(rotate_player=False)

    def _finish(self) -> None:
        """Rewards by the state's winners (+1 winners, -1 the rest, 0 all if every seat ties); scores told to all."""
        scores = [float(s) for s in self.engine.scores()]
        winners = list(self.engine.winners())
        n = self.state.num_players
        listed = ", ".join(f"Player {s} {score:+g}" for s, score in enumerate(scores))
        if len(winners) == n:
            why = f"The {self._episode()} is over: every player ties ({listed})."
            self.state.set_draw(why)
        else:
            named = " and ".join(f"Player {s}" for s in winners)
            why = f"The {self._episode()} is over. Scores: {listed}. {named} win{'s' if len(winners) == 1 else ''}."
            if n == 2:
                self.state.set_winner(winners[0], why)
            else:
                self.state.set_winners(winners, why)
        for pid in range(n):
            self.state.game_info[pid]["score"] = scores[pid]
        self.state.add_observation(message=why, observation_type=ta.ObservationType.GAME_MESSAGE)

    def _deal(self, state: State) -> int:
        """Which round (or hand) is being played, so that a turn ends where a deal does."""
        return shown.display(state).deal_number(state.view(0))


register_text_arena_envs()
