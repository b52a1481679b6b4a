"""Faults in long jobs: a worker killed, a full disk or a signal while a checkpoint is written, a stop during a
periodic evaluation, an evaluation or a ladder interrupted. Each ends with one line that says what was kept and
how to go on, and going on ends where an uninterrupted run ends."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import torch
from terminal_signals import ctrl_c_as_in_a_terminal
from test_train import ROOT, config_file, run_in_process

from agents import rollout_workers
from agents.checkpoint import load_checkpoint

UPDATES = 6
# Evaluations at updates 0, 2, 4 and 6, a checkpoint after every update: a fault can strike between any two.
CHANGES = {"total_steps": UPDATES * 128, "checkpoint_every": 1, "eval_every": 2, "eval_deals": 1,
           "eval_opponents": ["random"], "imitation_teacher": "", "num_workers": 1}


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The run every faulty one must end as: its number of workers changes nothing (test_rollout_workers)."""
    where = tmp_path_factory.mktemp("uninterrupted")
    with pytest.MonkeyPatch.context() as monkeypatch:
        run_in_process(monkeypatch, "--config", str(config_file(where, "straight", **CHANGES)),
                       "--runs-dir", str(where))
    return where / "straight"


def go_on(monkeypatch: pytest.MonkeyPatch, message: str, *more: str) -> None:
    """Run the command a stopped or failed run printed to go on with, as printed (and with ``more``)."""
    hint = shlex.split(message.split("continue with: ")[1].splitlines()[0])
    assert hint[-1] == "--resume"
    run_in_process(monkeypatch, *hint[2:], *more)


def assert_same_end(run: Path, reference: Path) -> None:
    """The same weights as the uninterrupted run, the same evaluations, and every update logged once."""
    a, b = load_checkpoint(reference / "checkpoint.pt"), load_checkpoint(run / "checkpoint.pt")
    assert a["global_step"] == b["global_step"] == UPDATES * 128
    assert all(torch.equal(a["model"][k], b["model"][k]) for k in a["model"])
    assert (run / "eval.csv").read_text() == (reference / "eval.csv").read_text()
    rows = (run / "metrics.csv").read_text().splitlines()[1:]
    assert [row.split(",")[0] for row in rows] == [str(u) for u in range(1, UPDATES + 1)]


def temporary_files(run: Path) -> list[str]:
    return [path.name for path in run.iterdir() if path.name.endswith(".tmp")]


def test_a_killed_worker_ends_the_run_on_one_line_and_resume_ends_as_if_it_had_not_died(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture, uninterrupted: Path) -> None:
    """SIGKILL to a rollout worker as it is handed rollout 3: the learner does not wait for it, says on one line
    which worker died of what, what the checkpoint kept and the command that goes on, and no traceback comes
    from the message the worker was receiving. Resumed in this process alone, which saves starting workers:
    the run does not depend on their number."""
    hand_out = rollout_workers._Workers.send
    killed: list[int] = []

    def hand_out_then_kill(self: Any, k: int, job: tuple[int, int], *args: Any) -> None:
        hand_out(self, k, job, *args)
        if job[0] == 3 and not killed:
            killed.append(k)
            os.kill(self.processes[k].pid, signal.SIGKILL)

    config = config_file(tmp_path, "killed", **{**CHANGES, "num_workers": 2})
    with monkeypatch.context() as patched, pytest.raises(SystemExit) as ended:
        patched.setattr(rollout_workers._Workers, "send", hand_out_then_kill)
        run_in_process(monkeypatch, "--config", str(config), "--runs-dir", str(tmp_path))
    message, run = str(ended.value.code), tmp_path / "killed"
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.endswith("\n")  # the bar closed: the message starts a line
    assert "\n" not in message
    assert message.startswith(f"error: rollout worker {killed[0]} stopped (killed by SIGKILL) while playing a "
                              f"rollout; kept: the network, optimiser and games under way at update 2 in {run}")
    assert load_checkpoint(run / "checkpoint.pt")["update"] == 2
    go_on(monkeypatch, message, "--num-workers", "1")
    assert_same_end(run, uninterrupted)


class FillsUp:
    """A file on a disk with ``room`` bytes left: the write that passes it writes what fits, then fails as the
    operating system does."""

    def __init__(self, handle: Any, room: int) -> None:
        self.handle, self.room = handle, room

    def write(self, data: bytes) -> int:
        if len(data) > self.room:
            self.handle.write(bytes(data[:self.room]))
            self.room = 0
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self.room -= len(data)
        return self.handle.write(data)

    def flush(self) -> None:
        self.handle.flush()


def test_a_full_disk_while_a_checkpoint_is_written_keeps_the_previous_one_and_says_how_to_go_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture, uninterrupted: Path) -> None:
    """The disk fills up in the middle of update 3's checkpoint: torch reports it as a RuntimeError about a file
    position, yet the run names the path and the cause on one line, keeps update 2's checkpoint whole, leaves no
    temporary file, and the resumed run ends as the uninterrupted one."""
    save = torch.save

    def save_on_a_filling_disk(payload: dict[str, Any], handle: Any, *args: Any, **kwargs: Any) -> None:
        save(payload, FillsUp(handle, 4096) if payload["update"] == 3 else handle, *args, **kwargs)

    config = config_file(tmp_path, "full", **CHANGES)
    with monkeypatch.context() as patched, pytest.raises(SystemExit) as ended:
        patched.setattr(torch, "save", save_on_a_filling_disk)
        run_in_process(monkeypatch, "--config", str(config), "--runs-dir", str(tmp_path))
    message, run = str(ended.value.code), tmp_path / "full"
    assert capsys.readouterr().err.endswith("\n")
    assert "\n" not in message
    assert message.startswith(f"error: could not write the checkpoint {run / 'checkpoint.pt'} (No space left on "
                              "device); free some space")
    assert "kept: the network, optimiser and games under way at update 2" in message
    assert load_checkpoint(run / "checkpoint.pt")["update"] == 2
    assert temporary_files(run) == []
    go_on(monkeypatch, message)
    assert_same_end(run, uninterrupted)


@pytest.mark.parametrize("signals", [1, 2])
def test_sigterm_while_a_checkpoint_is_written_leaves_it_whole_and_resume_ends_as_if_it_had_not_come(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture, uninterrupted: Path,
        signals: int) -> None:
    """SIGTERM after update 2's checkpoint is written and before it replaces update 1's. One signal: the write
    is finished and the run stops on it, rather than training one more update first. A second one stops at
    once: the write is abandoned, update 1's checkpoint kept, its temporary file removed."""
    replace = os.replace
    writes: list[str] = []

    def replace_after_a_signal(src: Any, dst: Any, *args: Any, **kwargs: Any) -> None:
        if Path(dst).name == "checkpoint.pt":
            writes.append(str(dst))
            if len(writes) == 3:  # after the checkpoints of updates 0 and 1
                for _ in range(signals):
                    os.kill(os.getpid(), signal.SIGTERM)
        replace(src, dst, *args, **kwargs)

    config = config_file(tmp_path, "termed", **CHANGES)
    run = tmp_path / "termed"
    with monkeypatch.context() as patched:
        patched.setattr(os, "replace", replace_after_a_signal)
        if signals == 1:
            run_in_process(monkeypatch, "--config", str(config), "--runs-dir", str(tmp_path))
        else:
            with pytest.raises(SystemExit) as ended:
                run_in_process(monkeypatch, "--config", str(config), "--runs-dir", str(tmp_path))
            assert ended.value.code == 130
    out, err = capsys.readouterr()
    kept = 2 if signals == 1 else 1
    assert f"kept: the network, optimiser and games under way at update {kept}" in (out if signals == 1 else err)
    if signals == 1:
        assert "stopped at update 2 of 6" in out
    assert load_checkpoint(run / "checkpoint.pt")["update"] == kept
    assert temporary_files(run) == []
    go_on(monkeypatch, out if signals == 1 else err)
    assert_same_end(run, uninterrupted)


def test_sigterm_during_a_periodic_evaluation_plays_it_again_on_resume(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture, uninterrupted: Path) -> None:
    """SIGTERM in the evaluation after update 4 (not the first): the run keeps update 4's checkpoint and stops;
    the resumed run plays that evaluation before it trains on, so the curves have no gap, and ends as the
    uninterrupted run, evaluations included."""
    import train

    evaluate = train.evaluate_learner
    evaluations: list[int] = []

    def evaluate_then_stop(net: Any, config: Any, on_game: Any) -> list[dict[str, Any]]:
        evaluations.append(len(evaluations))
        if len(evaluations) < 3:  # the evaluations after updates 0 and 2 play through
            return evaluate(net, config, on_game)

        def signalled() -> None:
            os.kill(os.getpid(), signal.SIGTERM)
            on_game()

        return evaluate(net, config, signalled)

    config = config_file(tmp_path, "evalstop", **CHANGES)
    with monkeypatch.context() as patched:
        patched.setattr(train, "evaluate_learner", evaluate_then_stop)
        run_in_process(monkeypatch, "--config", str(config), "--runs-dir", str(tmp_path))
    out = capsys.readouterr().out
    run = tmp_path / "evalstop"
    assert "stopped at update 4 of 6" in out
    assert load_checkpoint(run / "checkpoint.pt")["update"] == 4
    assert [line.split(",")[0] for line in (run / "eval.csv").read_text().splitlines()[1:]] == ["0", "2"]
    go_on(monkeypatch, out)
    assert_same_end(run, uninterrupted)


def start(*args: str) -> subprocess.Popen:
    """A command of this project in its own session, so that a signal can go to all its processes at once, as a
    terminal's Ctrl-C does."""
    return subprocess.Popen([sys.executable, "-m", *args], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True, preexec_fn=ctrl_c_as_in_a_terminal)


def wait_until(done: Any, process: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.time() + timeout
    while not done():
        assert process.poll() is None, process.communicate()[1][-2000:]
        assert time.time() < deadline
        time.sleep(0.05)


@pytest.mark.parametrize("command", [
    ["agents.evaluate", "--game", "rummy500", "--agents", "random", "greedy", "--deals", "100000", "--seed", "3"],
    ["agents.results", "--agents", "rummy500_2p", "--deals", "100000"],
])
def test_ctrl_c_stops_an_evaluation_on_one_line_that_says_nothing_was_saved(tmp_path: Path,
                                                                             command: list[str]) -> None:
    """Ctrl-C after some deals: no traceback, the status a shell gives an interrupted command, and one line
    saying that nothing was saved and that the same command gives the same numbers (the seed decides them)."""
    process = start(*command, *(["--json", str(tmp_path / "out.json")] if command[0] == "agents.evaluate" else []))
    os.set_blocking(process.stderr.fileno(), False)
    err: list[bytes] = []

    def some_games_played() -> bool:  # the bar's count of games, read as it is drawn
        with contextlib.suppress(BlockingIOError):
            err.append(os.read(process.stderr.fileno(), 65536))
        return re.search(rb"\| ?[1-9][\d,]*/", b"".join(err)) is not None

    wait_until(some_games_played, process)
    os.killpg(process.pid, signal.SIGINT)
    os.set_blocking(process.stderr.fileno(), True)
    out, rest = process.communicate(timeout=30)
    err_text = b"".join(err).decode() + rest
    assert process.returncode == 130, err_text[-2000:]
    assert "Traceback" not in err_text and out == ""
    last = err_text.strip().splitlines()[-1]
    assert last.startswith("interrupted: nothing was saved; the same command")
    assert "gives the same" in last
    assert not (tmp_path / "out.json").exists()


LADDER = ["agents.ladder", "--game", "rummy500", "--agents", "random", "greedy", "value", "--deals", "12",
          "--seed", "4", "--no-progress"]


def deals_cached(out: Path) -> int:
    return len(list((out / "cache").glob("*/deal*.json")))


def without_run(out: Path) -> dict[str, Any]:
    return {key: value for key, value in json.loads((out / "ladder.json").read_text()).items() if key != "run"}


@pytest.fixture(scope="module")
def whole_ladder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ladder played through once, for the interrupted ones to end as."""
    out = tmp_path_factory.mktemp("ladder") / "whole"
    from agents import ladder

    assert ladder.main([*LADDER[1:], "--workers", "1", "--out", str(out)]) == 0
    return out


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT], ids=["SIGKILL", "SIGINT"])
def test_a_ladder_killed_or_interrupted_midway_keeps_its_finished_deals_and_ends_as_one_played_through(
        tmp_path: Path, whole_ladder: Path, sig: signal.Signals) -> None:
    """A ladder stopped once some deals are cached, by SIGKILL (no word from it) or by Ctrl-C to it and its
    workers (one line, no traceback from any of them), then run again: the finished deals come from the cache,
    and the table is the one a ladder played through makes."""
    out = tmp_path / "ladder"
    process = start(*LADDER, "--workers", "2", "--out", str(out))
    wait_until(lambda: deals_cached(out) > 0, process)  # early, while the workers still load what they play with
    os.killpg(process.pid, sig)
    _, err = process.communicate(timeout=30)
    kept = deals_cached(out)
    total = deals_cached(whole_ladder)
    assert 0 < kept < total, "the ladder was not stopped midway"
    if sig == signal.SIGINT:
        assert process.returncode == 130 and "Traceback" not in err, err[-2000:]
        assert err.strip().splitlines()[-1] == (f"interrupted: the deals finished are kept in {out / 'cache'}; the "
                                                "same command plays only the rest and gives the same table")
    again = subprocess.run([sys.executable, "-m", *LADDER, "--workers", "2", "--out", str(out)], cwd=ROOT,
                           capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr[-2000:]
    run = json.loads((out / "ladder.json").read_text())["run"]
    assert run["games_cached"] == 2 * kept and run["games_played"] == 2 * (total - kept)
    assert without_run(out) == without_run(whole_ladder)
