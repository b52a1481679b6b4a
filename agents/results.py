"""The README's results table, made again from the shipped trained agents by one command.

Each shipped agent (``agents.trained``) plays duplicate deals against the game's
strong baselines (all but ``random`` and ``greedy``) at a two-seat table, or at a
full table with baselines in the other seats, where the rating decides. The seed
is fixed and was not used while the agents were developed, so the table is the
same wherever it is made and is no tuned figure.

    python -m agents.results --deals 2000
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from agents.evaluate import evaluate, whole_number
from agents.registry import TRAINED, baseline_names
from agents.trained import shipped, shipped_path, training_facts

RESULTS_SEED = 424242
WEAK = ("random", "greedy")


def matches(game: str, num_players: int) -> list[list[str]]:
    """The line-ups a shipped agent is measured in: one per strong baseline at two seats, else one full table
    of the baselines, strongest last, filling the other seats."""
    names = baseline_names(game)
    strong = [name for name in names if name not in WEAK]
    if num_players == 2:
        return [[TRAINED, name] for name in strong]
    others = [name for name in names if name != "random"][-(num_players - 1):]
    return [[TRAINED, *others]]


def measure(stem: str, deals: int, progress: bool) -> list[dict[str, Any]]:
    """One row per line-up for the shipped agent ``stem`` (``rummikub_2p``)."""
    game, players = stem.rsplit("_", 1)
    num_players = int(players.rstrip("p"))
    facts = training_facts(shipped_path(game, num_players))
    rows = []
    for lineup in matches(game, num_players):
        report = evaluate(game, lineup, num_players, deals, RESULTS_SEED, progress=progress)
        mine = report["agents"][TRAINED]
        rank = None
        if "rating" in report:
            order = sorted(report["rating"]["agents"], key=lambda a: -report["rating"]["agents"][a]["elo"])
            rank = f"{order.index(TRAINED) + 1} of {len(order)}"
        rows.append({"agent": stem, "against": ", ".join(lineup[1:]), "deals": deals, "win_rate": mine["win_rate"],
                     "win_ci": mine["win_ci"], "rank": rank, **facts})
    return rows


def markdown(rows: list[dict[str, Any]]) -> str:
    """Two tables: the results, then how each agent was trained."""
    lines = [f"Duplicate deals, seed {RESULTS_SEED}; win rate with its 95% interval (even: 1 / players).", "",
             "| agent | against | deals | win rate | 95% interval | Elo rank |", "|---|---|---|---|---|---|"]
    for row in rows:
        lo, hi = row["win_ci"]
        lines.append(f"| {row['agent']} | {row['against']} | {row['deals']:,} | {row['win_rate']:.3f} | "
                     f"[{lo:.3f}, {hi:.3f}] | {row['rank'] or '-'} |")
    lines += ["", "| agent | trained | steps | machine | date | command |", "|---|---|---|---|---|---|"]
    for row in {row["agent"]: row for row in rows}.values():
        lines.append(f"| {row['agent']} | {row['minutes']:.0f} min | {row['steps']:,} | {row['machine']} | "
                     f"{row['date']} | `{row['command']}` |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agents.results", description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=whole_number(1), default=2000, help="duplicate deals per line-up")
    parser.add_argument("--agents", nargs="+", choices=shipped(), default=shipped(),
                        help="shipped agents to measure (default: all)")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    rows = [row for stem in args.agents for row in measure(stem, args.deals, not args.no_progress)]
    print(markdown(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
