"""Environment steps per second during training, per game, on this machine.

Runs the real ``train.py`` on each game's config for a short budget and reads the
speed it logs: every move of every seat (learner and opponents) per second of
rollout and update time after the first update (whose rollout also loads the compiled
kernels in each process), warm start and evaluations excluded; and per second of
the process's CPU time, which is what a core of its own would give on a busy machine. The network that
plays matters as much as the engine: in Rummikub a policy that stages pieces at
random builds large tables full of jokers, on which the solver is slowest, so
the configs' warm start (cloning a baseline) is part of what is measured.

``--workers 1 2`` times each game with each number of worker processes playing the games (the config's
``num_workers``, its own by default; 1 plays them in the learner's process), alternating ``--repeats``
times so that load from other processes falls on all alike, and gives each count's best rate over the
first count's. With workers the games' CPU time is theirs, not the learner process's, so per CPU second
is shown for 1 only.

    python benchmarks/train_throughput.py [--games rummy500 rummikub] [--updates 3]
    python benchmarks/train_throughput.py --games rummikub --workers 1 2 --repeats 2 --updates 4
    python benchmarks/train_throughput.py --games rummy500 --workers 2 --overlap
    python benchmarks/train_throughput.py --games rummikub --workers 1 2 --games-per-chunk 16
"""

from __future__ import annotations

import argparse
import csv
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = {"rummy500": "rummy500_2p", "rummikub": "rummikub_2p", "rummikub_cards": "rummikub_cards_2p",
           "rummikub_4p": "rummikub_4p"}


def config_workers(config_name: str) -> int:
    """The worker processes the config names (0: one per core)."""
    return int(yaml.safe_load((ROOT / "configs" / f"{config_name}.yaml").read_text()).get("num_workers", 0))


def measure(config_name: str, updates: int, work: Path, workers: int, overlap: bool,
            games_per_chunk: int | None) -> dict[str, float]:
    """Train ``updates`` updates of the config (with its warm start) and return the logged speed."""
    values = yaml.safe_load((ROOT / "configs" / f"{config_name}.yaml").read_text())
    batch = values["num_envs"] * values["num_steps"]
    values.update(name=config_name, total_steps=updates * batch, eval_every=10**6, eval_deals=1,
                  imitation_steps=min(values.get("imitation_steps", 0), 2000), num_workers=workers,
                  overlap=overlap)
    if games_per_chunk:
        values["games_per_chunk"] = games_per_chunk
    config = work / f"{config_name}.yaml"
    config.write_text(yaml.safe_dump(values))
    subprocess.run([sys.executable, str(ROOT / "train.py"), "--config", str(config), "--runs-dir", str(work),
                    "--overwrite"],
                   cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with (work / config_name / "metrics.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    first, last = rows[0], rows[-1]  # the rate from the first update's end on: processes and caches warm
    steady = ((float(last["env_steps"]) - float(first["env_steps"]))
              / (float(last["train_seconds"]) - float(first["train_seconds"])))
    return {"env_sps": steady, "env_cpu_sps": float(last["env_steps_per_cpu_second"]),
            "env_steps": float(last["env_steps"]),
            "learner_steps": float(last["global_step"]), "rollout_share": float(last["rollout_share"])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="+", default=list(CONFIGS), choices=list(CONFIGS))
    parser.add_argument("--updates", type=int, default=3, help="PPO updates per game, the first not timed")
    parser.add_argument("--workers", nargs="+", type=int,
                        help="worker processes to time, in turn (default: each config's own)")
    parser.add_argument("--repeats", type=int, default=1, help="rounds over the worker counts; the best counts")
    parser.add_argument("--overlap", action="store_true", help="workers play the next rollout during the update")
    parser.add_argument("--games-per-chunk", type=int, help="games a worker plays as one batch (default: the config's)")
    args = parser.parse_args()
    if min(args.workers or [1]) < 1 or args.repeats < 1 or args.updates < 2:
        parser.error("--workers and --repeats take whole numbers from 1, --updates from 2")
    print(f"{'game':<16}{'workers':>8}{'env steps/s':>12}{'per CPU second':>16}{'learner steps/s':>17}"
          f"{'in rollout':>12}{'speed-up':>10}")
    with tempfile.TemporaryDirectory() as work:
        for game in args.games:
            counts = args.workers or [config_workers(CONFIGS[game])]
            best: dict[int, dict[str, float]] = {}
            for _ in range(args.repeats):
                for workers in counts:
                    r = measure(CONFIGS[game], args.updates, Path(work), workers, args.overlap, args.games_per_chunk)
                    if workers not in best or r["env_sps"] > best[workers]["env_sps"]:
                        best[workers] = r
            for workers in counts:
                r = best[workers]
                learner_sps = r["env_sps"] * r["learner_steps"] / r["env_steps"]
                cpu = f"{r['env_cpu_sps']:.0f}" if workers == 1 else "-"
                print(f"{game:<16}{workers:>8}{r['env_sps']:>12.0f}{cpu:>16}{learner_sps:>17.0f}"
                      f"{r['rollout_share']:>12.0%}{r['env_sps'] / best[counts[0]]['env_sps']:>10.2f}",
                      flush=True)


if __name__ == "__main__":
    main()
