"""The evaluator: intervals on known inputs, seat rotation, determinism, the command."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter

import numpy as np
import pytest

from agents.evaluate import evaluate, format_table, lineups, summarise
from agents.stats import bootstrap_mean, bradley_terry, margin_ratings, openskill_ratings, ratings, wilson


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


def test_margin_ratings_solve_their_least_squares_and_weigh_points_not_places():
    # a beats b by 20 and loses by 4 (mean lead 8); a leads c by 2; b never meets c
    games = [[("a", 10), ("b", -10)], [("b", 2), ("a", -2)], [("a", 3), ("c", 1)]]
    rated = margin_ratings(games, [0, 1, 2], ["a", "b", "c"], seed=0)
    # r_a - r_b = 8, r_a - r_c = 2, r_a + r_b + r_c = 0
    assert [rated[k]["margin"] for k in "abc"] == pytest.approx([10 / 3, -14 / 3, 4 / 3])
    for row in rated.values():
        lo, hi = row["margin_ci"]
        assert lo <= row["margin"] + 1e-9 and row["margin"] <= hi + 1e-9
    # winning two rounds by 1 and losing one by 10 is ahead in places and behind in points
    close = [[("x", 1), ("y", -1)], [("x", 1), ("y", -1)], [("x", -10), ("y", 10)]]
    assert margin_ratings(close, [0, 1, 2], ["x", "y"])["x"]["margin"] == pytest.approx(-8 / 3)  # half the mean lead
    assert bradley_terry(close, ["x", "y"])["x"] > 0
    assert margin_ratings(close, [0, 1, 2], ["x", "y"], seed=5) == margin_ratings(close, [0, 1, 2], ["x", "y"], seed=5)


def test_openskill_ratings_order_the_agents():
    pytest.importorskip("openskill")
    games = [[("a", 3), ("b", 2), ("c", 1)]] * 20
    rated = openskill_ratings(games, ["a", "b", "c"])
    assert rated["a"]["mu"] > rated["b"]["mu"] > rated["c"]["mu"]
    both = ratings(games, [0] * 20, games, ["a", "b", "c"])
    assert {"margin", "margin_ci", "elo", "mu", "sigma", "ordinal"} <= set(both["agents"]["a"])
    assert "whole games" in both["method"] and "points per round" in both["method"]


def test_ratings_without_whole_games_or_openskill(monkeypatch):
    import agents.stats as stats

    games = [[("a", 3), ("b", 2), ("c", 1)]] * 5
    rounds_only = stats.ratings(games, range(5), [], ["a", "b", "c"])
    assert rounds_only["agents"] == margin_ratings(games, range(5), ["a", "b", "c"])
    assert "elo" not in rounds_only["method"]
    monkeypatch.setattr(stats.importlib.util, "find_spec", lambda name: None)
    rated = stats.ratings(games, range(5), games, ["a", "b", "c"])
    assert {lab: row["elo"] for lab, row in rated["agents"].items()} == bradley_terry(games, ["a", "b", "c"])
    assert "openskill" not in rated["method"] and "mu" not in rated["agents"]["a"]


@pytest.mark.parametrize("agents,players", [(2, 2), (3, 2), (4, 3), (2, 4), (4, 4)])
def test_each_agent_plays_each_seat_equally_often(agents, players):
    table = lineups(agents, players)
    seats = Counter((i, s) for lineup in table for s, i in enumerate(lineup))
    assert len(set(seats.values())) == 1 and len(seats) == agents * players


@pytest.mark.parametrize("agents,players", [(3, 3), (4, 3), (4, 4)])
def test_each_agent_sits_after_each_other_equally_often(agents, players):
    table = lineups(agents, players)
    after = Counter((lineup[s], lineup[(s + 1) % players]) for lineup in table for s in range(players))
    assert len(set(after.values())) == 1 and len(after) == agents * (agents - 1)


def test_two_seats_play_the_two_rotations():
    assert lineups(2, 2) == [(0, 1), (1, 0)]


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
    assert result["rating"]["agents"]["a"]["margin"] == pytest.approx((20 + 0 - 4 + 8) / 4 / 2)
    assert "matches" not in result and "elo" not in result["rating"]["agents"]["a"]


def test_whole_games_are_decided_by_the_rules_winner_then_the_total():
    from agents.evaluate import head_to_head, standings

    # T11: a tie on the total goes to the seat that won more rounds (State.winners says which)
    match = {"deal": 0, "seats": ["a", "b", "c"], "scores": [10.0, 10.0, -20.0], "winners": [1]}
    assert standings(match) == [-1.0, 0.0, -2.0]
    pairs = head_to_head([match], ["a", "b", "c"])
    assert pairs["b"]["a"] == 1.0 and pairs["a"]["c"] == 1.0
    rounds = [{"deal": 0, "seats": ["a", "b"], "scores": [10, -10]},
              {"deal": 0, "seats": ["b", "a"], "scores": [3, -3]}]
    matches = [{"deal": 0, "seats": ["a", "b"], "scores": [5, -5], "winners": [0]},
               {"deal": 0, "seats": ["b", "a"], "scores": [0, 0], "winners": [0, 1]}]
    result = summarise(rounds, ["a", "b"], "rummikub", 2, seed=0, matches=matches)
    assert result["matches"]["agents"]["a"]["wins"] == 1.5 and result["matches"]["deals"] == 1
    assert result["agents"]["a"]["wins"] == 1.0
    assert result["rating"]["agents"]["a"]["elo"] > 0


def test_evaluate_is_deterministic_and_rates_three_agents():
    first = evaluate("rummy500", ["greedy", "value", "random"], 2, 4, seed=11, progress=False, matches=2)
    second = evaluate("rummy500", ["greedy", "value", "random"], 2, 4, seed=11, progress=False, matches=2)
    assert first == second
    assert len(first["games"]) == 4 * 6 and len(first["matches"]["games"]) == 2 * 6
    assert set(first["rating"]["agents"]) == {"greedy", "value", "random"}
    assert evaluate("rummy500", ["greedy", "value", "random"], 2, 4, seed=12, progress=False, matches=2) != first
    assert "value" in format_table(first)
    # F12: a whole game pays the winner what the others trail by, so its scores add up to zero
    for record in first["matches"]["games"]:
        assert sum(record["scores"]) == pytest.approx(0) and max(record["scores"]) > 0
    without = evaluate("rummy500", ["greedy", "value", "random"], 2, 4, seed=11, progress=False)
    assert without["games"] == first["games"] and "matches" not in without  # whole games leave the rounds alone


def test_whole_rummikub_games_add_up_their_rounds():
    result = evaluate("rummikub", ["max_tiles", "greedy"], 2, 1, seed=2, rules={"jokers": 0}, progress=False,
                      matches=2)
    assert result["matches"]["agents"]["max_tiles"]["games"] == 4
    wins = sum(row["wins"] for row in result["matches"]["agents"].values())
    assert wins == pytest.approx(4)  # one whole win (maybe shared) per game
    for record in result["matches"]["games"]:
        assert sum(record["scores"]) == pytest.approx(0)  # T9/T10 totals add up to zero too


def test_evaluate_plays_rummikub_and_self_play():
    result = evaluate("rummikub", ["max_tiles", "max_tiles"], 2, 2, seed=0, rules={"jokers": 0}, progress=False)
    assert set(result["agents"]) == {"max_tiles", "max_tiles#2"}
    for record in result["games"]:
        assert sum(record["scores"]) == pytest.approx(0)  # T9/T10: the plus equals the minus


def test_evaluate_command_prints_a_table_and_writes_json(tmp_path):
    out = tmp_path / "result.json"
    cmd = [sys.executable, "-m", "agents.evaluate", "--game", "rummy500", "--players", "2",
           "--agents", "value", "greedy", "--deals", "3", "--seed", "0", "--json", str(out)]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "value" in run.stdout and "95% CI" in run.stdout
    assert "12/12" in run.stderr  # the progress bar: 3 deals of one round and 3 of whole games, both seats each
    head = run.stdout.splitlines()[1].split()
    assert head[:2] == ["agent", "score/round"]  # the rules' measure first: points, then whole games won
    assert head.index("score/round") < head.index("match") < head.index("round") < head.index("margin")
    assert "rating: margin: expected lead in points per round" in run.stdout and "whole games" in run.stdout
    saved = json.loads(out.read_text())
    assert saved["agents"]["value"]["games"] == 6 and saved["matches"]["agents"]["value"]["games"] == 6
    assert set(saved["rating"]["agents"]["value"]) >= {"margin", "margin_ci", "elo"}
    again = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert again.stdout == run.stdout


def test_evaluate_command_rejects_unknown_agents():
    run = subprocess.run([sys.executable, "-m", "agents.evaluate", "--game", "rummy500", "--agents", "value",
                          "nobody", "--deals", "1", "--no-progress"], capture_output=True, text=True, timeout=300)
    assert run.returncode == 2 and "unknown agent 'nobody'" in run.stderr and "value_hold" in run.stderr


@pytest.mark.parametrize("args,message", [
    (["--games", "0"], "argument --games: must be a whole number of at least 1, got 0"),
    (["--games", "-3"], "argument --games: must be a whole number of at least 1, got -3"),
    (["--games", "many"], "argument --games: must be a whole number of at least 1, got 'many'"),
    (["--matches", "-1"], "argument --matches: must be a whole number of at least 0, got -1"),
    (["--players", "5"], "argument --players: must be a whole number from 2 to 4, got 5"),
    (["--seed", "-1"], "argument --seed: must be a whole number of at least 0, got -1"),
    (["--agents", "value", "missing.pt"], "argument --agents: checkpoint 'missing.pt' does not exist"),
    (["--rules", "missing.yaml"], "argument --rules: rules file 'missing.yaml' does not exist"),
    (["--deals", "0"], "argument --deals: must be a whole number of at least 1, got 0"),
    (["--json", "no/such/folder/out.json"], "argument --json: cannot write the file 'no/such/folder/out.json' "
                                            "(folder 'no/such/folder' does not exist); give --json a file"),
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
    head = lines[1]
    rounds_end = head.index("rounds") + len("rounds")
    for row, label in zip(lines[2:5], [long, "b", "c"], strict=True):
        assert row.startswith(label + " ") and len(row) == len(head)
        assert row[:rounds_end].split()[-1] == "2" and row[rounds_end] == " "
    pairs = lines[lines.index("head to head in rounds, by score (row ahead of column; ties half):") + 1:]
    assert pairs[0].split() == [long, "b", "c"]
    assert all(len(row) == len(pairs[0]) for row in pairs)
    assert [row.split()[0] for row in pairs[1:]] == [long, "b", "c"]
