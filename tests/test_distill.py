"""``python -m agents.distill``: a teacher's decisions recorded in blocks, fitted, and written as an agent."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from agents import distill
from agents.checkpoint import load_agent, load_checkpoint
from agents.evaluate import evaluate
from agents.imitation import record_teacher
from agents.train_config import TrainConfig
from rummienv import games

SMALL = ["--game", "rummy500", "--teacher", "value", "--decisions", "150", "--blocks", "2", "--epochs", "3",
         "--hidden-size", "16", "--workers", "1"]


def test_the_clone_is_an_agent_that_plays_and_says_how_it_was_made(tmp_path: Path, capsys) -> None:
    out = tmp_path / "clone.pt"
    assert distill.main([*SMALL, "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert "value cloned on" in said and "10% held out" in said
    data = load_checkpoint(out)
    assert data["trained"]["command"].startswith("python -m agents.distill --game rummy500 --teacher value")
    assert data["act"] == "most_likely" and data["model_shape"]["hidden_size"] == 16
    load_agent(out, "rummy500", 2)  # refused if the file's game, table or shapes were wrong
    report = evaluate("rummy500", [str(out), "greedy"], 2, 2, seed=3, progress=False)
    assert [row["games"] for row in report["agents"].values()] == [4, 4]  # 2 deals, each in both seatings


def test_the_blocks_are_the_teachers_decisions_under_their_own_seeds(tmp_path: Path, monkeypatch) -> None:
    fitted: list[dict[str, np.ndarray]] = []
    real_fit = distill.fit
    monkeypatch.setattr(distill, "fit", lambda data, *rest: fitted.append(data) or real_fit(data, *rest))
    assert distill.main([*SMALL, "--seed", "4", "--out", str(tmp_path / "a.pt")]) == 0
    game = games.make_game("rummy500", 2)
    blocks = [record_teacher(game, "value", 150, "score", seed) for seed in (5, 6)]
    np.testing.assert_array_equal(fitted[0]["actions"], np.concatenate([b["actions"] for b in blocks]))
    np.testing.assert_array_equal(fitted[0]["obs"], np.concatenate([b["obs"] for b in blocks]))


def test_the_same_seed_makes_the_same_clone_and_another_seed_another(tmp_path: Path) -> None:
    for name, seed in (("a", "1"), ("b", "1"), ("c", "2")):
        assert distill.main([*SMALL, "--seed", seed, "--out", str(tmp_path / f"{name}.pt")]) == 0
    a, b, c = (load_checkpoint(tmp_path / f"{n}.pt")["model"] for n in "abc")
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert not all(torch.equal(a[k], c[k]) for k in a)


def test_held_out_decisions_are_not_fitted_and_accuracy_counts_the_teachers_choices() -> None:
    n = 50
    data = {"obs": np.eye(n, dtype=np.float32), "masks": np.ones((n, 3), dtype=bool),
            "actions": np.arange(n) % 3, "returns": np.zeros(n, dtype=np.float32)}
    fitted, held = distill.split(data, 0.2, seed=0)
    assert len(held["actions"]) == 10 and len(fitted["actions"]) == 40
    assert not set(map(tuple, fitted["obs"])) & set(map(tuple, held["obs"]))
    config = TrainConfig(game="rummy500", hidden_size=32, imitation_epochs=300, learning_rate=1e-2)
    net, stats = distill.fit(data, config, 0.2, 8, seed=0)
    assert stats["fitted_accuracy"] == 1.0  # one-hot rows: each can be learnt apart
    assert distill.accuracy(net, held) == stats["held_out_accuracy"]


@pytest.mark.parametrize(("args", "message"), [
    (["--teacher", "max_tiles"], "--teacher 'max_tiles' is not a baseline of rummy500; allowed: "),
    (["--teacher", "value", "--blocks", "0"], "--blocks must be at least 1, got 0"),
    (["--teacher", "value", "--held-out", "1"], "--held-out must be at least 0 and below 1, got 1.0"),
    (["--teacher", "value", "--whole-turns"], "whole-turn"),
])
def test_bad_arguments_are_refused_by_name(tmp_path: Path, capsys, args: list[str], message: str) -> None:
    with pytest.raises(SystemExit):
        distill.main(["--game", "rummy500", *args, "--out", str(tmp_path / "x.pt")])
    assert message in capsys.readouterr().err
    assert not (tmp_path / "x.pt").exists()
