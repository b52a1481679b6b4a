"""Agents by name: the baselines of each game, the shipped trained agent, checkpoints, or an agent object as it is.

The evaluator, the play command and the environments' ``opponents`` all go
through ``make_agent``, so a name means the same player everywhere.
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
from rummienv.rules import Rules, make_rules

Factory = Callable[[Rules, int | None], Agent]

_RUMMIKUB: dict[str, Factory] = {
    "random": lambda rules, seed: RandomAgent(seed),
    "greedy": lambda rules, seed: GreedyAgent(seed),
    "max_tiles": lambda rules, seed: MaxTilesAgent(rules, seed),
    "hold_back": lambda rules, seed: HoldBackAgent(rules, seed),
    "hoard": lambda rules, seed: HoardAgent(rules, seed),
}
BASELINES: dict[str, dict[str, Factory]] = {
    "rummikub": _RUMMIKUB,
    "rummikub_cards": _RUMMIKUB,
    "rummy500": {
        "random": lambda rules, seed: RandomAgent(seed),
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
        return make_rules(game)
    rules = getattr(game, "rules", game)
    if getattr(rules, "game", None) not in BASELINES:
        raise ValueError(f"game must be one of {sorted(BASELINES)}, a rules preset or a Game; got {game!r}")
    return rules


def baseline_names(game: Any) -> list[str]:
    return list(BASELINES[rules_of(game).game])


def make_agent(spec: Any, game: Any, num_players: int, seed: int | None = None) -> Agent:
    """An agent from a baseline name, a checkpoint path, or an object that already has ``act``."""
    if hasattr(spec, "act"):
        return spec
    rules = rules_of(game)
    if spec == TRAINED:
        return importlib.import_module("agents.trained").load_shipped(rules, num_players, seed)
    if isinstance(spec, Path) or isinstance(spec, str) and (
            spec.endswith(CHECKPOINT_SUFFIXES) or spec not in BASELINES[rules.game] and Path(spec).is_file()):
        return _load_checkpoint(Path(spec), rules, num_players, seed)
    if not isinstance(spec, str) or spec not in BASELINES[rules.game]:
        allowed = "; ".join(f"{g}: {', '.join(names)}" for g, names in BASELINES.items())
        raise ValueError(f"unknown agent {spec!r} for {rules.game}; baselines per game: {allowed}; "
                         f"or {TRAINED!r} (the trained agent that ships), a checkpoint path (.pt), "
                         "or an object with act(observation, action_mask)")
    return BASELINES[rules.game][spec](rules, seed)


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
