"""Self-play over worker processes, one per core: each plays whole rollouts of its share of the games.

The games are split among ``num_workers`` processes, each running a ``SelfPlay`` over its share (engine,
masks, opponents, and the learner's own decisions from a copy of its network) and writing the rollout into
arrays in shared memory, laid out [step, game] as training reads them; a pipe per worker carries only the
request, the weights and the games that finished. ``ParallelSelfPlay`` has ``SelfPlay``'s methods, so the
training loop does not know which it has.

The workers run the learner's network themselves, batched over their own games, rather than waiting at
every step for one batch over all games in the learner's process: a step's cost varies a great deal from
game to game (a bot's whole turn, a mask with jokers), so workers stepped in lockstep spent most of their
time waiting for the slowest, and two were no faster than one (measured: 7,000-9,300 moves/s either way).

With the config's ``overlap``, the workers play the next rollout while the learner trains on the last one,
into the other of two sets of arrays, and each starts it as soon as its share of the last is done
(``collect(then=...)``), so that neither the learner's update nor the slowest worker keeps a core idle. The
next rollout then acts with the weights of one update before, which PPO's ratio, taken against the
probabilities the rollout recorded, corrects for, and draws opponents by the pool's record up to the
rollout before the last. Without it (``rollout``), each rollout starts after the update, as in one process.

What depends on the order of events is fixed by ``num_workers``: worker k plays under its own seed and
sampler, the learner's pool records the finished games worker by worker, and each rollout starts every
worker from the learner's pool and weights. The same seed and ``num_workers`` give the same run; a
checkpoint holds each worker's games, so a resumed run goes on as if it had never stopped. A worker that
dies is reported by number and exit code (``WorkerError``) instead of leaving the learner waiting; Ctrl-C
reaches the learner alone, which stops at its next checkpoint.
"""

from __future__ import annotations

import multiprocessing as mp
import signal
from dataclasses import dataclass
from multiprocessing import connection, shared_memory
from typing import Any

import numpy as np
import torch

from agents.ppo import ActorCritic
from agents.selfplay import OpponentPool, SelfPlay, derive_seed, game_shape, make_game, rollout_buffers


class WorkerError(RuntimeError):
    """A rollout worker stopped or failed; the run can go on from its last checkpoint."""


@dataclass(frozen=True)
class _Setup:
    """What a worker needs to build its share of the games (plain values: it crosses to a new process)."""

    game_name: str
    num_players: int
    rules: dict[str, Any]
    whole_turns: bool  # Rummikub's whole-turn action mode
    reward: str
    seed: int
    net_shape: dict[str, int]
    baselines: list[str]
    pool: tuple[float, int, float]  # latest_prob, pool_size, pfsp_power
    first: int  # the worker's first game among all
    count: int  # its games
    num_envs: int  # all games
    num_steps: int  # learner decisions per game per rollout
    part: int  # the worker's number
    buffers: str  # name of the shared memory: two sets of the rollout's arrays, one trained on, one filled


def _layout(num_steps: int, num_envs: int, obs_size: int, num_actions: int) -> tuple[dict, int]:
    """Where each rollout array lies in one shared block: (name -> (offset, shape, dtype)), block size."""
    places, offset = {}, 0
    for name, (shape, dtype) in rollout_buffers(num_steps, num_envs, obs_size, num_actions).items():
        places[name] = (offset, shape, dtype)
        offset += -(-int(np.prod(shape)) * np.dtype(dtype).itemsize // 64) * 64
    return places, offset


def _views(buffer: shared_memory.SharedMemory, places: dict, size: int) -> list[dict[str, np.ndarray]]:
    """The two sets of rollout arrays in the block, one after the other."""
    return [{name: np.ndarray(shape, dtype=dtype, buffer=buffer.buf, offset=half * size + offset)
             for name, (offset, shape, dtype) in places.items()} for half in range(2)]


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
    """Build this worker's games, then answer the learner's requests until told to close."""
    game = make_game(setup.game_name, setup.num_players, setup.rules, setup.whole_turns)
    places, size = _layout(setup.num_steps, setup.num_envs, *game_shape(game))
    games = slice(setup.first, setup.first + setup.count)  # this worker's columns of every array
    mine = [{name: view[games] if name.startswith("next_") else view[:, games] for name, view in half.items()}
            for half in _views(buffer, places, size)]
    pool = OpponentPool(setup.baselines, *setup.pool)
    net = ActorCritic(**setup.net_shape)
    envs = SelfPlay(game, setup.game_name, setup.count, pool, net, setup.reward, setup.seed, mine[0], setup.part)
    def take_over(weights: dict, stats: dict, snapshots: dict) -> None:
        """The learner's weights and pool: its snapshots are the new ones sent and those held already."""
        net.load_state_dict(weights)
        pool.stats = {name: list(record) for name, record in stats.items()}
        pool.snapshots = {name: snapshots.get(name, pool.snapshots.get(name)) for name in stats
                          if name in snapshots or name in pool.snapshots}

    while True:
        request, payload = pipe.recv()
        if request == "rollout":
            update, *learner = payload
            take_over(*learner)
            envs.buffers = mine[update % 2]
            pipe.send((envs.rollout(update), envs.env_steps, envs.episodes))
        elif request == "reset":  # the deals' first moves may be the current network's, as an opponent
            take_over(*payload)
            envs.reset()
            pipe.send((envs.env_steps, envs.episodes))
        elif request == "state_dict":
            pipe.send(envs.state_dict())
        elif request == "load_state_dict":
            envs.load_state_dict(payload)
            pipe.send((envs.env_steps, envs.episodes))
        elif request == "close":
            return


class ParallelSelfPlay:
    """``SelfPlay``'s interface over ``num_workers`` processes (see the module's docstring)."""

    def __init__(self, game: Any, game_name: str, num_envs: int, pool: OpponentPool, learner: ActorCritic,
                 reward: str, seed: int, num_steps: int, num_workers: int,
                 rules: dict[str, Any] | None = None) -> None:
        if not 2 <= num_workers <= num_envs:
            raise ValueError(f"num_workers must be 2..num_envs ({num_envs}) for worker processes, got {num_workers}")
        self.num_envs, self.pool, self.learner = num_envs, pool, learner
        self.env_steps, self.episodes = 0, 0
        places, size = _layout(num_steps, num_envs, *game_shape(game))
        self._buffer: shared_memory.SharedMemory | None = shared_memory.SharedMemory(create=True, size=2 * size)
        self._halves = _views(self._buffer, places, size)  # rollout u fills half u % 2
        self.buffers = self._halves[0]  # the last rollout collected
        self._playing: int | None = None  # the rollout the workers are playing
        self._ready: tuple[int, list[tuple[str, float]]] | None = None  # one collected, not yet handed out
        self._sent: list[set[str]] = []  # the snapshots each worker holds
        self._pipes: list[connection.Connection] = []
        self._processes: list[Any] = []
        context = mp.get_context("spawn")  # a fresh interpreter: no torch or numba threads forked mid-flight
        for k, share in enumerate(np.array_split(np.arange(num_envs), num_workers)):
            setup = _Setup(game_name, game.num_players, dict(rules or {}), game.whole_turns, reward,
                           derive_seed(seed, 11, k), dict(learner.shape), list(pool.stats),
                           (pool.latest_prob, pool.pool_size, pool.power),
                           int(share[0]), len(share), num_envs, num_steps, k, self._buffer.name)
            mine, theirs = context.Pipe()
            process = context.Process(target=_worker, args=(setup, theirs), name=f"rollout-worker-{k}", daemon=True)
            process.start()
            theirs.close()
            self._pipes.append(mine)
            self._processes.append(process)
            self._sent.append(set())

    # ------------------------------------------------------------ requests
    def _ask(self, requests: list[tuple[str, Any]]) -> list[Any]:
        """Send each worker its request, then wait for every answer, watching for a worker that died."""
        self._send(requests)
        return self._answers(requests)

    def _send(self, requests: list[tuple[str, Any]]) -> None:
        for k, request in enumerate(requests):
            self._send_one(k, request)

    def _send_one(self, k: int, request: tuple[str, Any]) -> None:
        try:
            self._pipes[k].send(request)
        except OSError:  # a broken pipe: the worker is gone
            raise self._lost(k, request[0]) from None

    def _answers(self, requests: list[tuple[str, Any]], then: list[tuple[str, Any]] | None = None) -> list[Any]:
        """Every worker's answer, in whichever order they come; a worker that has answered is sent its request
        of ``then`` at once, so that it need not wait for the others."""
        answers: list[Any] = [None] * len(self._pipes)
        waiting = list(range(len(self._pipes)))
        while waiting:
            connection.wait([self._pipes[k] for k in waiting] + [self._processes[k].sentinel for k in waiting],
                            timeout=5.0)
            for k in list(waiting):
                pipe = self._pipes[k]
                try:
                    if not pipe.poll():
                        if not self._processes[k].is_alive():
                            raise self._lost(k, requests[k][0])
                        continue
                    answers[k] = pipe.recv()
                except (EOFError, OSError):
                    raise self._lost(k, requests[k][0]) from None
                waiting.remove(k)
                if then is not None:
                    self._send_one(k, then[k])
        return answers

    def _lost(self, k: int, request: str) -> WorkerError:
        process = self._processes[k]
        process.join(timeout=1.0)
        return WorkerError(f"rollout worker {k} stopped (exit code {process.exitcode}) while asked to "
                           f"{request.replace('_', ' ')}")

    def _counted(self, counts: list[tuple[int, int]]) -> None:
        self.env_steps = sum(c[0] for c in counts)
        self.episodes = sum(c[1] for c in counts)

    # ----------------------------------------------------- SelfPlay's methods
    def _learner(self) -> list[tuple[dict, dict, dict]]:
        """For each worker: the learner's weights, its pool's record, and the snapshots the worker lacks."""
        weights = {k: v.detach().clone() for k, v in self.learner.state_dict().items()}
        stats = {name: list(record) for name, record in self.pool.stats.items()}
        out = []
        for sent in self._sent:
            fresh = {n: s for n, s in self.pool.snapshots.items() if n not in sent}
            sent.intersection_update(self.pool.snapshots)
            sent.update(fresh)
            out.append((weights, stats, fresh))
        return out

    def reset(self) -> None:
        self._counted(self._ask([("reset", learner) for learner in self._learner()]))

    def rollout(self, update: int) -> list[tuple[str, float]]:
        """``start_rollout`` then ``collect``: one rollout, waited for, and nothing started after it."""
        self.start_rollout(update)
        return self.collect()

    def _requests(self, update: int) -> list[tuple[str, Any]]:
        """Each worker's request to play its share of rollout ``update`` from the learner's weights and pool as
        they are now (new snapshots sent once), into half ``update % 2`` of the arrays."""
        return [("rollout", (update, *learner)) for learner in self._learner()]

    def start_rollout(self, update: int) -> None:
        """Every worker starts its share of rollout ``update``; the learner goes on meanwhile. A rollout taken in
        already (at a checkpoint, or from one) is not played again."""
        if self._ready is not None and self._ready[0] == update:
            return
        self._send(self._requests(update))
        self._playing = update

    def collect(self, then: int | None = None) -> list[tuple[str, float]]:
        """Wait for the rollout being played (unless taken in already), starting rollout ``then`` (if given) in
        each worker as soon as it is done, from the weights and pool as they are on the call, so that a worker
        whose games went quickly does not wait for the others. The pool then records the games that ended,
        worker by worker, and the rollout's arrays are ``buffers``."""
        following = None if then is None else self._requests(then)
        if self._ready is None:
            self._take_in(following)
        elif following is not None:
            self._send(following)
        self._playing = then
        update, finished = self._ready
        self._ready = None
        for name, result in finished:
            self.pool.record(name, result)
        self.buffers = self._halves[update % 2]
        return finished

    def wait(self) -> None:
        """Take in the rollout being played, if one is; ``collect`` hands it out."""
        self._take_in(None)

    def _take_in(self, following: list[tuple[str, Any]] | None) -> None:
        if self._playing is None:
            return
        update, self._playing = self._playing, None
        answers = self._answers([("rollout", None)] * len(self._pipes), following)
        self._counted([(steps, episodes) for _, steps, episodes in answers])
        self._ready = (update, [game for games, _, _ in answers for game in games])

    def state_dict(self) -> dict[str, Any]:
        """Every worker's games, and the rollout played for the next update, so that a resumed run trains on
        the very same one: a rollout being played is waited for first."""
        self.wait()
        data: dict[str, Any] = {"workers": self._ask([("state_dict", None)] * len(self._pipes))}
        if self._ready is not None:
            update, finished = self._ready
            half = self._halves[update % 2]
            data["ready"] = {"update": update, "finished": list(finished),
                             "arrays": {name: torch.from_numpy(array.copy()) for name, array in half.items()}}
        return data

    def load_state_dict(self, data: dict[str, Any]) -> None:
        workers = data.get("workers")
        if not isinstance(workers, list) or len(workers) != len(self._pipes):
            have = len(workers) if isinstance(workers, list) else "no"
            raise ValueError(f"the checkpoint holds {have} workers' games; this run has {len(self._pipes)} "
                             "(num_workers must stay as the run began)")
        self._counted(self._ask([("load_state_dict", w) for w in workers]))
        if "ready" in data:
            ready = data["ready"]
            for name, array in self._halves[ready["update"] % 2].items():
                array[...] = ready["arrays"][name].numpy()
            self._ready = (int(ready["update"]), [(str(n), float(r)) for n, r in ready["finished"]])

    def close(self) -> None:
        """Stop the workers and free the shared memory; safe to call twice, or after a worker died."""
        for pipe, process in zip(self._pipes, self._processes, strict=True):
            if process.is_alive():
                try:
                    pipe.send(("close", None))
                except OSError:
                    pass
        for process in self._processes:
            process.join(timeout=5.0)
            if process.is_alive():
                process.terminate()
                process.join()
        for pipe in self._pipes:
            pipe.close()
        self._pipes, self._processes = [], []
        if self._buffer is not None:
            self.buffers, self._halves = {}, []
            try:
                self._buffer.close()
            except BufferError:  # arrays still view it (a traceback's frames); the block goes with the process
                pass
            self._buffer.unlink()
            self._buffer = None


def make_selfplay(game: Any, game_name: str, config: Any, pool: OpponentPool, learner: ActorCritic) -> Any:
    """The config's self-play: in the learner's process (``num_workers`` 1) or over worker processes."""
    if config.num_workers > 1:
        return ParallelSelfPlay(game, game_name, config.num_envs, pool, learner, config.reward, config.seed,
                                config.num_steps, config.num_workers, config.rules)
    buffers = {name: np.zeros(shape, dtype=dtype) for name, (shape, dtype)
               in rollout_buffers(config.num_steps, config.num_envs, *game_shape(game)).items()}
    return SelfPlay(game, game_name, config.num_envs, pool, learner, config.reward, config.seed, buffers)
