"""Self-play over chunks of games, played in the learner's process or by worker processes, one per core.

A run's games are split into chunks of ``games_per_chunk``. Each chunk is a ``SelfPlay`` with its own seed,
samplers and opponents, drawing by its own copy of the pool's record as the rollout began, so what happens
in it depends on its games, the learner's weights and the pool, and on nothing that any other chunk does.
Hence the same seed gives the same run whatever ``num_workers`` is (checked in the tests), and a chunk can
be played by whichever worker is free: each rollout the learner hands a free worker the chunk that cost
most last time, sending its games as they are (pickled: a few kilobytes) with the weights (once per worker
per rollout), and takes them back with what happened, so the learner holds every chunk's games between
plays. A step's cost varies a great deal from game to game (a table with jokers costs the solver ten times
an empty one, and a game stays costly for many moves), so when each worker played a fixed half of the
games, the one whose games went slowly played alone at the end of every rollout (two Rummikub workers were
busy 89% of it); small chunks handed out as workers come free keep them busier (92% with 4 games a chunk),
and with ``overlap`` the next rollout's chunks fill the rest.

The workers write each chunk's decisions into arrays in shared memory, laid out [step, game] as training
reads them, so only requests, weights and games travel through the pipes. The network's inference is
batched over a chunk's games; a worker runs it itself, rather than waiting at every step for one batch
over all games in the learner's process, since workers stepped in lockstep spend most of their time
waiting for the slowest.

With the config's ``overlap``, rollout u+1 is started before the learner trains on rollout u: its chunks
are handed out as workers come free from rollout u's, and those left are queued on the workers when u's are
done, so that they play while the learner trains. It acts with the weights of one update before, which
PPO's ratio, taken against the probabilities the rollout recorded, corrects for, and draws opponents by the
pool's record up to the rollout before the last. In the learner's process (``num_workers`` 1) the rollout
is played when collected, with the weights and pool it was started with, so the run is the same there too.

A checkpoint holds every chunk's games (as replay records) and, with ``overlap``, the rollout played for
the next update, so a resumed run goes on as if it had never stopped, with any number of workers. A worker
that dies is reported by number and exit code or signal (``WorkerError``) instead of leaving the learner waiting;
Ctrl-C reaches the learner alone, which stops at its next checkpoint.

Which chunk goes to which worker, and when, is decided in ``agents.rollout_schedule``, apart so that it can be
checked without a process or a game; here is how chunks travel (the transport: worker processes, pipes and shared
memory, or the learner's own process as the one worker) and ``ChunkedSelfPlay``, which joins the two.
"""

from __future__ import annotations

import multiprocessing as mp
import signal
import time
from collections import deque
from dataclasses import dataclass
from multiprocessing import connection, shared_memory
from typing import Any

import numpy as np
import torch

from agents.ppo import ActorCritic, network_for
from agents.rollout_schedule import Finished, Job, RolloutSchedule
from agents.selfplay import OpponentPool, SelfPlay, derive_seed, game_shape, rollout_buffers
from rummienv.core import Game


class WorkerError(RuntimeError):
    """A rollout worker stopped or failed; the run can go on from its last checkpoint."""


def chunk_columns(num_envs: int, games_per_chunk: int) -> list[slice]:
    """Each chunk's games, as columns of the rollout's arrays: as equal as they can be, none over the size."""
    shares = np.array_split(np.arange(num_envs), -(-num_envs // games_per_chunk))
    return [slice(int(share[0]), int(share[-1]) + 1) for share in shares]


def _layout(num_steps: int, num_envs: int, obs_size: int, num_actions: int) -> tuple[dict, int]:
    """Where each rollout array lies in one block: (name -> (offset, shape, dtype)), block size."""
    places, offset = {}, 0
    for name, (shape, dtype) in rollout_buffers(num_steps, num_envs, obs_size, num_actions).items():
        places[name] = (offset, shape, dtype)
        offset += -(-int(np.prod(shape)) * np.dtype(dtype).itemsize // 64) * 64
    return places, offset


def _views(block: Any, places: dict, size: int) -> list[dict[str, np.ndarray]]:
    """The two sets of rollout arrays in the block, one after the other: rollout u fills set u % 2."""
    return [{name: np.ndarray(shape, dtype=dtype, buffer=block, offset=half * size + offset)
             for name, (offset, shape, dtype) in places.items()} for half in range(2)]


def _columns(arrays: dict[str, np.ndarray], games: slice) -> dict[str, np.ndarray]:
    """One chunk's part of the rollout arrays."""
    return {name: array[games] if name.startswith("next_") else array[:, games] for name, array in arrays.items()}


def play_chunk(chunk: SelfPlay, update: int, pool: OpponentPool, arrays: dict[str, np.ndarray],
               games: slice) -> Finished:
    """One chunk's share of rollout ``update``, drawing by a copy of ``pool``, into its columns of ``arrays``."""
    chunk.pool = pool.copy()
    chunk.buffers = _columns(arrays, games)
    return chunk.rollout(update)


@dataclass(frozen=True)
class _Setup:
    """What a worker needs to play any chunk (it crosses to a new process, pickled)."""

    game: Game  # its rules, seats, action mode and episode (a round or a whole game) travel with it
    reward: str
    net_shape: dict[str, int]
    pool: tuple[float, int, float, bool]  # latest_prob, pool_size, pfsp_power, mixed
    columns: list[slice]  # each chunk's games (chunk_columns)
    seeds: list[int]  # each chunk's seed
    num_envs: int  # all games
    num_steps: int  # learner decisions per game per rollout


def _worker(setup: _Setup, buffers: str, pipe: connection.Connection) -> None:
    """A worker process: attach the shared arrays (``buffers`` names them), serve the learner, detach."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the learner decides when to stop, and checkpoints first
    torch.set_num_threads(1)
    buffer = shared_memory.SharedMemory(name=buffers)
    try:
        _serve(setup, pipe, buffer)
    finally:
        buffer.close()  # after _serve has returned, no array views the block any more


def _serve(setup: _Setup, pipe: connection.Connection, buffer: shared_memory.SharedMemory) -> None:
    """Play the chunks the learner sends, in the order sent, until told to close."""
    game = setup.game
    places, size = _layout(setup.num_steps, setup.num_envs, *game_shape(game))
    halves = _views(buffer.buf, places, size)
    net = network_for(setup.net_shape)
    pool = OpponentPool([], *setup.pool)
    nets: dict[str, ActorCritic] = {}
    chunks = [SelfPlay(game, games.stop - games.start, pool, net, setup.reward, seed, None, c, nets)
              for c, (games, seed) in enumerate(zip(setup.columns, setup.seeds, strict=True))]
    while True:
        request, payload = pipe.recv()
        if request == "close":
            return
        update, c, games, learner = payload
        if learner is not None:  # the first chunk of a rollout: the weights and pool it is played with
            weights, stats, snapshots = learner
            net.load_state_dict(_tensors(weights))
            pool.stats = {name: list(record) for name, record in stats.items()}
            pool.snapshots = {name: _tensors(snapshots[name]) if name in snapshots else pool.snapshots[name]
                              for name in stats if name in snapshots or name in pool.snapshots}
        started = time.perf_counter()
        chunks[c].adopt(games)
        finished = play_chunk(chunks[c], update, pool, halves[update % 2], setup.columns[c])
        pipe.send((c, finished, chunks[c].export(), time.perf_counter() - started))


def _arrays(weights: dict[str, torch.Tensor]) -> dict[str, np.ndarray]:
    """Weights as they cross a pipe: as arrays, copied into the message. A tensor would cross as a handle to
    shared memory that the worker fetches from the learner after the message, and a worker killed in between
    left the learner's fetching thread printing a traceback beside the run's one-line error."""
    return {name: value.numpy() for name, value in weights.items()}


def _tensors(weights: dict[str, np.ndarray]) -> dict[str, torch.Tensor]:
    return {name: torch.from_numpy(value) for name, value in weights.items()}


Answer = tuple[int, Finished, float]  # (worker, what its chunk finished, seconds it took)


class _InProcess:
    """The learner's process as the one worker: a chunk handed out is played when its answer is waited for,
    so a rollout started early (``overlap``) is played at ``collect`` or ``wait``, with the weights and pool
    it was started with. The weights are loaded for each chunk, a copy that costs nothing beside its play."""

    def __init__(self, chunks: list[SelfPlay], columns: list[slice], places: dict, size: int) -> None:
        self.chunks, self.columns = chunks, columns
        self.arrays = _views(np.zeros(2 * size, dtype=np.uint8), places, size)
        self._waiting: deque[tuple[Job, dict, OpponentPool]] = deque()  # handed out, not played yet, in order

    def send(self, k: int, job: Job, weights: dict, pool: OpponentPool) -> None:
        self._waiting.append((job, weights, pool))

    def answers(self, busy: list[int]) -> list[Answer]:
        (update, c), weights, pool = self._waiting.popleft()
        started = time.perf_counter()
        self.chunks[c].learner.load_state_dict(weights)
        finished = play_chunk(self.chunks[c], update, pool, self.arrays[update % 2], self.columns[c])
        return [(0, finished, time.perf_counter() - started)]

    def close(self) -> None:
        self._waiting.clear()


class _Workers:
    """Worker processes, their pipes and the shared memory they write rollouts into: chunks' games and
    weights out, games and what they finished back, a dead worker named."""

    def __init__(self, setup: _Setup, num_workers: int, chunks: list[SelfPlay], places: dict, size: int) -> None:
        self.chunks = chunks
        self._shared: shared_memory.SharedMemory | None = shared_memory.SharedMemory(create=True, size=2 * size)
        self.arrays = _views(self._shared.buf, places, size)
        self.pipes: list[connection.Connection] = []
        self.processes: list[Any] = []
        self._holds: list[int | None] = [None] * num_workers  # the rollout whose weights each worker has
        self._snapshots: list[set[str]] = [set() for _ in range(num_workers)]  # the snapshots each worker holds
        context = mp.get_context("spawn")  # a fresh interpreter: no torch or numba threads forked mid-flight
        try:
            for k in range(num_workers):
                mine, theirs = context.Pipe()
                process = context.Process(target=_worker, args=(setup, self._shared.name, theirs),
                                          name=f"rollout-worker-{k}", daemon=True)
                process.start()
                theirs.close()
                self.pipes.append(mine)
                self.processes.append(process)
        except BaseException:
            self.close()
            raise

    def send(self, k: int, job: Job, weights: dict, pool: OpponentPool) -> None:
        """Hand chunk ``job[1]``'s games to worker ``k`` for rollout ``job[0]``, with that rollout's weights and
        pool if the worker does not have them yet (the snapshots it holds are not sent again)."""
        update, c = job
        learner = None
        if self._holds[k] != update:
            fresh = {name: _arrays(s) for name, s in pool.snapshots.items() if name not in self._snapshots[k]}
            learner = (_arrays(weights), pool.stats, fresh)
            self._holds[k], self._snapshots[k] = update, set(pool.snapshots)
        try:
            self.pipes[k].send(("play", (update, c, self.chunks[c].export(), learner)))
        except OSError:  # a broken pipe: the worker is gone
            raise self._lost(k) from None

    def answers(self, busy: list[int]) -> list[Answer]:
        """The answers of the ``busy`` workers that have one now, waiting for at least one; the chunks' games
        come back here."""
        while True:
            connection.wait([self.pipes[k] for k in busy] + [self.processes[k].sentinel for k in busy], timeout=5.0)
            out = []
            for k in busy:
                try:
                    if self.pipes[k].poll():
                        c, finished, games, seconds = self.pipes[k].recv()
                        self.chunks[c].adopt(games)
                        out.append((k, finished, seconds))
                    elif not self.processes[k].is_alive():
                        raise self._lost(k)
                except (EOFError, OSError):
                    raise self._lost(k) from None
            if out:
                return out

    def _lost(self, k: int) -> WorkerError:
        """The error for a worker gone: a signal named as such (a worker killed by the system for its memory, or
        by a person, dies of SIGKILL), since an exit code of -9 says little to whoever reads it."""
        process = self.processes[k]
        process.join(timeout=1.0)
        code = process.exitcode
        if code is not None and code < 0:
            how = "killed by " + next((sig.name for sig in signal.Signals if sig == -code), f"signal {-code}")
        else:
            how = f"exit code {code}"
        return WorkerError(f"rollout worker {k} stopped ({how}) while playing a rollout")

    def close(self) -> None:
        """Stop the workers and free the shared memory; safe to call twice, or after a worker died."""
        for pipe, process in zip(self.pipes, self.processes, strict=True):
            if process.is_alive():
                try:
                    pipe.send(("close", None))
                except OSError:
                    pass
        for process in self.processes:
            process.join(timeout=5.0)
            if process.is_alive():
                process.terminate()
                process.join()
        for pipe in self.pipes:
            pipe.close()
        self.pipes, self.processes = [], []
        if self._shared is not None:
            self.arrays = []
            try:
                self._shared.close()
            except BufferError:  # arrays still view it (a traceback's frames); the block goes with the process
                pass
            self._shared.unlink()
            self._shared = None


class ChunkedSelfPlay:
    """Rollouts of all the run's games, chunk by chunk, in this process or over workers (see the module's
    docstring): ``rollout`` plays one; ``start_rollout`` and ``collect(then=...)`` overlap the next one with
    the learner's update; ``buffers`` are the arrays of the last one collected. The schedule says which
    chunk is played where and when; the transport carries it there and back."""

    def __init__(self, game: Game, num_envs: int, pool: OpponentPool, learner: ActorCritic, reward: str, seed: int,
                 num_steps: int, num_workers: int = 1, games_per_chunk: int | None = None) -> None:
        columns = chunk_columns(num_envs, games_per_chunk or num_envs)
        if not 1 <= num_workers <= len(columns):
            raise ValueError(f"num_workers must be 1..{len(columns)} (one chunk of games each at least), "
                             f"got {num_workers}")
        self.pool, self.learner = pool, learner
        self._player = network_for(learner.shape)  # in this process: the weights a chunk is played with
        nets: dict[str, ActorCritic] = {}
        seeds = [derive_seed(seed, 11, c) for c in range(len(columns))]
        self.chunks = [SelfPlay(game, games.stop - games.start, pool.copy(), self._player, reward,
                                seeds[c], None, c, nets) for c, games in enumerate(columns)]
        places, size = _layout(num_steps, num_envs, *game_shape(game))
        self._transport: _InProcess | _Workers
        if num_workers > 1:
            self._transport = _Workers(_Setup(
                game, reward, dict(learner.shape), (pool.latest_prob, pool.pool_size, pool.power, pool.mixed),
                columns, seeds, num_envs, num_steps), num_workers, self.chunks, places, size)
        else:
            self._transport = _InProcess(self.chunks, columns, places, size)
        self._schedule = RolloutSchedule(len(columns), num_workers)
        self._learners: dict[int, tuple[dict, OpponentPool]] = {}  # each rollout's weights and pool as it started
        self.buffers = self._transport.arrays[0]  # the last rollout collected

    @property
    def env_steps(self) -> int:
        return sum(chunk.env_steps for chunk in self.chunks)

    @property
    def episodes(self) -> int:
        return sum(chunk.episodes for chunk in self.chunks)

    def reset(self) -> None:
        """New deals in every game, played on (here) to the learner's first decision."""
        self._player.load_state_dict(self.learner.state_dict())
        for chunk in self.chunks:
            chunk.pool = self.pool.copy()
            chunk.reset()
        self._record([chunk.finished for chunk in self.chunks])

    def rollout(self, update: int) -> Finished:
        """``start_rollout`` then ``collect``: one rollout, waited for, and nothing started after it."""
        self.start_rollout(update)
        return self.collect()

    def start_rollout(self, update: int) -> None:
        """Start rollout ``update`` with the learner's weights and pool as they are now; workers start on it
        at once. A rollout started already (one a checkpoint held, played) is not started again."""
        if not self._schedule.start(update):
            return
        weights = {name: value.detach().clone() for name, value in self.learner.state_dict().items()}
        self._learners[update] = (weights, self.pool.copy())
        self._send(self._schedule.hand_out())

    def collect(self, then: int | None = None) -> Finished:
        """Wait for the oldest rollout started, starting rollout ``then`` first (if given), whose chunks are
        handed out as workers come free; the pool then records the games that ended, chunk by chunk, and the
        rollout's arrays are ``buffers``."""
        update = self._schedule.started[0]
        if then is not None:
            self.start_rollout(then)
        self._play_until(update)
        self._send(self._schedule.queue_the_rest())
        self._learners.pop(update, None)  # none for a rollout a checkpoint held
        finished = self._record(self._schedule.collect(update))
        self.buffers = self._transport.arrays[update % 2]
        return finished

    def wait(self) -> None:
        """Play every rollout started to its end; ``collect`` hands them out."""
        for update in self._schedule.started:
            self._play_until(update)

    def _record(self, per_chunk: list[Finished]) -> Finished:
        finished = [game for games in per_chunk for game in games]
        for name, result in finished:
            self.pool.record(name, result)
        return finished

    def _play_until(self, update: int) -> None:
        """Hand out chunks and take answers until every chunk has played rollout ``update``."""
        while not self._schedule.complete(update):
            self._send(self._schedule.hand_out())
            busy = self._schedule.busy()
            assert busy, f"rollout {update} has chunks neither played nor out with a worker"
            for k, finished, seconds in self._transport.answers(busy):
                self._schedule.done(k, finished, seconds)

    def _send(self, given: list[tuple[int, Job]]) -> None:
        for k, job in given:
            self._transport.send(k, job, *self._learners[job[0]])

    # ----------------------------------------------------------- checkpoints
    def state_dict(self) -> dict[str, Any]:
        """Every chunk's games, and the rollout played for the next update (``overlap``), so that a resumed run
        trains on the very same one: a rollout being played is played to its end first."""
        self.wait()
        data: dict[str, Any] = {"chunks": [chunk.state_dict() for chunk in self.chunks]}
        if ready := self._schedule.state_dict():
            arrays = self._transport.arrays[ready["update"] % 2]
            data["ready"] = {**ready, "arrays": {name: torch.from_numpy(a.copy()) for name, a in arrays.items()}}
        return data

    def load_state_dict(self, data: dict[str, Any]) -> None:
        chunks = data.get("chunks")
        if not isinstance(chunks, list):
            raise ValueError("the checkpoint's games in progress were saved before self-play played them in chunks; "
                             "start the run afresh (--overwrite), or resume it with the version that wrote it")
        if len(chunks) != len(self.chunks):
            raise ValueError(f"the checkpoint holds {len(chunks)} chunks of games; this run has {len(self.chunks)} "
                             "(num_envs and games_per_chunk must stay as the run began)")
        for chunk, games in zip(self.chunks, chunks, strict=True):
            chunk.load_state_dict(games)
        ready = data.get("ready", {})
        if ready:
            for name, array in self._transport.arrays[int(ready["update"]) % 2].items():
                array[...] = ready["arrays"][name].numpy()
        self._schedule.load_state_dict(ready)

    def close(self) -> None:
        """Stop the workers and free the shared memory; safe to call twice, or after a worker died."""
        self.buffers = {}  # the shared memory is freed only when no array views it
        self._transport.close()


def make_selfplay(game: Game, config: Any, pool: OpponentPool, learner: ActorCritic) -> ChunkedSelfPlay:
    """The config's self-play: its games in chunks, played in the learner's process (``num_workers`` 1) or by
    worker processes."""
    return ChunkedSelfPlay(game, config.num_envs, pool, learner, config.reward, config.seed, config.num_steps,
                           config.num_workers, config.games_per_chunk)
