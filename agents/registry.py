"""Agents by name: the baselines of each game, the shipped trained agent, checkpoints, or an agent object as it is.

The evaluator, the play command and the environments' ``opponents`` all go
through ``make_agent`` (the env layer finds it as the ``rummienv.agents`` entry
point), so a name means the same player everywhere. Baselines are kept per game
family (``rummienv.games``): the card edition plays Rummikub's.
"""

from __future__ import annotations

import importlib
import inspect
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agents.base import Agent
from agents.random_agent import RandomAgent
from agents.rummikub_bots import GreedyAgent, HoardAgent, HoldBackAgent, MaxTilesAgent
from agents.rummikub_expert import ExpertAgent
from agents.rummy500_bots import GreedyAgent as Rummy500Greedy
from agents.rummy500_bots import ValueAgent
from agents.rummy500_expert import ExpertAgent as Rummy500Expert
from rummienv import games
from rummienv.games import rules_of
from rummienv.rules import Rules

Factory = Callable[[Rules, int | None], Agent]
LEARNER = "learner"  # among a learner's opponents: the learner itself

_ANY_GAME: dict[str, Factory] = {"random": lambda rules, seed: RandomAgent(seed)}  # every game's
_RUMMIKUB: dict[str, Factory] = {
    **_ANY_GAME,
    "greedy": lambda rules, seed: GreedyAgent(seed),
    "max_tiles": lambda rules, seed: MaxTilesAgent(rules, seed),
    "hold_back": lambda rules, seed: HoldBackAgent(rules, seed),
    "hoard": lambda rules, seed: HoardAgent(rules, seed),
    "expert": lambda rules, seed: ExpertAgent(rules, seed),
}
BASELINES: dict[str, dict[str, Factory]] = {  # by game family
    "rummikub": _RUMMIKUB,
    "rummy500": {
        **_ANY_GAME,
        "greedy": lambda rules, seed: Rummy500Greedy(seed),
        "value": lambda rules, seed: ValueAgent(seed),
        "value_hold": lambda rules, seed: ValueAgent(seed, hold=True),
        "expert": lambda rules, seed: Rummy500Expert(rules, seed),
    },
}
SEARCH = ("expert",)  # look-ahead players: a decision costs hundreds of playouts, too dear for training pools
CHECKPOINT_SUFFIXES = (".pt", ".pth")
TRAINED = "ppo"  # the trained agent that ships for the game and table size (agents.trained)


def baselines(game: Any) -> dict[str, Factory]:
    """The baselines of a game named, or of its rules or Game: its family's, and "random" for any game."""
    family = games.of(game).family
    return BASELINES.get(family, _ANY_GAME)


def register_baselines(family: str, factories: dict[str, Factory]) -> None:
    """Give a game family (``GameInfo.family``) its baselines: name -> ``factory(rules, seed)``."""
    BASELINES[family] = dict(factories)


def baseline_names(game: Any) -> list[str]:
    return list(baselines(game))


def bot_names(game: Any) -> list[str]:
    """The baselines that decide by rule, not search: cheap enough to fill training pools and big tables."""
    return [name for name in baselines(game) if name not in SEARCH]


def teacher_names(game: Any, num_players: int) -> list[str]:
    """The baselines that score every legal action (their ``values``), so can judge a learner's choices."""
    return [name for name in baselines(game) if hasattr(make_agent(name, game, num_players, 0), "values")]


def check_teacher(game: Any, num_players: int, teacher: str, whole_turns: bool) -> None:
    """Refuse, with a ValueError naming what is allowed, a teacher that cannot judge this game's learner: one
    without values, or one judging another action mode than the learner's (``whole_turns``)."""
    judge = make_agent(teacher, game, num_players, 0)
    if not hasattr(judge, "values"):
        raise ValueError(f"teacher {teacher!r} does not score actions; teachers that do: "
                         f"{', '.join(teacher_names(game, num_players)) or 'none for this game'}")
    judges_whole = getattr(judge, "values_whole_turns", False)
    if whole_turns != judges_whole:
        plays = "whole turns" if whole_turns else "piece by piece"
        judges = "whole turns" if judges_whole else "the moves of a turn one by one"
        raise ValueError(f"the learner plays {plays}, but teacher {teacher!r} judges {judges}")


def make_agent(spec: Any, game: Any, num_players: int, seed: int | None = None) -> Agent:
    """An agent from a baseline name, ``ppo``, a checkpoint path, an importable ``module:Class``, or an object that
    already has ``act``; anything else is a one-line ValueError naming what is allowed (``allowed_agents``)."""
    if hasattr(spec, "act"):
        return spec
    rules = rules_of(game)
    named = baselines(rules)
    if spec == TRAINED:
        return importlib.import_module("agents.trained").load_shipped(rules, num_players, seed)
    if isinstance(spec, str) and spec.startswith(CHAT_PREFIX):
        return _chat_agent(spec, rules, num_players, seed)
    if is_checkpoint(spec, named):
        return _load_checkpoint(Path(spec), rules, num_players, seed)
    if isinstance(spec, str) and CLASS_SPEC.fullmatch(spec):
        return _build_class(spec, rules, seed)
    if not isinstance(spec, str) or spec not in named:
        raise ValueError(f"unknown agent {spec!r} for {rules.game}; {allowed_agents()}")
    return named[spec](rules, seed)


CHAT_PREFIX = "llm:"  # a chat model behind an OpenAI-compatible endpoint (agents.chat_agent)


def _chat_agent(spec: str, rules: Rules, num_players: int, seed: int | None) -> Agent:
    """A chat model's agent, its endpoint checked now; imported only when asked for, as it needs ``openai``."""
    chat = importlib.import_module("agents.chat_agent")
    settings = chat.parse_spec(spec)
    fallback = None if settings.fallback == chat.DRAW else make_agent(settings.fallback, rules, num_players, seed)
    game = games.make_game(rules.game, num_players, rules=rules)
    return chat.ChatAgent(settings, game, chat.make_client(settings, spec), fallback, seed)


CLASS_SPEC = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*")  # module:Class, e.g. agents.random_agent:RandomAgent


def allowed_agents() -> str:
    """What ``make_agent`` accepts, in words, for the errors that refuse a spec."""
    per_game = "; ".join(f"{g}: {', '.join(baselines(g))}" for g in games.names())
    return (f"baselines per game: {per_game}; or {TRAINED!r} (the trained agent that ships), a chat model "
            f"({CHAT_PREFIX}MODEL@URL or {CHAT_PREFIX}FILE.yaml), a checkpoint path "
            f"({', '.join(CHECKPOINT_SUFFIXES)}), an importable module:Class of an agent (built as Class(rules, seed) "
            "or Class(), with act(observation, action_mask)), or an object with act(observation, action_mask)")


def is_checkpoint(spec: Any, named: dict[str, Factory]) -> bool:
    """Whether ``make_agent`` reads ``spec`` as a checkpoint file: a path, a name with a checkpoint's suffix, or a
    file that exists and is not a baseline's name."""
    return isinstance(spec, Path) or isinstance(spec, str) and (
        spec.endswith(CHECKPOINT_SUFFIXES) or spec not in named and Path(spec).is_file())


def checkpoint_file(spec: Any, game: Any, num_players: int) -> Path | None:
    """The file a spec's network comes from (``ppo``: the one that ships), or None: what a record of results
    made with the agent must name by content, since the same path may hold another network later."""
    rules = rules_of(game)
    if spec == TRAINED:
        return importlib.import_module("agents.trained").shipped_path(rules.game, num_players)
    return Path(spec) if is_checkpoint(spec, baselines(rules)) else None


def _build_class(spec: str, rules: Rules, seed: int | None) -> Agent:
    """``module:Class`` as ``Class(rules, seed)`` where its signature takes those, else ``Class()`` reseeded from
    ``seed`` where it can be; refused unless the result has ``act``."""
    module_name, _, attribute = spec.partition(":")
    try:
        target: Any = importlib.import_module(module_name)
    except Exception as exc:  # a user's module may fail to import in any way; say so on one line
        raise ValueError(f"agent {spec!r}: module {module_name!r} cannot be imported ({type(exc).__name__}: {exc}); "
                         f"{allowed_agents()}") from None
    for part in attribute.split("."):
        target = getattr(target, part, None)
    if not callable(target):
        raise ValueError(f"agent {spec!r}: module {module_name!r} has no class {attribute!r}; {allowed_agents()}")
    try:
        inspect.signature(target).bind(rules, seed)
        arguments: tuple[Any, ...] = (rules, seed)
    except (TypeError, ValueError):  # it takes other arguments, or has no signature to read
        arguments = ()
    try:
        agent = target(*arguments)
    except Exception as exc:  # the user's constructor; its failure is one line here
        raise ValueError(f"agent {spec!r}: {attribute}({'rules, seed' if arguments else ''}) failed "
                         f"({type(exc).__name__}: {exc}); {allowed_agents()}") from None
    if not callable(getattr(agent, "act", None)):
        raise ValueError(f"agent {spec!r} is not an agent: {attribute} has no act(observation, action_mask) method; "
                         f"{allowed_agents()}")
    if not arguments and seed is not None and callable(getattr(agent, "reseed", None)):
        agent.reseed(seed)
    return agent


def _load_checkpoint(path: Path, rules: Rules, num_players: int, seed: int | None) -> Agent:
    """Hand the file to the trained-agent loader, imported only when a checkpoint is asked for; a file it refuses
    is one line that also says what else is allowed."""
    try:
        loader = importlib.import_module("agents.checkpoint")
    except ModuleNotFoundError as exc:
        if exc.name != "agents.checkpoint":
            raise
        raise ValueError(f"checkpoint {str(path)!r}: loading trained agents is not available until "
                         "trained agents land (agents.checkpoint)") from None
    try:
        return loader.load_agent(path, rules, num_players, seed=seed)
    except ValueError as exc:
        raise type(exc)(f"{exc}; {allowed_agents()}") from None
