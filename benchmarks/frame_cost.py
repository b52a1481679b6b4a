"""Milliseconds per ``rgb_array`` frame of each env beside its step, under random legal play.

A video recorder asks for a frame after every step, so a frame should cost no more than a few steps. The
learner plays uniformly at random; in the Rummikub games ``max_tiles`` holds the other seats, so that the
table fills as in real play.

    python benchmarks/frame_cost.py [--steps 2000] [--players 2 4]
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np

from rummienv import games


def measure(game: str, players: int, steps: int, seed: int) -> tuple[float, float]:
    """(ms per step, ms per frame), each over the same ``steps`` steps."""
    opponents = None if game == "rummy500" else ["max_tiles"] * (players - 1)
    env = gym.make(games.info(game).env_id, num_players=players, opponents=opponents, render_mode="rgb_array")
    obs, _ = env.reset(seed=seed)
    env.render()  # the first frame draws the pieces' faces it will reuse
    rng = np.random.default_rng(seed)
    stepping = drawing = 0.0
    for _ in range(steps):
        action = rng.choice(np.flatnonzero(obs["action_mask"]))
        start = time.perf_counter()
        obs, _, terminated, _, _ = env.step(action)
        middle = time.perf_counter()
        env.render()
        drawing += time.perf_counter() - middle
        stepping += middle - start
        if terminated:
            obs, _ = env.reset()
    return stepping / steps * 1e3, drawing / steps * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="+", choices=games.names(), default=list(games.names()))
    parser.add_argument("--players", nargs="+", type=int, choices=(2, 3, 4), default=[2])
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.steps < 1:
        parser.error(f"--steps must be at least 1, got {args.steps}")
    print(f"{'game':<16}{'P':>2}{'ms/step':>10}{'ms/frame':>10}")
    for game in args.games:
        for players in args.players:
            step_ms, frame_ms = measure(game, players, args.steps, args.seed)
            print(f"{game:<16}{players:>2}{step_ms:>10.2f}{frame_ms:>10.2f}", flush=True)


if __name__ == "__main__":
    main()
