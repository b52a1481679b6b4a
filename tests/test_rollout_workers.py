"""Self-play over worker processes: the same rollouts as itself run again, and a dead worker named at once."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.ppo import ActorCritic
from agents.rollout_workers import ParallelSelfPlay, WorkerError
from agents.selfplay import OpponentPool, SelfPlay, derive_seed, game_shape, make_game


def _selfplay(seed: int, num_steps: int = 12, latest_prob: float = 0.3, name: str = "rummy500") -> ParallelSelfPlay:
    game = make_game(name, 2)
    torch.manual_seed(seed)
    net = ActorCritic(*game_shape(game), hidden_size=16)
    pool = OpponentPool(["random"], latest_prob=latest_prob, pool_size=2, power=2.0)
    return ParallelSelfPlay(game, name, 5, pool, net, "win", seed, num_steps, num_workers=2)


def test_workers_play_the_same_rollouts_again():
    runs = []
    for _ in range(2):
        envs = _selfplay(3)
        try:
            envs.reset()
            trace, finished = [], []
            for update in range(1, 5):
                finished += envs.rollout(update)
                assert envs.buffers["masks"].any(axis=2).all()  # every decision handed out has a legal move
                chosen = np.take_along_axis(envs.buffers["masks"], envs.buffers["actions"][..., None], axis=2)
                assert chosen.all()  # and the learner chose a legal one
                trace += [envs.buffers[k].copy() for k in sorted(envs.buffers)]
            runs.append((trace, finished, envs.episodes, envs.env_steps, envs.pool.stats))
        finally:
            envs.close()
    (a, finished_a, episodes_a, steps_a, stats_a), (b, finished_b, episodes_b, steps_b, stats_b) = runs
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert finished_a == finished_b and len(finished_a) > 3
    assert episodes_a == episodes_b and steps_a == steps_b and stats_a == stats_b


def test_a_dead_worker_is_named_not_waited_for():
    envs = _selfplay(4)
    try:
        envs.reset()
        envs._processes[1].kill()
        envs._processes[1].join()
        with pytest.raises(WorkerError, match="rollout worker 1 stopped"):
            envs.rollout(1)
    finally:
        envs.close()
    envs.close()  # twice is harmless


def test_too_many_workers_are_refused():
    game = make_game("rummy500", 2)
    with pytest.raises(ValueError, match="num_workers"):
        ParallelSelfPlay(game, "rummy500", 2, OpponentPool(["random"], 0.0, 1, 1.0),
                         ActorCritic(*game_shape(game), hidden_size=8), "win", 0, 4, num_workers=3)


def test_a_worker_plays_its_share_as_the_learners_process_would():
    """Worker 0's games, rebuilt in this process from its seed and share, give the very same rollout: the
    worker plays from the learner's weights and pool, from the deal on (the current network is an opponent
    too, and in Rummikub its first turns have many moves to choose from)."""
    envs = _selfplay(6, latest_prob=1.0, name="rummikub")  # every game against the current network
    try:
        noise = torch.Generator().manual_seed(0)
        with torch.no_grad():
            for parameter in envs.learner.parameters():  # a policy no fresh network has: the worker must
                parameter.add_(3 * torch.randn(parameter.shape, generator=noise))  # play the learner's
        envs.reset()
        envs.rollout(1)
        share = slice(0, 3)  # np.array_split of 5 games over 2 workers
        game = make_game("rummikub", 2)
        pool = OpponentPool(["random"], latest_prob=1.0, pool_size=2, power=2.0)
        mine = {name: np.zeros_like(array[share] if name.startswith("next_") else array[:, share])
                for name, array in envs.buffers.items()}
        alone = SelfPlay(game, "rummikub", 3, pool, envs.learner, "win", derive_seed(6, 11, 0), mine, part=0)
        alone.reset()
        alone.rollout(1)
        for name, array in envs.buffers.items():
            assert np.array_equal(array[share] if name.startswith("next_") else array[:, share], mine[name]), name
        assert envs.state_dict()["workers"][0]["games"] == alone.state_dict()["games"]  # every seat's moves
    finally:
        envs.close()


def test_the_next_rollout_is_played_during_the_update_with_the_weights_it_started_with():
    """The learner trains on one rollout's arrays while the workers fill the other half with the next one, played
    with the weights sent when it started: changing them meanwhile (the update) changes neither."""
    runs = []
    for change in (False, True):
        envs = _selfplay(7)
        try:
            envs.reset()
            envs.start_rollout(1)
            envs.collect()
            first = {name: array.copy() for name, array in envs.buffers.items()}
            trained_on = envs.buffers
            envs.start_rollout(2)
            if change:
                with torch.no_grad():
                    for parameter in envs.learner.parameters():
                        parameter.add_(1.0)
            envs.collect()
            assert all(np.array_equal(trained_on[name], first[name]) for name in first)
            assert envs.buffers is not trained_on
            runs.append({name: array.copy() for name, array in envs.buffers.items()})
        finally:
            envs.close()
    assert all(np.array_equal(runs[0][name], runs[1][name]) for name in runs[0])
