"""Agents by name: the baselines of each game, the shipped trained agent, checkpoints, or an agent object as it is.

The evaluator, the play command and the environments' ``opponents`` all go
through ``make_agent`` (the env layer finds it as the ``rummienv.agents`` entry
point), so a name means the same player everywhere. Baselines are kept per game
family (``rummienv.games``): the card edition plays Rummikub's.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agents.base import Agent
from agents.random_agent import RandomAgent
from agents.rummikub_bots import GreedyAgent, HoardAgent, HoldBackAgent, MaxTilesAgent
from agents.rummy500_bots import GreedyAgent as Rummy500Greedy
from agents.rummy500_bots import ValueAgent
from rummienv import games
from rummienv.rules import Rules

Factory = Callable[[Rules, int | None], Agent]

_ANY_GAME: dict[str, Factory] = {"random": lambda rules, seed: RandomAgent(seed)}  # every game's
_RUMMIKUB: dict[str, Factory] = {
    **_ANY_GAME,
    "greedy": lambda rules, seed: GreedyAgent(seed),
    "max_tiles": lambda rules, seed: MaxTilesAgent(rules, seed),
    "hold_back": lambda rules, seed: HoldBackAgent(rules, seed),
    "hoard": lambda rules, seed: HoardAgent(rules, seed),
}
BASELINES: dict[str, dict[str, Factory]] = {  # by game family
    "rummikub": _RUMMIKUB,
    "rummy500": {
        **_ANY_GAME,
        "greedy": lambda rules, seed: Rummy500Greedy(seed),
        "value": lambda rules, seed: ValueAgent(seed),
        "value_hold": lambda rules, seed: ValueAgent(seed, hold=True),
    },
}
CHECKPOINT_SUFFIXES = (".pt", ".pth")
TRAINED = "ppo"  # the trained agent that ships for the game and table size (agents.trained)


def rules_of(game: Any) -> Rules:
    """A game's rules from its name, its rules object, or a Game built from them."""
    if isinstance(game, str):
        return games.make_rules(game)
    rules = getattr(game, "rules", game)
    games.of(rules)  # refuses what is not a registered game's
    return rules


def baselines(game: Any) -> dict[str, Factory]:
    """The baselines of a game named, or of its rules or Game: its family's, and "random" for any game."""
    family = games.of(game).family
    return BASELINES.get(family, _ANY_GAME)


def register_baselines(family: str, factories: dict[str, Factory]) -> None:
    """Give a game family (``GameInfo.family``) its baselines: name -> ``factory(rules, seed)``."""
    BASELINES[family] = dict(factories)


def baseline_names(game: Any) -> list[str]:
    return list(baselines(game))


def make_agent(spec: Any, game: Any, num_players: int, seed: int | None = None) -> Agent:
    """An agent from a baseline name, a checkpoint path, or an object that already has ``act``."""
    if hasattr(spec, "act"):
        return spec
    rules = rules_of(game)
    named = baselines(rules)
    if spec == TRAINED:
        return importlib.import_module("agents.trained").load_shipped(rules, num_players, seed)
    if isinstance(spec, Path) or isinstance(spec, str) and (
            spec.endswith(CHECKPOINT_SUFFIXES) or spec not in named and Path(spec).is_file()):
        return _load_checkpoint(Path(spec), rules, num_players, seed)
    if not isinstance(spec, str) or spec not in named:
        allowed = "; ".join(f"{g}: {', '.join(baselines(g))}" for g in games.names())
        raise ValueError(f"unknown agent {spec!r} for {rules.game}; baselines per game: {allowed}; "
                         f"or {TRAINED!r} (the trained agent that ships), a checkpoint path (.pt), "
                         "or an object with act(observation, action_mask)")
    return named[spec](rules, seed)


def _load_checkpoint(path: Path, rules: Rules, num_players: int, seed: int | None) -> Agent:
    """Hand the file to the trained-agent loader, imported only when a checkpoint is asked for."""
    try:
        loader = importlib.import_module("agents.checkpoint")
    except ModuleNotFoundError as exc:
        if exc.name != "agents.checkpoint":
            raise
        raise ValueError(f"checkpoint {str(path)!r}: loading trained agents is not available until "
                         "trained agents land (agents.checkpoint)") from None
    return loader.load_agent(path, rules, num_players, seed=seed)
