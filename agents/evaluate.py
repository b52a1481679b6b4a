"""Matches between agents on duplicate deals, with intervals and ratings, by the rules' measure.

The rules decide a game by points added up over several rounds (T11, K10, F12),
so the table leads with the mean score per round and the win rate in whole games
(matches); the share of single rounds won stands beside them. Luck of the deal
dominates these games, so every deal is played once per lineup: each table of
agents in every seating order (at two seats, the two rotations), so that each
agent plays each seat of each deal beside each neighbour and the deal's luck
cancels in the comparison. Games run on the state machines
directly (no Gymnasium) and each agent sees only its own seat's observation,
mask and view (``agents.base.make_move``).

    python -m agents.evaluate --game rummikub --players 2 --agents max_tiles greedy --games 100 --seed 0
    python -m agents.evaluate --game rummy500 --agents value greedy --games 10 --matches 0 --replays replays/
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from itertools import combinations, permutations
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

    Every table of ``players`` distinct agents (with fewer agents than seats, the agents in turn round the
    table) in every seating order. At two seats that is the two rotations. At more, rotating one order would
    leave each agent the same neighbours in every game, and neighbours decide much: two copies of ``hoard``
    at four seats, one always seated after the other, scored +0.6 and +37.8 a round over the same 100 deals.
    """
    if num_agents >= players:
        tables = list(combinations(range(num_agents), players))
    else:
        tables = [tuple(i % num_agents for i in range(players))]
    return [order for t in tables for order in sorted(set(permutations(t)))]


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


def deal_seeds(seed: int, count: int, whole_game: bool = False) -> np.ndarray:
    """The seeds of the first ``count`` deals; whole games draw theirs apart, so a match does not start as a round
    of the same evaluation does. A longer list begins with a shorter one's seeds."""
    return np.random.default_rng([seed, 1] if whole_game else seed).integers(0, 2**62, size=count)


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


def play_lineups(engine: Game, table: Sequence[tuple[int, ...]], seat_agent: Callable[[int, int], Agent],
                 labels: Sequence[str], deal: int, deal_seed: int, replays: Path | None = None) -> Iterator[dict]:
    """The deal ``deal_seed`` once per lineup of ``table`` (agent index per seat), ``seat_agent(index, seat)``
    playing; one record per game: its deal, the seats' labels, scores and winners.

    Each game is written to ``replays`` (a folder) as ``[match-]deal<deal>-lineup<lineup>.json`` when it is given.
    """
    prefix = "match-" if engine.whole_game else ""
    for k, lineup in enumerate(table):
        seats = [seat_agent(i, s) for s, i in enumerate(lineup)]
        seat_labels = [labels[i] for i in lineup]
        state = play_game(engine, seats, int(deal_seed), seat_labels)
        if replays is not None:
            replay.write(Path(replays) / f"{prefix}deal{deal:05d}-lineup{k:02d}.json", state, seat_labels)
        yield {"deal": deal, "seats": seat_labels, "scores": [float(x) for x in state.scores()],
               "winners": state.winners()}


def evaluate(game: Any, agents: Sequence[Any], num_players: int, games: int, seed: int, *, matches: int = 0,
             rules: dict[str, Any] | str | None = None, progress: bool = True, resamples: int = 2000,
             replays: Path | None = None) -> dict[str, Any]:
    """Play ``games`` duplicate deals of one round and ``matches`` of whole games among ``agents`` (specs or
    objects) and summarise per agent (``summarise``).

    Each deal is played once per lineup (see ``lineups``), so two agents at a
    two-seat table play ``2 * games`` rounds and ``2 * matches`` whole games.
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
    made: dict[tuple[int, int], Agent] = {}

    def seat_agent(index: int, seat: int) -> Agent:
        if (index, seat) not in made:
            agent_seed = int(np.random.default_rng([seed, index, seat]).integers(2**62))
            made[index, seat] = make_agent(agents[index], game_rules, num_players, seed=agent_seed)
        return made[index, seat]

    played: dict[bool, list[dict[str, Any]]] = {}
    with tqdm(total=(games + matches) * len(table), desc=f"{game_rules.game} {num_players}p", disable=not progress,
              file=sys.stderr) as bar:
        for whole_game, count in ((False, games), (True, matches)):
            engine = new_game(game_rules, num_players, whole_game)
            played[whole_game] = []
            for deal, deal_seed in enumerate(deal_seeds(seed, count, whole_game)):
                for record in play_lineups(engine, table, seat_agent, labels, deal, deal_seed, replays):
                    played[whole_game].append(record)
                    bar.update()
    return summarise(played[False], labels, game_rules.game, num_players, seed, resamples, matches=played[True])


def summarise(records: list[dict[str, Any]], labels: Sequence[str], game: str, players: int, seed: int,
              resamples: int = 2000, matches: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    """Rounds (``records``) and whole games (``matches``) per agent, head to head, and the ratings.

    Per agent, for rounds under ``agents`` and whole games under ``matches.agents``: games, wins (each game's
    share of the win, ``rummienv.outcome``), win rate, mean score, intervals. The ratings (``stats.ratings``)
    take the rounds' scores and the whole games' places. A record's winners are its game's
    (``State.winners``); records written without them count the top scores.
    """
    result: dict[str, Any] = {"game": game, "players": players, **tally(records, labels, seed, resamples),
                              "seed": seed, "games": records}
    if matches:
        result["matches"] = {**tally(matches, labels, seed, resamples), "games": list(matches)}
    if len(labels) >= 3:
        result["head_to_head"] = head_to_head(records, labels)
        if matches:
            result["matches"]["head_to_head"] = head_to_head(matches, labels)
    result["rating"] = ratings([list(zip(r["seats"], r["scores"], strict=True)) for r in records],
                               [r["deal"] for r in records],
                               [list(zip(r["seats"], standings(r), strict=True)) for r in matches], labels, seed,
                               resamples)
    return result


def tally(records: Sequence[dict[str, Any]], labels: Sequence[str], seed: int, resamples: int) -> dict[str, Any]:
    """The number of deals, and per agent its games, wins, win rate and mean score with their intervals."""
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
    summary: dict[str, dict[str, Any]] = {}
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
    return {"deals": deals, "agents": summary}


def standings(record: dict[str, Any]) -> list[float]:
    """Each seat's place in a finished game as a number, higher for a better place: minus the seats ahead of it.

    The winners (``State.winners``: a whole game's tie-breaks included) come first, then the score decides.
    """
    scores = record["scores"]
    won = shares(record["winners"] if "winners" in record else top_seats(scores), len(scores))
    keys = list(zip(won, scores, strict=True))
    return [-float(sum(other > mine for other in keys)) for mine in keys]


def head_to_head(records: Sequence[dict[str, Any]], labels: Sequence[str]) -> dict[str, dict[str, float]]:
    """``[a][b]``: the share of games with both at the table where a finished ahead of b (``standings``; ties
    half). In rounds that is the higher score; in whole games the rules' winner, then the higher total."""
    won = {a: dict.fromkeys(labels, 0.0) for a in labels}
    met = {a: dict.fromkeys(labels, 0) for a in labels}
    for record in records:
        seats = list(zip(record["seats"], standings(record), strict=True))
        for a, x in seats:
            for b, y in seats:
                if a != b:
                    met[a][b] += 1
                    won[a][b] += 1.0 if x > y else 0.5 if x == y else 0.0
    return {a: {b: won[a][b] / met[a][b] for b in labels if met[a][b]} for a in labels}


RATED = {"margin": "{:+.2f}", "elo": "{:+.0f}", "mu": "{:.1f}", "ordinal": "{:.1f}"}  # shown, in this order


def columns(result: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """The table's header and one row of cells per agent, led by the rules' measure: mean score per round, then
    the win rate in whole games; single rounds won and the ratings follow."""
    matches = result.get("matches", {}).get("agents", {})
    rating = result.get("rating", {}).get("agents", {})
    rated = [key for key in RATED if any(key in row for row in rating.values())]
    head = ["agent", "score/round", "95% CI", *(["match win rate", "95% CI", "matches"] if matches else []),
            "round win rate", "95% CI", "rounds"]
    for key in rated:
        head += [key, "95% CI"] if key == "margin" else [key]
    rows = []
    for label, row in result["agents"].items():
        cells = [label, f"{row['mean_score']:+.2f}", "[{:+.2f}, {:+.2f}]".format(*row["score_ci"])]
        for won in ([matches[label]] if matches else []) + [row]:
            cells += [f"{won['win_rate']:.3f}", "[{:.3f}, {:.3f}]".format(*won["win_ci"]), str(won["games"])]
        for key in rated:
            value = rating[label].get(key)
            cells.append("-" if value is None else RATED[key].format(value))
            if key == "margin":
                cells.append("[{:+.2f}, {:+.2f}]".format(*rating[label]["margin_ci"]))
        rows.append(cells)
    return head, rows


def describe(result: dict[str, Any]) -> str:
    """What was played: game, seats, seed, and the deals of single rounds and of whole games."""
    text = f"{result['game']}, {result['players']} players, seed {result['seed']}: {result['deals']} duplicate deals " \
           "of one round"
    if "matches" in result:
        text += f" and {result['matches']['deals']} of whole games"
    return text + ", each played once per lineup (every seating order)"


def format_table(result: dict[str, Any]) -> str:
    """The summary as fixed-width text (``columns``), with the ratings' method and the head-to-head tables."""
    head, rows = columns(result)
    widths = [max(len(cells[c]) for cells in [head, *rows]) for c in range(len(head))]
    lines = [describe(result)]
    for cells in [head, *rows]:
        lines.append("  ".join(cell.ljust(w) if c == 0 else cell.rjust(w)
                               for c, (cell, w) in enumerate(zip(cells, widths, strict=True))))
    if "rating" in result:
        lines.append(f"rating: {result['rating']['method']}")
    for title, pairs in (("head to head in rounds, by score", result.get("head_to_head")),
                         ("head to head in whole games", result.get("matches", {}).get("head_to_head"))):
        if pairs:
            lines += [f"{title} (row ahead of column; ties half):", *pair_table(pairs, widths[0])]
    return "\n".join(lines)


def pair_table(pairs: dict[str, dict[str, float]], name: int) -> list[str]:
    """A head-to-head matrix as fixed-width lines, the row names ``name`` wide."""
    width = {b: max(12, 1 + len(b)) for b in pairs}
    lines = [" " * name + "".join(f"{b:>{width[b]}}" for b in pairs)]
    for a, row in pairs.items():
        lines.append(f"{a:<{name}}" + "".join(f"{row[b]:>{width[b]}.3f}" if b in row else f"{'-':>{width[b]}}"
                                               for b in pairs))
    return lines


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
    parser.add_argument("--games", type=whole_number(1), default=100,
                        help="deals of one round; each is played once per lineup")
    parser.add_argument("--matches", type=whole_number(0),
                        help="deals of whole games (T11, K10, F12), each played once per lineup (default: --games)")
    parser.add_argument("--seed", type=whole_number(0), default=0)
    parser.add_argument("--rules", help="YAML file of rules overrides")
    parser.add_argument("--json", type=Path, help="also write the results (with every game) here")
    parser.add_argument("--replays", type=Path, help="also write every game's replay into this folder")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    check_arguments(parser, args)
    try:
        result = evaluate(args.game, args.agents, args.players, args.games, args.seed, rules=args.rules,
                          matches=args.games if args.matches is None else args.matches,
                          progress=not args.no_progress, replays=args.replays)
    except ValueError as exc:
        parser.exit(2, f"error: {exc}\n")
    print(format_table(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
