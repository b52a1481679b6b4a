"""What one Rummikub legal-action mask costs at the positions play meets, and whether it is right.

Every action in Rummikub needs the exact mask of the seat to move, so the mask's
cost is the env's cost (see ``env_throughput.py``). It depends heavily on the
position: an unopened player's rack grows under random play, and a staged piece
changes what the solver must answer. So the masks are timed where play goes,
not on dealt positions (``solver.py`` does those):

1. Record seeded games (``--games`` of each ``--game``, seeds ``--seed`` on) to
   the end of the round under ``--play``:
   ``random``, every seat uniformly random legal (as ``env_throughput.py``'s
   loops), every seat's masks timed; or ``realistic``, seat 0 random legal (a
   learner at the start of training) against the training opponents
   ``max_tiles`` and ``hold_back`` (one of them in every other seat, in turn
   per game), seat 0's masks timed. ``--record FILE`` keeps the games as JSON
   lines (game, players, play, seed, history, timed_seats); ``--replay FILE``
   times such a file instead of playing, so two builds time the same positions.
2. Replay each game on one fresh state in play order (the state may keep what a
   turn's masks learnt, so positions are never visited out of order) and time
   the first ``legal_action_mask()`` call at each timed position: the state
   computes the mask lazily and caches it, so the first call is its cost.

It reports count, median, mean, p90, p99 and max in microseconds per setting,
overall and per kind of position (opened or still opening, at the turn's start
or mid-turn with pieces staged) with each kind's share of the time, beside the
issue's aims on random-play positions (median <= 25 us, mean <= 60 us, p99 <=
1 ms), and a SHA-256 digest of the timed masks in order, so two builds can be
compared. ``--check`` also computes every timed position's mask afresh with the
stateless oracle (``rummienv.rummikub.mask_reference``), right after the state's
own, times it (the ``reference`` columns: before and after on the very same
positions), counts the mismatches, prints the first few positions in full and
exits non-zero if there is any.

A two-player random game gives about 650 masks in either edition, so ``--games
160`` gives about 100,000 masks per edition; with ``--check``, on a shared 2-core
machine, that took about 2 minutes in the tile game and 7 in the card edition,
whose masks cost three times as much. The default (20 games of each) takes about
a minute.

    python benchmarks/mask_cost.py                        # both editions, 2 players, random play
    python benchmarks/mask_cost.py --game rummikub --players 2 --play random --games 100 --check
    python benchmarks/mask_cost.py --play realistic --players 3 --record games.jsonl
    python benchmarks/mask_cost.py --replay games.jsonl --check --json
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from env_throughput import baseline_seats, play_out
from json_lines import json_lines

from rummienv.core import TIMEOUT
from rummienv.errors import IllegalActionError
from rummienv.rules import RummikubRules, make_rules, played_with
from rummienv.rummikub.mask_reference import reference_mask
from rummienv.rummikub.state import RummikubGame, RummikubState

GAMES = played_with(RummikubRules)  # the games the solver plays
PLAYS = ("random", "realistic")
OPPONENTS = ("max_tiles", "hold_back")  # realistic play's other seats, one baseline per game in turn
KINDS = ("opened, turn start", "opened, mid-turn", "opening, turn start", "opening, mid-turn")
TARGETS_US = {"median": 25, "mean": 60, "p99": 1000}  # the aims on random-play positions
SHOWN = 3  # mismatching positions printed in full
STATS = ("share", "median", "mean", "p90", "p99", "max")
MAKE_RECORD = "make one with: python benchmarks/mask_cost.py --record games.jsonl"


@dataclass
class Record:
    """One game as played: enough to replay it exactly, and which seats' masks count."""

    game: str
    players: int
    play: str
    seed: int
    history: list[int]
    timed_seats: list[int]


@dataclass
class Samples:
    """What the timed positions of one setting (game, players, play) gave, in play order."""

    games: int = 0
    kinds: list[int] = field(default_factory=list)
    state_ns: list[int] = field(default_factory=list)
    reference_ns: list[int] = field(default_factory=list)
    digest: Any = field(default_factory=hashlib.sha256)  # of the timed masks, in order
    mismatches: int = 0
    shown: list[dict] = field(default_factory=list)


def new_state(game: str, players: int, seed: int) -> RummikubState:
    return RummikubGame(make_rules(game), players).new_initial_state(seed)


def play_game(game: str, players: int, play: str, seed: int) -> Record:
    """One seeded game to the end of the round; random picks come from ``default_rng(seed)``."""
    state = new_state(game, players, seed)
    if play == "random":
        seats, timed = [None] * players, list(range(players))
    else:
        seats, timed = [None, *baseline_seats([OPPONENTS[seed % 2]], game, players, seed)[1:]], [0]
    play_out(state, seats, np.random.default_rng(seed))
    return Record(game, players, play, seed, list(state.history), timed)


def kind_of(state: RummikubState) -> int:
    """Index into ``KINDS``: opened or opening, then turn start or mid-turn."""
    return 2 * int(not state.opened[state.current_player]) + int(state.staged.any())


def time_mask(state: RummikubState, samples: Samples) -> np.ndarray:
    """The state's mask, its first call timed: the state computes it once and caches it until the next action."""
    samples.kinds.append(kind_of(state))
    start = time.perf_counter_ns()
    mask = state.legal_action_mask()
    samples.state_ns.append(time.perf_counter_ns() - start)
    samples.digest.update(np.asarray(mask, dtype=np.int8).tobytes())
    return mask


def check_mask(state: RummikubState, mask: np.ndarray, samples: Samples, record: Record, ply: int) -> None:
    """Compare with the oracle's mask (timed too); keep the first few mismatches in full."""
    start = time.perf_counter_ns()
    expected = reference_mask(state)
    samples.reference_ns.append(time.perf_counter_ns() - start)
    if np.array_equal(mask, expected):
        return
    samples.mismatches += 1
    if len(samples.shown) < SHOWN:
        samples.shown.append({"game": record.game, "players": record.players, "seed": record.seed, "ply": ply,
                              "position": state.to_dict(), "state": legal_names(state, mask),
                              "reference": legal_names(state, expected)})


def legal_names(state: RummikubState, mask: np.ndarray) -> list[str]:
    return [state.action_to_string(a) for a in np.flatnonzero(mask)]


def time_game(record: Record, samples: Samples, check: bool) -> None:
    """Replay ``record`` on one fresh state, in order, timing the timed seats' masks."""
    state = new_state(record.game, record.players, record.seed)
    timed = set(record.timed_seats)
    for ply, action in enumerate(record.history):
        if state.current_player in timed:
            mask = time_mask(state, samples)
            if check:
                check_mask(state, mask, samples, record, ply)
        try:
            if action == TIMEOUT:
                state.apply_timeout()
            else:
                state.apply_action(action)
        except IllegalActionError as exc:
            raise SystemExit(f"{record.game} seed {record.seed}, action {ply} of the record: {exc}") from None
    samples.games += 1


Setting = tuple[str, int, str]  # game, players, play


def time_all(records: list[Record], check: bool) -> dict[Setting, Samples]:
    """Samples per setting; each setting's first game is replayed once untimed to load the compiled kernels."""
    samples: dict[Setting, Samples] = {}
    for record in records:
        key = (record.game, record.players, record.play)
        if key not in samples:
            time_game(record, Samples(), check)
            samples[key] = Samples()
        time_game(record, samples[key], check)
    return samples


def stats(ns: np.ndarray, total_ns: int) -> dict[str, float]:
    """Microseconds, and the share of ``total_ns`` that these calls took."""
    us = ns / 1000.0
    return {"share": float(ns.sum() / max(total_ns, 1)), "median": float(np.median(us)), "mean": float(us.mean()),
            "p90": float(np.percentile(us, 90)), "p99": float(np.percentile(us, 99)), "max": float(us.max())}


def _row(chosen: np.ndarray, sides: dict[str, np.ndarray]) -> dict:
    """The positions ``chosen``: their count, and each side's timings with their share of all that side's time."""
    return {"count": int(chosen.sum()), **{side: stats(ns[chosen], int(ns.sum())) for side, ns in sides.items()}}


def summarise(key: Setting, samples: Samples) -> dict:
    """Per kind of position (and all): count, and the state's (and the oracle's) timings."""
    kinds = np.asarray(samples.kinds)
    sides = {"state": np.asarray(samples.state_ns)}
    if samples.reference_ns:
        sides["reference"] = np.asarray(samples.reference_ns)
    groups = {"all": np.ones(len(kinds), dtype=bool)} | {k: kinds == i for i, k in enumerate(KINDS)}
    rows = {label: _row(chosen, sides) for label, chosen in groups.items() if chosen.any()}
    result = {"game": key[0], "players": key[1], "play": key[2], "games": samples.games, "masks": len(kinds),
              "sha256": samples.digest.hexdigest(), "kinds": rows}
    if key[2] == "random":
        result["targets_us"] = {k: {"aim": aim, "state": rows["all"]["state"][k], "met": rows["all"]["state"][k] <= aim}
                                for k, aim in TARGETS_US.items()}
    if "reference" in sides:
        result.update(compared=len(samples.reference_ns), mismatches=samples.mismatches, shown=samples.shown)
    return result


def _cells(values: dict[str, float]) -> str:
    return f"{values['share']:>8.1%}" + "".join(f"{values[k]:>10,.1f}" for k in STATS[1:])


def report(summary: dict) -> str:
    """One setting's table, the aims beside it, and the check's count."""
    sides = [s for s in ("state", "reference") if s in summary["kinds"]["all"]]
    group = 8 + 10 * (len(STATS) - 1)
    lines = [f"{summary['game']}, {summary['players']} players, {summary['play']} play: "
             f"{summary['masks']:,} masks timed in {summary['games']} games; sha256 of the masks {summary['sha256']}",
             " " * 29 + "".join(f"{side + ' mask, us':^{group}}" for side in sides),
             f"{'kind':<20}{'count':>9}" + (f"{STATS[0]:>8}" + "".join(f"{k:>10}" for k in STATS[1:])) * len(sides)]
    for kind, row in summary["kinds"].items():
        lines.append(f"{kind:<20}{row['count']:>9,}" + "".join(_cells(row[side]) for side in sides))
    if "targets_us" in summary:
        lines.append("aims on random-play positions (state): " + "; ".join(
            f"{k} {t['state']:,.1f} us (aim <= {t['aim']:,} us: {'met' if t['met'] else 'NOT met'})"
            for k, t in summary["targets_us"].items()))
    if "compared" in summary:
        lines.append(f"check: {summary['compared']:,} masks compared with the reference, "
                     f"{summary['mismatches']:,} mismatches")
    return "\n".join(lines)


def mismatch_text(shown: dict) -> str:
    """A mismatching position in full, and where the two masks differ."""
    state, reference = set(shown["state"]), set(shown["reference"])
    return (f"MISMATCH {shown['game']} {shown['players']} players seed {shown['seed']}, "
            f"before action {shown['ply']} of its history (from 0):\n"
            f"  position: {json.dumps(shown['position'])}\n  state:     {shown['state']}\n"
            f"  reference: {shown['reference']}\n  only in state: {sorted(state - reference)}; "
            f"only in reference: {sorted(reference - state)}")


def read_records(path: str) -> list[Record]:
    """The games of a ``--record`` file; OSError where it cannot be read, ValueError naming a line that is no game."""
    records = []
    for number, value in json_lines(path):
        try:
            records.append(Record(**value))
        except TypeError:
            fields = ", ".join(f.name for f in dataclasses.fields(Record))
            raise ValueError(f"{path} line {number}: not a recorded game (a JSON object of {fields})") from None
    return records


def record_games(args: argparse.Namespace) -> list[Record]:
    """Play the games asked for, and write them to ``--record`` if given."""
    records = [play_game(game, args.players, args.play, args.seed + i) for game in args.game for i in range(args.games)]
    if args.record:
        with open(args.record, "w") as f:
            f.writelines(json.dumps(dataclasses.asdict(r)) + "\n" for r in records)
    return records


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", nargs="+", choices=GAMES, default=list(GAMES))
    parser.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    parser.add_argument("--play", choices=PLAYS, default="random")
    parser.add_argument("--games", type=int, default=20, help="games per edition")
    parser.add_argument("--seed", type=int, default=0, help="the first game's seed; the others follow")
    files = parser.add_mutually_exclusive_group()
    files.add_argument("--record", metavar="FILE", help="write the games played here, one JSON line each")
    files.add_argument("--replay", metavar="FILE",
                       help="time the games of this file (those of the --game editions) instead of playing")
    parser.add_argument("--check", action="store_true", help="compare every timed mask with the reference, timed")
    parser.add_argument("--json", action="store_true", help="print the results as JSON instead of tables")
    args = parser.parse_args()
    if args.record and not Path(args.record).parent.is_dir():
        parser.error(f"--record {args.record}: no folder {Path(args.record).parent} to write it in")
    if args.replay:
        try:
            records = [record for record in read_records(args.replay) if record.game in args.game]
        except OSError as e:
            parser.error(f"--replay {args.replay}: {e.strerror}; {MAKE_RECORD}")
        except ValueError as e:
            parser.error(f"--replay {e}; {MAKE_RECORD}")
    else:
        records = record_games(args)
    summaries = [summarise(key, samples) for key, samples in time_all(records, args.check).items()]
    shown = [s for summary in summaries for s in summary.get("shown", [])][:SHOWN]
    print(json.dumps(summaries, indent=1) if args.json else
          "\n\n".join([*map(report, summaries), *map(mismatch_text, shown)]))
    if any(summary.get("mismatches") for summary in summaries):
        sys.exit(1)


if __name__ == "__main__":
    main()
