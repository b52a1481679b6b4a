"""The trained agents that ship with the project, and how a training run becomes one.

A shipped agent is a run's checkpoint cut down to what playing needs (the network
and the config it was trained with), plus how it was made: the command, the
wall-clock time and the machine. That keeps it small enough for the repository
and every number measured with it traceable to its training. It also says how it
acts: sampling its policy, as PPO trained it, or playing the most likely action,
which the Rummikub learners play better (a sampled hoarder leaves its plan a few
times a round; docs/results.md). The registry's name ``ppo`` loads the one for
the game and table size asked for; a run's agent goes beside its checkpoint, and
replaces a shipped one only when asked to (``--ship``).

    python -m agents.trained runs/rummikub_2p/checkpoint.pt --command "make train"   # runs/rummikub_2p/agent.pt
    python -m agents.trained agents/trained/rummikub_2p.pt --act most_likely --ship   # the shipped one, acting so
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

from agents.checkpoint import ACTS, act_of, load_agent, load_checkpoint, save_checkpoint
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
    """How a shipped agent was trained (command, minutes, steps, machine, date) and how it acts."""
    data = load_checkpoint(path)
    return {**data["trained"], "steps": int(data["global_step"]), "act": act_of(data, path)}


def export(checkpoint: Path, command: str | None = None, out: Path | None = None, act: str | None = None,
           ship: bool = False) -> Path:
    """Write the playing form of ``checkpoint`` and return where it went.

    ``checkpoint`` is a run's (then ``command``, the command that trained it, is required) or an agent file
    made before, which keeps its own facts: so a shipped agent can be told to act otherwise without its
    training's record changing. The agent goes to ``out`` (default: ``agent.pt`` beside the checkpoint) or,
    with ``ship``, to where the name ``ppo`` finds it; a shipped agent is never replaced without ``ship``.
    """
    data = load_checkpoint(checkpoint)
    steps = int(data["global_step"])
    if "trained" in data:
        if command is not None:
            raise ValueError(f"{str(checkpoint)!r} is an agent file: it keeps the command it was trained with "
                             f"({data['trained']['command']!r}); leave out the command")
        facts = data["trained"]
    elif command is None:
        raise ValueError(f"{str(checkpoint)!r} is a run's checkpoint: give the command that trained it")
    else:
        facts, steps = with_start(made_by(command, float(data.get("wall_seconds", 0.0))), steps,
                                  data["config"].get("init_from"))
    act = act_of(data, checkpoint) if act is None else act
    if act not in ACTS:
        raise ValueError(f"act {act!r} is not a way of acting; allowed: {', '.join(ACTS)}")
    config = data["config"]
    target = Path(out or checkpoint.with_name("agent.pt"))
    if ship:
        target = shipped_path(config["game"], int(config["num_players"]))
    elif target.resolve().parent == TRAINED_DIR.resolve():
        raise ValueError(f"{str(target)!r} is in the shipped agents' folder; only --ship (ship=True) writes there")
    save_checkpoint(target, {"config": config, "model": data["model"], "model_shape": data["model_shape"],
                             "global_step": steps, "act": act, "trained": facts})
    return target


def made_by(command: str, seconds: float) -> dict[str, Any]:
    """How an agent file was made, kept with its weights: the command, its minutes, the machine, the date."""
    return {"command": command, "minutes": round(seconds / 60.0, 1),
            "machine": f"{platform.machine()}, {os.cpu_count()} cores, torch {torch.__version__}",
            "date": datetime.date.today().isoformat()}


def with_start(facts: dict[str, Any], steps: int, start: str | None) -> tuple[dict[str, Any], int]:
    """A run started from a trained network (``init_from``) with that network's training added: minutes and
    steps summed, commands in order, so that an agent says all it took to make. Where the file is gone, the
    run's own facts, its config still naming the file."""
    if not start or not Path(start).is_file():
        return facts, steps
    base = load_checkpoint(start)
    earlier = base.get("trained") or {"command": f"the run of {start}",
                                      "minutes": round(float(base.get("wall_seconds", 0.0)) / 60.0, 1)}
    return ({**facts, "command": f"{earlier['command']}; then {facts['command']}",
             "minutes": round(float(earlier["minutes"]) + facts["minutes"], 1)}, steps + int(base["global_step"]))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agents.trained", description=__doc__.split("\n\n")[0])
    parser.add_argument("checkpoint", type=Path, help="a training run's checkpoint.pt, or an agent file made before")
    parser.add_argument("--command", help="the command that trained it, kept with the agent (a run's checkpoint)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--out", type=Path, help="where to write the agent (default: agent.pt beside the checkpoint)")
    where.add_argument("--ship", action="store_true",
                       help="write it where the name 'ppo' finds it, replacing the agent that ships")
    parser.add_argument("--act", choices=ACTS,
                        help="sample from the policy, as trained, or play its most likely action (default: "
                             "as the source file does; a run's checkpoint, as its config's act)")
    args = parser.parse_args(argv)
    try:
        target = export(args.checkpoint, args.command, args.out, args.act, args.ship)
    except ValueError as exc:
        parser.error(str(exc))
    use = "the agent name 'ppo'" if args.ship else f"--agents {target}"
    print(f"{target} ({target.stat().st_size // 1024} KiB, acts: {load_checkpoint(target)['act']}): play it with {use}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
