"""Times a search expert's decisions on positions from real games: median and p99 seconds per decision.

    python benchmarks/expert_decisions.py [--game rummy500|rummikub|rummikub_cards] [--players 2] [--games 20]
                                          [--seed 0] [--samples N] [--json out.json]

The positions come from seeded games between baselines, so the positions do not depend on the expert being
timed (a faster or slower expert meets the same ones), and the digest of the actions it chose tells whether two
builds decided alike. Every position of every seat is timed through
``agents.base.decide``, as the evaluator asks (view, observation, mask and the search); the figures are given
over all decisions and over those with a choice (two or more legal actions), the ones that search.

Each game is one function in ``DECISION_POINTS`` that yields ``(state, agent)``: a position and the expert to
time on it for the seat to move. Another game's expert is added by writing its function and naming it there.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import Agent, decide, make_move
from agents.registry import make_agent
from agents.rummikub_expert import SAMPLES as RUMMIKUB_SAMPLES
from agents.rummikub_expert import ExpertAgent as RummikubExpert
from agents.rummy500_expert import SAMPLES, ExpertAgent
from rummienv.core import State
from rummienv.games import make_game

DecisionPoints = Callable[..., Iterator[tuple[State, Agent]]]


def rummy500_points(players: int, games: int, seed: int, samples: int = SAMPLES) -> Iterator[tuple[State, Agent]]:
    """Every position of ``games`` hands of ``value_hold`` self-play, with a Rummy 500 expert for its seat."""
    game = make_game("rummy500", players)
    experts = [ExpertAgent(game.rules, seed + seat, samples=samples) for seat in range(players)]
    bots = [make_agent("value_hold", game.rules, players, seed=seed + seat) for seat in range(players)]
    for deal in range(games):
        state = game.new_initial_state(seed + deal)
        while not state.is_terminal():
            yield state, experts[state.current_player]
            make_move(bots[state.current_player], state)


def rummikub_points(name: str, players: int, games: int, seed: int, samples: int = RUMMIKUB_SAMPLES
                    ) -> Iterator[tuple[State, Agent]]:
    """The start of every turn of ``games`` rounds of ``hoard`` self-play, with an expert for the seat to move.

    A Rummikub expert decides a whole turn when it begins (``PlanningAgent``); the pieces it then stages
    follow the plan and cost nothing, so only the turns' first decisions are timed."""
    game = make_game(name, players)
    experts = [RummikubExpert(game.rules, seed + seat, samples=samples) for seat in range(players)]
    bots = [make_agent("hoard", game.rules, players, seed=seed + seat) for seat in range(players)]
    for deal in range(games):
        state = game.new_initial_state(seed + deal)
        while not state.is_terminal():
            p = state.current_player
            if not state.staged.any():
                yield state, experts[p]
            make_move(bots[p], state)


DECISION_POINTS: dict[str, DecisionPoints] = {
    "rummy500": rummy500_points,
    "rummikub": functools.partial(rummikub_points, "rummikub"),
    "rummikub_cards": functools.partial(rummikub_points, "rummikub_cards"),
}


def quantiles(seconds: list[float]) -> dict[str, Any]:
    return {"decisions": len(seconds), "median_s": float(np.median(seconds)) if seconds else None,
            "p99_s": float(np.percentile(seconds, 99)) if seconds else None}


def measure(points: Iterator[tuple[State, Agent]]) -> dict[str, Any]:
    """Time one decision per position; the state is left as it was (``decide`` only reads it). The digest of
    the actions chosen says whether two builds decided alike, so a faster search is shown to be the same one."""
    every, choices, chosen = [], [], hashlib.sha256()
    for state, agent in points:
        legal = int(state.legal_action_mask().sum())
        start = time.perf_counter()
        action = decide(agent, state)
        elapsed = time.perf_counter() - start
        every.append(elapsed)
        chosen.update(f"{action},".encode())
        if legal > 1:
            choices.append(elapsed)
    return {"all": quantiles(every), "with_a_choice": quantiles(choices), "digest": chosen.hexdigest()}


def warm_up(points: Iterator[tuple[State, Agent]]) -> None:
    """Compile the expert's kernels (numba caches them on disk, but loading takes a while) outside the timing."""
    for state, agent in points:
        if state.legal_action_mask().sum() > 1:
            decide(agent, state)
            return


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=sorted(DECISION_POINTS), default="rummy500")
    parser.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--samples", type=int, help="the expert's budget knob (its default if omitted)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    if args.json and not args.json.parent.is_dir():
        parser.error(f"--json {args.json}: no folder {args.json.parent} to write it in")
    knobs = {} if args.samples is None else {"samples": args.samples}
    points = DECISION_POINTS[args.game]
    warm_up(points(args.players, 1, args.seed + 10**6, **knobs))
    result = {"game": args.game, "players": args.players, "games": args.games, "seed": args.seed, **knobs,
              **measure(points(args.players, args.games, args.seed, **knobs))}
    for part in ("all", "with_a_choice"):
        row = result[part]
        print(f"{args.game} {args.players}p, {part.replace('_', ' ')}: {row['decisions']} decisions, "
              f"median {row['median_s'] * 1e3:.1f} ms, p99 {row['p99_s'] * 1e3:.1f} ms")
    print(f"actions chosen: sha256 {result['digest'][:16]}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
