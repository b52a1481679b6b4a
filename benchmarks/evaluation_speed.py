"""What a game costs in evaluation, per line-up: the shipped learner against bots, beside bots alone.

    python benchmarks/evaluation_speed.py [--game rummikub] [--players 2] [--deals 40] [--repeats 3]
                                          [--lineups "ppo hoard" "hoard max_tiles"] [--json out.json]

Each line-up plays the same ``--deals`` duplicate deals of one round (every seating order) through
``agents.evaluate.evaluate`` in this process, on one torch thread as each of the evaluator's workers plays;
the line-ups take turns ``--repeats`` times, so that load from other processes falls on all alike. Agents
are made before the clock starts (a network's file loads once a run). It prints each line-up's
milliseconds per game (the best repeat, by wall clock and by this process's CPU time, which is what a core
of its own would give on a busy machine) and each one's ratio to the last line-up's, as one JSON line.
The issue's target reads: ``ppo hoard`` at most twice ``hoard max_tiles``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import torch
from json_lines import emit

from agents.evaluate import evaluate
from rummienv import games


def play(game: str, lineup: list[str], players: int, deals: int) -> tuple[float, float, int]:
    """Wall and CPU seconds of one evaluation of ``lineup``, and the games it played."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = evaluate(game, lineup, players, deals, seed=0, progress=False, resamples=10)
    return time.perf_counter() - wall, time.process_time() - cpu, len(result["games"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="rummikub", choices=games.names())
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--deals", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--lineups", nargs="+", default=["ppo hoard", "hoard max_tiles"],
                        help="line-ups, each a quoted list of agent names; ratios are to the last one")
    parser.add_argument("--json", type=Path, help="also write the JSON line here")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    lineups = [text.split() for text in args.lineups]
    for lineup in lineups:  # first calls: compiled kernels, network files, imports
        play(args.game, lineup, args.players, 1)
    best: dict[str, dict[str, float]] = {}
    for _ in range(args.repeats):
        for lineup in lineups:
            wall, cpu, played = play(args.game, lineup, args.players, args.deals)
            row = best.setdefault(" ".join(lineup), {"wall_ms": float("inf"), "cpu_ms": float("inf")})
            row["wall_ms"] = min(row["wall_ms"], 1000 * wall / played)
            row["cpu_ms"] = min(row["cpu_ms"], 1000 * cpu / played)
    base = best[" ".join(lineups[-1])]
    for name, row in best.items():
        row["wall_ratio"] = round(row["wall_ms"] / base["wall_ms"], 2)
        row["cpu_ratio"] = round(row["cpu_ms"] / base["cpu_ms"], 2)
        row["wall_ms"], row["cpu_ms"] = round(row["wall_ms"], 1), round(row["cpu_ms"], 1)
        print(f"{name:>24}: {row['wall_ms']:7.1f} ms a game ({row['wall_ratio']:.2f}x), "
              f"CPU {row['cpu_ms']:7.1f} ms ({row['cpu_ratio']:.2f}x)", file=sys.stderr)
    emit({"benchmark": "evaluation_speed", "game": args.game, "players": args.players, "deals": args.deals,
          "repeats": args.repeats, "lineups": best}, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
