"""Every game of the package, declared once.

A game registers its name, title, rules preset and the modules that play, load, show and
print it; the envs, the terminal front end, replays, positions, the evaluator and training
ask this registry, so no other module compares game names, and a new game is one
``register`` call plus its own modules (docs/adding_a_game.md). An installed package
declares its games under the ``rummienv.games`` entry point instead, so that every
process (the command lines, training's workers) finds them. Modules are named as
``"module:attribute"`` strings and imported on first use, so importing the registry
loads no game and no compiled kernel.
"""

from __future__ import annotations

import dataclasses
import importlib
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rummienv.errors import PositionError, RulesError
from rummienv.rules import RummikubRules, Rummy500Rules, add_preset, make_rules, remove_preset

if TYPE_CHECKING:
    from rummienv.core import Game, State


@dataclass(frozen=True)
class GameInfo:
    """What the rest of the package needs to know of one game.

    ``family`` names the game whose engine and agents this one shares (the card edition plays on
    Rummikub's); ``deal`` is what one deal is called in messages. The paths name: ``game``, the
    ``core.Game`` subclass; ``load_state``, the function that reads a position (``State.to_dict``);
    ``text`` and ``picture``, the env's renders of one seat's view, ``f(view, game) -> str`` and
    ``-> np.ndarray`` (None: no pictures); ``display``, the module of the terminal game's text and the
    replay page's pieces, giving what ``rummienv.display_protocol.Display`` names (None: neither);
    ``whole_turns``, the Game of the whole-turn action mode, if the game has one; ``sample_state``,
    ``f(view, game, rng) -> State``, a state that shows a seat's view to that seat with what it cannot see dealt
    by ``rng`` (a program that moves by text reads its moves off one, ``rummienv.text_interface``); ``env``, the
    Gymnasium env class registered as ``env_id``.

    The paths are arrows of the import graph that no import statement shows (docs/contract.md's layers).
    All but ``env`` name the game's own package, the layer the registry stands on; ``env`` names the env
    layer (``rummienv.envs``), which stands on the registry, and only it may: the registry keeps it and never
    loads it, the env layer (``envs.registration``) does, so it closes no cycle (tests/test_imports.py checks
    which fields name the env layer).
    """

    name: str
    title: str
    rules: Any
    game: str
    load_state: str
    text: str
    display: str | None = None
    family: str = ""
    deal: str = "round"
    picture: str | None = None
    whole_turns: str | None = None
    sample_state: str | None = None
    env_id: str | None = None
    env: str | None = None


ENTRY_POINTS = "rummienv.games"  # where an installed package declares its games (each a GameInfo)
_GAMES: dict[str, GameInfo] = {}
_discovered = False  # whether the installed packages' games were read yet


def _games() -> dict[str, GameInfo]:
    """Every game: the package's own, and the first time asked, those installed packages declare."""
    global _discovered
    if not _discovered:
        _discovered = True
        for entry in metadata.entry_points(group=ENTRY_POINTS):
            declared = entry.load()
            if declared.name not in _GAMES:
                register(declared)
    return _GAMES


def register(info: GameInfo) -> GameInfo:
    """Declare a game; its rules preset must name it (``rules.game``). Registering a name twice is refused."""
    if info.name in _GAMES:
        raise ValueError(f"game {info.name!r} is registered already")
    if getattr(info.rules, "game", None) != info.name:
        raise ValueError(f"game {info.name!r}: its rules preset must have game={info.name!r}")
    if not info.family:
        info = dataclasses.replace(info, family=info.name)
    _GAMES[info.name] = info
    add_preset(info.rules, info.title)
    return info


def unregister(name: str) -> None:
    """Forget a game (tests register toy games for a while); its Gymnasium id stays with Gymnasium."""
    _GAMES.pop(name, None)
    remove_preset(name)


def names() -> tuple[str, ...]:
    """The registered games' names, in the order they were registered."""
    return tuple(_games())


def spelled_out() -> str:
    """The games' names as a message lists them: 'a', 'b' or 'c'."""
    quoted = [repr(name) for name in _games()]
    return " or ".join(filter(None, [", ".join(quoted[:-1]), quoted[-1]]))


def env_ids() -> dict[str, str]:
    """Gymnasium id -> game name, of every registered game that declares an id (``rummienv.envs.registration``
    registers them, ``rummienv.make_vec`` accepts them)."""
    return {entry.env_id: name for name, entry in _games().items() if entry.env_id}


def info(name: Any) -> GameInfo:
    """The registration of ``name``; a RulesError naming the games there are for anything else."""
    if isinstance(name, str) and name in _games():
        return _GAMES[name]
    raise RulesError(f"unknown game {name!r}; allowed: {sorted(_GAMES)}")


def of(game: Any) -> GameInfo:
    """The registration of a game named, or of a rules preset, a Game or a State of it."""
    if isinstance(game, str):
        return info(game)
    rules = getattr(game, "rules", game)
    return info(getattr(rules, "game", game))


def rules_of(game: Any) -> Any:
    """A game's rules from its name, its rules object, or a Game built from them; refused unless a registered
    game's. The agents ask it wherever they are handed a game in any of these forms."""
    if isinstance(game, str):
        return info(game).rules
    rules = getattr(game, "rules", game)
    of(rules)  # refuses what is not a registered game's
    return rules


def load(path: str) -> Any:
    """The object a ``"module:attribute"`` path names, its module imported now."""
    module, _, attribute = path.partition(":")
    return getattr(importlib.import_module(module), attribute)


def make_game(name: str, num_players: int = 2, rules: Any = None, whole_game: bool = False,
              whole_turns: bool = False) -> Game:
    """The Game of ``name`` at ``num_players`` seats: its preset with ``rules`` overrides (a dict, a YAML
    path or a rules object of that game), one deal or ``whole_game``, in its whole-turn action mode if asked."""
    entry = info(name)
    if not isinstance(whole_turns, bool):
        raise ValueError(f"whole_turns must be True or False, got {whole_turns!r}")
    if whole_turns and entry.whole_turns is None:
        having = [g for g in _GAMES.values() if g.whole_turns]
        families = sorted({_GAMES[g.family].title for g in having})
        raise ValueError(f"whole_turns is an action mode of the {' and '.join(families)} games "
                         f"({', '.join(g.name for g in having)}); {entry.title} has none")
    if rules is None or isinstance(rules, (dict, str, Path)):
        rules = make_rules(name, rules or None)
    elif getattr(rules, "game", None) != name:
        raise RulesError(f"rules are for game {getattr(rules, 'game', rules)!r}, not {name!r}")
    kind: type[Game] = load(entry.whole_turns if whole_turns else entry.game)
    return kind(rules, num_players, whole_game)


def load_state(position: dict[str, Any]) -> State:
    """The state of a position (the JSON of ``State.to_dict``) of any registered game."""
    if not isinstance(position, dict):
        raise PositionError(f"a position is a JSON object, got {type(position).__name__}")
    name = position.get("game")
    if not isinstance(name, str) or name not in _games():
        raise PositionError(f"position 'game' must be {spelled_out()}, got {name!r}")
    return load(_GAMES[name].load_state)(position)


register(GameInfo(
    name="rummikub", title="Rummikub", rules=RummikubRules(),
    game="rummienv.rummikub.state:RummikubGame", load_state="rummienv.rummikub.position:load_state",
    text="rummienv.rummikub.text:rummikub_text", picture="rummienv.rummikub.picture:rummikub_frame",
    display="rummienv.rummikub.display", whole_turns="rummienv.rummikub.whole_turns:WholeTurnGame",
    sample_state="rummienv.rummikub.determinize:sample_state",
    env_id="rummienv/Rummikub-v0", env="rummienv.envs.rummikub_env:RummikubEnv",
))
register(GameInfo(
    name="rummikub_cards", title="Rummikub card edition", family="rummikub",
    rules=RummikubRules(game="rummikub_cards", jokers=4, opening_threshold=40, joker_penalty=25,
                        jokers_keep_number=True, joker_swap_action=True, start="lot", timeout_rule="keep_valid",
                        timeout_draws=1, turn_seconds=120.0),
    game="rummienv.rummikub.state:RummikubGame", load_state="rummienv.rummikub.position:load_state",
    text="rummienv.rummikub.text:rummikub_text", picture="rummienv.rummikub.picture:rummikub_frame",
    display="rummienv.rummikub.display", whole_turns="rummienv.rummikub.whole_turns:WholeTurnGame",
    sample_state="rummienv.rummikub.determinize:sample_state",
    env_id="rummienv/RummikubCards-v0", env="rummienv.envs.rummikub_env:RummikubCardsEnv",
))
register(GameInfo(
    name="rummy500", title="Rummy 500", rules=Rummy500Rules(), deal="hand",
    game="rummienv.rummy500.state:Rummy500Game", load_state="rummienv.rummy500.position:load_state",
    text="rummienv.rummy500.text:rummy500_text", picture="rummienv.rummy500.picture:rummy500_frame",
    display="rummienv.rummy500.display", sample_state="rummienv.rummy500.determinize:sample_state",
    env_id="rummienv/Rummy500-v0", env="rummienv.envs.rummy500_env:Rummy500Env",
))
