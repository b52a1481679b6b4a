"""A learner moved toward a search teacher's action values on the learner's own positions (DAgger).

Cloning the search expert's own games (``agents.distill``) teaches the positions the expert reaches, not those
the learner meets, and the expert's choices carry its play-outs' luck: a clone predicts half of them. Here the
learner plays; wherever it had a choice the teacher scores every legal action (``values``, its play-outs'
mean), and the network is moved to raise the teacher's value of its policy, held near the network it started
from by a KL term. The objective is linear in the values, so their play-out noise averages out over positions
instead of picking noisy best actions. The pull back matters: the teacher's values assume its own play after
the action, not the learner's, and fitted to the teacher's best actions alone the learner lost hands it had
won (docs/results.md). Each round plays the last round's network and fits the starting network afresh to
every round's positions (dataset aggregation), so one round's luck does not compound.

The teacher judges in its own action mode. Rummy 500's expert scores every move; Rummikub's plans whole turns,
so it judges a whole-turn learner's draws and whole plays (its ``values``), and the learner's steps inside a
turn count as neither good nor bad: the fit leaves them to the KL term.

    python -m agents.dagger --learner agents/trained/rummy500_2p.pt --teacher expert \\
        --against value_hold learner --decisions 20000 --rounds 2 --out runs/rummy500_2p_dagger.pt
    python -m agents.dagger --learner agents/trained/rummikub_2p.pt --against hoard learner \\
        --decisions 2000 --rounds 1 --temperature 20 --out runs/rummikub_2p_dagger.pt
"""

from __future__ import annotations

import argparse
import copy
import multiprocessing
import os
import shlex
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.checkpoint import load_agent, load_checkpoint, network_from, save_checkpoint
from agents.distill import split
from agents.imitation import whole_turn
from agents.ppo import ActorCritic, masked_logits
from agents.registry import LEARNER, check_teacher, make_agent
from agents.selfplay import act_batch, derive_seed
from agents.trained import TRAINED_DIR, made_by, with_start
from rummienv import games

PARALLEL_GAMES = 16  # hands played side by side, so the learner acts on a batch
MINIBATCH = 512
# The fit's settings, as the command's defaults and a training run's judgement phase take them.
EPOCHS, LEARNING_RATE, KL, HELD_OUT = 20.0, 3e-4, 0.1, 0.1


def record_values(learner_path: str, opponent: str, teacher: str, decisions: int, seed: int) -> dict[str, np.ndarray]:
    """``decisions`` positions of the learner's seat (it sits at each seat in turn) where the teacher could judge
    a choice, with the teacher's value of every legal action (NaN where illegal, or where the teacher cannot
    judge it). Only finished games are kept. ``opponent`` fills every other seat, or is a table of them joined
    by ``+`` (``expert+hoard+max_tiles``), seated in that order after the learner.

    A whole-turn learner plays the whole-turn mode's states, its network seeing them as it trained (a network
    of fewer plays sees the first of them, ``whole_turns.PLAYS``); the others move there as the warm start's
    teachers do (``imitation.whole_turn``)."""
    data = load_checkpoint(learner_path)
    config, shape = data["config"], data["model_shape"]
    whole = bool(config.get("whole_turns", False))
    game = games.make_game(config["game"], int(config["num_players"]), None, whole_turns=whole)
    players = game.num_players
    learner = load_agent(learner_path, game, players, seed=derive_seed(seed, 1))
    network = learner.policy if whole else learner  # the agent file plays per piece; its network, the mode's states
    table = opponents(opponent, players)  # one name alone keeps the seed a single opponent has always had
    named = {name: network if name == LEARNER else make_agent(
        name, game, players, derive_seed(seed, 2) if len(set(table)) == 1 else derive_seed(seed, 2, i))
        for i, name in enumerate(dict.fromkeys(table))}
    judge = make_agent(teacher, game, players, derive_seed(seed, 3))
    seen = (int(shape["obs_size"]), int(shape["num_actions"]))
    records: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    parallel = min(PARALLEL_GAMES, max(1, decisions // 100))  # a small recording plays few hands too many
    states: list[Any] = [game.new_initial_state(derive_seed(seed, 6, k)) for k in range(parallel)]
    seats = [k % players for k in range(parallel)]
    trails: list[list[tuple[np.ndarray, np.ndarray, np.ndarray]]] = [[] for _ in states]
    started = parallel
    while any(s is not None for s in states):
        live = [k for k, s in enumerate(states) if s is not None]
        mine = [k for k in live if states[k].current_player == seats[k]]
        theirs = [k for k in live if states[k].current_player != seats[k]]  # before the learner's moves
        if mine:
            moves = _moves(network, [states[k] for k in mine], seen)
            for k, action in zip(mine, moves, strict=True):
                trails[k] += _judged(states[k], judge, seen)
                states[k].apply_action(int(action))
        by_name: dict[str, list[int]] = {}
        for k in theirs:
            by_name.setdefault(table[(states[k].current_player - seats[k] - 1) % players], []).append(k)
        for name, ks in by_name.items():
            movers, others = [states[k] for k in ks], named[name]
            moves = (_moves(others, movers, seen) if others is network else
                     [whole_turn(others, state) for state in movers] if whole else act_batch(others, movers))
            for k, action in zip(ks, moves, strict=True):
                states[k].apply_action(int(action))
        for k in live:
            if not states[k].is_terminal():
                continue
            records += trails[k]
            trails[k] = []
            states[k] = None
            if len(records) + sum(map(len, trails)) < decisions:
                states[k] = game.new_initial_state(derive_seed(seed, 6, started))
                seats[k] = started % players
                started += 1
    obs, masks, values = zip(*records, strict=True)
    return {"obs": np.stack(obs), "masks": np.stack(masks).astype(bool), "values": np.stack(values)}


def opponents(spec: str, players: int) -> list[str]:
    """The names at the seats after the learner's, in order: one name at every seat, or a table of
    ``players - 1`` names joined by ``+``; a ValueError otherwise."""
    names = spec.split("+")
    if len(names) == 1:
        return names * (players - 1)
    if len(names) != players - 1:
        raise ValueError(f"opponents {spec!r} name {len(names)} seats; a table of {players} has {players - 1} "
                         "beside the learner's (or name one agent for all of them)")
    return names


def _moves(network: Any, states: list[Any], seen: tuple[int, int]) -> np.ndarray:
    """The network's moves for the seats to move, in one batch, from what it sees of each state."""
    obs = np.stack([s.observation(s.current_player)[:seen[0]] for s in states])
    return network.act_batch(obs, np.stack([s.legal_action_mask()[:seen[1]] for s in states]))


def _judged(state: Any, judge: Any, seen: tuple[int, int]) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The position of the seat to move as the network sees it, with the teacher's values of its legal actions,
    if the teacher can judge a choice there (two of them at least)."""
    mask = state.legal_action_mask()[:seen[1]].astype(bool)
    legal = np.flatnonzero(mask)
    if len(legal) < 2:
        return []
    seat = state.current_player
    values = np.full(len(mask), np.nan, dtype=np.float32)
    values[legal] = judge.values(state.view(seat), legal).mean(axis=1)
    if np.isfinite(values).sum() < 2:
        return []
    return [(state.observation(seat)[:seen[0]], mask, values)]


def improve(start: ActorCritic, data: dict[str, np.ndarray], updates: int, learning_rate: float,
            temperature: float, kl: float, generator: torch.Generator) -> ActorCritic:
    """A copy of ``start`` after ``updates`` minibatch steps on: minus the teacher's value of the policy (each
    position's values less their legal mean, over ``temperature`` points), plus ``kl`` times KL(start || it).

    The policy head and the trunk move; the value head is not fitted, as the teacher's values are of another
    continuation than the learner's own."""
    net = copy.deepcopy(start)
    obs, masks = torch.as_tensor(data["obs"]), torch.as_tensor(data["masks"])
    values = torch.as_tensor(data["values"])
    centred = torch.nan_to_num(values - torch.nanmean(values, -1, keepdim=True), nan=0.0) / temperature
    with torch.no_grad():
        before = torch.log_softmax(masked_logits(start.actor(start.trunk(obs)), masks), -1)
    optimizer = torch.optim.Adam(net.parameters(), lr=learning_rate)
    done = 0
    while done < updates:
        for idx in torch.randperm(len(obs), generator=generator).split(MINIBATCH):
            log_p = torch.log_softmax(masked_logits(net.actor(net.trunk(obs[idx])), masks[idx]), -1)
            gain = (log_p.exp() * centred[idx]).sum(-1).mean()
            ref = before[idx]
            drift = (ref.exp() * (ref - log_p)).masked_fill(~masks[idx], 0.0).sum(-1).mean()
            optimizer.zero_grad()
            (kl * drift - gain).backward()
            optimizer.step()
            done += 1
            if done == updates:
                break
    return net


def judge_policy(net: ActorCritic, data: dict[str, np.ndarray]) -> dict[str, float]:
    """How the most likely action stands by the teacher: the share that is its best action, and the mean
    points its best would gain over it where the teacher judged it (the regret, by its noisy estimate)."""
    values = torch.as_tensor(np.nan_to_num(data["values"], nan=-np.inf))
    with torch.no_grad():
        chosen = masked_logits(net.actor(net.trunk(torch.as_tensor(data["obs"]))),
                               torch.as_tensor(data["masks"])).argmax(-1)
    best = values.max(-1)
    got = values.gather(1, chosen[:, None]).squeeze(1)
    judged = torch.isfinite(got)
    return {"agreement": float((chosen == best.indices).float().mean()),
            "regret": float((best.values - got)[judged].mean())}


def dagger(learner: Path, teacher: str, against: list[str], decisions: int, rounds: int, epochs: float,
           learning_rate: float, temperature: float, kl: float, held_out: float, seed: int, workers: int,
           check: Callable[[], None] = lambda: None,
           report: Callable[[str], None] = print) -> tuple[ActorCritic, dict[str, float]]:
    """``rounds`` rounds: the current network plays ``decisions`` judged positions against each of ``against``
    (block k of round r with seed ``seed + 1 + r * len(against) + k``, on ``workers`` processes), then the
    starting network is fitted to every round's positions but a held-out share (``held_out``, drawn from
    ``seed``), with as many updates as ``epochs`` passes over one round's positions (minibatch order from
    ``seed + 2 + r``). Returns the last fit and how it and the start stand on the held-out positions.

    ``check`` is called while the recording processes play and between rounds, and may raise to stop (a
    training run's stop request): the processes ignore Ctrl-C and are ended when it does. ``report`` takes
    each round's line."""
    start_data = load_checkpoint(learner)
    start = network_from(start_data)
    parts: list[dict[str, np.ndarray]] = []
    current = str(learner)
    processes = min(workers, len(against))
    with tempfile.TemporaryDirectory() as scratch, multiprocessing.get_context("spawn").Pool(
            processes, initializer=signal.signal, initargs=(signal.SIGINT, signal.SIG_IGN)) as pool:
        for r in range(rounds):
            jobs = [(current, opponent, teacher, decisions, seed + 1 + r * len(against) + k)
                    for k, opponent in enumerate(against)]
            recording = pool.starmap_async(record_values, jobs)
            while not recording.ready():
                recording.wait(0.5)
                check()
            parts += recording.get()
            data = {key: np.concatenate([part[key] for part in parts]) for key in parts[0]}
            fitted, kept_out = split(data, held_out, seed)
            updates = max(1, round(epochs * len(fitted["values"]) / (r + 1) / MINIBATCH))
            net = improve(start, fitted, updates, learning_rate, temperature, kl,
                          torch.Generator().manual_seed(seed + 2 + r))
            stats = {"positions": float(len(data["values"])), **{f"start_{k}": v for k, v in judge_policy(
                start, kept_out).items()}, **judge_policy(net, kept_out)}
            report(f"round {r + 1}: {len(data['values']):,} positions; on the {held_out:.0%} held out, the "
                   f"teacher's best action {stats['start_agreement']:.3f} -> {stats['agreement']:.3f} of the time, "
                   f"regret {stats['start_regret']:.2f} -> {stats['regret']:.2f} points")
            current = str(Path(scratch) / f"round{r + 1}.pt")
            save_checkpoint(current, {**_without_facts(start_data), "model": net.state_dict()})
            check()
    return net, stats


def _without_facts(data: dict[str, Any]) -> dict[str, Any]:
    """An agent file's playing parts: a round's network is saved in the start's form, its facts added last."""
    return {key: data[key] for key in ("config", "model", "model_shape", "global_step", "act")}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agents.dagger", description=__doc__.split("\n\n")[0])
    parser.add_argument("--learner", type=Path, required=True, help="the agent file to start from")
    parser.add_argument("--teacher", default="expert", help="a baseline that scores actions (its values)")
    parser.add_argument("--against", nargs="+", default=["value_hold", LEARNER],
                        help=f"the learner's opponents, a block each a round ('{LEARNER}': itself; a table's seats "
                             "after the learner's joined by '+', such as expert+hoard+max_tiles)")
    parser.add_argument("--decisions", type=int, default=20_000, help="judged positions a block")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--epochs", type=float, default=EPOCHS, help="a fit's updates, in passes over one round")
    parser.add_argument("--learning-rate", type=float, default=LEARNING_RATE)
    parser.add_argument("--temperature", type=float, default=5.0, help="points of teacher value per unit")
    parser.add_argument("--kl", type=float, default=KL, help="weight of the pull back to the starting policy")
    parser.add_argument("--held-out", type=float, default=HELD_OUT, help="share of positions kept out of the fit")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="recording processes")
    parser.add_argument("--torch-threads", type=int, default=1, help="threads of the fit (its weights depend on it)")
    parser.add_argument("--out", type=Path, required=True, help="the agent file to write")
    args = parser.parse_args(argv)
    for name in ("decisions", "rounds", "workers", "torch_threads"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1, got {getattr(args, name)}")
    for name in ("epochs", "learning_rate", "temperature"):
        if not getattr(args, name) > 0:
            parser.error(f"--{name.replace('_', '-')} must be above 0, got {getattr(args, name)}")
    if not args.kl >= 0 or not 0.0 <= args.held_out < 1.0:
        parser.error(f"--kl must be at least 0 and --held-out in [0, 1), got {args.kl} and {args.held_out}")
    if args.out.resolve().parent == TRAINED_DIR.resolve():
        parser.error(f"--out {str(args.out)!r} is in the shipped agents' folder; write it elsewhere and ship it "
                     "with python -m agents.trained <file> --ship")
    try:
        start = load_checkpoint(args.learner)
        config = start["config"]
        game = games.make_game(config["game"], int(config["num_players"]), None)
        load_agent(args.learner, game, game.num_players)  # refused if the file does not fit its own game
        for spec in args.against:
            for name in opponents(spec, game.num_players):
                if name != LEARNER:
                    make_agent(name, game, game.num_players, 0)
        check_teacher(game, game.num_players, args.teacher, bool(config.get("whole_turns", False)))
    except (ValueError, OSError) as exc:
        parser.error(str(exc))
    torch.set_num_threads(args.torch_threads)
    began = time.time()
    net, stats = dagger(args.learner, args.teacher, args.against, args.decisions, args.rounds, args.epochs,
                        args.learning_rate, args.temperature, args.kl, args.held_out, args.seed, args.workers)
    command = shlex.join(["python", "-m", "agents.dagger", *(sys.argv[1:] if argv is None else argv)])
    facts, _ = with_start(made_by(command, time.time() - began), 0, str(args.learner))
    save_checkpoint(args.out, {**_without_facts(start), "model": net.state_dict(), "trained": facts})
    print(f"{args.out}: {args.learner} moved toward {args.teacher}'s values on {int(stats['positions']):,} of its "
          f"own positions in {(time.time() - began) / 60.0:.1f} min; play it with --agents {args.out}, or ship it "
          f"with python -m agents.trained {args.out} --ship")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
