"""Matches between agents on duplicate deals, with intervals and ratings, by the rules' measure.

The rules decide a game by points added up over several rounds (T11, K10, F12),
so the table leads with the mean score per round and the win rate in whole games
(matches); the share of single rounds won stands beside them. Luck of the deal
dominates these games, so every deal is played once per lineup: each table of
agents in every seating order (at two seats, the two rotations), so that each
agent plays each seat of each deal beside each neighbour and the deal's luck
cancels in the comparison. Games run on the state machines
directly (no Gymnasium) and each agent sees only its own seat's observation,
mask and view (``agents.base.make_move``). The deals are spread over worker
processes, one per core unless ``--workers`` says otherwise (``agents.deal_pool``);
each deal's agents are seeded by the deal, so the numbers do not depend on how
many processes play them.

    python -m agents.evaluate --game rummikub --players 2 --agents max_tiles greedy --deals 100 --seed 0
    python -m agents.evaluate --game rummy500 --agents value greedy --deals 10 --matches 0 --replays replays/
    python -m agents.evaluate --game rummikub --agents hoard max_tiles --deals 2000 --workers 2
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations, permutations
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from agents import deal_pool
from agents.base import Agent, make_move, report_logs, take_reports
from agents.registry import make_agent, rules_of
from agents.stats import bootstrap_mean, ratings, wilson
from rummienv import games, replay
from rummienv.core import Game, State
from rummienv.errors import INTERRUPTED, IllegalActionError
from rummienv.outcome import shares, top_seats
from rummienv.rules import Rules, make_rules
from rummienv.wording import counted as plural  # the evaluator's name for it, which the ladder shares


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
    An agent with ``take_report`` (a chat model) is asked after each game what it kept: its counts go in the
    record (``reports``, one per seat, None for an agent without), its log into the replay.
    """
    prefix = "match-" if engine.whole_game else ""
    for k, lineup in enumerate(table):
        seats = [seat_agent(i, s) for s, i in enumerate(lineup)]
        seat_labels = [labels[i] for i in lineup]
        state = play_game(engine, seats, int(deal_seed), seat_labels)
        reports = take_reports(seats)
        if replays is not None:
            replay.write(Path(replays) / f"{prefix}deal{deal:05d}-lineup{k:02d}.json", state, seat_labels,
                         agent_logs=report_logs(reports))
        yield {"deal": deal, "seats": seat_labels, "scores": [float(x) for x in state.scores()],
               "winners": state.winners(),
               **({"reports": [None if r is None else r["counts"] for r in reports]} if any(reports) else {})}


def duration(seconds: float) -> str:
    """A time left, rounded as far as an estimate from a few games deserves."""
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    if seconds < 90 * 60:
        return f"{round(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"


ROUND, WHOLE_GAME = "round", "whole game"  # the kinds of game a run plays, timed apart: a whole game is many rounds
SAMPLE_SECONDS = 2.0  # a kind's games are timed this long (and at least one game per worker) before its estimate


class Progress:
    """A run's bar on stderr, counted in games, and its estimate of the time left once the first games are timed.

    A game's time depends on its agents, the game and the machine, so no table of costs could say it: the
    estimate is each kind's measured seconds per game so far times its games left, shared among the workers.
    Each worker's first add of a kind is left out of the timing: it pays for first calls (a Rummikub round
    between bots: 0.2 s against 0.03 s for those after it). Rounds come before whole games, which last several
    rounds, so whole games are estimated only when their first ones have been timed, in a second line; till
    then the first one says they are not counted.
    """

    def __init__(self, desc: str, counts: dict[str, int], workers: int = 1, enabled: bool = True) -> None:
        self.desc, self.workers, self.enabled = desc, workers, enabled
        self.left = {kind: count for kind, count in counts.items() if count}
        self.played = dict.fromkeys(self.left, 0)
        self.seconds = dict.fromkeys(self.left, 0.0)
        self.warmed = dict.fromkeys(self.left, 0)
        self.timed: set[str] = set()
        self.bar = tqdm(total=sum(self.left.values()), desc=desc, unit="game", disable=not enabled, file=sys.stderr)

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.bar.close()

    def add(self, kind: str, seconds: float, games: int = 1) -> None:
        """Count ``games`` of ``kind`` that took ``seconds`` of one worker's time; the first time a kind has been
        timed long enough, print the estimate."""
        self.left[kind] -= games
        self.bar.update(games)
        if self.warmed[kind] < self.workers:
            self.warmed[kind] += 1
            return
        self.played[kind] += games
        self.seconds[kind] += seconds
        if kind not in self.timed and self.played[kind] >= self.workers and self.seconds[kind] >= SAMPLE_SECONDS:
            self.timed.add(kind)
            if self.left[kind] and self.enabled:
                self.bar.write(f"{self.desc}: {self.estimate()}", file=sys.stderr)

    def estimate(self) -> str:
        """``about 12 min on 2 workers: 4,000 rounds``, naming any kind left that is not timed yet."""
        timed = [kind for kind in self.left if kind in self.timed and self.left[kind]]
        untimed = [kind for kind in self.left if kind not in self.timed and self.left[kind]]
        seconds = sum(self.seconds[k] / self.played[k] * self.left[k] for k in timed) / self.workers
        text = f"about {duration(seconds)} on {plural(self.workers, 'worker')}: " \
               + " and ".join(plural(self.left[kind], kind) for kind in timed)
        if untimed:
            text += "; " + " and ".join(plural(self.left[kind], kind) for kind in untimed) + " not timed yet"
        return text


@dataclass(frozen=True)
class Deal:
    """One deal of an evaluation, to be played once per lineup, with all a worker process needs to play it."""

    rules: Rules
    players: int
    specs: tuple[Any, ...]  # the agents: specs, or in this process only, objects
    labels: tuple[str, ...]
    seed: int
    whole_game: bool
    deal: int
    deal_seed: int
    replays: Path | None

    @property
    def kind(self) -> str:
        return WHOLE_GAME if self.whole_game else ROUND


def agent_seed(*entropy: int) -> int:
    """An agent's seed from what fixes its games (the run's seed, the deal, the agent, the seat), never from the
    order in which processes played them."""
    return int(np.random.default_rng(list(entropy)).integers(2**62))


class Seats:
    """The agents of one evaluation in one process, by (agent index, seat), each deal's starting from its own seed.

    A deal's agents start from a seed of (seed, rounds or whole games, deal, agent index, seat), so a deal plays
    the same whichever process plays it and whatever that process played before. An agent that can be
    reseeded is made once (a network's file loads once) and reseeded at every deal; one that cannot is made
    afresh for every deal. An object a caller gave plays as it is, never reseeded: its chance is the caller's.
    """

    def __init__(self, specs: Sequence[Any], rules: Rules, players: int) -> None:
        self.specs, self.rules, self.players = specs, rules, players
        self.table = lineups(len(specs), players)
        self.made: dict[tuple[int, int], Agent] = {}

    def for_deal(self, deal: Deal) -> dict[tuple[int, int], Agent]:
        """Every agent the deal's lineups seat, by (agent index, seat), ready to play its first game."""
        return {(index, seat): self.agent(deal, index, seat) for lineup in self.table
                for seat, index in enumerate(lineup)}

    def agent(self, deal: Deal, index: int, seat: int) -> Agent:
        """Agent ``index`` for ``seat``, seeded for ``deal``."""
        spec = self.specs[index]
        if hasattr(spec, "act"):
            return spec
        seed = agent_seed(deal.seed, int(deal.whole_game), deal.deal, index, seat)
        agent = self.made.get((index, seat))
        if agent is None:
            agent = make_agent(spec, self.rules, self.players, seed=seed)
        if callable(getattr(agent, "reseed", None)):
            agent.reseed(seed)  # also when just made: a class may seed itself otherwise in its constructor
            self.made[index, seat] = agent
        return agent


@functools.cache
def engine(rules: Rules, players: int, whole_game: bool) -> Game:
    """The Game of a kind of play, made once a process."""
    return new_game(rules, players, whole_game)


def deal_games(deal: Deal, seats: Seats) -> Iterator[tuple[dict[str, Any], float]]:
    """The deal's games (``play_lineups``), each record with the seconds the game took; the agents are made
    before the first is timed, so a network's loading counts in no game's time."""
    agents = seats.for_deal(deal)
    games = play_lineups(engine(deal.rules, deal.players, deal.whole_game), seats.table,
                         lambda index, seat: agents[index, seat], deal.labels, deal.deal, deal.deal_seed, deal.replays)
    started = time.perf_counter()
    for record in games:
        yield record, time.perf_counter() - started
        started = time.perf_counter()


@functools.cache
def worker_seats(specs: tuple[Any, ...], rules: Rules, players: int) -> Seats:
    """A worker process's agents for the evaluation its pool serves, kept for the process's life (the pool's)."""
    return Seats(specs, rules, players)


def play_deal(deal: Deal, seats: Seats | None = None) -> tuple[list[dict[str, Any]], float]:
    """A deal played by ``seats`` (in a worker process, the process's own): its records and the seconds its games
    took."""
    games = list(deal_games(deal, worker_seats(deal.specs, deal.rules, deal.players) if seats is None else seats))
    return [record for record, _ in games], sum(seconds for _, seconds in games)


def play_deals(deals: Sequence[Deal], workers: int, progress: Progress,
               on_game: Callable[[], None] | None) -> list[list[dict[str, Any]]]:
    """Each deal's records, in the order of ``deals`` whatever order the workers finished them in.

    With one worker each game is counted as it ends; with more (this process one of them), as its deal comes back.
    """
    played: list[list[dict[str, Any]]] = [[] for _ in deals]
    if not deals:
        return played
    first = deals[0]
    seats = Seats(first.specs, first.rules, first.players)
    if deal_pool.processes(workers, len(deals)) == 1:
        for deal, records in zip(deals, played, strict=True):
            for record, seconds in deal_games(deal, seats):
                records.append(record)
                count_game(progress, deal.kind, seconds, on_game)
        return played
    with contextlib.closing(deal_pool.play_all(play_deal, deals, workers, first.rules, first.players, first.specs,
                                               functools.partial(play_deal, seats=seats))) as finished:
        for index, records, seconds in finished:
            played[index] = records
            count_game(progress, deals[index].kind, seconds, on_game, len(records))
    return played


def count_game(progress: Progress, kind: str, seconds: float, on_game: Callable[[], None] | None,
               games: int = 1) -> None:
    """Games that ended: on the bar, and each to ``on_game``."""
    progress.add(kind, seconds, games)
    if on_game is not None:
        for _ in range(games):
            on_game()


def evaluate(game: Any, agents: Sequence[Any], num_players: int, deals: int, seed: int, *, matches: int = 0,
             rules: dict[str, Any] | str | None = None, progress: bool | Progress = True, resamples: int = 2000,
             replays: Path | None = None, on_game: Callable[[], None] | None = None,
             workers: int = 1) -> dict[str, Any]:
    """Play ``deals`` duplicate deals of one round and ``matches`` of whole games among ``agents`` (specs or
    objects) and summarise per agent (``summarise``).

    Each deal is played once per lineup (see ``lineups``), so two agents at a
    two-seat table play ``2 * deals`` rounds and ``2 * matches`` whole games.
    ``progress``: whether to show a bar and an estimate, or the ``Progress`` of
    a longer run this evaluation is part of; ``on_game`` follows every game
    (training's own bar, and where its stop requests take effect).
    ``workers``: processes that play the deals; an agent object cannot be sent
    to one, so with objects among ``agents`` more than one is a ValueError.
    The same arguments give the same results, for any number of workers: deals,
    each deal's agents' seeds (``Seats``) and the bootstrap all come from
    ``seed``. Earlier versions seeded each agent once a run, so that a deal's
    play hung on the deals before it: agents that draw on chance (``random``, a
    sampling network) give other numbers than they did there; deterministic
    agents give the same.
    """
    if len(agents) < 2:
        raise ValueError("name at least two agents (the same one twice for self-play)")
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    if workers > 1 and any(hasattr(agent, "act") for agent in agents):
        raise ValueError("agent objects cannot be sent to worker processes: give the agents as specs (names, "
                         "checkpoint paths, module:Class) or play with workers=1")
    if isinstance(game, str):
        game_rules = make_rules(game, rules)
    elif rules is not None:
        raise ValueError("give rules overrides with a game's name, not with a rules object or Game")
    else:
        game_rules = rules_of(game)
    labels = tuple(labels_of(agents))
    jobs = [Deal(game_rules, num_players, tuple(agents), labels, seed, whole_game, deal, int(deal_seed), replays)
            for whole_game, count in ((False, deals), (True, matches))
            for deal, deal_seed in enumerate(deal_seeds(seed, count, whole_game))]
    per_deal = len(lineups(len(agents), num_players))
    with contextlib.ExitStack() as stack:
        if not isinstance(progress, Progress):
            progress = stack.enter_context(Progress(f"{game_rules.game} {num_players}p", {
                ROUND: deals * per_deal, WHOLE_GAME: matches * per_deal},
                deal_pool.processes(workers, len(jobs)), enabled=progress))
        played = play_deals(jobs, workers, progress, on_game)
    rounds = [record for job, records in zip(jobs, played, strict=True) if not job.whole_game for record in records]
    whole = [record for job, records in zip(jobs, played, strict=True) if job.whole_game for record in records]
    return summarise(rounds, list(labels), game_rules.game, num_players, seed, resamples, matches=whole)


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
    counted = summed_reports(records)
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
            **({"counts": counted[label]} if label in counted else {}),
        }
    return {"deals": deals, "agents": summary}


def summed_reports(records: Sequence[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Per agent label, the counts its agents reported over the games (``play_lineups``'s ``reports``): a chat
    model's requests, tokens, refused answers and fallbacks."""
    counted: dict[str, Counter[str]] = {}
    for record in records:
        for label, counts in zip(record["seats"], record.get("reports") or [], strict=False):
            if counts is not None:
                counted.setdefault(label, Counter()).update(counts)
    return {label: dict(sorted(c.items())) for label, c in counted.items()}


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
    text = f"{result['game']}, {result['players']} players, seed {result['seed']}: " \
           f"{plural(result['deals'], 'duplicate deal')} of one round"
    if "matches" in result:
        text += f" and {plural(result['matches']['deals'], 'deal')} of whole games"
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
    for kind, rows in (("rounds", result["agents"]), ("whole games", result.get("matches", {}).get("agents", {}))):
        for label, row in rows.items():
            if "counts" in row:
                lines.append(f"{label}, {kind}: " + ", ".join(f"{value:,} {key.replace('_', ' ')}"
                                                              for key, value in row["counts"].items()))
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


def add_workers(parser: argparse.ArgumentParser) -> None:
    """The evaluation commands' ``--workers``: processes that play the deals, one per core unless told."""
    parser.add_argument("--workers", type=whole_number(1), default=os.cpu_count() or 1,
                        help="worker processes (default: one per core); the results do not depend on it")


def output_problem(path: Path, folder: bool = False) -> str | None:
    """Why a command could not write the file ``path`` (or the ``folder`` it fills), or None.

    The folder is made and a scratch file written in it, since a read-only place or a file where a folder
    should be shows only on trying, and a command that found it out when it wrote would have played for nothing.
    """
    where = path if folder else path.parent
    if path.exists() and path.is_dir() != folder:
        return "it is a folder" if path.is_dir() else "it is a file"
    in_the_way = next((p for p in (where, *where.parents) if p.exists() and not p.is_dir()), None)
    if in_the_way is not None:
        return f"{str(in_the_way)!r} is a file"
    if not folder and not where.is_dir():
        return f"folder {str(where)!r} does not exist"
    try:
        where.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=where):
            pass
    except OSError as exc:
        return exc.strerror or str(exc)
    if not folder and path.exists() and not os.access(path, os.W_OK):
        return "it is read-only"
    return None


def check_output(parser: argparse.ArgumentParser, option: str, path: Path, folder: bool = False,
                 wants: str | None = None) -> None:
    """An argparse error naming ``path`` and what to do, if the command could not write it (``output_problem``).

    ``wants``: what ``option`` takes, where ``path`` is a file the command puts into that folder.
    """
    problem = output_problem(path, folder)
    if problem:
        what = "folder" if folder else "file"
        parser.error(f"argument {option}: cannot write the {what} {str(path)!r} ({problem}); "
                     f"give {option} {wants or 'a ' + what} you can write to")


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
    if args.json:
        check_output(parser, "--json", args.json)
    if args.replays:
        check_output(parser, "--replays", args.replays, folder=True)


def interrupted(message: str) -> int:
    """Ctrl-C's one line on stderr in place of a traceback, and the status a shell gives a command it
    interrupted."""
    print(f"interrupted: {message}", file=sys.stderr)
    return INTERRUPTED


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agents.evaluate", description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", required=True, choices=games.names())
    parser.add_argument("--players", type=whole_number(2, 4), default=2, help="seats at the table, 2 to 4")
    parser.add_argument("--agents", nargs="+", required=True, help="baseline names or checkpoint paths")
    parser.add_argument("--deals", type=whole_number(1), default=100,
                        help="deals of one round (default: 100); each deal is played once per lineup, a game "
                             "each (--games is an older name for it)")
    parser.add_argument("--games", type=whole_number(1), dest="deals", help=argparse.SUPPRESS)
    parser.add_argument("--matches", type=whole_number(0),
                        help="deals of whole games (T11, K10, F12), each played once per lineup (default: --deals)")
    parser.add_argument("--seed", type=whole_number(0), default=0)
    parser.add_argument("--rules", help="YAML file of rules overrides")
    parser.add_argument("--json", type=Path, help="also write the results (with every game) here")
    parser.add_argument("--replays", type=Path, help="also write every game's replay into this folder")
    add_workers(parser)
    parser.add_argument("--no-progress", action="store_true", help="no progress bar and no time estimate")
    args = parser.parse_args(argv)
    check_arguments(parser, args)
    try:
        result = evaluate(args.game, args.agents, args.players, args.deals, args.seed, rules=args.rules,
                          matches=args.deals if args.matches is None else args.matches,
                          progress=not args.no_progress, replays=args.replays, workers=args.workers)
    except ValueError as exc:
        parser.exit(2, f"error: {exc}\n")
    except KeyboardInterrupt:  # the results are summed up at the end: the games played so far are lost
        replays = f" (the replays of the games it finished are in {args.replays})" if args.replays else ""
        return interrupted(f"nothing was saved{replays}; the same command with the same --seed plays the same "
                           "deals again and gives the same numbers")
    print(format_table(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
