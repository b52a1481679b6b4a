"""Self-play in chunks: the same rollouts whatever plays them, games that move between processes intact, and a
dead worker named at once."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.ppo import ActorCritic
from agents.rollout_workers import ChunkedSelfPlay, WorkerError, chunk_columns
from agents.selfplay import OpponentPool, SelfPlay, derive_seed, game_shape, rollout_buffers
from rummienv.games import make_game


def _selfplay(seed: int, num_workers: int = 2, num_steps: int = 12, latest_prob: float = 0.3,
              name: str = "rummy500", games_per_chunk: int = 2, whole_game: bool = False,
              players: int = 2) -> ChunkedSelfPlay:
    game = make_game(name, players, whole_turns=name == "rummikub", whole_game=whole_game)
    torch.manual_seed(seed)
    net = ActorCritic(*game_shape(game), hidden_size=16)
    pool = OpponentPool(["random", "greedy"], latest_prob=latest_prob, pool_size=2, power=2.0, mixed=players > 2)
    return ChunkedSelfPlay(game, 5, pool, net, "win", seed, num_steps, num_workers, games_per_chunk)


def _train_a_little(net: ActorCritic) -> None:
    """A change of weights, as an update makes, so that a rollout played with stale ones would show."""
    with torch.no_grad():
        for parameter in net.parameters():
            parameter.mul_(1.5)


def _play(num_workers: int, overlap: bool, name: str, players: int) -> tuple[list[np.ndarray], list, int, int, dict]:
    """Four rollouts as training plays them: the weights change after each, a snapshot joins the pool."""
    envs = _selfplay(3, num_workers, num_steps=40, name=name, players=players)
    try:
        envs.reset()
        trace, finished, updates = [], [], 4
        if overlap:
            envs.start_rollout(1)
        for update in range(1, updates + 1):
            if overlap:
                finished += envs.collect(then=update + 1 if update < updates else None)
            else:
                finished += envs.rollout(update)
            assert envs.buffers["masks"].any(axis=2).all()  # every decision handed out has a legal move
            chosen = np.take_along_axis(envs.buffers["masks"], envs.buffers["actions"][..., None], axis=2)
            assert chosen.all()  # and the learner chose a legal one
            trace += [envs.buffers[k].copy() for k in sorted(envs.buffers)]
            _train_a_little(envs.learner)
            if update == 2:
                envs.pool.add_snapshot("step2", envs.learner)
        return trace, finished, envs.episodes, envs.env_steps, envs.pool.stats
    finally:
        envs.close()


@pytest.mark.parametrize(("name", "overlap", "players"), [("rummy500", False, 2), ("rummy500", True, 2),
                                                         ("rummikub", False, 2), ("rummy500", False, 4)])
def test_the_same_rollouts_whatever_number_of_workers_plays_them(name: str, overlap: bool, players: int):
    """Three chunks of games, in the learner's process, over two workers (one plays two chunks, taking them
    as it comes free) and over three: the same decisions, games, pool and counts, with the next rollout
    played during the update or not; at four seats, tables mixed seat by seat."""
    alone, *others = [_play(workers, overlap, name, players) for workers in (1, 2, 3)]
    trace, finished, episodes, steps, stats = alone
    assert len(finished) > 12  # games end, and new ones draw opponents, mid-rollout
    if players > 2:
        assert any(len(set(table.split("+"))) > 1 for table, _ in finished)
    for other_trace, other_finished, other_episodes, other_steps, other_stats in others:
        assert all(np.array_equal(x, y) for x, y in zip(trace, other_trace, strict=True))
        assert (finished, episodes, steps, stats) == (other_finished, other_episodes, other_steps, other_stats)


def test_workers_play_whole_games_when_the_episodes_are_whole_games():
    """A run of whole-game episodes (``whole_game``) has its workers deal whole games too, once the games they
    were handed end: their rollouts are the learner process's own, which ends no episode at a hand's end."""
    traces = []
    for workers in (1, 2):
        envs = _selfplay(4, workers, num_steps=60, whole_game=True)
        try:
            envs.reset()
            for update in (1, 2):
                envs.rollout(update)
                traces.append([envs.buffers[k].copy() for k in sorted(envs.buffers)])
        finally:
            envs.close()
    alone, spread = traces[:2], traces[2:]
    for one, other in zip(alone, spread, strict=True):
        assert all(np.array_equal(x, y) for x, y in zip(one, other, strict=True))
    hands = _selfplay(4, 1, num_steps=60)
    try:
        hands.reset()
        hands.rollout(1)
        assert hands.buffers["dones"].sum() > dict(zip(sorted(hands.buffers), alone[0], strict=True))["dones"].sum()
    finally:
        hands.close()


def test_games_moved_to_another_process_play_on_as_they_would_have():
    """A chunk's games exported mid-game (Rummikub tables whose sets are not made yet, pending) and adopted
    by a fresh chunk play the next rollout exactly as the originals do, and lay out the same tables."""
    game = make_game("rummikub", 2, whole_turns=True)
    torch.manual_seed(5)
    net = ActorCritic(*game_shape(game), hidden_size=16)
    pool = OpponentPool(["greedy", "hoard"], latest_prob=0.3, pool_size=2, power=2.0)

    def chunk() -> SelfPlay:
        shapes = rollout_buffers(10, 3, *game_shape(game))
        arrays = {name: np.zeros(shape, dtype) for name, (shape, dtype) in shapes.items()}
        return SelfPlay(make_game("rummikub", 2, whole_turns=True), 3, pool.copy(), net, "win", 7, arrays)

    original, moved = chunk(), chunk()
    original.reset()
    original.rollout(1)
    assert any(state._pending_sets is not None for state in original.states)  # what a closure could not carry
    moved.adopt(original.export())
    assert all(state.game is moved.game for state in moved.states)  # they rejoin the receiver's game
    original.rollout(2)
    moved.rollout(2)
    for name, array in original.buffers.items():
        assert np.array_equal(array, moved.buffers[name]), name
    for a, b in zip(original.states, moved.states, strict=True):
        assert a.history == b.history and a.table_sets == b.table_sets


def test_a_chunk_plays_as_a_lone_selfplay_would():
    """Chunk 0's games, rebuilt in this process from its seed, give the very same rollout: a worker plays
    from the learner's weights and pool, from the deal on (the current network is an opponent too, and in
    Rummikub its first turns have many moves to choose from)."""
    envs = _selfplay(6, latest_prob=1.0, name="rummikub")  # every game against the current network
    try:
        noise = torch.Generator().manual_seed(0)
        with torch.no_grad():
            for parameter in envs.learner.parameters():  # a policy no fresh network has: the worker must
                parameter.add_(3 * torch.randn(parameter.shape, generator=noise))  # play the learner's
        envs.reset()
        envs.rollout(1)
        share = chunk_columns(5, 2)[0]
        assert share == slice(0, 2)
        pool = OpponentPool(["random", "greedy"], latest_prob=1.0, pool_size=2, power=2.0)
        mine = {name: np.zeros_like(array[share] if name.startswith("next_") else array[:, share])
                for name, array in envs.buffers.items()}
        alone = SelfPlay(make_game("rummikub", 2, whole_turns=True), 2, pool, envs.learner, "win",
                         derive_seed(6, 11, 0), mine, part=0)
        alone.reset()
        alone.rollout(1)
        for name, array in envs.buffers.items():
            assert np.array_equal(array[share] if name.startswith("next_") else array[:, share], mine[name]), name
        assert envs.state_dict()["chunks"][0]["games"] == alone.state_dict()["games"]  # every seat's moves
    finally:
        envs.close()


def test_the_next_rollout_is_played_during_the_update_with_the_weights_it_started_with():
    """The learner trains on one rollout's arrays while the workers fill the other half with the next one, played
    with the weights it started with: changing them meanwhile (the update) changes neither."""
    runs = []
    for change in (False, True):
        envs = _selfplay(7)
        try:
            envs.reset()
            envs.start_rollout(1)
            envs.collect(then=2)
            first = {name: array.copy() for name, array in envs.buffers.items()}
            trained_on = envs.buffers
            if change:
                _train_a_little(envs.learner)
            envs.collect()
            assert all(np.array_equal(trained_on[name], first[name]) for name in first)
            assert envs.buffers is not trained_on
            runs.append({name: array.copy() for name, array in envs.buffers.items()})
        finally:
            envs.close()
    assert all(np.array_equal(runs[0][name], runs[1][name]) for name in runs[0])


def test_a_dead_worker_is_named_not_waited_for():
    envs = _selfplay(4)
    try:
        envs.reset()
        envs._transport.processes[1].kill()
        envs._transport.processes[1].join()
        with pytest.raises(WorkerError, match="rollout worker 1 stopped"):
            envs.rollout(1)
    finally:
        envs.close()
    envs.close()  # twice is harmless


def test_more_workers_than_chunks_are_refused():
    with pytest.raises(ValueError, match=r"num_workers must be 1\.\.3 \(one chunk of games each at least\), got 4"):
        _selfplay(0, num_workers=4)


def test_chunks_split_the_games_evenly():
    assert chunk_columns(32, 4) == [slice(k, k + 4) for k in range(0, 32, 4)]
    assert [s.stop - s.start for s in chunk_columns(10, 4)] == [4, 3, 3]
    assert chunk_columns(3, 8) == [slice(0, 3)]


def test_a_checkpoint_of_other_chunks_or_of_none_is_refused_by_name():
    envs = _selfplay(0, num_workers=1)
    try:
        with pytest.raises(ValueError, match="saved before self-play played them in chunks; start the run afresh"):
            envs.load_state_dict({"workers": [{}, {}]})  # what runs with workers saved before chunks
        with pytest.raises(ValueError, match="holds 2 chunks of games; this run has 3 .num_envs and games_per_chunk"):
            envs.load_state_dict({"chunks": [{}, {}]})
    finally:
        envs.close()
