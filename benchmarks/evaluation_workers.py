"""How much faster an evaluation runs on several worker processes than on one: the command's wall clock.

    python benchmarks/evaluation_workers.py [--game rummikub] [--agents hoard max_tiles] [--deals 100]
                                            [--workers 1 2] [--repeats 2]

Each worker count runs the real command, ``python -m agents.evaluate ... --matches 0 --seed 1 --workers N``,
start-up included, since that is what a user waits for: a worker process starts Python, imports the game and
loads its compiled kernels (about a second on a 2-core machine), a cost that a short evaluation does not earn
back. The counts take turns ``--repeats`` times, so that load from other processes falls on all alike, and the
best repeat of each counts. Every run must print the same table and write the same JSON, or the benchmark
fails. It prints one JSON line: each count's seconds (wall clock, and the CPU time of the command and its
workers), each count's speed-up over the first, and the load average before and after, which says how quiet
the machine was.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(command: list[str], out: Path) -> tuple[float, float, str]:
    """Wall and CPU seconds of one run of the command (its workers included), and what it printed and wrote."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([*command, "--json", str(out)], cwd=ROOT, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, cpu, done.stdout + out.read_text()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="rummikub")
    parser.add_argument("--agents", nargs="+", default=["hoard", "max_tiles"])
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--workers", nargs="+", type=int, default=[1, 2], help="counts to time; ratios to the first")
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args(argv)
    if min(args.workers) < 1 or args.repeats < 1 or args.deals < 1:
        parser.error("--deals, --workers and --repeats take whole numbers from 1")
    command = [sys.executable, "-m", "agents.evaluate", "--game", args.game, "--agents", *args.agents,
               "--deals", str(args.deals), "--matches", "0", "--seed", "1", "--no-progress"]
    load_before = os.getloadavg()[0]
    best: dict[int, dict[str, float]] = {}
    outputs = set()
    with tempfile.TemporaryDirectory() as work:
        for _ in range(args.repeats):
            for workers in args.workers:
                wall, cpu, output = run([*command, "--workers", str(workers)], Path(work) / "result.json")
                outputs.add(output)
                row = best.setdefault(workers, {"seconds": float("inf"), "cpu_seconds": float("inf")})
                row["seconds"], row["cpu_seconds"] = min(row["seconds"], wall), min(row["cpu_seconds"], cpu)
    if len(outputs) != 1:
        raise SystemExit("the worker counts gave different results")
    first = best[args.workers[0]]["seconds"]
    for workers, row in best.items():
        row["speed_up"] = round(first / row["seconds"], 2)
        row["seconds"], row["cpu_seconds"] = round(row["seconds"], 2), round(row["cpu_seconds"], 2)
        print(f"{workers} workers: {row['seconds']:.2f} s ({row['speed_up']:.2f}x), CPU {row['cpu_seconds']:.2f} s",
              file=sys.stderr)
    print(json.dumps({"benchmark": "evaluation_workers", "game": args.game, "agents": args.agents,
                      "deals": args.deals, "repeats": args.repeats, "cores": os.cpu_count(),
                      "load_before": round(load_before, 2), "load_after": round(os.getloadavg()[0], 2),
                      "workers": best}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
