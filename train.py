"""Masked PPO by self-play for Rummikub, its card edition and Rummy 500.

Read top to bottom: the run's pieces (what a checkpoint holds, the curves and
evaluations, opening a run, an optional warm start by cloning a baseline, an optional
closing judgement by a search expert), then ``train``, in the manner of CleanRL's
ppo.py: the loop of rollout, generalised
advantage estimation and clipped minibatch updates, with evaluations against the
baselines on fixed duplicate deals, checkpoints and logs along the way. The games
are played in chunks, in this process or, with ``num_workers`` above 1, by worker
processes (``agents.rollout_workers``), which write each rollout where the loop reads
it and, with ``overlap``, play the next one while the loop trains on the last; the
run is the same for any number of workers.

    python train.py --config configs/rummikub_2p.yaml [--total-steps N] [--num-workers N] [--resume | --overwrite]

Illegal actions are masked out of the logits both when acting and in the update.
Ctrl-C (or SIGTERM) stops at the next safe point in any phase, with a checkpoint once there is
something to keep (``agents.train_control``); ``--resume`` continues from the last checkpoint as if the
run had never stopped. A run folder
that already holds a checkpoint is only replaced with ``--overwrite``.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn, optim
from tqdm import tqdm

from agents.checkpoint import CheckpointWriteError, load_checkpoint, save_checkpoint
from agents.imitation import behaviour_clone, record_teacher
from agents.ppo import ActorCritic, PolicyAgent
from agents.rollout_workers import ChunkedSelfPlay, WorkerError, make_selfplay
from agents.selfplay import OpponentPool, derive_seed, game_shape
from agents.train_config import TrainConfig, from_dict, load_config, to_dict
from agents.train_control import Stopped, StopRequest, command, estimate, ticker
from agents.train_log import CsvLog, format_table, last_evaluation, plot_curves, read_rows
from agents.whole_turn_policy import per_piece_agent, with_all_plays
from rummienv import games
from rummienv.core import Game
from rummienv.errors import INTERRUPTED

RUNS_DIR = "runs"


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", required=True, help="training config (YAML), e.g. configs/rummy500_2p.yaml")
    parser.add_argument("--total-steps", type=int, default=None, help="override the config's learner-step budget")
    again = parser.add_mutually_exclusive_group()
    again.add_argument("--resume", action="store_true", help="continue the run from runs/<name>/checkpoint.pt")
    again.add_argument("--overwrite", action="store_true",
                       help="start afresh where runs/<name>/ holds a run, replacing its checkpoint, curves and plot")
    parser.add_argument("--runs-dir", default=RUNS_DIR, help="parent folder of the run's outputs")
    parser.add_argument("--num-workers", type=int, default=None,
                        help="override the config's worker processes (0: one per core); the run is the same for "
                             "any number, so a resumed run may take another")
    return parser.parse_args()


def again(args: argparse.Namespace, flag: str | None) -> str:
    """The command that runs this config again with ``flag`` (``--resume``, ``--overwrite``), as this run was
    started; the step budget needs no repeating, since an override is saved in the checkpoint's config."""
    return command(sys.argv[0], args.config, [flag] if flag else [], args.runs_dir == RUNS_DIR, args.runs_dir)


def evaluate_learner(net: ActorCritic, config: TrainConfig, on_game: Callable[[], None]) -> list[dict[str, Any]]:
    """The learner against each baseline on the same fixed duplicate deals every time.

    The learner sits with ``num_players - 1`` copies of the baseline and plays every
    seat of every deal (the agents package's evaluator rotates the seats); ``on_game``
    follows each game.
    """
    from agents.evaluate import evaluate
    from rummienv.rules import make_rules

    rules = make_rules(config.game, config.rules or None)
    results = []
    for opponent in config.eval_opponents:
        policy = PolicyAgent(net, seed=derive_seed(config.seed, 7), greedy=config.act == "most_likely", name="learner")
        learner = per_piece_agent(policy, rules, config.whole_turns)
        report = evaluate(config.game, [learner] + [opponent] * (config.num_players - 1), config.num_players,
                          config.eval_deals, derive_seed(config.seed, 8), rules=config.rules or None,
                          progress=False, on_game=on_game)
        row = report["agents"]["learner"]
        results.append({"opponent": opponent, "games": row["games"], "win_rate": row["win_rate"],
                        "win_low": row["win_ci"][0], "win_high": row["win_ci"][1], "score": row["mean_score"],
                        "score_low": row["score_ci"][0], "score_high": row["score_ci"][1]})
    return results


@dataclass
class Learner:
    """What the loop trains and a checkpoint holds: the network, its optimiser, the opponent pool, the games
    in flight and how far the run has come."""

    config: TrainConfig
    game: Any
    net: ActorCritic
    optimizer: optim.Optimizer
    pool: OpponentPool
    envs: ChunkedSelfPlay
    update: int = 0
    global_step: int = 0
    checkpointed: int | None = None  # the update the checkpoint on disk holds, what a failed run goes on from
    judged: int | None = None  # the update whose network the judge last moved, if any
    wall_seconds: float = 0.0  # the run's earlier invocations, for how long a shipped agent trained
    started: float = field(default_factory=time.time)

    def save(self, path: Path) -> None:
        save_checkpoint(path, {
            "config": to_dict(self.config), "model": self.net.state_dict(), "model_shape": dict(self.net.shape),
            "optimizer": self.optimizer.state_dict(), "update": self.update, "global_step": self.global_step,
            "wall_seconds": self.wall_seconds + time.time() - self.started,
            "pool": self.pool.state_dict(), "selfplay": self.envs.state_dict(), "torch_rng": torch.get_rng_state(),
            "judged": self.judged, "act": self.config.act,
        })
        self.checkpointed = self.update


class Reporter:
    """The run's curves and evaluations: metrics.csv and eval.csv, TensorBoard, and how long the last
    evaluation took (the time budget keeps room for one more)."""

    def __init__(self, run_dir: Path, config: TrainConfig, resumed_at: int | None, global_step: int) -> None:
        from torch.utils.tensorboard import SummaryWriter

        self.config = config
        self.metrics = CsvLog(run_dir / "metrics.csv", keep_through_update=resumed_at)
        self.evals = CsvLog(run_dir / "eval.csv", keep_through_update=resumed_at)
        self.writer = SummaryWriter(str(run_dir / "tb"), purge_step=global_step if resumed_at is not None else None)
        if resumed_at is None:
            table = "\n".join(f"|{k}|{v}|" for k, v in to_dict(config).items())
            self.writer.add_text("config", f"|field|value|\n|-|-|\n{table}")
        self.eval_seconds = 0.0
        self.scores: dict[str, float] = {}  # the latest evaluation's score a round against each opponent

    def evaluate(self, learner: Learner, stop: StopRequest) -> None:
        """Evaluate against the baselines, with a bar of the games played; a stop request cuts it short."""
        started = time.time()
        config = self.config
        games = len(config.eval_opponents) * config.eval_deals * config.num_players
        with tqdm(total=games, desc=f"evaluation at update {learner.update}", unit="game", leave=False,
                  dynamic_ncols=True) as bar:
            results = evaluate_learner(learner.net, config, ticker(bar, stop))
        self.eval_seconds = time.time() - started
        for r in results:
            self.evals.write({"update": learner.update, "global_step": learner.global_step, **r})
            self.writer.add_scalar(f"eval/win_rate_vs_{r['opponent']}", r["win_rate"], learner.global_step)
            self.writer.add_scalar(f"eval/score_vs_{r['opponent']}", r["score"], learner.global_step)
        self.scores = {r["opponent"]: r["score"] for r in results}

    def evaluated(self, update: int) -> bool:
        """Whether the log holds an evaluation at ``update`` (a stop may have cut the first one short)."""
        return any(int(row["update"]) == update for row in read_rows(self.evals.path))

    def log_update(self, row: dict[str, Any], pool: OpponentPool) -> None:
        self.metrics.write(row)
        for key in ("learning_rate", "value_loss", "policy_loss", "entropy", "old_approx_kl", "approx_kl",
                    "clipfrac", "explained_variance", "selfplay_result", "env_steps_per_second"):
            section = "charts" if key in ("learning_rate", "selfplay_result", "env_steps_per_second") else "losses"
            self.writer.add_scalar(f"{section}/{key}", row[key], row["global_step"])
        for name, weight in pool.weights().items():
            self.writer.add_scalar(f"pool/weight_{name}", weight, row["global_step"])


def open_run(args: argparse.Namespace) -> tuple[TrainConfig, Path, dict | None]:
    """The run's config and folder, and its checkpoint when resuming; refuses to replace a run silently."""
    resumed = None
    try:
        config = load_config(args.config, total_steps=args.total_steps, num_workers=args.num_workers)
        run_dir = Path(args.runs_dir) / config.name
        if args.resume:
            resumed = load_checkpoint(run_dir / "checkpoint.pt")
            saved = dict(resumed["config"], total_steps=args.total_steps or resumed["config"]["total_steps"])
            if args.num_workers is not None:
                saved["num_workers"] = args.num_workers
            config = from_dict(saved)  # the run goes on with the settings it started with
    except ValueError as exc:
        sys.exit(f"error: {exc}")
    if resumed is None and config.init_from and not Path(config.init_from).is_file():  # a resumed run needs it not
        sys.exit(f"error: config field 'init_from': {config.init_from!r} is not a file (an agent file such as "
                 "agents/trained/rummikub_2p.pt, or a run's checkpoint.pt, such as make train leaves in runs/)")
    if resumed is None and (run_dir / "checkpoint.pt").exists():
        if not args.overwrite:
            sys.exit(f"error: {run_dir} already holds a run; continue it with {again(args, '--resume')}, or "
                     f"start afresh with {again(args, '--overwrite')}, which replaces its checkpoint, curves and plot")
        print(f"starting afresh in {run_dir}: its previous checkpoint, curves and plot are replaced")
        shutil.rmtree(run_dir / "tb", ignore_errors=True)  # else TensorBoard would mix the two runs
        for stale in ("checkpoint.pt", "curves.png"):  # the CSVs start afresh by themselves
            (run_dir / stale).unlink(missing_ok=True)
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.yaml").write_text(_as_yaml(to_dict(config)))
    return config, run_dir, resumed


def build_learner(config: TrainConfig, resumed: dict | None) -> Learner:
    """Network, optimiser, pool and games, fresh or as the checkpoint left them."""
    # Seeding and threads: one intra-op thread leaves the other core to the game engine.
    torch.manual_seed(config.seed)
    torch.set_num_threads(config.torch_threads)
    game = games.make_game(config.game, config.num_players, config.rules or None, config.whole_game, config.whole_turns)
    net = ActorCritic(*game_shape(game), config.hidden_size, config.num_layers)
    if resumed is None and config.init_from:
        start_from(net, config, game)
    optimizer = optim.Adam(net.parameters(), lr=config.learning_rate, eps=1e-5)
    pool = OpponentPool(config.baselines, config.latest_prob, config.pool_size, config.pfsp_power, config.mixed_table)
    learner = Learner(config, game, net, optimizer, pool, make_selfplay(game, config, pool, net))
    if resumed is not None:
        try:
            net.load_state_dict(resumed["model"])
            optimizer.load_state_dict(resumed["optimizer"])
            pool.load_state_dict(resumed["pool"])
            learner.envs.load_state_dict(resumed["selfplay"])
        except BaseException:
            learner.envs.close()  # worker processes and their shared memory go too
            raise
        learner.update, learner.global_step = int(resumed["update"]), int(resumed["global_step"])
        learner.checkpointed = learner.update
        learner.wall_seconds = float(resumed.get("wall_seconds", 0.0))
        learner.judged = resumed.get("judged")
        torch.set_rng_state(resumed["torch_rng"])
    return learner


def start_from(net: ActorCritic, config: TrainConfig, game: Game) -> None:
    """Load ``config.init_from``'s network into ``net``, refused unless it was trained for the same game,
    table size and action mode, in the same shape."""
    data = load_checkpoint(config.init_from)
    theirs = data["config"]
    for key in ("game", "num_players", "whole_turns"):
        if theirs.get(key, False) != getattr(config, key):
            raise ValueError(f"init_from {config.init_from!r} was trained with {key} {theirs.get(key, False)!r}, "
                             f"this run has {getattr(config, key)!r}")
    shape, weights = dict(data["model_shape"]), data["model"]
    if (shape["obs_size"], shape["num_actions"]) in game.network_shapes()[1:]:  # an earlier mode's network
        weights = with_all_plays(weights, config.num_players)
        shape.update(obs_size=net.shape["obs_size"], num_actions=net.shape["num_actions"])
    if shape != dict(net.shape):
        raise ValueError(f"init_from {config.init_from!r} is a network of shape {shape}, "
                         f"this run's is {dict(net.shape)} (hidden_size, num_layers)")
    net.load_state_dict(weights)


def warm_start(learner: Learner, reporter: Reporter, stop: StopRequest) -> None:
    """Clone a baseline so that rewards mean something from the first rollout, with a bar for the recording
    and one for the fitting."""
    config = learner.config
    started = time.time()
    with tqdm(total=config.imitation_steps, desc=f"warm start: recording {config.imitation_teacher}",
              unit="decision", leave=False, dynamic_ncols=True) as bar:
        tick = ticker(bar, stop)  # the games under way finish past the target, with the bar full
        data = record_teacher(learner.game, config.imitation_teacher, config.imitation_steps,
                              config.reward, config.seed, lambda n: tick(min(n, bar.total - bar.n)))
    batches = config.imitation_epochs * -(-len(data["actions"]) // config.minibatch_size)
    with tqdm(total=batches, desc="warm start: cloning", unit="batch", leave=False, dynamic_ncols=True) as bar:
        stats = behaviour_clone(learner.net, data, config.imitation_epochs, config.learning_rate,
                                config.minibatch_size, config.vf_coef,
                                torch.Generator().manual_seed(derive_seed(config.seed, 9)), ticker(bar, stop))
    for key, value in stats.items():
        reporter.writer.add_scalar(key, value, 0)
    tqdm.write(f"warm start: cloned {config.imitation_teacher} on {int(stats['imitation/decisions'])} "
               f"decisions in {time.time() - started:.0f}s, accuracy {stats['imitation/accuracy']:.3f}")


def judge(learner: Learner, reporter: Reporter, stop: StopRequest) -> None:
    """Move the network toward the judge's values of the choices it had in its own games (``agents.dagger``):
    PPO learns from one number a round, while the judge's play-outs score every choice it could have made.
    One round of recording and fitting, its seeds drawn from the run's, so a resumed run judges alike."""
    from agents.dagger import EPOCHS, HELD_OUT, KL, LEARNING_RATE, dagger

    config, started = learner.config, time.time()
    tqdm.write(f"judgement: {config.judge} scores the learner's choices on {config.judge_decisions:,} of its "
               f"positions against each of {', '.join(config.judge_against)}")
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "learner.pt"  # the network as an agent file, for the recording processes
        save_checkpoint(path, {"config": to_dict(config), "model": learner.net.state_dict(),
                               "model_shape": dict(learner.net.shape), "global_step": learner.global_step,
                               "act": config.act})
        judged, stats = dagger(path, config.judge, config.judge_against, config.judge_decisions, 1, EPOCHS,
                               LEARNING_RATE, config.judge_temperature, KL, HELD_OUT, derive_seed(config.seed, 10),
                               config.num_workers, check=stop.check,
                               report=lambda line: tqdm.write(f"judgement: {line}"))
    learner.net.load_state_dict(judged.state_dict())
    learner.judged = learner.update
    for key, value in stats.items():
        reporter.writer.add_scalar(f"judge/{key}", value, learner.global_step)
    tqdm.write(f"judgement: done in {time.time() - started:.0f}s")


def judgement_pending(learner: Learner) -> bool:
    """Whether the run has made its last update but its judgement has not moved the network yet (a stop cut
    it short): a resumed run judges before its final evaluation."""
    config = learner.config
    return bool(config.judge) and learner.update == config.num_updates and learner.judged != learner.update


def closing_seconds(config: TrainConfig, reporter: Reporter) -> float:
    """What the time budget keeps after the last update: the judgement's minutes and a final evaluation as
    long as the last one."""
    return reporter.eval_seconds + (60.0 * config.judge_minutes if config.judge else 0.0)


def announce(config: TrainConfig, run_dir: Path, resumed: dict | None) -> None:
    """Say at once what the run will do, where it writes and how to stop it: its first phases take minutes."""
    if resumed is not None:
        print(f"resuming {run_dir / 'checkpoint.pt'} at update {int(resumed['update'])}, step "
              f"{int(resumed['global_step'])}")
    else:
        first = (f"a warm start cloning {config.imitation_teacher} ({config.imitation_steps:,} decisions), "
                 if config.imitation_teacher else "")
        last = f", then {config.judge}'s judgement of its play" if config.judge else ""
        print(f"training {config.game}, {config.num_players} players, in {run_dir}: {first}an evaluation "
              f"against {', '.join(config.eval_opponents)}, then self-play{last}")
    limits = f"{config.total_steps:,} learner steps"
    if config.time_limit_minutes > 0:
        limits = f"{config.time_limit_minutes:g} minutes or {limits}, whichever comes first"
    print(f"it ends after {limits}; Ctrl-C stops it and keeps what it has")


def main() -> None:
    args = parse_args()
    launched = time.time()
    stop = StopRequest()  # from the first second: a signal during any phase stops it cleanly
    try:
        run(args, launched, stop)
    finally:
        stop.restore()


def run(args: argparse.Namespace, launched: float, stop: StopRequest) -> None:
    """The run's phases: warm start, first evaluation, training (with the judgement after its last update),
    final report; a stop request in any of them ends it with what it kept."""
    config, run_dir, resumed = open_run(args)
    announce(config, run_dir, resumed)
    try:
        learner = build_learner(config, resumed)
    except (ValueError, WorkerError) as exc:
        sys.exit(f"error: {exc}")
    try:
        stop.check()
        reporter = Reporter(run_dir, config, learner.update if resumed is not None else None, learner.global_step)
        if resumed is None:
            if config.imitation_teacher:
                warm_start(learner, reporter, stop)
            learner.envs.reset()
            learner.save(run_dir / "checkpoint.pt")  # kept even if the first evaluation is cut short
        elif judgement_pending(learner):
            judge(learner, reporter, stop)
            learner.save(run_dir / "checkpoint.pt")
        if evaluation_due(config, learner.update) and not reporter.evaluated(learner.update):
            reporter.evaluate(learner, stop)  # the first, or one a stop cut short: the curves have no gap
        finished = train(learner, reporter, run_dir, launched, stop)
        reporter.writer.close()
        report_end(args, learner, run_dir, finished)
    except Stopped:
        report_stop(args, learner, run_dir)
    except WorkerError as exc:
        sys.exit(f"error: {exc}{kept(args, learner, run_dir)}")
    except CheckpointWriteError as exc:
        sys.exit(f"error: {exc}; free some space (or make its folder writable), then go on"
                 f"{kept(args, learner, run_dir)}")
    except (KeyboardInterrupt, SystemError) as exc:
        if not stop.requested:  # a SystemError of its own, not compiled code cut short by the second signal
            raise
        print(f"\nstopped at once{kept(args, learner, run_dir)}", file=sys.stderr)
        sys.exit(INTERRUPTED if isinstance(exc, KeyboardInterrupt) else 1)
    finally:
        learner.envs.close()


def evaluation_due(config: TrainConfig, update: int) -> bool:
    """Whether the schedule evaluates after ``update`` (the first at update 0, every ``eval_every``-th, the last):
    one rule for the loop and for a resumed run, which plays again an evaluation that a stop cut short."""
    return update % config.eval_every == 0 or update == config.num_updates


def train(learner: Learner, reporter: Reporter, run_dir: Path, launched: float, stop: StopRequest) -> str:
    """Rollouts and PPO updates until the step budget ("done"), the time budget ("out of time") or a stop
    request ("stopped"), which it returns; checkpoints and evaluations on their schedules and at the end."""
    config, net, optimizer, pool, envs = learner.config, learner.net, learner.optimizer, learner.pool, learner.envs
    obs_size, num_actions = game_shape(learner.game)
    progress = RunProgress(learner, launched, reporter)
    try:
        # Speed counts rollouts and updates only; evaluations and checkpoints are timed apart.
        # CPU time too: on a shared machine it says what a core of one's own would give.
        train_seconds, rollout_seconds, env_steps_at_start, started = 0.0, 0.0, envs.env_steps, time.time()
        train_cpu_seconds = 0.0
        ending = "done"
        if config.overlap:
            envs.start_rollout(learner.update + 1)
        for update in range(learner.update + 1, config.num_updates + 1):
            if config.anneal_lr:
                frac = 1.0 - (update - 1.0) / config.num_updates
                optimizer.param_groups[0]["lr"] = frac * config.learning_rate

            # Rollout: every game stops at the learner's turn, where the network chooses in all of a chunk's games
            # at once (SelfPlay.rollout, in this process or in a worker's); num_steps decisions per game.
            # With ``overlap``, worker processes play the next rollout during this update, with these weights.
            update_started, update_cpu_started = time.time(), time.process_time()
            if config.overlap:
                finished = envs.collect(then=update + 1 if update < config.num_updates else None)
            else:
                finished = envs.rollout(update)
            learner.update, learner.global_step = update, learner.global_step + config.batch_size
            buf = {name: torch.from_numpy(array) for name, array in envs.buffers.items()}  # the rollout's arrays
            obs, masks, actions, logprobs = buf["obs"], buf["masks"], buf["actions"], buf["logprobs"]
            rewards, dones, values = buf["rewards"], buf["dones"], buf["values"]
            next_obs, next_done = buf["next_obs"], buf["next_done"]
            rollout_seconds += time.time() - update_started

            # Generalised advantage estimation, bootstrapped from the value of the next decision.
            with torch.no_grad():
                next_value = net.get_value(next_obs)
                advantages = torch.zeros_like(rewards)
                lastgaelam = 0
                for t in reversed(range(config.num_steps)):
                    if t == config.num_steps - 1:
                        nextnonterminal, nextvalues = 1.0 - next_done, next_value
                    else:
                        nextnonterminal, nextvalues = 1.0 - dones[t + 1], values[t + 1]
                    delta = rewards[t] + config.gamma * nextvalues * nextnonterminal - values[t]
                    advantages[t] = lastgaelam = delta + config.gamma * config.gae_lambda * nextnonterminal * lastgaelam
                returns = advantages + values

            # Flatten the batch.
            b_obs, b_masks = obs.reshape((-1, obs_size)), masks.reshape((-1, num_actions))
            b_actions, b_logprobs = actions.reshape(-1), logprobs.reshape(-1)
            b_advantages, b_returns, b_values = advantages.reshape(-1), returns.reshape(-1), values.reshape(-1)

            # Clipped policy and value updates over shuffled minibatches; the same mask shapes the logits.
            clipfracs = []
            for _epoch in range(config.update_epochs):
                b_inds = torch.randperm(config.batch_size)
                for start in range(0, config.batch_size, config.minibatch_size):
                    mb_inds = b_inds[start:start + config.minibatch_size]
                    _, newlogprob, entropy, newvalue = net.get_action_and_value(
                        b_obs[mb_inds], b_masks[mb_inds], b_actions[mb_inds])
                    logratio = newlogprob - b_logprobs[mb_inds]
                    ratio = logratio.exp()
                    with torch.no_grad():
                        old_approx_kl = (-logratio).mean()
                        approx_kl = ((ratio - 1) - logratio).mean()
                        clipfracs += [((ratio - 1.0).abs() > config.clip_coef).float().mean().item()]
                    mb_advantages = b_advantages[mb_inds]
                    if config.norm_adv:
                        mb_advantages = (mb_advantages - mb_advantages.mean()) / (mb_advantages.std() + 1e-8)
                    pg_loss1 = -mb_advantages * ratio
                    pg_loss2 = -mb_advantages * torch.clamp(ratio, 1 - config.clip_coef, 1 + config.clip_coef)
                    pg_loss = torch.max(pg_loss1, pg_loss2).mean()
                    if config.clip_vloss:
                        v_loss_unclipped = (newvalue - b_returns[mb_inds]) ** 2
                        v_clipped = b_values[mb_inds] + torch.clamp(
                            newvalue - b_values[mb_inds], -config.clip_coef, config.clip_coef)
                        v_loss_clipped = (v_clipped - b_returns[mb_inds]) ** 2
                        v_loss = 0.5 * torch.max(v_loss_unclipped, v_loss_clipped).mean()
                    else:
                        v_loss = 0.5 * ((newvalue - b_returns[mb_inds]) ** 2).mean()
                    entropy_loss = entropy.mean()
                    loss = pg_loss - config.ent_coef * entropy_loss + v_loss * config.vf_coef
                    optimizer.zero_grad()
                    loss.backward()
                    nn.utils.clip_grad_norm_(net.parameters(), config.max_grad_norm)
                    optimizer.step()
                if config.target_kl and approx_kl > config.target_kl:
                    break
            y_pred, y_true = b_values.numpy(), b_returns.numpy()
            var_y = np.var(y_true)
            explained_var = np.nan if var_y == 0 else 1 - np.var(y_true - y_pred) / var_y

            # Logging: losses and speed every update, to TensorBoard and the CSV.
            train_seconds += time.time() - update_started
            train_cpu_seconds += time.process_time() - update_cpu_started
            env_sps = (envs.env_steps - env_steps_at_start) / train_seconds
            learner_results = [r for _, r in finished]
            reporter.log_update({
                "update": update, "global_step": learner.global_step, "env_steps": envs.env_steps,
                "learning_rate": optimizer.param_groups[0]["lr"], "value_loss": v_loss.item(),
                "policy_loss": pg_loss.item(), "entropy": entropy_loss.item(), "old_approx_kl": old_approx_kl.item(),
                "approx_kl": approx_kl.item(), "clipfrac": float(np.mean(clipfracs)),
                "explained_variance": float(explained_var), "games_finished": len(finished),
                "selfplay_result": float(np.mean(learner_results)) if learner_results else float("nan"),
                "env_steps_per_second": env_sps,
                # the learner process's CPU time: with worker processes the games' CPU time is theirs
                "env_steps_per_cpu_second": ((envs.env_steps - env_steps_at_start) / train_cpu_seconds
                                             if config.num_workers == 1 else float("nan")),
                "rollout_share": rollout_seconds / train_seconds,
                "train_seconds": train_seconds,
                "wall_seconds": time.time() - started,
            }, pool)

            # Snapshots join the pool; evaluations and checkpoints on their own schedules.
            if update % config.snapshot_every == 0:
                pool.add_snapshot(f"step{learner.global_step}", net)
            # The time budget holds the judgement and the final evaluation too: stop while one more update fits.
            finish_by = launched + 60 * config.time_limit_minutes
            if config.time_limit_minutes > 0 and (
                    time.time() + (time.time() - update_started) + closing_seconds(config, reporter) > finish_by):
                ending = "out of time"
            elif stop.requested and update < config.num_updates:
                ending = "stopped"
            last = update == config.num_updates or ending == "out of time"
            evaluating = evaluation_due(config, update) or last
            saving = update % config.checkpoint_every == 0 or last or ending == "stopped"
            if evaluating or saving:  # the next rollout first: its time is training's, and a checkpoint holds it
                waited, waited_cpu = time.time(), time.process_time()
                envs.wait()  # in this process (num_workers 1), the rollout is played here and now
                waited = time.time() - waited
                train_seconds, rollout_seconds = train_seconds + waited, rollout_seconds + waited
                train_cpu_seconds += time.process_time() - waited_cpu
            if last and config.judge:
                try:
                    judge(learner, reporter, stop)
                except Stopped:  # the checkpoint keeps the last update's network, for a resumed run to judge
                    ending, evaluating, saving = "stopped", False, True
            if evaluating:
                try:
                    reporter.evaluate(learner, stop)
                except Stopped:  # the evaluation is cut short; the checkpoint keeps the update it followed
                    ending, saving = "stopped", True
            if saving:
                learner.save(run_dir / "checkpoint.pt")
                if stop.requested and ending == "done" and not last:  # asked while it was written: stop on it
                    ending = "stopped"
            progress.show(env_sps)
            if ending != "done":
                break
    except BaseException:  # a fault or a second signal: the bar ends where the run did, before its last words
        progress.close("stopped")
        raise
    progress.close(ending)
    return ending


class RunProgress:
    """The run's bar: time from the run's start towards whichever limit will end it, the step budget at the
    measured pace or the time budget, with the pace and the latest score against each baseline."""

    def __init__(self, learner: Learner, launched: float, reporter: Reporter) -> None:
        self.learner, self.launched, self.reporter = learner, launched, reporter
        self.started, self.steps_at_start = time.time(), learner.global_step
        self.bar = tqdm(total=1, desc="training", bar_format="{l_bar}{bar}| {postfix}", dynamic_ncols=True)
        self.show(None)

    def show(self, env_sps: float | None) -> None:
        config, now = self.learner.config, time.time()
        steps = self.learner.global_step
        pace = (steps - self.steps_at_start) / max(now - self.started, 1e-9)
        elapsed = now - self.launched
        time_left = self.launched + 60 * config.time_limit_minutes - now if config.time_limit_minutes > 0 else None
        left = estimate(elapsed, max(0, config.total_steps - steps), pace, time_left,
                        closing_seconds(config, self.reporter))
        self.bar.total, self.bar.n = 1000, round(1000 * left.fraction(elapsed))
        words = [f"step {steps:,}", f"{tqdm.format_interval(elapsed)} elapsed"]
        if pace > 0 or time_left is not None:  # by steps, no estimate before the first update gives a pace
            words.append(f"~{tqdm.format_interval(left.seconds_left)} left ({left.limit})")
        if env_sps is not None:
            words.append(f"{env_sps:,.0f} moves/s")
        words += [f"vs {k} {v:+.1f}/round" for k, v in self.reporter.scores.items()]
        self.bar.set_postfix_str(", ".join(words))

    def close(self, ending: str) -> None:
        if ending != "stopped":  # the run reached its limit: the bar ends full
            self.bar.n = self.bar.total
            self.bar.refresh()
        self.bar.close()


def report_end(args: argparse.Namespace, learner: Learner, run_dir: Path, ending: str) -> None:
    """What the run left and how to go on: the resume command, or the plot and the final evaluation table."""
    config = learner.config
    if ending == "stopped":
        report_stop(args, learner, run_dir)
        return
    even = 1 / config.num_players
    plot_curves(run_dir / "eval.csv", run_dir / "curves.png",
                f"{config.game}, {config.num_players} players: learner vs baselines", even)
    copies = "one copy of it" if config.num_players == 2 else f"{config.num_players - 1} copies of it"
    if ending == "out of time":
        print(f"\ntime budget of {config.time_limit_minutes:g} minutes reached at update {learner.update} of "
              f"{config.num_updates}; continue with: {again(args, '--resume')}")
    judged = f" and {config.judge}'s judgement" if learner.judged == learner.update else ""
    acting = "playing its most likely action" if config.act == "most_likely" else "sampling its policy"
    print(f"\nfinal evaluation after {learner.global_step} learner steps{judged}: {config.eval_deals} duplicate "
          f"deals per opponent, the learner ({acting}) at every seat against {copies} (even: {even:.2f})")
    print(format_table(last_evaluation(run_dir / "eval.csv")))
    print(f"\ncheckpoint: {run_dir / 'checkpoint.pt'}\ncurves:     {run_dir / 'metrics.csv'}, "
          f"{run_dir / 'eval.csv'}, TensorBoard in {run_dir / 'tb'}\nplot:       {run_dir / 'curves.png'}")


def report_stop(args: argparse.Namespace, learner: Learner, run_dir: Path) -> None:
    """After a stop request: where the run stopped and what it kept."""
    if learner.update > 0 or (run_dir / "checkpoint.pt").exists():
        print(f"\nstopped at update {learner.update} of {learner.config.num_updates}, step {learner.global_step}"
              f"{kept(args, learner, run_dir)}")
    else:
        print(f"\nstopped{kept(args, learner, run_dir)}")


def kept(args: argparse.Namespace, learner: Learner, run_dir: Path) -> str:
    """What a stopped or failed run leaves, and the command that goes on from there; the update is named, since
    after a failure or a second Ctrl-C the checkpoint may be older than the update the run had reached."""
    if learner.checkpointed is not None:
        return (f"; kept: the network, optimiser and games under way at update {learner.checkpointed} in "
                f"{run_dir / 'checkpoint.pt'}, and the curves so far; continue with: {again(args, '--resume')}")
    return f"; nothing was kept yet (no checkpoint): start again with {again(args, None)}"


def _as_yaml(values: dict[str, Any]) -> str:
    import yaml

    return yaml.safe_dump(values, sort_keys=False)


if __name__ == "__main__":
    main()
