"""How a training run talks to the person who started it: stop requests, the progress estimate and the
commands it prints to go on.

A run is stopped by Ctrl-C or SIGTERM in any phase; the request is honoured at the next safe point (between
decisions, games or updates), never inside the solver's compiled code, so the run can say what it kept and
free its workers and shared memory. The commands it prints to go on are the ones that work for the way it was
started: through ``make train`` (the Makefile says so in ``RUMMIENV_MAKE_CONFIG``), or with an interpreter
that may not be the ``python`` of the shell.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import FrameType

from tqdm import tqdm

# Set by `make train`: empty when it trains its default config, else the CONFIG it was given.
MAKE_CONFIG_VARIABLE = "RUMMIENV_MAKE_CONFIG"


class Stopped(Exception):
    """A stop request, honoured at a safe point."""


class StopRequest:
    """The first Ctrl-C or SIGTERM asks the run to stop at its next safe point, after keeping what it can; a
    second one stops at once (``KeyboardInterrupt``)."""

    def __init__(self) -> None:
        self.requested = False
        self._previous = {sig: signal.signal(sig, self._handle) for sig in (signal.SIGINT, signal.SIGTERM)}

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True
        tqdm.write(f"{signal.Signals(signum).name}: stopping at the next safe point, keeping what the run has; "
                   "signal again to stop at once")

    def check(self) -> None:
        """Raise ``Stopped`` if a stop was asked for: called between units of work."""
        if self.requested:
            raise Stopped

    def restore(self) -> None:
        """Give the signals back to the handlers they had before the run."""
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)


def ticker(bar: tqdm, stop: StopRequest) -> Callable[[int], None]:
    """A progress callback for long phases: it moves ``bar`` and is where a stop request takes effect."""

    def tick(count: int = 1) -> None:
        bar.update(count)
        stop.check()

    return tick


@dataclass(frozen=True)
class Estimate:
    """Where a run stands against whichever limit will end it first."""

    seconds_left: float
    limit: str  # "time budget" or "step budget"

    def fraction(self, elapsed: float) -> float:
        return elapsed / (elapsed + self.seconds_left) if elapsed + self.seconds_left > 0 else 1.0


def estimate(elapsed: float, steps_left: int, steps_per_second: float, time_left: float | None,
             closing: float) -> Estimate:
    """Seconds until the run ends: at its step budget, at the measured pace with its closing phases to come
    (``closing`` seconds: a judgement, a final evaluation), or at its time budget (``time_left``; ``None``
    without one), whichever comes first. ``elapsed`` counts from the run's start, warm start and first
    evaluation included."""
    by_steps = steps_left / steps_per_second + closing if steps_per_second > 0 else float("inf")
    if time_left is not None and time_left <= by_steps:
        return Estimate(max(0.0, time_left), "time budget")
    return Estimate(by_steps, "step budget")


def command(script: str, config: str, extra: Sequence[str], default_runs_dir: bool, runs_dir: str) -> str:
    """The command that runs ``script`` on ``config`` again with ``extra`` arguments (``--resume``,
    ``--overwrite``), in the form that works for the way this run was started."""
    words = list(extra) if default_runs_dir else ["--runs-dir", runs_dir, *extra]
    made = os.environ.get(MAKE_CONFIG_VARIABLE)
    if made is not None:
        return " ".join(["make train", *([f"CONFIG={shlex.quote(made)}"] if made else []),
                         *([f"ARGS={shlex.quote(shlex.join(words))}"] if words else [])])
    return shlex.join([interpreter(), script, "--config", config, *words])


def interpreter() -> str:
    """``python`` where the shell's ``python`` is this interpreter (an activated environment), else the path
    of this one (``.venv/bin/python``), relative to the working folder where it lies under it."""
    found = shutil.which("python")
    if found is not None and os.path.abspath(found) == os.path.abspath(sys.executable):
        return "python"
    path = os.path.abspath(sys.executable)
    here = os.getcwd()
    return os.path.relpath(path, here) if path.startswith(here + os.sep) else path
