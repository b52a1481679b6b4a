"""train.py end to end on the tiny Rummy 500 config: a run, an interrupted run, refusals."""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import torch
import yaml

from agents.checkpoint import CheckpointError, load_agent, load_checkpoint

ROOT = Path(__file__).resolve().parents[1]
SMOKE = ROOT / "configs" / "smoke.yaml"


def start_train(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, str(ROOT / "train.py"), *args], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def run_train(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "train.py"), *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)


def runs_this_interpreter(word: str) -> bool:
    """Whether the interpreter a printed command starts with, as a shell in the repository would find it, is
    the one running the tests (``python`` in an activated environment, else a path such as .venv/bin/python)."""
    found = shutil.which(word) if os.sep not in word else str(ROOT / word)
    return found is not None and os.path.abspath(found) == os.path.abspath(sys.executable)


class Watched:
    """A training run in a subprocess whose output is read as it comes, so a test can act on a phase."""

    def __init__(self, *args: str, env: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen([sys.executable, str(ROOT / "train.py"), *args], cwd=ROOT, text=True,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        env={**os.environ, **(env or {})})
        self.out: list[str] = []
        self.err: list[str] = []
        self.readers = [threading.Thread(target=self._read, args=(stream, into), daemon=True)
                        for stream, into in ((self.process.stdout, self.out), (self.process.stderr, self.err))]
        for reader in self.readers:
            reader.start()

    @staticmethod
    def _read(stream: Any, into: list[str]) -> None:
        for chunk in iter(lambda: stream.read(1), ""):
            into.append(chunk)

    def wait_for(self, text: str, timeout: float = 90) -> None:
        deadline = time.time() + timeout
        while text not in "".join(self.out) + "".join(self.err):
            assert self.process.poll() is None and time.time() < deadline, f"no {text!r}: {''.join(self.err)[-2000:]}"
            time.sleep(0.05)

    def stop(self, sig: int, timeout: float) -> tuple[str, str]:
        """Send ``sig`` and return stdout and stderr once the run has ended, which must be within ``timeout``."""
        sent = time.time()
        self.process.send_signal(sig)
        self.process.wait(timeout=timeout)
        for reader in self.readers:
            reader.join()
        assert time.time() - sent < timeout
        return "".join(self.out), "".join(self.err)


def run_in_process(monkeypatch: pytest.MonkeyPatch, *args: str) -> None:
    """train.main() in this process (no interpreter start-up), leaving the signal handlers as they were."""
    import train

    monkeypatch.setattr(sys, "argv", ["train.py", *args])
    handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        train.main()
    finally:
        for sig, handler in handlers.items():
            signal.signal(sig, handler)


def refusal(monkeypatch: pytest.MonkeyPatch, *args: str) -> str:
    """The message train.main() exits with, for failures that stop it before any work."""
    with pytest.raises(SystemExit) as stop:
        run_in_process(monkeypatch, *args)
    return str(stop.value.code)


def config_file(tmp_path: Path, name: str, **changes: object) -> Path:
    values = yaml.safe_load(SMOKE.read_text())
    values.update(name=name, **changes)
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(values))
    return path


def test_smoke_run_leaves_checkpoint_curves_plot_and_table(tmp_path: Path) -> None:
    result = run_train("--config", str(SMOKE), "--runs-dir", str(tmp_path))
    assert result.returncode == 0, result.stderr[-2000:]
    run = tmp_path / "smoke"
    for name in ("checkpoint.pt", "metrics.csv", "eval.csv", "curves.png", "config.yaml"):
        assert (run / name).is_file(), name
    assert "final evaluation" in result.stdout and "win rate" in result.stdout
    data = load_checkpoint(run / "checkpoint.pt")
    assert data["global_step"] >= yaml.safe_load(SMOKE.read_text())["total_steps"]
    agent = load_agent(run / "checkpoint.pt", "rummy500", 2, seed=0)
    from rummienv.rummy500 import Rummy500Game

    state = Rummy500Game(None, 2).new_initial_state(3)
    mask = state.legal_action_mask()
    assert mask[agent.act(state.observation(state.current_player), mask)]
    with pytest.raises(CheckpointError, match="trained for rummy500 with 2 players"):
        load_agent(run / "checkpoint.pt", "rummikub", 2)


@pytest.mark.parametrize(("workers", "overlap", "checkpoint_every", "resumed_with"),
                         [(1, False, 1, 2), (2, False, 1, None), (2, True, 3, 1)])
def test_interrupted_run_resumes_to_the_same_result(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture, workers: int, overlap: bool,
                                                    checkpoint_every: int, resumed_with: int | None) -> None:
    """Ctrl-C mid-run, then --resume, ends exactly where an uninterrupted run ends, games stepped in the
    learner's process or by worker processes, and with the next rollout played during the update (stopped, as
    a rule, between checkpoints: the checkpoint then holds a rollout the uninterrupted run took in later);
    resumed with as many workers or with another number (``--num-workers``), since the run does not depend
    on it."""
    updates = 8
    changes = {"total_steps": updates * 128, "checkpoint_every": checkpoint_every, "eval_every": 100,
               "eval_deals": 2, "imitation_teacher": "", "num_workers": workers, "overlap": overlap}
    config = config_file(tmp_path, "interrupted", **changes)
    interrupted = start_train("--config", str(config), "--runs-dir", str(tmp_path))
    metrics = tmp_path / "interrupted" / "metrics.csv"
    deadline = time.time() + 90
    while not (metrics.exists() and len(metrics.read_text().splitlines()) > 2) and time.time() < deadline:
        time.sleep(0.01)
    interrupted.send_signal(signal.SIGINT)  # before the uninterrupted run, so it cannot come after the end
    out, err = interrupted.communicate(timeout=60)
    run_in_process(monkeypatch, "--config", str(config_file(tmp_path, "straight", **changes)),
                   "--runs-dir", str(tmp_path))
    assert interrupted.returncode == 0, err[-2000:]
    assert "stopped at update" in out, out
    assert 0 < load_checkpoint(tmp_path / "interrupted" / "checkpoint.pt")["update"] < updates

    capsys.readouterr()
    hint = shlex.split(out.split("continue with: ")[1].splitlines()[0])  # the printed command, run as printed
    assert runs_this_interpreter(hint[0]) and hint[1] == str(ROOT / "train.py") and hint[-1] == "--resume"
    run_in_process(monkeypatch, *hint[2:], *([] if resumed_with is None else ["--num-workers", str(resumed_with)]))
    assert "resuming" in capsys.readouterr().out
    assert load_checkpoint(tmp_path / "interrupted" / "checkpoint.pt")["config"]["num_workers"] == (
        resumed_with or workers)
    a = load_checkpoint(tmp_path / "straight" / "checkpoint.pt")
    b = load_checkpoint(tmp_path / "interrupted" / "checkpoint.pt")
    assert a["global_step"] == b["global_step"] == updates * 128
    assert all(torch.equal(a["model"][k], b["model"][k]) for k in a["model"])
    assert a["pool"]["stats"] == b["pool"]["stats"]
    rows = metrics.read_text().splitlines()
    assert [r.split(",")[0] for r in rows[1:]] == [str(u) for u in range(1, updates + 1)]  # none logged twice


def test_an_earlier_run_is_kept_unless_resumed_or_overwritten(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture) -> None:
    config = config_file(tmp_path, "again", total_steps=32, num_envs=2, num_steps=16, eval_deals=1,
                         eval_opponents=["random"], imitation_teacher="")
    run = tmp_path / "again"
    (run / "tb").mkdir(parents=True)
    (run / "tb" / "events.old").write_text("earlier curves")
    (run / "checkpoint.pt").write_bytes(b"earlier weights")
    (run / "curves.png").write_bytes(b"earlier plot")
    message = refusal(monkeypatch, "--config", str(config), "--runs-dir", str(tmp_path))
    assert "already holds a run" in message and "--resume" in message and "--overwrite" in message
    assert (run / "checkpoint.pt").read_bytes() == b"earlier weights" and not (run / "config.yaml").exists()
    capsys.readouterr()
    with pytest.raises(SystemExit):  # argparse: the two ask for opposite things
        run_in_process(monkeypatch, "--config", str(config), "--runs-dir", str(tmp_path), "--resume", "--overwrite")
    assert "not allowed with argument" in capsys.readouterr().err

    run_in_process(monkeypatch, "--config", str(config), "--runs-dir", str(tmp_path), "--overwrite")
    assert "starting afresh" in capsys.readouterr().out
    assert load_checkpoint(run / "checkpoint.pt")["global_step"] == 32
    assert not (run / "tb" / "events.old").exists() and (run / "curves.png").read_bytes() != b"earlier plot"


def test_corrupt_checkpoint_is_refused_with_a_message(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run = tmp_path / "smoke"
    run.mkdir()
    (run / "checkpoint.pt").write_bytes(b"\x80\x04not a checkpoint at all")
    message = refusal(monkeypatch, "--config", str(SMOKE), "--runs-dir", str(tmp_path), "--resume")
    assert "corrupt or not a checkpoint" in message


@pytest.mark.parametrize("content", ["garbage", "truncated", "foreign", "pickled_object"])
def test_bad_checkpoint_files_are_refused(tmp_path: Path, content: str) -> None:
    path = tmp_path / "x.pt"
    if content == "garbage":
        path.write_bytes(bytes(range(256)) * 4)
    elif content == "truncated":
        torch.save({"format": "rummienv-ppo-checkpoint", "version": 1, "model": {"w": torch.ones(1000)}}, path)
        path.write_bytes(path.read_bytes()[:-200])
    elif content == "foreign":
        torch.save({"state_dict": {"w": torch.ones(3)}}, path)
    else:
        torch.save({"format": "rummienv-ppo-checkpoint", "evil": Path("/")}, path)
    with pytest.raises(CheckpointError, match="checkpoint") as refused:
        load_checkpoint(path)
    message = str(refused.value)
    assert "Re-running" not in message and "trust the source" not in message  # not torch's advice to unpickle


def test_bad_config_is_refused_naming_the_field(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("game: rummy500\nnum_envz: 4\n")
    message = refusal(monkeypatch, "--config", str(bad), "--runs-dir", str(tmp_path))
    assert "unknown config field 'num_envz'" in message


def test_agent_of_another_game_is_refused_before_anything_is_written(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    config = config_file(tmp_path, "mixed", eval_opponents=["random", "max_tiles"])
    message = refusal(monkeypatch, "--config", str(config), "--runs-dir", str(tmp_path / "runs"))
    assert "'eval_opponents': 'max_tiles' is not a baseline of rummy500" in message
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("judged", [False, True])
def test_time_budget_ends_the_run_with_its_final_evaluation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture, judged: bool) -> None:
    """The budget holds the final evaluation, and the judgement's minutes where the run is judged."""
    judgement = {"judge": "expert", "judge_against": ["value"], "judge_decisions": 20, "judge_minutes": 0.15}
    config = config_file(tmp_path, "timed", total_steps=10**7, time_limit_minutes=0.3, imitation_teacher="",
                         **(judgement if judged else {}))
    started = time.time()
    run_in_process(monkeypatch, "--config", str(config), "--runs-dir", str(tmp_path))
    assert time.time() - started < 0.3 * 60 + 5
    out = capsys.readouterr().out
    assert "time budget of 0.3 minutes reached" in out and "final evaluation" in out
    assert ("judgement: done" in out) == judged
    assert f"--runs-dir {tmp_path} --resume" in out
    assert (tmp_path / "timed" / "curves.png").is_file()


def test_the_judgement_moves_the_last_network_and_a_stop_during_it_resumes_to_the_same_weights(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    """The expert's judgement follows the last update and comes before the final evaluation. Ctrl-C while it
    records keeps the last update's network as it was, and --resume judges it as the uninterrupted run did.
    The run's agent plays as the config's ``act`` says."""
    changes = {"total_steps": 256, "eval_every": 100, "eval_deals": 2, "imitation_teacher": "", "judge": "expert",
               "judge_against": ["value"], "judge_decisions": 60, "act": "most_likely"}
    run = Watched("--config", str(config_file(tmp_path, "interrupted", **changes)), "--runs-dir", str(tmp_path))
    run.wait_for("judgement: expert scores the learner's choices on 60 of its positions against each of value")
    out, err = run.stop(signal.SIGINT, timeout=30)
    assert run.process.returncode == 0, err[-2000:]
    assert "Traceback" not in err and "stopped at update 2 of 2" in out and "final evaluation" not in out
    stopped = load_checkpoint(tmp_path / "interrupted" / "checkpoint.pt")
    assert stopped["update"] == 2 and stopped["judged"] is None
    evaluated = [row.split(",")[0] for row in (tmp_path / "interrupted" / "eval.csv").read_text().splitlines()[1:]]
    assert evaluated == ["0", "0"]  # the first evaluation's two opponents; the final one waits for the judgement

    run_in_process(monkeypatch, "--config", str(config_file(tmp_path, "straight", **changes)),
                   "--runs-dir", str(tmp_path))
    capsys.readouterr()
    run_in_process(monkeypatch, *shlex.split(out.split("continue with: ")[1].splitlines()[0])[2:])
    resumed = capsys.readouterr().out
    assert "judgement: round 1" in resumed
    assert "final evaluation after 256 learner steps and expert's judgement" in resumed
    assert "the learner (playing its most likely action)" in resumed
    a = load_checkpoint(tmp_path / "straight" / "checkpoint.pt")
    b = load_checkpoint(tmp_path / "interrupted" / "checkpoint.pt")
    assert a["judged"] == b["judged"] == 2
    assert all(torch.equal(a["model"][k], b["model"][k]) for k in a["model"])
    assert not all(torch.equal(stopped["model"][k], b["model"][k]) for k in b["model"])  # the judgement moved it
    assert load_agent(tmp_path / "straight" / "checkpoint.pt", "rummy500", 2).greedy


def test_a_run_starts_from_a_trained_network_of_its_kind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = config_file(tmp_path, "first", total_steps=128, eval_every=50, checkpoint_every=50)
    run_in_process(monkeypatch, "--config", str(first), "--runs-dir", str(tmp_path))
    trained = tmp_path / "first" / "checkpoint.pt"
    import train
    from agents.train_config import load_config

    loaded: list[dict] = []
    monkeypatch.setattr(train, "start_from", lambda net, config, game, real=train.start_from: (
        real(net, config, game), loaded.append({k: v.clone() for k, v in net.state_dict().items()})))
    again = config_file(tmp_path, "again", total_steps=128, eval_every=50, imitation_teacher="", init_from=str(trained))
    run_in_process(monkeypatch, "--config", str(again), "--runs-dir", str(tmp_path))
    weights = load_checkpoint(trained)["model"]
    assert loaded and all(torch.equal(loaded[0][k], weights[k]) for k in weights)  # it began where the other ended
    assert load_checkpoint(tmp_path / "again" / "checkpoint.pt")["config"]["init_from"] == str(trained)
    wider = config_file(tmp_path, "wider", hidden_size=32, imitation_teacher="", init_from=str(trained))
    assert "this run's is" in refusal(monkeypatch, "--config", str(wider), "--runs-dir", str(tmp_path))
    other = config_file(tmp_path, "other", game="rummikub", baselines=["max_tiles"], eval_opponents=["max_tiles"],
                        imitation_teacher="", init_from=str(trained))
    assert "trained with game 'rummy500', this run has 'rummikub'" in refusal(
        monkeypatch, "--config", str(other), "--runs-dir", str(tmp_path))
    with pytest.raises(ValueError, match="'init_from' and 'imitation_teacher' are both set"):
        load_config(config_file(tmp_path, "both", init_from=str(trained)))
    missing = config_file(tmp_path, "none", imitation_teacher="", init_from=str(tmp_path / "no.pt"))
    assert "'init_from': " in refusal(monkeypatch, "--config", str(missing), "--runs-dir", str(tmp_path / "runs"))
    assert not (tmp_path / "runs").exists()


def test_a_stop_during_the_warm_start_ends_cleanly_within_seconds_and_says_nothing_was_kept(tmp_path: Path) -> None:
    """Ctrl-C while the teacher's games are recorded: no traceback, no checkpoint, and the command that starts
    again in the form the run was started with (here through make, with another config)."""
    config = config_file(tmp_path, "early", imitation_steps=10**6)
    run = Watched("--config", str(config), "--runs-dir", str(tmp_path), env={"RUMMIENV_MAKE_CONFIG": str(config)})
    run.wait_for("training rummy500, 2 players")
    run.wait_for("warm start: recording value")
    out, err = run.stop(signal.SIGINT, timeout=15)
    assert run.process.returncode == 0, err[-2000:]
    assert "Traceback" not in err
    assert "nothing was kept yet" in out
    assert f"start again with make train CONFIG={config} ARGS='--runs-dir {tmp_path}'" in out
    assert not (tmp_path / "early" / "checkpoint.pt").exists()


def test_sigterm_during_the_first_evaluation_keeps_the_warm_start_and_frees_the_workers(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    """SIGTERM while the first evaluation plays: the warm-started network is kept, worker processes and shared
    memory are freed (no leak warning), and the resumed run plays that evaluation again before it trains."""
    config = config_file(tmp_path, "firsteval", eval_deals=60, eval_opponents=["value"], num_workers=2,
                         total_steps=128)
    run = Watched("--config", str(config), "--runs-dir", str(tmp_path))
    run.wait_for("evaluation at update 0")
    out, err = run.stop(signal.SIGTERM, timeout=20)
    assert run.process.returncode == 0, err[-2000:]
    assert "Traceback" not in err and "leaked" not in err
    assert "stopped at update 0" in out and "kept: the network" in out
    assert load_checkpoint(tmp_path / "firsteval" / "checkpoint.pt")["update"] == 0
    hint = shlex.split(out.split("continue with: ")[1].splitlines()[0])
    capsys.readouterr()
    run_in_process(monkeypatch, *hint[2:])
    updates = [int(line.split(",")[0]) for line in (tmp_path / "firsteval" / "eval.csv").read_text().splitlines()[1:]]
    assert updates.count(0) == 1  # the first evaluation, once
    assert "final evaluation" in capsys.readouterr().out
