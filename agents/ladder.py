"""The ladder: every agent of a game against the others on the same duplicate deals, rated by the rules' measure.

The agents are the game's baselines and the trained ``ppo`` where one ships for the table size; ``--add``
lets a checkpoint or an importable ``module:Class`` join. At two seats every pairing plays; at more, every
table of that many distinct agents (``evaluate.lineups``). Each table plays the same deals in every seating order,
as single rounds and as whole games (T11, K10, F12), and the table of results (``agents.evaluate.summarise``)
is rated by the expected lead in points per round (``stats.margin_ratings``), with whole-game win rates
head to head.

The work is split into units of (table, rounds or whole games, deal), dealt to worker processes
(``agents.deal_pool``) deal by deal, so an expensive agent's games spread over every worker. A unit's deal
comes from (seed, deal) and its agents, made afresh, from (seed, table, deal, seat), never from the order the
processes ran in: any number of workers gives the same results. Finished units are kept
(``agents.ladder_cache``), so adding an agent plays only its tables, and more deals only the new deals.

    python -m agents.ladder --game rummy500 --players 2 --deals 20
    python -m agents.ladder --game rummikub --agents max_tiles hoard --add my_bots:Clever --add runs/x/checkpoint.pt
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import shlex
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np

from agents import deal_pool
from agents.evaluate import (
    ROUND,
    WHOLE_GAME,
    Progress,
    add_workers,
    agent_seed,
    check_output,
    deal_seeds,
    engine,
    interrupted,
    lineups,
    play_lineups,
    plural,
    summarise,
    whole_number,
)
from agents.ladder_cache import Cache, identity
from agents.ladder_report import chart, markdown
from agents.registry import TRAINED, baseline_names, make_agent
from rummienv import games
from rummienv.rules import Rules, make_rules


@dataclass(frozen=True)
class Unit:
    """One deal of one table: ``table`` holds the agents' specs in the seats of its first lineup."""

    table: tuple[str, ...]
    whole_game: bool
    deal: int


@dataclass(frozen=True)
class Job:
    """A unit with what a worker process needs to play it."""

    rules: Rules
    players: int
    seed: int
    unit: Unit


def entrants(game: str, players: int) -> list[str]:
    """The registered agents: the game's baselines, and ``ppo`` where one ships for this game and table size."""
    from agents.trained import shipped_path  # imports torch: only where the ladder is asked for its agents

    return baseline_names(game) + ([TRAINED] if shipped_path(game, players).is_file() else [])


def plan(specs: Sequence[str], players: int, deals: int, matches: int) -> list[Unit]:
    """Every unit, deal after deal over all tables, so that workers taking them in order share each table's work."""
    tables = list(combinations(specs, players))
    return [Unit(table, whole_game, deal) for whole_game, count in ((False, deals), (True, matches))
            for deal in range(count) for table in tables]


def unit_seed(seed: int, unit: Unit) -> list[int]:
    """Entropy for a unit's agents: the seed, rounds or whole games, the deal and the table's specs."""
    digest = hashlib.sha256("\n".join(unit.table).encode()).digest()
    return [seed, int(unit.whole_game), unit.deal, *np.frombuffer(digest, dtype=np.uint32).tolist()]


def play_unit(job: Job) -> tuple[list[dict[str, Any]], float]:
    """The unit's games, every lineup of its table, its agents made afresh from the unit's seed; and the seconds
    they took in the worker (for the estimate, free of the pool's start)."""
    started = time.perf_counter()
    unit = job.unit
    entropy = unit_seed(job.seed, unit)

    def seat_agent(index: int, seat: int) -> Any:
        return make_agent(unit.table[index], job.rules, job.players, seed=agent_seed(*entropy, index, seat))

    deal_seed = deal_seeds(job.seed, unit.deal + 1, unit.whole_game)[unit.deal]
    records = list(play_lineups(engine(job.rules, job.players, unit.whole_game), lineups(job.players, job.players),
                                seat_agent, unit.table, unit.deal, deal_seed))
    return records, time.perf_counter() - started


def ladder(game: str, specs: Sequence[str], players: int, deals: int, matches: int, seed: int, out: Path, *,
           rules: dict[str, Any] | str | None = None, workers: int = 1, progress: bool = False) -> dict[str, Any]:
    """Play what the cache in ``out`` lacks, and the ladder's result: ``summarise`` of every game, with each
    agent's identity and what this run played (``run``).

    ``specs``: names, checkpoint paths or ``module:Class``; a ValueError for any that is no agent. They are
    taken in sorted order, so the order they are named in changes nothing.
    """
    started = time.perf_counter()
    specs = sorted(specs)
    game_rules = make_rules(game, rules)
    identities = {spec: identity(spec, game_rules, players) for spec in specs}
    cache = Cache(Path(out) / "cache", game_rules, players, seed)
    units = plan(specs, players, deals, matches)
    folders = {unit: cache.folder([identities[s] for s in unit.table], unit.whole_game) for unit in units}
    found = {unit: cache.load(folders[unit], unit.deal) for unit in units}
    todo = [Job(game_rules, players, seed, unit) for unit in units if found[unit] is None]
    per_unit = len(lineups(players, players))
    counts = {kind: per_unit * sum(job.unit.whole_game == (kind == WHOLE_GAME) for job in todo)
              for kind in (ROUND, WHOLE_GAME)}
    finished = deal_pool.play_all(play_unit, todo, workers, game_rules, players,
                                  sorted({spec for job in todo for spec in job.unit.table}))
    with Progress(f"ladder {game} {players}p", counts, deal_pool.processes(workers, len(todo)),
                  enabled=progress) as bar, contextlib.closing(finished):
        for index, records, seconds in finished:
            unit = todo[index].unit
            cache.store(folders[unit], unit.deal, records)
            found[unit] = records
            bar.add(WHOLE_GAME if unit.whole_game else ROUND, seconds, len(records))
    rounds = [record for unit in units if not unit.whole_game for record in found[unit]]
    whole = [record for unit in units if unit.whole_game for record in found[unit]]
    result = summarise(rounds, list(specs), game, players, seed, matches=whole)
    played = sum(len(found[job.unit]) for job in todo)
    result["ladder"] = {"agents": identities, "tables": sorted({unit.table for unit in units})}
    result["run"] = {"games_played": played, "games_cached": len(rounds) + len(whole) - played,
                     "workers": workers, "seconds": round(time.perf_counter() - started, 1)}
    return result


OUTPUTS = ("ladder.json", "ladder.md", "ladder.png")  # written into --out beside the cache


def check_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> list[str]:
    """The ladder's specs, or an argparse error naming what is allowed, before any game is played."""
    try:
        rules = make_rules(args.game, args.rules)
    except ValueError as exc:
        parser.error(f"argument --rules: {exc}")
    registered = entrants(args.game, args.players)
    chosen = args.agents or registered
    for name in chosen:
        if name not in registered:
            parser.error(f"argument --agents: {name!r} is not one of the ladder's agents for {args.game} at "
                         f"{args.players} seats: {', '.join(registered)}; other agents join with --add")
    specs = list(dict.fromkeys(chosen))
    for spec in args.add:
        if spec in specs:
            parser.error(f"argument --add: {spec!r} is already in the ladder")
        try:
            make_agent(spec, rules, args.players)
        except ValueError as exc:
            parser.error(f"argument --add: {exc}")
        specs.append(spec)
    if len(specs) < max(2, args.players):
        parser.error(f"argument --agents: a ladder at {args.players} seats needs at least {max(2, args.players)} "
                     f"agents, got {len(specs)}: {', '.join(specs)}")
    check_output(parser, "--out", args.out, folder=True)
    check_output(parser, "--out", args.out / "cache", folder=True)
    for name in OUTPUTS:
        check_output(parser, "--out", args.out / name, wants="a folder")
    return specs


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agents.ladder", description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", required=True, choices=games.names())
    parser.add_argument("--players", type=whole_number(2, 4), default=2, help="seats at the table, 2 to 4")
    parser.add_argument("--agents", nargs="+", help="a subset of the registered agents (default: all of them)")
    parser.add_argument("--add", action="append", default=[], metavar="SPEC",
                        help="another agent: a checkpoint path or an importable module:Class (repeatable)")
    parser.add_argument("--deals", type=whole_number(1), default=20,
                        help="deals of one round per table (default: 20); each deal is played once per lineup, a "
                             "game each")
    parser.add_argument("--matches", type=whole_number(0),
                        help="deals of whole games (T11, K10, F12) per table (default: --deals)")
    parser.add_argument("--seed", type=whole_number(0), default=0)
    parser.add_argument("--rules", help="YAML file of rules overrides")
    parser.add_argument("--out", type=Path, help="folder for the results and the cache (default: ladder/<game>_<N>p)")
    add_workers(parser)
    parser.add_argument("--no-progress", action="store_true", help="no progress bar and no time estimate")
    args = parser.parse_args(argv)
    args.out = args.out or Path("ladder") / f"{args.game}_{args.players}p"
    specs = check_arguments(parser, args)
    try:
        result = ladder(args.game, specs, args.players, args.deals,
                        args.deals if args.matches is None else args.matches, args.seed, args.out, rules=args.rules,
                        workers=args.workers, progress=not args.no_progress)
    except KeyboardInterrupt:
        return interrupted(f"the deals finished are kept in {args.out / 'cache'}; the same command plays only the "
                           "rest and gives the same table")
    result["run"]["command"] = shlex.join(["python", "-m", "agents.ladder",
                                           *(sys.argv[1:] if argv is None else argv)])
    json_file, table_file, chart_file = (args.out / name for name in OUTPUTS)
    args.out.mkdir(parents=True, exist_ok=True)
    json_file.write_text(json.dumps(result, indent=1))
    table = markdown(result)
    table_file.write_text(table)
    print(table)
    run = result["run"]
    print(f"{plural(run['games_played'], 'game')} played, {run['games_cached']:,} from the cache, {run['seconds']} s "
          f"with {plural(run['workers'], 'worker')}; {chart(result, chart_file)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
