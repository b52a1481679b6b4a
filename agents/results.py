"""The README's results table, made again from the shipped trained agents by one command.

Each shipped agent (``agents.trained``) plays duplicate deals against the game's
strong baselines (all but ``random`` and ``greedy``) at a two-seat table, or at a
full table with baselines in the other seats, where the rating decides. The table
leads with what the rules decide a game by (T11, K10, F12): the mean score per
round and the win rate in whole games; the share of single rounds won follows.
The seed is fixed and was not used while the agents were developed, so the table
is the same wherever it is made, on however many worker processes (``--workers``),
and is no tuned figure.

Every row rests on as many games of the trained agent: ``--deals`` counts a two-seat
line-up's deals, each played in both seating orders, and a four-seat table, whose
deal is played in all 24 seating orders, plays a twelfth as many deals (167 of the
default 2,000: 4,008 games). Played in full, the four-seat table cost as much as
every two-seat row together, and told no more of each agent.

    python -m agents.results --deals 2000
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from agents import deal_pool
from agents.evaluate import ROUND, WHOLE_GAME, Progress, add_workers, evaluate, interrupted, lineups, whole_number
from agents.registry import TRAINED, bot_names
from agents.stats import MARGIN_METHOD
from agents.trained import shipped, shipped_path, training_facts

RESULTS_SEED = 424242
WEAK = ("random", "greedy")


def matches(game: str, num_players: int) -> list[list[str]]:
    """The line-ups a shipped agent is measured in: one per strong baseline at two seats, else one full table
    of the baselines, strongest last, filling the other seats."""
    names = bot_names(game)  # the expert is measured on the ladder (agents.ladder): thousands of deals would take hours
    strong = [name for name in names if name not in WEAK]
    if num_players == 2:
        return [[TRAINED, name] for name in strong]
    others = [name for name in names if name != "random"][-(num_players - 1):]
    return [[TRAINED, *others]]


def table_size(stem: str) -> tuple[str, int]:
    """A shipped agent's game and seats: ``rummikub_2p`` is Rummikub at two."""
    game, players = stem.rsplit("_", 1)
    return game, int(players.rstrip("p"))


def row_deals(deals: int, players: int) -> int:
    """The deals a line-up of ``players`` seats plays for ``deals`` two-seat deals: as many games of the trained
    agent (rounded up), since a deal is played once per seating order (``lineups``)."""
    seatings = len(lineups(players, players))
    return -(-deals * len(lineups(2, 2)) // seatings)


def games_to_play(stems: Sequence[str], deals: int, whole_games: int) -> dict[str, int]:
    """The rounds and whole games ``measure`` plays for ``stems``: each of a row's deals once per seating order."""
    rows = [players for game, players in map(table_size, stems) for _ in matches(game, players)]
    return {kind: sum(row_deals(count, players) * len(lineups(players, players)) for players in rows)
            for kind, count in ((ROUND, deals), (WHOLE_GAME, whole_games))}


def measure(stem: str, deals: int, progress: bool | Progress, whole_games: int | None = None,
            workers: int = 1) -> list[dict[str, Any]]:
    """One row per line-up for the shipped agent ``stem`` (``rummikub_2p``): ``deals`` two-seat deals of one round
    and ``whole_games`` (default: as many) of whole games (``row_deals``), played by ``workers`` processes."""
    game, num_players = table_size(stem)
    facts = training_facts(shipped_path(game, num_players))
    deals, whole_games = row_deals(deals, num_players), row_deals(deals if whole_games is None else whole_games,
                                                                  num_players)
    rows = []
    for lineup in matches(game, num_players):
        report = evaluate(game, lineup, num_players, deals, RESULTS_SEED, progress=progress, matches=whole_games,
                          workers=workers)
        mine = report["agents"][TRAINED]
        whole = report["matches"]["agents"][TRAINED] if "matches" in report else {}
        rated = report["rating"]["agents"]
        rank = None
        if len(rated) > 2:
            order = sorted(rated, key=lambda a: -rated[a]["margin"])
            rank = f"{order.index(TRAINED) + 1} of {len(order)}"
        rows.append({"agent": stem, "against": ", ".join(lineup[1:]), "deals": deals,
                     "mean_score": mine["mean_score"], "score_ci": mine["score_ci"],
                     "matches": whole.get("games", 0), "match_win_rate": whole.get("win_rate"),
                     "match_win_ci": whole.get("win_ci"), "win_rate": mine["win_rate"], "win_ci": mine["win_ci"],
                     "margin": rated[TRAINED]["margin"], "rank": rank, **facts})
    return rows


def markdown(rows: list[dict[str, Any]]) -> str:
    """Two tables: the results, then how each agent was trained."""
    lines = [f"Duplicate deals, seed {RESULTS_SEED}; 95% intervals; win rates even at 1 / players. Rank: by the "
             f"{MARGIN_METHOD}.", "",
             "| agent | against | deals | mean score per round | 95% interval | whole games | match win rate | "
             "95% interval | round win rate | 95% interval | margin | rank |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        match = "[{:.3f}, {:.3f}]".format(*row["match_win_ci"]) if row["matches"] else "-"
        lines.append(f"| {row['agent']} | {row['against']} | {row['deals']:,} | {row['mean_score']:+.2f} | "
                     "[{:+.2f}, {:+.2f}] | ".format(*row["score_ci"]) + f"{row['matches']:,} | "
                     + (f"{row['match_win_rate']:.3f}" if row["matches"] else "-") + f" | {match} | "
                     f"{row['win_rate']:.3f} | " + "[{:.3f}, {:.3f}]".format(*row["win_ci"])
                     + f" | {row['margin']:+.2f} | {row['rank'] or '-'} |")
    lines += ["", "| agent | trained | steps | machine | date | command | acts |", "|---|---|---|---|---|---|---|"]
    for row in {row["agent"]: row for row in rows}.values():
        lines.append(f"| {row['agent']} | {row['minutes']:.0f} min | {row['steps']:,} | {row['machine']} | "
                     f"{row['date']} | `{row['command']}` | {row['act'].replace('_', ' ')} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agents.results", description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=whole_number(1), default=2000,
                        help="duplicate deals of one round per two-seat line-up (default: 2000), each played in "
                             "both seating orders; a four-seat table plays a twelfth as many, each in its 24 orders")
    parser.add_argument("--matches", type=whole_number(0),
                        help="duplicate deals of whole games per two-seat line-up, as --deals (default: --deals)")
    parser.add_argument("--agents", nargs="+", choices=shipped(), default=shipped(),
                        help="shipped agents to measure (default: all)")
    add_workers(parser)
    parser.add_argument("--no-progress", action="store_true", help="no progress bar and no time estimate")
    args = parser.parse_args(argv)
    whole_games = args.deals if args.matches is None else args.matches
    try:
        with Progress("results", games_to_play(args.agents, args.deals, whole_games),
                      deal_pool.processes(args.workers, args.deals + whole_games), enabled=not args.no_progress) as bar:
            rows = [row for stem in args.agents for row in measure(stem, args.deals, bar, whole_games, args.workers)]
    except KeyboardInterrupt:
        return interrupted(f"nothing was saved; the same command gives the same table when run again (its seed, "
                           f"{RESULTS_SEED}, is fixed)")
    print(markdown(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
