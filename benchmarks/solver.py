"""Times the exact Rummikub solver on positions like those met in play.

    python benchmarks/solver.py [--positions FILE] [--count 500] [--seed 0] [--jokers 2|4]
                                [--json out.json] [--peer-results FILE]

Without ``--positions`` it deals its own seeded positions: a table of 10-66 pieces
built from valid sets (a joker in about one set in five) and a rack of 14-25 from
what is left. ``--jokers 2`` is the tile game (T1, table jokers free); ``--jokers
4`` the card edition (K1), whose table jokers keep the number they stand for (K5).
A positions file has one JSON object a line, ``{"table": [[set], ...], "rack": [...]}``.

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

import numpy as np

from rummienv.rummikub import solver
from rummienv.rummikub.sets import set_kind, set_numbers
from rummienv.tiles import COLOURS, JOKER, NUM_TYPES, tile_index


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
    ap.add_argument("--positions", help="JSON lines file of positions (default: deal them here)")
    ap.add_argument("--count", type=int, default=500)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jokers", type=int, choices=(2, 4), default=2)
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--peer-results", help="the JSON line printed by the peer's benchmark on the same positions")
    args = ap.parse_args()

    if args.positions:
        with open(args.positions) as f:
            positions = [json.loads(line) for line in f][: args.count]
    else:
        rng = random.Random(args.seed)
        positions = [deal(rng, args.jokers) for _ in range(args.count)]
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
    if args.peer_results:
        with open(args.peer_results) as f:
            peer = json.loads(f.read().strip().splitlines()[-1])
        result["peer_median_ms"] = peer["median_ms"]
        result["speedup_vs_peer_median"] = round(peer["median_ms"] / result["best_play"]["median_ms"], 2)
    for name in timed:
        s = result[name]
        print(f"{name:10s} median {s['median_ms']:9.3f} ms  p90 {s['p90_ms']:9.3f}  p99 {s['p99_ms']:9.3f}"
              f"  max {s['max_ms']:9.3f}")
    if args.peer_results:
        print(f"peer best play median {peer['median_ms']} ms: this solver is "
              f"{result['speedup_vs_peer_median']}x faster at the median")
    print(json.dumps(result))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
