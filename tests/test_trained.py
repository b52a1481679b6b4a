"""The shipped trained agents: the name ``ppo``, exporting a run into one, and the results table made from them."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
import torch

import rummienv  # noqa: F401  (registers the envs)
from agents import results, trained
from agents.checkpoint import load_checkpoint, save_checkpoint
from agents.evaluate import ROUND, WHOLE_GAME, evaluate
from agents.ppo import ActorCritic
from agents.registry import make_agent
from agents.whole_turn_policy import WholeTurnPolicy
from rummienv.rummikub import whole_turns as W


def run_checkpoint(path: Path, game: str = "rummikub", players: int = 2, whole: bool = True) -> Path:
    """A run's checkpoint as train.py writes it, with an untrained network."""
    torch.manual_seed(0)
    net = ActorCritic(W.size(players), W.NUM_ACTIONS) if whole else ActorCritic(182, 108)
    save_checkpoint(path, {"config": {"game": game, "num_players": players, "whole_turns": whole},
                           "model": net.state_dict(), "model_shape": net.shape, "global_step": 1234,
                           "optimizer": {}, "wall_seconds": 600.0})
    return path


@pytest.fixture
def shelf(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty folder of shipped agents in place of the project's."""
    folder = tmp_path / "trained"
    folder.mkdir()
    monkeypatch.setattr(trained, "TRAINED_DIR", folder)
    return folder


def test_an_exported_run_is_the_agent_named_ppo(tmp_path: Path, shelf: Path) -> None:
    target = trained.export(run_checkpoint(tmp_path / "checkpoint.pt"), "python train.py --config x.yaml",
                            ship=True)
    assert target == shelf / "rummikub_2p.pt"
    assert not {"optimizer", "wall_seconds"} & set(load_checkpoint(target))  # what playing needs, and the facts
    agent = make_agent("ppo", "rummikub", 2, seed=1)
    assert isinstance(agent, WholeTurnPolicy) and agent.name == "ppo"
    facts = trained.training_facts(target)
    assert facts["command"] == "python train.py --config x.yaml" and facts["minutes"] == 10.0
    assert facts["steps"] == 1234 and "cores" in facts["machine"]
    env = gym.make("rummienv/Rummikub-v0", opponents=["ppo"])
    obs, _ = env.reset(seed=3)
    obs, *_ = env.step(int(np.flatnonzero(obs["action_mask"])[0]))


def test_ppo_where_none_ships_names_the_ones_that_do(tmp_path: Path, shelf: Path) -> None:
    trained.export(run_checkpoint(tmp_path / "c.pt"), "make train", ship=True)
    with pytest.raises(ValueError, match="no trained agent ships for rummikub with 3 players; .*rummikub_2p"):
        make_agent("ppo", "rummikub", 3)


def test_the_results_table_is_made_again_the_same(tmp_path: Path, shelf: Path) -> None:
    trained.export(run_checkpoint(tmp_path / "c.pt"), "make train", ship=True)
    first, again = (results.markdown(results.measure("rummikub_2p", 1, progress=False)) for _ in range(2))
    assert first == again
    rows = first.splitlines()
    assert [row.split(" | ")[1] for row in rows[4:7]] == ["max_tiles", "hold_back", "hoard"]
    assert rows[-1].startswith("| rummikub_2p | 10 min | 1,234 |") and rows[-1].endswith("| `make train` | sample |")


def test_a_run_is_exported_beside_it_and_never_over_a_shipped_agent(tmp_path: Path, shelf: Path) -> None:
    checkpoint = run_checkpoint(tmp_path / "run" / "checkpoint.pt")
    assert trained.main([str(checkpoint), "--command", "make train"]) == 0
    mine = tmp_path / "run" / "agent.pt"
    assert not list(shelf.iterdir()) and trained.training_facts(mine)["act"] == "sample"
    assert make_agent(str(mine), "rummikub", 2).name == "agent"  # usable by path, as the message says
    with pytest.raises(SystemExit):
        trained.main([str(checkpoint), "--command", "make train", "--out", str(shelf / "rummikub_2p.pt")])
    assert not list(shelf.iterdir())
    with pytest.raises(ValueError, match="a run's checkpoint: give the command"):
        trained.export(checkpoint)


def test_an_agent_file_acts_as_exported_and_keeps_its_training_facts(tmp_path: Path, shelf: Path) -> None:
    shipped = trained.export(run_checkpoint(tmp_path / "c.pt"), "make train", ship=True)
    facts = trained.training_facts(shipped)
    assert make_agent("ppo", "rummikub", 2).policy.greedy is False
    trained.export(shipped, act="most_likely", ship=True)
    assert trained.training_facts(shipped) == {**facts, "act": "most_likely"}
    agent = make_agent("ppo", "rummikub", 2)
    assert agent.policy.greedy is True and agent.name == "ppo"
    with pytest.raises(ValueError, match="keeps the command it was trained with"):
        trained.export(shipped, "python train.py", ship=True)
    with pytest.raises(ValueError, match="allowed: sample, most_likely"):
        trained.export(shipped, act="best", ship=True)


def test_a_full_table_is_ranked_among_the_baselines() -> None:
    assert results.matches("rummikub", 4) == [["ppo", "max_tiles", "hold_back", "hoard"]]
    assert results.matches("rummy500", 2) == [["ppo", "value"], ["ppo", "value_hold"]]


def test_every_row_of_the_results_rests_on_as_many_games_of_the_trained_agent() -> None:
    """A four-seat deal is played in 24 seating orders, a two-seat one in 2: the full table plays a twelfth of the
    deals, rounded up, so that its row is no dearer than a two-seat one."""
    assert [results.row_deals(deals, 2) for deals in (1, 2000)] == [1, 2000]
    assert [results.row_deals(deals, 4) for deals in (0, 1, 12, 2000)] == [0, 1, 1, 167]
    assert results.games_to_play(["rummikub_4p", "rummy500_2p"], 2000, 100) == {
        ROUND: 167 * 24 + 2 * 2000 * 2, WHOLE_GAME: 9 * 24 + 2 * 100 * 2}


@pytest.mark.parametrize("stem", trained.shipped())
def test_each_shipped_agent_plays_its_game(stem: str) -> None:
    game, players = stem.rsplit("_", 1)
    num_players = int(players.rstrip("p"))
    report = evaluate(game, ["ppo"] + ["max_tiles" if game != "rummy500" else "value"] * (num_players - 1),
                      num_players, 1, seed=1, progress=False)
    assert report["agents"]["ppo"]["games"] >= 1


@pytest.mark.skipif("rummikub_2p" not in trained.shipped(), reason="no trained Rummikub agent ships")
def test_a_person_plays_the_shipped_agent() -> None:
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-m", "rummienv.play", "--game", "rummikub", "--opponents", "ppo",
                          "--seed", "3", "--clock", "off"], input="auto\n" * 300, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    assert "seat 1 (ppo):" in run.stdout and "game over" in run.stdout


def test_a_fine_tuned_run_counts_the_training_it_started_from(tmp_path: Path, shelf: Path) -> None:
    first = trained.export(run_checkpoint(tmp_path / "a" / "checkpoint.pt"), "make train", ship=True)
    tuned = run_checkpoint(tmp_path / "b" / "checkpoint.pt")
    data = load_checkpoint(tuned)
    save_checkpoint(tuned, {**data, "config": {**data["config"], "init_from": str(first)}})
    facts = trained.training_facts(trained.export(tuned, "python train.py --config tune.yaml"))
    assert facts["command"] == "make train; then python train.py --config tune.yaml"
    assert facts["minutes"] == 20.0 and facts["steps"] == 2 * 1234
