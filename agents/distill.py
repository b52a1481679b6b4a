"""An agent file fitted to a teacher's decisions, to start training from (a config's ``init_from``).

The search expert is too slow to play inside self-play, and its choices rest on play-outs of what its seat
cannot see; a network fitted to its decisions carries its play into a learner at the cost of one recording.
The training run's own warm start (``imitation_teacher``) records in one process and reports how well the
network fits what it was fitted on; this records blocks of decisions side by side, one process and seed each,
and holds a share out, so the file is made in a fraction of the time and the figure it reports is how well
it predicts choices it never saw. Rummy 500's expert is about half predictable from the observation (a
search's choices carry its play-outs' luck), and fitting longer raises the fit, not the prediction.

    python -m agents.distill --game rummy500 --teacher expert --decisions 20000 --blocks 2 --epochs 40 \\
        --out runs/rummy500_2p_expert_clone.pt
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import shlex
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import torch

from agents.checkpoint import save_checkpoint
from agents.imitation import accuracy, behaviour_clone, record_teacher
from agents.ppo import ActorCritic
from agents.registry import baseline_names
from agents.train_config import TrainConfig, to_dict
from agents.trained import made_by
from rummienv import games
from rummienv.outcome import REWARDS


def record_block(game_name: str, num_players: int, whole_turns: bool, teacher: str, decisions: int,
                 reward: str, seed: int) -> dict[str, np.ndarray]:
    """One block of the teacher's decisions, recorded in a process of its own."""
    game = games.make_game(game_name, num_players, None, whole_turns=whole_turns)
    return record_teacher(game, teacher, decisions, reward, seed)


def split(data: dict[str, np.ndarray], held_out: float, seed: int) -> tuple[dict[str, np.ndarray], ...]:
    """The rows to fit and those held out (a random ``held_out`` share)."""
    order = np.random.default_rng(seed).permutation(len(next(iter(data.values()))))
    cut = int(len(order) * held_out)
    return ({k: v[order[cut:]] for k, v in data.items()}, {k: v[order[:cut]] for k, v in data.items()})


def fit(data: dict[str, np.ndarray], config: TrainConfig, held_out: float, minibatch_size: int,
        seed: int) -> tuple[ActorCritic, dict[str, float]]:
    """A fresh network fitted to all but the held-out share, and its accuracy on both parts.

    The seeds: the held-out share is drawn from ``seed``, the network's first weights from ``seed + 1``,
    the order of its minibatches from ``seed + 2``.
    """
    fitted, kept_out = split(data, held_out, seed)
    torch.manual_seed(seed + 1)
    net = ActorCritic(int(data["obs"].shape[1]), int(data["masks"].shape[1]), config.hidden_size, config.num_layers)
    behaviour_clone(net, fitted, config.imitation_epochs, config.learning_rate, minibatch_size, config.vf_coef,
                    torch.Generator().manual_seed(seed + 2))
    return net, {"decisions": float(len(data["actions"])), "fitted_accuracy": accuracy(net, fitted),
                 "held_out_accuracy": accuracy(net, kept_out)}


def distill(config: TrainConfig, blocks: int, held_out: float, minibatch_size: int, workers: int,
            torch_threads: int) -> tuple[ActorCritic, dict[str, float]]:
    """Record ``blocks`` blocks of ``config.imitation_steps`` decisions (block k with seed ``config.seed + 1
    + k``) on ``workers`` processes, then fit a network to them (``fit``, with ``config.seed``)."""
    jobs = [(config.game, config.num_players, config.whole_turns, config.imitation_teacher, config.imitation_steps,
             config.reward, config.seed + 1 + k) for k in range(blocks)]
    with ProcessPoolExecutor(max_workers=min(workers, blocks), mp_context=multiprocessing.get_context("spawn")) as pool:
        parts = list(pool.map(record_block, *zip(*jobs, strict=True)))
    data = {key: np.concatenate([part[key] for part in parts]) for key in parts[0]}
    torch.set_num_threads(torch_threads)  # the fit's sums, and so its weights, depend on the thread count
    return fit(data, config, held_out, minibatch_size, config.seed)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agents.distill", description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", required=True, choices=games.names())
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    parser.add_argument("--whole-turns", action="store_true", help="Rummikub's whole-turn action mode")
    parser.add_argument("--teacher", required=True, help="the agent whose decisions are fitted (a baseline's name)")
    parser.add_argument("--decisions", type=int, default=20_000, help="decisions a block (whole games: a few more)")
    parser.add_argument("--blocks", type=int, default=2, help="blocks recorded, each in its own process and seed")
    parser.add_argument("--epochs", type=int, default=40, help="passes over the fitted decisions")
    parser.add_argument("--held-out", type=float, default=0.1, help="share of the decisions kept out of the fit")
    parser.add_argument("--learning-rate", type=float, default=3e-4)
    parser.add_argument("--minibatch-size", type=int, default=1024)
    parser.add_argument("--hidden-size", type=int, default=256)
    parser.add_argument("--num-layers", type=int, default=2)
    parser.add_argument("--reward", choices=REWARDS, default="score", help="the outcome the value head is fitted to")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="recording processes")
    parser.add_argument("--torch-threads", type=int, default=1, help="threads of the fit (its weights depend on it)")
    parser.add_argument("--out", type=Path, required=True, help="the agent file to write")
    args = parser.parse_args(argv)
    for name in ("decisions", "blocks", "epochs", "workers", "torch_threads", "minibatch_size"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1, got {getattr(args, name)}")
    if not 0.0 <= args.held_out < 1.0:
        parser.error(f"--held-out must be at least 0 and below 1, got {args.held_out}")
    if args.teacher not in baseline_names(args.game):
        parser.error(f"--teacher {args.teacher!r} is not a baseline of {args.game}; "
                     f"allowed: {', '.join(baseline_names(args.game))}")
    try:
        config = TrainConfig(name=args.out.stem, game=args.game, num_players=args.players,
                             whole_turns=args.whole_turns, seed=args.seed, reward=args.reward,
                             learning_rate=args.learning_rate, hidden_size=args.hidden_size,
                             num_layers=args.num_layers, imitation_teacher=args.teacher,
                             imitation_steps=args.decisions, imitation_epochs=args.epochs)
        games.make_game(args.game, args.players, None, whole_turns=args.whole_turns)
    except ValueError as exc:
        parser.error(str(exc))
    started = time.time()
    net, stats = distill(config, args.blocks, args.held_out, args.minibatch_size, args.workers, args.torch_threads)
    facts = made_by(shlex.join(["python", "-m", "agents.distill", *(sys.argv[1:] if argv is None else argv)]),
                    time.time() - started)
    save_checkpoint(args.out, {"config": to_dict(config), "model": net.state_dict(), "model_shape": dict(net.shape),
                               "global_step": 0, "act": "most_likely", "trained": facts})
    print(f"{args.out}: {args.teacher} cloned on {int(stats['decisions']):,} decisions in {facts['minutes']} min; "
          f"accuracy {stats['fitted_accuracy']:.3f} on those fitted, {stats['held_out_accuracy']:.3f} on the "
          f"{args.held_out:.0%} held out; play it with --agents {args.out}, or start training from it (init_from)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
