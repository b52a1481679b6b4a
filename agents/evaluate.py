"""Matches between agents on duplicate deals, with intervals and ratings.

Luck of the deal dominates these games, so every deal is played once per
lineup: each table of agents with its seats rotated, so that each agent plays
each seat of each deal and the deal's luck cancels in the comparison. Games run
on the state machines directly (no Gymnasium) and each agent sees only its own
seat's observation, mask and view (``agents.base.make_move``).

    python -m agents.evaluate --game rummikub --players 2 --agents max_tiles greedy --games 100 --seed 0
    python -m agents.evaluate --game rummy500 --agents value greedy --games 10 --replays replays/
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from agents.base import Agent, make_move
from agents.registry import make_agent, rules_of
from agents.stats import bootstrap_mean, ratings, wilson
from rummienv import games, replay
from rummienv.core import Game, State
from rummienv.errors import IllegalActionError
from rummienv.outcome import shares, top_seats
from rummienv.rules import make_rules


def lineups(num_agents: int, players: int) -> list[tuple[int, ...]]:
    """Agent index per seat for every game of a deal.

    Every table of ``players`` distinct agents, each rotated through all seats;
    with fewer agents than seats the list repeats round the table.
    """
    if num_agents >= players:
        tables = list(combinations(range(num_agents), players))
    else:
        tables = [tuple(i % num_agents for i in range(players))]
    return [tuple(t[(s + r) % players] for s in range(players)) for t in tables for r in range(players)]


def labels_of(specs: Sequence[Any]) -> list[str]:
    """Names for the result table; a repeated spec gets ``#2``, ``#3`` so self-play can be measured."""
    labels: list[str] = []
    for spec in specs:
        base = spec if isinstance(spec, str) else str(getattr(spec, "name", type(spec).__name__))
        label, n = base, 1
        while label in labels:
            n += 1
            label = f"{base}#{n}"
        labels.append(label)
    return labels


def new_game(rules: Any, players: int, whole_game: bool = False) -> Game:
    """The Game a rules object is for, at ``players`` seats (``rummienv.games.make_game``)."""
    return games.make_game(rules.game, players, rules, whole_game)


def play_game(game: Any, seats: Sequence[Agent], seed: int, labels: Sequence[str] | None = None) -> State:
    """One game from ``seed`` with ``seats[p]`` playing seat p; its final state."""
    state = game.new_initial_state(seed)
    while not state.is_terminal():
        player = state.current_player
        try:
            make_move(seats[player], state)
        except IllegalActionError as exc:
            who = labels[player] if labels else type(seats[player]).__name__
            raise IllegalActionError(f"agent {who} in seat {player} chose an illegal move: {exc}") from exc
    return state


def evaluate(game: Any, agents: Sequence[Any], num_players: int, games: int, seed: int, *,
             rules: dict[str, Any] | str | None = None, whole_game: bool = False,
             progress: bool = True, resamples: int = 2000, replays: Path | None = None) -> dict[str, Any]:
    """Play ``games`` duplicate deals among ``agents`` (specs or objects) and summarise per agent.

    Each deal is played once per lineup (see ``lineups``), so two agents at a
    two-seat table play ``2 * games`` games, each written to ``replays`` (a folder) as
    ``deal<deal>-lineup<lineup>.json`` when it is given (``rummienv.replay``).
    The same arguments give the same results: deals, agents' seeds and the
    bootstrap all come from ``seed``.
    """
    if len(agents) < 2:
        raise ValueError("name at least two agents (the same one twice for self-play)")
    if isinstance(game, str):
        game_rules = make_rules(game, rules)
    elif rules is not None:
        raise ValueError("give rules overrides with a game's name, not with a rules object or Game")
    else:
        game_rules = rules_of(game)
    labels = labels_of(agents)
    table = lineups(len(agents), num_players)
    deal_seeds = np.random.default_rng(seed).integers(0, 2**62, size=games)
    made: dict[tuple[int, int], Agent] = {}

    def seat_agent(index: int, seat: int) -> Agent:
        if (index, seat) not in made:
            agent_seed = int(np.random.default_rng([seed, index, seat]).integers(2**62))
            made[index, seat] = make_agent(agents[index], game_rules, num_players, seed=agent_seed)
        return made[index, seat]

    engine = new_game(game_rules, num_players, whole_game)
    records = []
    with tqdm(total=games * len(table), desc=f"{game_rules.game} {num_players}p", disable=not progress,
              file=sys.stderr) as bar:
        for deal, deal_seed in enumerate(deal_seeds):
            for k, lineup in enumerate(table):
                seats = [seat_agent(i, s) for s, i in enumerate(lineup)]
                seat_labels = [labels[i] for i in lineup]
                state = play_game(engine, seats, int(deal_seed), seat_labels)
                if replays is not None:
                    replay.write(Path(replays) / f"deal{deal:05d}-lineup{k:02d}.json", state, seat_labels)
                records.append({"deal": deal, "seats": seat_labels, "scores": [float(x) for x in state.scores()],
                                "winners": state.winners()})
                bar.update()
    return summarise(records, labels, game_rules.game, num_players, seed, resamples)


def summarise(records: list[dict[str, Any]], labels: Sequence[str], game: str, players: int, seed: int,
              resamples: int = 2000) -> dict[str, Any]:
    """Per agent: games, wins (each game's share of the win, ``rummienv.outcome``), win rate, mean score, intervals.

    A record's winners are its game's (``State.winners``); records written without them count the top scores.
    """
    deals = 1 + max((r["deal"] for r in records), default=-1)
    wins = dict.fromkeys(labels, 0.0)
    played = dict.fromkeys(labels, 0)
    per_deal = {lab: [[] for _ in range(deals)] for lab in labels}
    for record in records:
        scores = record["scores"]
        won = shares(record["winners"] if "winners" in record else top_seats(scores), len(scores))
        for seat, (label, score) in enumerate(zip(record["seats"], scores, strict=True)):
            played[label] += 1
            wins[label] += float(won[seat])
            per_deal[label][record["deal"]].append(score)
    summary = {}
    for label in labels:
        n = played[label]
        deal_means = [float(np.mean(x)) for x in per_deal[label] if x]
        summary[label] = {
            "games": n,
            "wins": wins[label],
            "win_rate": wins[label] / n if n else float("nan"),
            "win_ci": list(wilson(wins[label], n)),
            "mean_score": float(np.mean(deal_means)) if deal_means else float("nan"),
            "score_ci": list(bootstrap_mean(deal_means, seed, resamples)),
        }
    result: dict[str, Any] = {"game": game, "players": players, "deals": deals, "seed": seed,
                              "agents": summary, "games": records}
    if len(labels) >= 3:
        result["head_to_head"] = head_to_head(records, labels)
        result["rating"] = ratings([list(zip(r["seats"], r["scores"], strict=True)) for r in records], labels, seed)
    return result


def head_to_head(records: list[dict[str, Any]], labels: Sequence[str]) -> dict[str, dict[str, float]]:
    """``[a][b]``: the share of games with both at the table where a scored more than b (ties half)."""
    won = {a: dict.fromkeys(labels, 0.0) for a in labels}
    met = {a: dict.fromkeys(labels, 0) for a in labels}
    for record in records:
        seats = list(zip(record["seats"], record["scores"], strict=True))
        for a, x in seats:
            for b, y in seats:
                if a != b:
                    met[a][b] += 1
                    won[a][b] += 1.0 if x > y else 0.5 if x == y else 0.0
    return {a: {b: won[a][b] / met[a][b] for b in labels if met[a][b]} for a in labels}


def format_table(result: dict[str, Any]) -> str:
    """The summary as fixed-width text; the name columns are as wide as the longest name needs."""
    rating = result.get("rating")
    name = max(16, 2 + max(map(len, result["agents"])))
    head = f"{'agent':<{name}}{'games':>7}{'win rate':>10}  {'95% CI':<16}{'mean score':>11}  {'95% CI':<18}"
    if rating:
        head += "rating"
    lines = [f"{result['game']}, {result['players']} players, {result['deals']} deals, seed {result['seed']}", head]
    for label, row in result["agents"].items():
        lo, hi = row["win_ci"]
        slo, shi = row["score_ci"]
        line = (f"{label:<{name}}{row['games']:>7}{row['win_rate']:>10.3f}  [{lo:.3f}, {hi:.3f}]  "
                f"{row['mean_score']:>+11.2f}  [{slo:+.2f}, {shi:+.2f}]".ljust(len(head)))
        if rating:
            line += "  ".join(f"{k} {v:.1f}" for k, v in rating["agents"][label].items() if k != "sigma")
        lines.append(line.rstrip())
    if rating:
        lines.append(f"rating: {rating['method']}")
    pairs = result.get("head_to_head")
    if pairs:
        lines.append("head to head (row beats column; ties half):")
        width = {b: max(12, 1 + len(b)) for b in pairs}
        lines.append(" " * name + "".join(f"{b:>{width[b]}}" for b in pairs))
        for a, row in pairs.items():
            lines.append(f"{a:<{name}}" + "".join(f"{row[b]:>{width[b]}.3f}" if b in row else f"{'-':>{width[b]}}"
                                                   for b in pairs))
    return "\n".join(lines)


def whole_number(lo: int, hi: int | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number in ``lo..hi``, or an error saying what is allowed."""
    allowed = f"a whole number from {lo} to {hi}" if hi is not None else f"a whole number of at least {lo}"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {allowed}, got {text!r}") from None
        if value < lo or hi is not None and value > hi:
            raise argparse.ArgumentTypeError(f"must be {allowed}, got {value}")
        return value

    return parse


def check_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse, before any game is played, rules, agents or an output the evaluation could not use.

    Making each agent once loads every checkpoint, so a missing file or one trained
    for another game is reported at once rather than after the first games.
    """
    try:
        rules = make_rules(args.game, args.rules)
    except ValueError as exc:
        parser.error(f"argument --rules: {exc}")
    for spec in args.agents:
        try:
            make_agent(spec, rules, args.players)
        except ValueError as exc:
            parser.error(f"argument --agents: {exc}")
    if args.json and not args.json.parent.is_dir():
        parser.error(f"argument --json: folder {str(args.json.parent)!r} does not exist")
    if args.replays and args.replays.exists() and not args.replays.is_dir():
        parser.error(f"argument --replays: {str(args.replays)!r} is a file, not a folder")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agents.evaluate", description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", required=True, choices=games.names())
    parser.add_argument("--players", type=whole_number(2, 4), default=2, help="seats at the table, 2 to 4")
    parser.add_argument("--agents", nargs="+", required=True, help="baseline names or checkpoint paths")
    parser.add_argument("--games", type=whole_number(1), default=100, help="deals; each is played once per lineup")
    parser.add_argument("--seed", type=whole_number(0), default=0)
    parser.add_argument("--rules", help="YAML file of rules overrides")
    parser.add_argument("--whole-game", action="store_true", help="play whole games, not single rounds")
    parser.add_argument("--json", type=Path, help="also write the results (with every game) here")
    parser.add_argument("--replays", type=Path, help="also write every game's replay into this folder")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    check_arguments(parser, args)
    try:
        result = evaluate(args.game, args.agents, args.players, args.games, args.seed, rules=args.rules,
                          whole_game=args.whole_game, progress=not args.no_progress, replays=args.replays)
    except ValueError as exc:
        parser.exit(2, f"error: {exc}\n")
    print(format_table(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
