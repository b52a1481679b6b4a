"""The trained agents that ship with the project, and how a training run becomes one.

A shipped agent is a run's checkpoint cut down to what playing needs (the network
and the config it was trained with), plus how it was made: the command, the
wall-clock time and the machine. That keeps it small enough for the repository
and every number measured with it traceable to its training. The registry's name
``ppo`` loads the one for the game and table size asked for.

    python -m agents.trained runs/rummikub_2p/checkpoint.pt --command "make train"
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch

from agents.checkpoint import load_agent, load_checkpoint, save_checkpoint
from rummienv.rules import Rules

TRAINED_DIR = Path(__file__).parent / "trained"


def shipped_path(game: str, num_players: int) -> Path:
    return TRAINED_DIR / f"{game}_{num_players}p.pt"


def shipped() -> list[str]:
    """The game and table sizes a trained agent ships for, as file stems (``rummikub_2p``)."""
    return sorted(path.stem for path in TRAINED_DIR.glob("*.pt"))


def load_shipped(rules: Rules, num_players: int, seed: int | None) -> Any:
    """The shipped agent for this game and table size, or a ValueError naming the ones that ship."""
    path = shipped_path(rules.game, num_players)
    if not path.is_file():
        raise ValueError(f"no trained agent ships for {rules.game} with {num_players} players; "
                         f"trained agents ship for: {', '.join(shipped()) or 'none'}")
    agent = load_agent(path, rules, num_players, seed=seed)
    agent.name = "ppo"
    return agent


def training_facts(path: Path) -> dict[str, Any]:
    """How a shipped agent was trained: command, minutes, steps, machine, date."""
    data = load_checkpoint(path)
    return {**data["trained"], "steps": int(data["global_step"])}


def export(checkpoint: Path, command: str) -> Path:
    """Write the shipped form of a run's checkpoint to where ``ppo`` finds it; returns that path."""
    data = load_checkpoint(checkpoint)
    config = data["config"]
    target = shipped_path(config["game"], int(config["num_players"]))
    save_checkpoint(target, {
        "config": config, "model": data["model"], "model_shape": data["model_shape"],
        "global_step": data["global_step"],
        "trained": {"command": command, "minutes": round(float(data.get("wall_seconds", 0.0)) / 60.0, 1),
                    "machine": f"{platform.machine()}, {os.cpu_count()} cores, torch {torch.__version__}",
                    "date": datetime.date.today().isoformat()},
    })
    return target


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agents.trained", description=__doc__.split("\n\n")[0])
    parser.add_argument("checkpoint", type=Path, help="a training run's checkpoint.pt")
    parser.add_argument("--command", required=True, help="the command that trained it, kept with the agent")
    args = parser.parse_args(argv)
    target = export(args.checkpoint, args.command)
    print(f"{target} ({target.stat().st_size // 1024} KiB): loaded by the agent name 'ppo'")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
