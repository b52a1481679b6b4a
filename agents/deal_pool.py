"""Worker processes that play deals on every core, for the evaluator and the ladder.

A job is one deal's games (every lineup of it); a worker plays it and hands back its records and the seconds the
games took, and the caller puts the jobs back in order. Jobs go out to whichever process is free, dear ones one
at a time and cheap ones in batches (``_shared``), so a dear deal does not hold up cheap ones behind it. The calling
process is one of the workers: it has imported and loaded all it plays with already, so it plays from the first
second while the others start, which takes a spawned process about three seconds (torch, the compiled kernels, a
network's file), and one process fewer runs. The others are spawned, not forked: forking a process that has
loaded torch can hang. Jobs, and the ``play`` function that plays one, must therefore pickle: rules objects do,
and agents travel as specs (names, checkpoint paths, ``module:Class``), never as objects.
"""

from __future__ import annotations

import contextlib
import functools
import multiprocessing
import os
import queue
import signal
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from agents.registry import make_agent
from rummienv.rules import Rules

Records = list[dict[str, Any]]
Play = Callable[[Any], tuple[Records, float]]  # a job -> its games' records and the seconds the games took
QUEUED = 2  # batches of jobs a helper holds: the one it plays and the next (``_shared``)
BATCH_SECONDS = 0.1  # about what a helper's batch of jobs takes to play
BATCH_MOST = 32


def processes(workers: int, jobs: int) -> int:
    """How many processes play ``jobs`` jobs with ``workers`` asked: never more than there are jobs; 1 plays them
    in the caller's process."""
    return min(workers, max(1, jobs))


def start_worker(rules: Rules, players: int, specs: Sequence[Any]) -> None:
    """A worker process uses one core: torch would otherwise start a thread per core in every worker.

    It makes each agent once, so that imports and first loads (torch, a network's file) happen here and not in
    its first jobs, whose times the estimate of the time left is made from; one that cannot be made is left to
    the calling process, which makes every spec as the workers start and raises the error there. Ctrl-C, which a
    terminal sends to every process of the command, is left to the main process: it ends the workers itself, where
    each of them would otherwise print a traceback.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.environ["OMP_NUM_THREADS"] = "1"
    for spec in specs:
        try:
            make_agent(spec, rules, players, seed=0)
        except Exception:
            break
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)


def _indexed(play: Play, item: tuple[int, Any]) -> tuple[int, Records, float]:
    return item[0], *play(item[1])


def _batch(play: Play, items: list[tuple[int, Any]]) -> list[tuple[int, Records, float]]:
    return [_indexed(play, item) for item in items]


@contextlib.contextmanager
def _born_ignoring_ctrl_c() -> Iterator[None]:
    """Start processes with Ctrl-C ignored, which they keep from their first instruction: ``start_worker`` ignores
    it only once a worker has imported what it plays with, and Ctrl-C in that second would print its traceback.

    Only the main thread may set a signal's handler; started from another thread, the workers rely on
    ``start_worker`` alone. A Ctrl-C in the few milliseconds the processes take to start is lost.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def play_all(play: Play, jobs: Sequence[Any], workers: int, rules: Rules, players: int,
             specs: Sequence[Any], here: Play | None = None) -> Iterator[tuple[int, Records, float]]:
    """Each job's index, records and seconds as it finishes: in this process alone for one worker, else here and in
    ``workers - 1`` spawned processes.

    ``play`` is a module's function (a worker imports it by name); ``here`` plays a job in this process (default
    ``play``), where agents already made can serve. ``specs``, the agents the jobs play with, are each made once
    here while the helpers start: a spec that fails raises here and ends the pool (a helper's start lets it pass,
    where the pool would start a failed helper again and again). Close the iterator (``contextlib.closing``) to end
    the pool at once when the caller stops early; Ctrl-C ends the pool too.
    """
    here = play if here is None else here
    count = processes(workers, len(jobs))
    if count == 1:
        for item in enumerate(jobs):
            yield _indexed(here, item)
        return
    specs = list(dict.fromkeys(specs))
    context = multiprocessing.get_context("spawn")
    with _born_ignoring_ctrl_c():  # started first, so that the helpers start while this process loads the agents
        pool = context.Pool(count - 1, initializer=start_worker, initargs=(rules, players, specs))
    with pool:
        for spec in specs:
            make_agent(spec, rules, players)
        yield from _shared(functools.partial(_batch, play), functools.partial(_indexed, here), jobs, pool, count - 1)


def _shared(remote: Callable, local: Callable, jobs: Sequence[Any], pool: Any,
            helpers: int) -> Iterator[tuple[int, Records, float]]:
    """The jobs played by ``pool``'s ``helpers`` (``remote`` plays a batch of them) and by this process, taken in
    order by whichever is free.

    A helper holds ``QUEUED`` batches, and gets another the moment it hands one back (in the pool's result thread),
    so it never waits on a dear job this process is playing; this process takes the next job whenever it has handed
    on what came back. Handing a batch back and sending the next needs the interpreter's lock, which this process's
    own play gives up only every few milliseconds: with one job each a helper waited that long for every next one
    (busy 0.43-0.50 of the time on deals of 12 ms, `hoard` against `max_tiles`; 0.98-0.99 with one queued), and
    every hand-over also slows the play of both processes. So a batch holds as many jobs as take about
    ``BATCH_SECONDS`` by the jobs played so far (one, until the first comes back). At the end a helper may hold a
    batch more than the others.
    """
    todo = deque(enumerate(jobs))
    done: queue.SimpleQueue = queue.SimpleQueue()
    failed = threading.Event()
    played = [0.0, 0]  # the seconds of the jobs played so far and their number, which size the next batch

    def batch() -> list[tuple[int, Any]]:
        return [todo.popleft() for _ in range(min(batch_size(*played), len(todo)))]

    def count(result: tuple[int, Records, float]) -> tuple[int, Records, float]:
        played[0] += result[2]
        played[1] += 1
        return result

    def send() -> None:
        items = batch()
        if not items:
            return
        try:
            pool.apply_async(remote, (items,), callback=returned, error_callback=broke)
        except ValueError:  # the pool was closed: this process has stopped taking results
            pass

    def returned(results: list[tuple[int, Records, float]]) -> None:
        for result in results:
            done.put(count(result))
        if not failed.is_set():
            send()

    def broke(error: BaseException) -> None:
        failed.set()
        done.put(error)

    for _ in range(QUEUED * helpers):
        send()
    left = len(jobs)
    while left:
        while left and not done.empty():  # hand on what came back first
            yield _returned(done.get())
            left -= 1
        if not left:
            break
        try:
            item = todo.popleft()
        except IndexError:  # all handed out: wait for the helpers
            yield _returned(done.get())
        else:
            yield count(local(item))
        left -= 1


def batch_size(seconds: float, jobs: int) -> int:
    """The jobs of a helper's next batch: about ``BATCH_SECONDS`` of play, by ``jobs`` played in ``seconds`` so far
    (one until a job has been timed), at most ``BATCH_MOST``."""
    if seconds <= 0:
        return 1
    return max(1, min(BATCH_MOST, round(BATCH_SECONDS * jobs / seconds)))


def _returned(result: tuple[int, Records, float] | BaseException) -> tuple[int, Records, float]:
    """A helper's result, or its job's error raised here."""
    if isinstance(result, BaseException):
        raise result
    return result
