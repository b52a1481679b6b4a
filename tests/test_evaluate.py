"""The evaluator: intervals on known inputs, seat rotation, determinism, the command."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter

import numpy as np
import pytest

from agents.evaluate import evaluate, format_table, lineups, summarise
from agents.stats import bootstrap_mean, bradley_terry, openskill_ratings, ratings, wilson


def test_wilson_on_known_values():
    lo, hi = wilson(7, 10)
    assert lo == pytest.approx(0.3968, abs=1e-4) and hi == pytest.approx(0.8922, abs=1e-4)
    lo, hi = wilson(0, 20)
    assert lo == 0.0 and hi == pytest.approx(0.1611, abs=1e-4)
    assert wilson(20, 20)[1] == 1.0 and wilson(20, 20)[0] == pytest.approx(1 - 0.1611, abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)


def test_bootstrap_is_reproducible_and_sound():
    values = np.random.default_rng(1).normal(5.0, 2.0, size=400)
    first = bootstrap_mean(values, seed=3)
    assert first == bootstrap_mean(values, seed=3)
    assert first != bootstrap_mean(values, seed=4)
    lo, hi = first
    assert lo < values.mean() < hi
    assert hi - lo == pytest.approx(2 * 1.96 * values.std() / np.sqrt(400), rel=0.15)
    assert bootstrap_mean([2.5] * 10, seed=0) == (2.5, 2.5)


def test_bradley_terry_solves_its_likelihood_equations():
    games = [[("a", 1), ("b", 0)]] * 7 + [[("b", 1), ("a", 0)]] * 3 + [[("b", 2), ("c", 1)]] * 6 + \
        [[("c", 1), ("b", 1)]] * 2
    elo = bradley_terry(games, ["a", "b", "c"])
    assert elo["a"] > elo["b"] > elo["c"]
    gamma = {k: 10 ** (v / 400) for k, v in elo.items()}
    # MM fixed point: wins (plus the prior's one) equal expected wins (plus against the virtual player)
    expected_a = 10 * gamma["a"] / (gamma["a"] + gamma["b"]) + 2 * gamma["a"] / (gamma["a"] + 1)
    assert expected_a == pytest.approx(7 + 1, rel=1e-6)
    expected_c = 8 * gamma["c"] / (gamma["c"] + gamma["b"]) + 2 * gamma["c"] / (gamma["c"] + 1)
    assert expected_c == pytest.approx(1 + 1, rel=1e-6)  # two ties are one win
    assert bradley_terry([[("x", 1), ("y", 1)]] * 5, ["x", "y"]) == pytest.approx({"x": 0.0, "y": 0.0}, abs=1e-6)


def test_openskill_ratings_order_the_agents():
    pytest.importorskip("openskill")
    games = [[("a", 3), ("b", 2), ("c", 1)]] * 20
    rated = openskill_ratings(games, ["a", "b", "c"])
    assert rated["a"]["mu"] > rated["b"]["mu"] > rated["c"]["mu"]
    both = ratings(games, ["a", "b", "c"])["agents"]["a"]
    assert {"elo", "mu", "sigma", "ordinal"} <= set(both)


def test_ratings_without_openskill_are_the_elo_fit(monkeypatch):
    import agents.stats as stats

    monkeypatch.setattr(stats.importlib.util, "find_spec", lambda name: None)
    games = [[("a", 3), ("b", 2), ("c", 1)]] * 5
    rated = stats.ratings(games, ["a", "b", "c"])
    assert rated["agents"] == {lab: {"elo": elo} for lab, elo in bradley_terry(games, ["a", "b", "c"]).items()}


@pytest.mark.parametrize("agents,players", [(2, 2), (3, 2), (4, 3), (2, 4), (4, 4)])
def test_each_agent_plays_each_seat_equally_often(agents, players):
    table = lineups(agents, players)
    seats = Counter((i, s) for lineup in table for s, i in enumerate(lineup))
    assert len(set(seats.values())) == 1 and len(seats) == agents * players


def test_summary_counts_shared_wins_and_clusters_by_deal():
    records = [{"deal": 0, "seats": ["a", "b"], "scores": [10, -10]},
               {"deal": 0, "seats": ["b", "a"], "scores": [5, 5]},
               {"deal": 1, "seats": ["a", "b"], "scores": [-2, 2]},
               {"deal": 1, "seats": ["b", "a"], "scores": [-4, 4]}]
    result = summarise(records, ["a", "b"], "rummy500", 2, seed=0)
    a = result["agents"]["a"]
    assert a["games"] == 4 and a["wins"] == 2.5 and a["win_rate"] == 0.625
    assert a["win_ci"] == list(wilson(2.5, 4))
    assert a["mean_score"] == pytest.approx(np.mean([7.5, 1.0]))
    assert "rating" not in result


def test_evaluate_is_deterministic_and_rates_three_agents():
    first = evaluate("rummy500", ["greedy", "value", "random"], 2, 4, seed=11, progress=False)
    second = evaluate("rummy500", ["greedy", "value", "random"], 2, 4, seed=11, progress=False)
    assert first == second
    assert len(first["games"]) == 4 * 6
    assert set(first["rating"]["agents"]) == {"greedy", "value", "random"}
    assert evaluate("rummy500", ["greedy", "value", "random"], 2, 4, seed=12, progress=False) != first
    assert "value" in format_table(first)


def test_evaluate_plays_rummikub_and_self_play():
    result = evaluate("rummikub", ["max_tiles", "max_tiles"], 2, 2, seed=0, rules={"jokers": 0}, progress=False)
    assert set(result["agents"]) == {"max_tiles", "max_tiles#2"}
    for record in result["games"]:
        assert sum(record["scores"]) == pytest.approx(0)  # T9/T10: the plus equals the minus


def test_evaluate_command_prints_a_table_and_writes_json(tmp_path):
    out = tmp_path / "result.json"
    cmd = [sys.executable, "-m", "agents.evaluate", "--game", "rummy500", "--players", "2",
           "--agents", "value", "greedy", "--games", "3", "--seed", "0", "--json", str(out)]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "value" in run.stdout and "95% CI" in run.stdout
    assert "6/6" in run.stderr  # the progress bar
    saved = json.loads(out.read_text())
    assert saved["agents"]["value"]["games"] == 6
    again = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert again.stdout == run.stdout


def test_evaluate_command_rejects_unknown_agents():
    run = subprocess.run([sys.executable, "-m", "agents.evaluate", "--game", "rummy500", "--agents", "value",
                          "nobody", "--games", "1", "--no-progress"], capture_output=True, text=True, timeout=300)
    assert run.returncode == 2 and "unknown agent 'nobody'" in run.stderr and "value_hold" in run.stderr


@pytest.mark.parametrize("args,message", [
    (["--games", "0"], "argument --games: must be a whole number of at least 1, got 0"),
    (["--games", "-3"], "argument --games: must be a whole number of at least 1, got -3"),
    (["--games", "many"], "argument --games: must be a whole number of at least 1, got 'many'"),
    (["--players", "5"], "argument --players: must be a whole number from 2 to 4, got 5"),
    (["--seed", "-1"], "argument --seed: must be a whole number of at least 0, got -1"),
    (["--agents", "value", "missing.pt"], "argument --agents: checkpoint 'missing.pt' does not exist"),
    (["--rules", "missing.yaml"], "argument --rules: rules file 'missing.yaml' does not exist"),
    (["--json", "no/such/folder/out.json"], "argument --json: folder 'no/such/folder' does not exist"),
])
def test_evaluate_command_refuses_bad_arguments_before_any_game(args, message, monkeypatch, capsys):
    import agents.evaluate as command

    def no_games(*args, **kwargs):
        raise AssertionError("a game was played before the arguments were checked")

    monkeypatch.setattr(command, "evaluate", no_games)
    argv = ["--game", "rummy500", "--agents", "value", "greedy", "--no-progress"]
    with pytest.raises(SystemExit) as stop:
        command.main(argv + args)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and message in err and err.startswith("usage:")


def test_table_columns_fit_long_agent_names():
    long = "runs/a_rather_long_run_name/checkpoint.pt"
    records = [{"deal": 0, "seats": [long, "b", "c"], "scores": [3, 2, 1]},
               {"deal": 1, "seats": ["c", long, "b"], "scores": [0, 5, -5]}]
    lines = format_table(summarise(records, [long, "b", "c"], "rummy500", 3, seed=0)).splitlines()
    games_end = lines[1].index("games") + len("games")
    for row, label in zip(lines[2:5], [long, "b", "c"], strict=True):
        assert row.startswith(label + " ") and row[:games_end].split()[-1] == "2" and row[games_end] == " "
    pairs = lines[lines.index("head to head (row beats column; ties half):") + 1:]
    assert pairs[0].split() == [long, "b", "c"]
    assert all(len(row) == len(pairs[0]) for row in pairs)
    assert [row.split()[0] for row in pairs[1:]] == [long, "b", "c"]
