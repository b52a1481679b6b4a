"""Soak: many whole deals played to their end with every action audited, to find the rare position that breaks a
rule, which unit tests built by hand never reach.

After every action of every deal it checks:

- the position against the rule book (``rummienv.audit``, written apart from the engine): every piece in one
  place, every table set or meld valid, what a move may change, and the scores of the finished round or hand;
- no dead end: some action is legal whenever the deal is not over;
- the position round-trips: ``load_state(to_dict()).to_dict() == to_dict()`` (every ``--roundtrip-every``
  actions, and at the end of the deal);

and at the end of each deal that its replay record plays again to the very same final position.

A deal is one round (Rummikub) or one hand (Rummy 500), the episode of the environments. Its seats are played
by ``--agents``, named in seat order and repeated round the table, and the assignment turns one seat per deal, so
that each agent plays from every seat (``random hoard``: random against hoard, each seat in turn). ``random`` is
uniformly random legal play; any other name is an agent of ``agents.registry``, asked one action at a time so
that every action is audited. Deal ``i`` of a table is made from ``--seed`` and ``i`` only, so the same seed
plays the same deals whatever the number of workers.

Deals that break a rule are written to ``--out``: the replay record up to the first broken action (a replay
file: ``python -m rummienv.audit`` or ``python -m rummienv.replay`` reads it), and the position before that
action with the action, to reproduce it with ``load_state(position)`` and ``apply_action``.

    python benchmarks/soak.py --games 1000                       # random play, the five table sizes
    python benchmarks/soak.py --game rummy500 --players 4 --games 200 --agents random value_hold expert
    python benchmarks/soak.py --game rummikub --players 2 --games 100 --agents random hoard ppo --json
    python benchmarks/soak.py --game rummikub --players 2 --games 20000 --first 20000   # the second block of five
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import time
import traceback
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from functools import cache
from multiprocessing.pool import Pool
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from agents.base import Agent, decide
from agents.registry import make_agent
from rummienv import games, load_state
from rummienv.audit import audit_position, audit_step
from rummienv.core import Game, State
from rummienv.replay import record, states

TABLES = (("rummikub", 2), ("rummikub", 4), ("rummikub_cards", 2), ("rummy500", 2), ("rummy500", 4))
RANDOM = "random"
KEPT_PROBLEMS = 5  # lines kept per broken deal: the first break explains the rest
SHOWN_BREAKS = 3  # broken deals written out and shown per table


@dataclass
class Deal:
    """What one audited deal found; ``replay`` and ``position`` are kept only where it broke a rule."""

    index: int
    agents: list[str]
    actions: int = 0
    problems: list[str] = field(default_factory=list)
    replay: dict[str, Any] | None = None
    position: dict[str, Any] | None = None
    action: str | None = None


@dataclass
class Table:
    """One table size's totals."""

    game: str
    players: int
    agents: list[str]
    games: int
    actions: int
    breaks: int
    seconds: float
    broken: list[Deal]
    first: int = 0

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds if self.seconds else 0.0

    def summary(self) -> dict[str, Any]:
        return {"game": self.game, "players": self.players, "agents": self.agents, "first": self.first,
                "games": self.games,
                "actions": self.actions, "breaks": self.breaks, "seconds": round(self.seconds, 2),
                "games_per_s": round(self.games_per_s, 2),
                "hours_per_100k": round(100_000 / self.games_per_s / 3600, 2) if self.games_per_s else None,
                "first_breaks": [{"index": d.index, "agents": d.agents, "problems": d.problems} for d in self.broken]}


@cache
def _game(name: str, players: int) -> Game:
    return games.make_game(name, players)


@cache
def _agent(name: str, game: str, players: int) -> Agent:
    """One agent per name and table in each process, reseeded per deal: loading a network per deal would
    cost more than the deal."""
    return make_agent(name, game, players)


def seat_agents(agents: Sequence[str], players: int, index: int) -> list[str]:
    """Who plays each seat in deal ``index``: ``agents`` round the table, turned by one seat per deal."""
    return [agents[(seat + index) % len(agents)] for seat in range(players)]


def play_deal(game: str, players: int, agents: Sequence[str], seed: int, index: int, roundtrip_every: int) -> Deal:
    """Play deal ``index`` of the table to its end, auditing every action; stop at the first that breaks a rule."""
    deal = Deal(index, seat_agents(agents, players, index))
    deal_seed, choice_seed, *agent_seeds = np.random.SeedSequence([seed, index]).generate_state(2 + players)
    rng = np.random.default_rng(choice_seed)
    seats: list[Agent | None] = []
    for name, agent_seed in zip(deal.agents, agent_seeds, strict=True):
        agent = None if name == RANDOM else _agent(name, game, players)
        if agent is not None and hasattr(agent, "reseed"):
            agent.reseed(int(agent_seed))
        seats.append(agent)
    state = _game(game, players).new_initial_state(int(deal_seed))
    before = state.to_dict()
    found = audit_position(before)
    while not found and not state.is_terminal():
        legal = np.flatnonzero(state.legal_action_mask())
        if not len(legal):
            found = [f"dead end: seat {state.current_player} has no legal action in phase {state.phase!r}"]
            break
        agent = seats[state.current_player]
        action = int(legal[int(rng.random() * len(legal))]) if agent is None else decide(agent, state)
        try:
            state.apply_action(action)
            after = state.to_dict()
            found = audit_position(after) + audit_step(before, after)
            if not found and (state.is_terminal() or (deal.actions + 1) % roundtrip_every == 0):
                found = _roundtrip(after)
        except Exception:  # the engine failing on a legal action is a break too; its trace says where
            found = [f"{action} raised: {traceback.format_exc(limit=-3)}"]
        deal.actions += 1
        if found:
            deal.position, deal.action = before, state.action_to_string(action)
            break
        before = after
    if not found:
        found = _replays(state, deal.agents)
    if found:
        deal.problems = [f"action {deal.actions}: {p}" for p in found[:KEPT_PROBLEMS]]
        deal.replay = record(state, deal.agents)
    return deal


def _roundtrip(position: dict[str, Any]) -> list[str]:
    again = load_state(position).to_dict()
    if again == position:
        return []
    differ = sorted(k for k in set(position) | set(again) if position.get(k) != again.get(k))
    return [f"round trip: load_state(to_dict()).to_dict() differs in {differ}"]


def _replays(state: State, agents: list[str]) -> list[str]:
    *_, final = states(record(state, agents))
    return [] if final.to_dict() == state.to_dict() else ["replay: the record plays to another final position"]


def _play_job(job: tuple) -> Deal:
    return play_deal(*job)


def soak(game: str, players: int, agents: Sequence[str], deals: int, seed: int = 0, pool: Pool | None = None,
         roundtrip_every: int = 1, first: int = 0, progress: TextIO | None = None) -> Table:
    """Play and audit deals ``first`` to ``first + deals - 1`` of one table, over ``pool``'s processes (None: in
    this one). A run of 100,000 deals can so be played in blocks (``--first``), each the same deals as in one
    run. ``progress`` gets a line every twentieth of 1,000 deals or more: a long run would otherwise say nothing
    for hours."""
    jobs = [(game, players, list(agents), seed, i, roundtrip_every) for i in range(first, first + deals)]
    start = time.perf_counter()
    chunk = max(1, min(20, deals // 32))
    played = map(_play_job, jobs) if pool is None else pool.imap(_play_job, jobs, chunksize=chunk)
    done, actions, broken = 0, 0, []
    for deal in played:
        done += 1
        actions += deal.actions
        if deal.problems:
            broken.append(deal)
        if progress is not None and deals >= 1000 and done % (deals // 20) == 0 and done < deals:
            rate = done / (time.perf_counter() - start)
            print(f"{game} {players}p: {done:,} of {deals:,} deals, {len(broken)} breaks, {rate:.1f} deals/s, "
                  f"{(deals - done) / rate / 60:.0f} min to go", file=progress, flush=True)
    seconds = time.perf_counter() - start
    return Table(game, players, list(agents), deals, actions, len(broken), seconds, broken[:SHOWN_BREAKS], first)


def make_pool(workers: int) -> AbstractContextManager[Pool | None]:
    """Worker processes for ``soak``, started once for every table (each loads the compiled kernels and the
    agents' networks anew); None for one worker, which plays in this process."""
    return multiprocessing.get_context("spawn").Pool(workers) if workers > 1 else nullcontext()


def write_breaks(table: Table, out: Path) -> list[Path]:
    """Each broken deal's replay, and the position before its first broken action, where one can reproduce it."""
    written = []
    out.mkdir(parents=True, exist_ok=True)
    for deal in table.broken:
        stem = out / f"{table.game}_{table.players}p_deal{deal.index}"
        replay = stem.with_suffix(".replay.json")
        replay.write_text(json.dumps(deal.replay))
        written.append(replay)
        if deal.position is not None:
            position = stem.with_suffix(".position.json")
            position.write_text(json.dumps({"problems": deal.problems, "action": deal.action,
                                            "position": deal.position}))
            written.append(position)
    return written


def _tables(args: argparse.Namespace) -> Iterator[tuple[str, int]]:
    if args.game is None and args.players is None:
        yield from TABLES
        return
    for game in args.game or games.names():
        for players in args.players or sorted({p for g, p in TABLES if g == game} or {2}):
            yield game, players


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", nargs="+", choices=games.names(), help="games (default: the five table sizes)")
    parser.add_argument("--players", nargs="+", type=int, choices=(2, 3, 4), help="table sizes of each game")
    parser.add_argument("--games", type=int, default=100, help="deals per table (default 100)")
    parser.add_argument("--agents", nargs="+", default=[RANDOM],
                        help="agents in seat order, repeated round the table (default: random)")
    parser.add_argument("--seed", type=int, default=0, help="the seed every deal is made from (default 0)")
    parser.add_argument("--first", type=int, default=0, metavar="N",
                        help="the first deal's number: deals N to N + games - 1 are played, to split a long run "
                             "into blocks (default 0)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                        help="processes (default: one per core)")
    parser.add_argument("--roundtrip-every", type=int, default=1, metavar="K",
                        help="round-trip the position every K actions and at each deal's end (default 1)")
    parser.add_argument("--out", type=Path, default=Path("soak_breaks"),
                        help="folder for the replays and positions of broken deals (default soak_breaks)")
    parser.add_argument("--json", action="store_true", help="print one JSON line per table")
    args = parser.parse_args(argv)
    if args.games < 1 or args.workers < 1 or args.roundtrip_every < 1 or args.seed < 0 or args.first < 0:
        parser.error("--games, --workers and --roundtrip-every must be 1 or more, --seed and --first 0 or more")
    tables = list(_tables(args))
    for game, players in tables:
        for name in set(args.agents) - {RANDOM}:
            try:
                _agent(name, game, players)
            except ValueError as exc:
                parser.error(f"{game} at {players} players: {exc}")
    breaks = 0
    with make_pool(args.workers) as pool:
        for game, players in tables:
            table = soak(game, players, args.agents, args.games, args.seed, pool, args.roundtrip_every, args.first,
                         sys.stderr)
            breaks += table.breaks
            report(table, write_breaks(table, args.out) if table.broken else [], args.json)
    return int(breaks > 0)


def report(table: Table, written: list[Path], as_json: bool) -> None:
    summary = table.summary()
    if as_json:
        print(json.dumps({**summary, "written": [str(p) for p in written]}), flush=True)
        return
    block = f" (deals {table.first:,} to {table.first + table.games - 1:,})" if table.first else ""
    print(f"{table.game} {table.players}p [{' '.join(table.agents)}]: {table.games} games{block}, "
          f"{table.actions} actions checked, {table.breaks} invariant breaks, {summary['games_per_s']} games/s, "
          f"{table.seconds:.1f} s (100k games: {summary['hours_per_100k']} h at this rate)", flush=True)
    for deal in table.broken:
        print(f"  deal {deal.index} [{' '.join(deal.agents)}]:", *deal.problems, sep="\n    ")
    for path in written:
        print(f"  wrote {path}")


if __name__ == "__main__":
    sys.exit(main())
