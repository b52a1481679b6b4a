"""Steps per second of the envs under a uniformly random legal policy, in one process.

For each game and player count it times three loops:

- ``raw``: the state machine alone (mask, the mover's observation, apply): the
  floor that the env layers stand on;
- ``gym``: the Gymnasium env, learner and opponents random. One step is one
  learner action plus the opponents' moves up to its next turn, so both env
  steps and game actions (every seat's) per second are shown;
- ``aec``: the PettingZoo AEC env through ``last``/``step``; one step is one
  seat's action.

Each loop replays the same play from ``--seed`` several times and keeps its best
time, so that load from other processes disturbs it as little as possible. The
raw and AEC loops play the very same games and actions, so ``aec/raw`` (the AEC
env's cost per action over the raw loop's) compares equal work even where the
cost of an action depends on the position, as in Rummikub, whose solver makes
late positions far dearer than early ones: its rates describe the stretch of
play that ``--seconds`` covers.

With ``--peer``, a peer's own throughput script (run in its own virtual
environment, printing ``{"steps_per_s": ...}`` as its last line) is timed just
before and just after the project's loops, and every Gymnasium rate is also
given as a ratio to the peer's mean: on a shared machine the ratio is the
number to read.

    python benchmarks/env_throughput.py --seconds 5 --games rummy500 --players 2 4 --json
    python benchmarks/env_throughput.py --peer "peers/bin/python benchmarks/peer_rlcard_gin.py 10"
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import time
from collections.abc import Callable

import gymnasium as gym
import numpy as np
from gymnasium.utils import seeding

import rummienv
from rummienv.envs.games import GAMES, make_adapter

GYM_IDS = {"rummikub": "rummienv/Rummikub-v0", "rummikub_cards": "rummienv/RummikubCards-v0",
           "rummy500": "rummienv/Rummy500-v0"}
REPEATS = 3

Run = Callable[[int], None]  # plays n steps from the seed


def _pick(mask: np.ndarray, rng: np.random.Generator) -> int:
    legal = mask.nonzero()[0]
    return int(legal[int(rng.random() * len(legal))])


def raw_run(game: str, players: int, seed: int) -> Run:
    adapter = make_adapter(game, players)

    def run(n: int) -> None:
        deals, _ = seeding.np_random(seed)  # the AEC env's deals from reset(seed=seed)
        choices = np.random.default_rng(seed)
        state = adapter.new_state(int(deals.integers(2**63)))
        for _ in range(n):
            if state.is_terminal():
                state = adapter.new_state(int(deals.integers(2**63)))
            mask = state.legal_action_mask()
            state.observation(state.current_player)
            state.apply_action(_pick(mask, choices))

    return run


def aec_run(game: str, players: int, seed: int) -> Run:
    env = rummienv.aec_env(game, num_players=players)

    def run(n: int) -> None:
        choices = np.random.default_rng(seed)
        env.reset(seed=seed)
        done = 0
        while done < n:
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                if not env.agents:
                    env.reset()
                continue
            env.step(_pick(obs["action_mask"], choices))
            done += 1

    return run


def gym_run(game: str, players: int, seed: int, actions: list[int]) -> Run:
    """Also records in ``actions`` how many game actions (all seats) the last run played."""
    env = gym.make(GYM_IDS[game], num_players=players).unwrapped

    def run(n: int) -> None:
        choices = np.random.default_rng(seed)
        _, info = env.reset(seed=seed)
        played = 0
        for _ in range(n):
            _, _, terminated, _, info = env.step(_pick(info["action_mask"], choices))
            if terminated:
                played += len(env.state.history)
                _, info = env.reset()
        actions[:] = [played + len(env.state.history)]

    return run


def _seconds(run: Run, n: int) -> float:
    start = time.perf_counter()
    run(n)
    return time.perf_counter() - start


def _calibrate(run: Run, seconds: float) -> int:
    """Steps that take about ``seconds``; the trial runs also warm the compiled kernels and caches up."""
    run(16)  # the first call loads the compiled kernels
    n = 16
    while (elapsed := _seconds(run, n)) < seconds / 2:
        n = int(n * min(4.0, seconds / max(elapsed, 1e-6)))
    return n


def measure(game: str, players: int, seconds: float, seed: int) -> dict[str, float | int | str]:
    per_run = seconds / REPEATS
    gym_actions: list[int] = [0]
    runs = {"raw": raw_run(game, players, seed), "aec": aec_run(game, players, seed),
            "gym": gym_run(game, players, seed, gym_actions)}
    steps = {"raw": _calibrate(runs["raw"], per_run), "gym": _calibrate(runs["gym"], per_run)}
    steps["aec"] = steps["raw"]  # the same actions as the raw loop
    best = dict.fromkeys(runs, np.inf)
    for _ in range(REPEATS):
        for name, run in runs.items():
            best[name] = min(best[name], _seconds(run, steps[name]))
    rate = {name: steps[name] / best[name] for name in runs}
    return {"game": game, "players": players, "raw_actions_per_s": rate["raw"], "gym_steps_per_s": rate["gym"],
            "gym_actions_per_s": gym_actions[0] / best["gym"], "aec_steps_per_s": rate["aec"],
            "aec_over_raw": best["aec"] / best["raw"], "actions_timed": steps["raw"]}


def peer_rate(command: str) -> float:
    """Steps per second that the peer's script reports (the last line of its output, JSON)."""
    done = subprocess.run(shlex.split(command), capture_output=True, text=True, check=False)
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        raise SystemExit(f"the peer command {command!r} failed (exit {done.returncode}): {done.stderr.strip()[-500:]}")
    try:
        return float(json.loads(lines[-1])["steps_per_s"])
    except (ValueError, KeyError, TypeError):
        raise SystemExit(f"the peer command's last line is not JSON with steps_per_s: {lines[-1]!r}") from None


def table(rows: list[dict]) -> str:
    header = ("game", "P", "raw act/s", "gym steps/s", "gym act/s", "aec steps/s", "aec/raw")
    with_peer = "gym_over_peer" in rows[0]
    header += ("gym/peer",) if with_peer else ()
    lines = [f"{header[0]:<15}{header[1]:>2}" + "".join(f"{h:>13}" for h in header[2:])]
    for r in rows:
        numbers = (r["raw_actions_per_s"], r["gym_steps_per_s"], r["gym_actions_per_s"], r["aec_steps_per_s"])
        lines.append(f"{r['game']:<15}{r['players']:>2}" + "".join(f"{x:>13,.0f}" for x in numbers)
                     + f"{r['aec_over_raw']:>13.2f}" + (f"{r['gym_over_peer']:>13.2f}" if with_peer else ""))
    if with_peer:
        lines.append(f"peer: {rows[0]['peer_steps_per_s']:,.0f} steps/s (mean of a run before and one after)")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds of timed play per loop and cell")
    parser.add_argument("--games", nargs="+", choices=GAMES, default=list(GAMES))
    parser.add_argument("--players", nargs="+", type=int, choices=(2, 3, 4), default=[2, 3, 4])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print the rows as JSON instead of a table")
    parser.add_argument("--peer", help="command of a peer's throughput script, printing {\"steps_per_s\": ...} last")
    args = parser.parse_args()
    before = peer_rate(args.peer) if args.peer else None
    rows = [measure(g, p, args.seconds, args.seed) for g in args.games for p in args.players]
    if args.peer:
        peer = (before + peer_rate(args.peer)) / 2
        for row in rows:
            row["peer_steps_per_s"] = peer
            row["gym_over_peer"] = row["gym_steps_per_s"] / peer
    print(json.dumps(rows, indent=2) if args.json else table(rows))


if __name__ == "__main__":
    main()
