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
that dies is reported by number and exit code (``WorkerError``) instead of leaving the learner waiting;
Ctrl-C reaches the learner alone, which stops at its next checkpoint.
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
from agents.selfplay import OpponentPool, SelfPlay, derive_seed, game_shape, make_game, rollout_buffers

Finished = list[tuple[str, float]]  # (opponent, the learner's share of the win) of the games that ended


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
    """What a worker needs to play any chunk (plain values: it crosses to a new process)."""

    game_name: str
    num_players: int
    rules: dict[str, Any]
    whole_turns: bool  # Rummikub's whole-turn action mode
    whole_game: bool  # episodes of whole games (T11, K10, F12), not of one round
    reward: str
    net_shape: dict[str, int]
    pool: tuple[float, int, float]  # latest_prob, pool_size, pfsp_power
    columns: list[slice]  # each chunk's games (chunk_columns)
    seeds: list[int]  # each chunk's seed
    num_envs: int  # all games
    num_steps: int  # learner decisions per game per rollout
    buffers: str  # name of the shared memory: two sets of the rollout's arrays, one trained on, one filled


def _worker(setup: _Setup, pipe: connection.Connection) -> None:
    """A worker process: attach the shared arrays, serve the learner, detach."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the learner decides when to stop, and checkpoints first
    torch.set_num_threads(1)
    buffer = shared_memory.SharedMemory(name=setup.buffers)
    try:
        _serve(setup, pipe, buffer)
    finally:
        buffer.close()  # after _serve has returned, no array views the block any more


def _serve(setup: _Setup, pipe: connection.Connection, buffer: shared_memory.SharedMemory) -> None:
    """Play the chunks the learner sends, in the order sent, until told to close."""
    game = make_game(setup.game_name, setup.num_players, setup.rules, setup.whole_turns, setup.whole_game)
    places, size = _layout(setup.num_steps, setup.num_envs, *game_shape(game))
    halves = _views(buffer.buf, places, size)
    net = network_for(setup.net_shape)
    pool = OpponentPool([], *setup.pool)
    nets: dict[str, ActorCritic] = {}
    chunks = [SelfPlay(game, setup.game_name, games.stop - games.start, pool, net, setup.reward, seed, None, c, nets)
              for c, (games, seed) in enumerate(zip(setup.columns, setup.seeds, strict=True))]
    while True:
        request, payload = pipe.recv()
        if request == "close":
            return
        update, c, games, learner = payload
        if learner is not None:  # the first chunk of a rollout: the weights and pool it is played with
            weights, stats, snapshots = learner
            net.load_state_dict(weights)
            pool.stats = {name: list(record) for name, record in stats.items()}
            pool.snapshots = {name: snapshots.get(name, pool.snapshots.get(name)) for name in stats
                              if name in snapshots or name in pool.snapshots}
        started = time.perf_counter()
        chunks[c].adopt(games)
        finished = play_chunk(chunks[c], update, pool, halves[update % 2], setup.columns[c])
        pipe.send((finished, chunks[c].export(), time.perf_counter() - started))


class _Workers:
    """The worker processes and their pipes: requests out, answers back, a dead worker named."""

    def __init__(self, setup: _Setup, num_workers: int) -> None:
        self.pipes: list[connection.Connection] = []
        self.processes: list[Any] = []
        context = mp.get_context("spawn")  # a fresh interpreter: no torch or numba threads forked mid-flight
        for k in range(num_workers):
            mine, theirs = context.Pipe()
            process = context.Process(target=_worker, args=(setup, theirs), name=f"rollout-worker-{k}", daemon=True)
            process.start()
            theirs.close()
            self.pipes.append(mine)
            self.processes.append(process)

    def send(self, k: int, request: tuple[str, Any]) -> None:
        try:
            self.pipes[k].send(request)
        except OSError:  # a broken pipe: the worker is gone
            raise self.lost(k) from None

    def answers(self, busy: list[int]) -> list[tuple[int, Any]]:
        """The answers of the ``busy`` workers that have one now, waiting for at least one."""
        while True:
            connection.wait([self.pipes[k] for k in busy] + [self.processes[k].sentinel for k in busy], timeout=5.0)
            out = []
            for k in busy:
                try:
                    if self.pipes[k].poll():
                        out.append((k, self.pipes[k].recv()))
                    elif not self.processes[k].is_alive():
                        raise self.lost(k)
                except (EOFError, OSError):
                    raise self.lost(k) from None
            if out:
                return out

    def lost(self, k: int) -> WorkerError:
        process = self.processes[k]
        process.join(timeout=1.0)
        return WorkerError(f"rollout worker {k} stopped (exit code {process.exitcode}) while playing a rollout")

    def close(self) -> None:
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


class ChunkedSelfPlay:
    """Rollouts of all the run's games, chunk by chunk, in this process or over workers (see the module's
    docstring): ``rollout`` plays one; ``start_rollout`` and ``collect(then=...)`` overlap the next one with
    the learner's update; ``buffers`` are the arrays of the last one collected."""

    def __init__(self, game: Any, game_name: str, num_envs: int, pool: OpponentPool, learner: ActorCritic,
                 reward: str, seed: int, num_steps: int, num_workers: int = 1, games_per_chunk: int | None = None,
                 rules: dict[str, Any] | None = None) -> None:
        self.columns = chunk_columns(num_envs, games_per_chunk or num_envs)
        if not 1 <= num_workers <= len(self.columns):
            raise ValueError(f"num_workers must be 1..{len(self.columns)} (one chunk of games each at least), "
                             f"got {num_workers}")
        self.pool, self.learner = pool, learner
        self._player = network_for(learner.shape)  # in this process: the weights a rollout was started with
        nets: dict[str, ActorCritic] = {}
        seeds = [derive_seed(seed, 11, c) for c in range(len(self.columns))]
        self.chunks = [SelfPlay(game, game_name, games.stop - games.start, pool.copy(), self._player, reward,
                                seeds[c], None, c, nets) for c, games in enumerate(self.columns)]
        places, size = _layout(num_steps, num_envs, *game_shape(game))
        self._shared: shared_memory.SharedMemory | None = None
        self._workers: _Workers | None = None
        if num_workers > 1:
            self._shared = shared_memory.SharedMemory(create=True, size=2 * size)
            self._halves = _views(self._shared.buf, places, size)
            self._workers = _Workers(_Setup(
                game_name, game.num_players, dict(rules or {}), game.whole_turns, game.whole_game, reward,
                dict(learner.shape), (pool.latest_prob, pool.pool_size, pool.power),
                self.columns, seeds,
                num_envs, num_steps, self._shared.name), num_workers)
        else:
            self._halves = _views(np.zeros(2 * size, dtype=np.uint8), places, size)
        self.buffers = self._halves[0]  # the last rollout collected
        self._started: list[int] = []  # rollouts started and not collected, oldest first
        self._learners: dict[int, tuple[dict, OpponentPool]] = {}  # each one's weights and pool as it started
        self._results: dict[int, dict[int, Finished]] = {}  # each one's chunks played, and what they finished
        self._queue: list[tuple[int, int]] = []  # (rollout, chunk) not handed out yet
        self._cost = [0.0] * len(self.chunks)  # seconds each chunk took last time: the costliest goes first
        self._loaded: int | None = None  # the rollout whose weights self._player has
        num = len(self._workers.pipes) if self._workers else 0
        self._playing: list[deque[tuple[int, int]]] = [deque() for _ in range(num)]  # each worker's, in order
        self._holds: list[int | None] = [None] * num  # the rollout whose weights each worker has
        self._sent: list[set[str]] = [set() for _ in range(num)]  # the snapshots each worker holds

    @property
    def env_steps(self) -> int:
        return sum(chunk.env_steps for chunk in self.chunks)

    @property
    def episodes(self) -> int:
        return sum(chunk.episodes for chunk in self.chunks)

    def reset(self) -> None:
        """New deals in every game, played on (here) to the learner's first decision."""
        self._player.load_state_dict(self.learner.state_dict())
        self._loaded = None
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
        if update in self._started:
            return
        weights = {name: value.detach().clone() for name, value in self.learner.state_dict().items()}
        self._learners[update] = (weights, self.pool.copy())
        self._results[update] = {}
        self._started.append(update)
        self._queue += [(update, c) for c in range(len(self.chunks))]
        self._hand_out()

    def collect(self, then: int | None = None) -> Finished:
        """Wait for the oldest rollout started, starting rollout ``then`` first (if given), whose chunks are
        handed out as workers come free; the pool then records the games that ended, chunk by chunk, and the
        rollout's arrays are ``buffers``."""
        update = self._started[0]
        if then is not None:
            self.start_rollout(then)
        self._play_until(update)
        self._queue_the_rest()
        self._started.pop(0)
        self._learners.pop(update, None)  # none for a rollout a checkpoint held
        results = self._results.pop(update)
        finished = self._record([results[c] for c in range(len(self.chunks))])
        self.buffers = self._halves[update % 2]
        return finished

    def wait(self) -> None:
        """Play every rollout started to its end; ``collect`` hands them out."""
        for update in self._started:
            self._play_until(update)

    def _record(self, per_chunk: list[Finished]) -> Finished:
        finished = [game for games in per_chunk for game in games]
        for name, result in finished:
            self.pool.record(name, result)
        return finished

    # ------------------------------------------------------------ playing
    def _play_until(self, update: int) -> None:
        """Play on until every chunk has played rollout ``update``."""
        while len(self._results[update]) < len(self.chunks):
            if self._workers is None:
                self._play_here(*self._queue.pop(0))
                continue
            self._hand_out()
            busy = [k for k, playing in enumerate(self._playing) if playing]
            assert busy, f"rollout {update} has chunks neither played nor out with a worker"
            for k, (finished, games, seconds) in self._workers.answers(busy):
                u, c = self._playing[k].popleft()
                self.chunks[c].adopt(games)
                self._results[u][c], self._cost[c] = finished, seconds

    def _play_here(self, update: int, c: int) -> None:
        weights, pool = self._learners[update]
        if self._loaded != update:
            self._player.load_state_dict(weights)
            self._loaded = update
        self._results[update][c] = play_chunk(self.chunks[c], update, pool, self._halves[update % 2],
                                              self.columns[c])

    def _ready(self) -> list[tuple[int, int]]:
        """The chunks that may be handed out: games here (not out with a worker), each for its oldest rollout
        queued; the oldest rollout's first, then the costliest."""
        taken = {c for playing in self._playing for _, c in playing}
        ready = []
        for job in self._queue:
            if job[1] not in taken:
                ready.append(job)
                taken.add(job[1])
        return sorted(ready, key=lambda job: (job[0], -self._cost[job[1]]))

    def _hand_out(self) -> None:
        """Give each free worker the next chunk it may play."""
        for k, playing in enumerate(self._playing):
            ready = self._ready()
            if not playing and ready:
                self._send(k, ready[0])

    def _queue_the_rest(self) -> None:
        """Queue every chunk not handed out on the workers, costliest first on the least loaded, so that they
        play on while the learner trains (``overlap``); in this process they wait for ``collect``."""
        if self._workers is None:
            return
        load = [sum(self._cost[c] for _, c in playing) for playing in self._playing]
        for job in self._ready():
            k = int(np.argmin(load))
            self._send(k, job)
            load[k] += self._cost[job[1]]

    def _send(self, k: int, job: tuple[int, int]) -> None:
        """Hand chunk ``job[1]``'s games to worker ``k`` for rollout ``job[0]``, with that rollout's weights and
        pool if the worker does not have them yet (the snapshots it holds are not sent again)."""
        assert self._workers is not None
        update, c = job
        learner = None
        if self._holds[k] != update:
            weights, pool = self._learners[update]
            fresh = {name: s for name, s in pool.snapshots.items() if name not in self._sent[k]}
            learner = (weights, pool.stats, fresh)
            self._holds[k], self._sent[k] = update, set(pool.snapshots)
        self._queue.remove(job)
        self._playing[k].append(job)
        self._workers.send(k, ("play", (update, c, self.chunks[c].export(), learner)))

    # ----------------------------------------------------------- checkpoints
    def state_dict(self) -> dict[str, Any]:
        """Every chunk's games, and the rollout played for the next update (``overlap``), so that a resumed run
        trains on the very same one: a rollout being played is played to its end first."""
        self.wait()
        data: dict[str, Any] = {"chunks": [chunk.state_dict() for chunk in self.chunks]}
        if self._started:
            update = self._started[0]
            results = self._results[update]
            data["ready"] = {"update": update, "finished": [list(results[c]) for c in range(len(self.chunks))],
                             "arrays": {name: torch.from_numpy(array.copy())
                                        for name, array in self._halves[update % 2].items()}}
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
        if "ready" in data:
            ready = data["ready"]
            update = int(ready["update"])
            for name, array in self._halves[update % 2].items():
                array[...] = ready["arrays"][name].numpy()
            self._started = [update]
            self._results[update] = {c: [(str(n), float(r)) for n, r in finished]
                                     for c, finished in enumerate(ready["finished"])}

    def close(self) -> None:
        """Stop the workers and free the shared memory; safe to call twice, or after a worker died."""
        if self._workers is not None:
            self._workers.close()
            self._workers = None
        if self._shared is not None:
            self.buffers, self._halves = {}, []
            try:
                self._shared.close()
            except BufferError:  # arrays still view it (a traceback's frames); the block goes with the process
                pass
            self._shared.unlink()
            self._shared = None


def make_selfplay(game: Any, game_name: str, config: Any, pool: OpponentPool, learner: ActorCritic) -> ChunkedSelfPlay:
    """The config's self-play: its games in chunks, played in the learner's process (``num_workers`` 1) or by
    worker processes."""
    return ChunkedSelfPlay(game, game_name, config.num_envs, pool, learner, config.reward, config.seed,
                           config.num_steps, config.num_workers, config.games_per_chunk, config.rules)
