"""The peer for ``env_throughput.py --peer``: RLCard's gin rummy under uniformly random legal play.

Runs in a virtual environment of its own, never the project's (RLCard pins its own
dependencies):

    python -m venv peers && peers/bin/pip install rlcard==1.2.0
    python benchmarks/env_throughput.py --peer "peers/bin/python benchmarks/peer_rlcard_gin.py 10"

Every decision of either player counts as a step, as an AEC step does in rummienv
(a Gymnasium step of rummienv holds the opponents' decisions up to the learner's
next turn too). Prints one JSON line, ``{"steps_per_s": ..., "games_per_s": ...}``.
"""

from __future__ import annotations

import json
import sys
import time

import numpy as np
import rlcard


def main(seconds: float) -> None:
    env = rlcard.make("gin-rummy", config={"seed": 0})
    rng = np.random.default_rng(0)
    steps = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state, _ = env.reset()
        while not env.is_over():
            legal = list(state["legal_actions"])
            state, _ = env.step(legal[int(rng.integers(len(legal)))])
            steps += 1
        games += 1
    wall = time.perf_counter() - start
    print(json.dumps({"steps_per_s": round(steps / wall), "games_per_s": round(games / wall, 1)}))


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 10.0)
