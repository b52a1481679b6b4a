"""PPO from RLlib on the multi-agent form of a game: every seat an agent, one shared policy, RLlib's
action-masking module reading the mask from each observation.

    make rllib-check    # makes .venv-rllib, an environment of its own: RLlib pins its own Gymnasium
    .venv-rllib/bin/python examples/rllib_ppo.py --game rummy500 --iterations 20 --env-runners 2

Ray prints a few warnings of its own at the start (deprecation notices from RLlib's action-masking module,
which this script uses as RLlib ships it, a note that PPO runs on the new API stack, token authentication):
they are about Ray's code, and change nothing in the run.

On a cluster, start Ray there and point the script at it: ``--address auto`` (or ``ray://<head>:10001``),
with as many ``--env-runners`` as the cluster has cores to spare.
"""

from __future__ import annotations

import argparse
import time

import ray

from rummienv import games
from rummienv.envs.rllib_env import ppo_config


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=games.names(), default="rummy500")
    parser.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--env-runners", type=int, default=2, help="processes playing games (0: the driver)")
    parser.add_argument("--batch", type=int, default=2000, help="env steps per training iteration")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--address", help="a running Ray cluster's address (default: start one here)")
    args = parser.parse_args()
    if args.iterations < 1 or args.batch < 1 or args.env_runners < 0:
        parser.error("--iterations and --batch take whole numbers from 1, --env-runners from 0")
    ray.init(address=args.address, include_dashboard=False, log_to_driver=False)
    algo = ppo_config(args.game, args.players, args.env_runners, args.batch, args.seed).build_algo()
    try:
        started = time.time()
        for iteration in range(1, args.iterations + 1):
            result = algo.train()
            runners, learner = result["env_runners"], result["learners"]["shared"]
            steps = runners["num_env_steps_sampled_lifetime"]
            print(f"iteration {iteration}: {steps} env steps, {steps / (time.time() - started):.0f}/s, "
                  f"episode length {runners.get('episode_len_mean', float('nan')):.1f}, "
                  f"entropy {learner['entropy']:.3f}, policy loss {learner['policy_loss']:.4f}", flush=True)
    finally:
        algo.stop()
        ray.shutdown()


if __name__ == "__main__":
    main()
