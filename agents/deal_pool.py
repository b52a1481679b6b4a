"""Worker processes that play deals on every core, for the evaluator and the ladder.

A job is one deal's games (every lineup of it); a worker plays it and hands back its records and the seconds the
games took, and the caller puts the jobs back in order. Jobs go out one at a time (``imap_unordered``), so a
dear deal does not hold up cheap ones behind it. The processes are spawned, not forked: forking a process that
has loaded torch can hang. Jobs, and the ``play`` function that plays one, must therefore pickle: rules objects
do, and agents travel as specs (names, checkpoint paths, ``module:Class``), never as objects.
"""

from __future__ import annotations

import contextlib
import functools
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from agents.registry import make_agent
from rummienv.rules import Rules

Records = list[dict[str, Any]]
Play = Callable[[Any], tuple[Records, float]]  # a job -> its games' records and the seconds the games took


def processes(workers: int, jobs: int) -> int:
    """How many processes play ``jobs`` jobs with ``workers`` asked: never more than there are jobs; 1 plays them
    in the caller's process."""
    return min(workers, max(1, jobs))


def start_worker(rules: Rules, players: int, specs: Sequence[Any]) -> None:
    """A worker process uses one core: torch would otherwise start a thread per core in every worker.

    It makes each agent once, so that imports and first loads (torch, a network's file) happen here and not in
    its first jobs, whose times the estimate of the time left is made from. Ctrl-C, which a terminal sends to
    every process of the command, is left to the main process: it ends the workers itself, where each of them
    would otherwise print a traceback.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.environ["OMP_NUM_THREADS"] = "1"
    for spec in specs:
        make_agent(spec, rules, players, seed=0)
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)


def _indexed(play: Play, item: tuple[int, Any]) -> tuple[int, Records, float]:
    return item[0], *play(item[1])


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
             specs: Sequence[Any]) -> Iterator[tuple[int, Records, float]]:
    """Each job's index, records and seconds as it finishes: in this process for one worker, else in a pool.

    ``play`` is a module's function (a worker imports it by name). ``specs``, the agents the jobs play with, are
    each made once here first: a spec that fails then raises here, where in a worker's start the pool would start
    the failed worker again and again. Close the iterator (``contextlib.closing``) to end the pool at once when the
    caller stops early; Ctrl-C while it waits ends the pool too.
    """
    count = processes(workers, len(jobs))
    if count == 1:
        for item in enumerate(jobs):
            yield _indexed(play, item)
        return
    specs = list(dict.fromkeys(specs))
    for spec in specs:
        make_agent(spec, rules, players)
    context = multiprocessing.get_context("spawn")
    with _born_ignoring_ctrl_c():
        pool = context.Pool(count, initializer=start_worker, initargs=(rules, players, specs))
    with pool:
        yield from pool.imap_unordered(functools.partial(_indexed, play), enumerate(jobs))
