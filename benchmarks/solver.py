"""Times the exact Rummikub solver on positions like those met in play.

    python benchmarks/solver.py [--positions FILE | --write-positions FILE] [--count 500] [--seed 0]
                                [--jokers 2|4] [--json out.json] [--peer-results FILE]

Without ``--positions`` it deals its own seeded positions: a table of 10-66 pieces
built from valid sets (a joker in about one set in five) and a rack of 14-25 from
what is left. ``--jokers 2`` is the tile game (T1, table jokers free); ``--jokers
4`` the card edition (K1), whose table jokers keep the number they stand for (K5).
A positions file has one JSON object a line, ``{"table": [[set], ...], "rack": [...]}``;
``--write-positions FILE`` writes the dealt ones as such a file and stops, so that
a peer can be timed on exactly the positions this script times:

    python benchmarks/solver.py --write-positions positions.jsonl
    python -m venv peers && peers/bin/pip install rummikub-solver
    peers/bin/python benchmarks/peer_rummikub_solver.py positions.jsonl > peer.json
    python benchmarks/solver.py --positions positions.jsonl --peer-results peer.json

It prints median, p90 and p99 milliseconds of a best play (most pieces, opened),
of a full mask, of an opening's best play (rack only, threshold 30 or 40) and of
an opening's full mask. The machines are
shared and noisy, so a comparison with a peer means only when both ran one after
the other on the same machine and positions: ``--peer-results`` takes the JSON line that the
peer's benchmark printed and reports the ratio of medians.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from pathlib import Path

import numpy as np
from json_lines import json_lines

from rummienv.rummikub import solver
from rummienv.rummikub.sets import describe_invalid, set_kind, set_numbers
from rummienv.tiles import COLOURS, COPIES, JOKER, NUM_TYPES, tile_index, tile_name

MAKE_POSITIONS = "make one with: python benchmarks/solver.py --write-positions positions.jsonl"
MAKE_PEER_RESULTS = ("the JSON line the peer's benchmark prints on the same positions; make it with: "
                     "python -m venv peers && peers/bin/pip install rummikub-solver && "
                     "peers/bin/python benchmarks/peer_rummikub_solver.py positions.jsonl > peer.json")


def deal(rng: random.Random, jokers: int) -> dict:
    """One position as sets of tokens, dealt from a full box of pieces."""
    pool = {f"{c}{n}": 2 for c in COLOURS for n in range(1, 14)}
    pool["J"] = jokers
    want = rng.randint(10, 66)
    sets: list[list[str]] = []
    size = 0
    for _ in range(2000):
        if size >= want:
            break
        if rng.random() < 0.5:
            number = rng.randint(1, 13)
            new = [f"{c}{number}" for c in rng.sample(COLOURS, rng.choice((3, 4)))]
        else:
            colour, length = rng.choice(COLOURS), rng.randint(3, 5)
            start = rng.randint(1, 14 - length)
            new = [f"{colour}{n}" for n in range(start, start + length)]
        if pool["J"] and rng.random() < 0.2:
            new[rng.randrange(len(new))] = "J"
        if size + len(new) <= 66 and all(pool[t] >= new.count(t) for t in set(new)):
            for t in new:
                pool[t] -= 1
            sets.append(new)
            size += len(new)
    left = [t for t, k in pool.items() for _ in range(k)]
    return {"table": sets, "rack": rng.sample(left, rng.randint(14, 25))}


def check_position(position: object, jokers: int) -> dict:
    """The position if the solver can be timed on it; a ValueError saying what is wrong otherwise.

    The solver assumes valid table sets and no more pieces than the box holds, so a position
    that breaks either would time a question that play never asks, or fail halfway through a run.
    """
    if not (isinstance(position, dict) and isinstance(position.get("table"), list)
            and isinstance(position.get("rack"), list)
            and all(isinstance(tokens, list) for tokens in position["table"])):
        raise ValueError('not a position: expected {"table": [[set], ...], "rack": [...]}')
    table = [[tile_index(t) for t in tokens] for tokens in position["table"]]
    for pieces in table:
        if set_kind(pieces) is None:
            raise ValueError(describe_invalid(pieces))
    held = np.bincount([t for pieces in table for t in pieces] + [tile_index(t) for t in position["rack"]],
                       minlength=NUM_TYPES)
    if held[JOKER] > jokers:
        raise ValueError(f"{held[JOKER]} jokers, more than --jokers {jokers} allows")
    over = [tile_name(t) for t in range(JOKER) if held[t] > COPIES]
    if over:
        raise ValueError(f"more than {COPIES} of {', '.join(over)}")
    return position


def read_positions(path: str, count: int, jokers: int) -> list[dict]:
    """The first ``count`` positions of a positions file, checked before anything is timed.

    Raises OSError where the file cannot be read and ValueError naming the line that is not a position.
    """
    positions: list[dict] = []
    for number, value in json_lines(path):
        if len(positions) == count:
            break
        try:
            positions.append(check_position(value, jokers))
        except ValueError as e:  # NotationError too
            raise ValueError(f"{path} line {number}: {e}") from None
    if not positions:
        raise ValueError(f"{path} holds no positions")
    return positions


def write_positions(path: str, positions: list[dict]) -> None:
    with open(path, "w") as f:
        f.writelines(json.dumps(position) + "\n" for position in positions)


def read_peer_median(path: str) -> float:
    """The peer's median best play in ms, from the last line of its output; OSError or ValueError if there is none."""
    try:
        with open(path) as f:
            lines = f.read().strip().splitlines()
        return float(json.loads(lines[-1])["median_ms"])
    except (IndexError, ValueError, KeyError, TypeError):  # UnicodeDecodeError is a ValueError; OSError goes on
        raise ValueError(f"{path}: its last line is not JSON with median_ms") from None


def counts(position: dict, fixed_jokers: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Table counts, rack counts and ``fixed`` (K5: each table joker at the number it stands for)."""
    table = np.zeros(NUM_TYPES, dtype=np.int64)
    fixed = np.zeros(14, dtype=np.int64)
    for tokens in position["table"]:
        pieces = [tile_index(t) for t in tokens]
        numbers = set_numbers(pieces, set_kind(pieces)) if fixed_jokers else None
        for i, t in enumerate(pieces):
            if t == JOKER and numbers is not None:
                fixed[numbers[i]] += 1
            else:
                table[t] += 1
    rack = np.zeros(NUM_TYPES, dtype=np.int64)
    for t in position["rack"]:
        rack[tile_index(t)] += 1
    return table, rack, fixed


def summary(times: list[float]) -> dict:
    times = sorted(times)
    at = lambda f: times[min(len(times) - 1, int(f * len(times)))]  # noqa: E731
    return {"median_ms": round(statistics.median(times), 3), "p90_ms": round(at(0.9), 3),
            "p99_ms": round(at(0.99), 3), "max_ms": round(times[-1], 3)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    source = ap.add_mutually_exclusive_group()
    source.add_argument("--positions", metavar="FILE", help="JSON lines file of positions (default: deal them here)")
    source.add_argument("--write-positions", metavar="FILE",
                        help="write the positions that would be dealt here as a positions file, and stop")
    ap.add_argument("--count", type=int, default=500)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jokers", type=int, choices=(2, 4), default=2)
    ap.add_argument("--json", metavar="FILE", help="write the results here")
    ap.add_argument("--peer-results", metavar="FILE",
                    help="the JSON line printed by the peer's benchmark on the same positions")
    args = ap.parse_args()

    if args.count < 1:
        ap.error(f"--count must be at least 1, got {args.count}")
    if args.write_positions:
        rng = random.Random(args.seed)
        try:
            write_positions(args.write_positions, [deal(rng, args.jokers) for _ in range(args.count)])
        except OSError as e:
            ap.error(f"--write-positions {args.write_positions}: {e.strerror}")
        print(f"wrote {args.count} positions (seed {args.seed}, jokers {args.jokers}) to {args.write_positions}")
        return
    if args.json and not Path(args.json).parent.is_dir():
        ap.error(f"--json {args.json}: no folder {Path(args.json).parent} to write it in")
    if args.positions:
        try:
            positions = read_positions(args.positions, args.count, args.jokers)
        except OSError as e:
            ap.error(f"--positions {args.positions}: {e.strerror}; {MAKE_POSITIONS}")
        except ValueError as e:
            ap.error(f"--positions {e}; {MAKE_POSITIONS}")
    else:
        rng = random.Random(args.seed)
        positions = [deal(rng, args.jokers) for _ in range(args.count)]
    peer_median = None
    if args.peer_results:
        try:
            peer_median = read_peer_median(args.peer_results)
        except OSError as e:
            ap.error(f"--peer-results {args.peer_results}: {e.strerror}; it is {MAKE_PEER_RESULTS}")
        except ValueError as e:
            ap.error(f"--peer-results {e}; it should be {MAKE_PEER_RESULTS}")
    card = args.jokers == 4
    threshold = 40 if card else 30

    # compile (or load the cache) untimed, for every entry point timed below
    solver.best_play(np.zeros(NUM_TYPES), np.zeros(NUM_TYPES))
    solver.legal_mask(np.zeros(NUM_TYPES), np.zeros(NUM_TYPES))
    solver.legal_mask(np.zeros(NUM_TYPES), np.zeros(NUM_TYPES), fixed=np.ones(14, dtype=np.int64))
    solver.best_play(np.zeros(NUM_TYPES), np.zeros(NUM_TYPES), opened=False, threshold=threshold)
    solver.legal_mask(np.zeros(NUM_TYPES), np.zeros(NUM_TYPES), opened=False, threshold=threshold)
    timed: dict[str, list[float]] = {"best_play": [], "mask": [], "opening": [], "open_mask": []}
    tiles_played = []
    for position in positions:
        table, rack, fixed = counts(position, card)
        t0 = time.perf_counter()
        best = solver.best_play(table, rack, fixed=fixed)
        t1 = time.perf_counter()
        solver.legal_mask(table, rack, fixed=fixed)
        t2 = time.perf_counter()
        solver.best_play(table, rack, opened=False, threshold=threshold)
        t3 = time.perf_counter()
        solver.legal_mask(table, rack, opened=False, threshold=threshold)
        t4 = time.perf_counter()
        timed["best_play"].append((t1 - t0) * 1000)
        timed["mask"].append((t2 - t1) * 1000)
        timed["opening"].append((t3 - t2) * 1000)
        timed["open_mask"].append((t4 - t3) * 1000)
        tiles_played.append(0 if best is None else best.value)

    result = {"positions": len(positions), "jokers": args.jokers, "source": args.positions or f"seed {args.seed}",
              "tiles_played": sum(tiles_played)}
    result.update({name: summary(times) for name, times in timed.items()})
    if peer_median is not None:
        result["peer_median_ms"] = peer_median
        result["speedup_vs_peer_median"] = round(peer_median / result["best_play"]["median_ms"], 2)
    for name in timed:
        s = result[name]
        print(f"{name:10s} median {s['median_ms']:9.3f} ms  p90 {s['p90_ms']:9.3f}  p99 {s['p99_ms']:9.3f}"
              f"  max {s['max_ms']:9.3f}")
    if peer_median is not None:
        print(f"peer best play median {peer_median} ms: this solver is "
              f"{result['speedup_vs_peer_median']}x faster at the median")
    print(json.dumps(result))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
