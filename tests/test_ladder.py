"""The ladder: its files, its cache, its independence of the worker count, outside agents joining, bad input."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

import agents.ladder as ladder_command
from agents.ladder import entrants, ladder, plan
from agents.ladder_cache import file_hash, identity
from agents.random_agent import RandomAgent
from agents.registry import make_agent
from agents.rummikub_bots import MaxTilesAgent
from agents.trained import shipped_path
from rummienv.rules import make_rules

CHEAP = ["random", "greedy", "value"]  # Rummy 500: a whole game in a few hundredths of a second


def without_run(result: dict) -> dict:
    return {key: value for key, value in result.items() if key != "run"}


def test_the_ladder_writes_its_table_json_and_chart(tmp_path: Path, capsys) -> None:
    out = tmp_path / "ladder"
    assert ladder_command.main(["--game", "rummy500", "--agents", *CHEAP, "--deals", "2", "--out", str(out),
                                "--workers", "1", "--no-progress"]) == 0
    saved = json.loads((out / "ladder.json").read_text())
    assert saved["run"]["games_played"] == 3 * (2 + 2) * 2  # pairings x (round and whole-game deals) x seats
    assert "points per round" in saved["rating"]["method"] and "whole games" in saved["rating"]["method"]
    assert {row["games"] for row in saved["matches"]["agents"].values()} == {2 * 2 * 2}
    table = (out / "ladder.md").read_text()
    assert table == capsys.readouterr().out.rstrip("\n") + "\n"
    head = next(line for line in table.splitlines() if line.startswith("| rank"))
    cells = [cell.strip() for cell in head.strip("|").split("|")]
    assert cells[:4] == ["rank", "agent", "score/round", "95% CI"] and cells[4] == "match win rate"
    rows = [line.split(" | ") for line in table.splitlines() if line[:4] in ("| 1 ", "| 2 ", "| 3 ")]
    margins = [float(row[cells.index("margin")]) for row in rows]
    assert margins == sorted(margins, reverse=True) and {row[1] for row in rows} == set(CHEAP)
    assert "Whole games head to head" in table
    assert f"Made by `python -m agents.ladder --game rummy500 --agents {' '.join(CHEAP)} --deals 2" in table
    assert (out / "ladder.png").is_file() == (importlib.util.find_spec("matplotlib") is not None)


def test_the_cache_plays_only_what_is_new(tmp_path: Path) -> None:
    first = ladder("rummy500", CHEAP, 2, 2, 2, seed=3, out=tmp_path)
    assert first["run"] == {**first["run"], "games_played": 24, "games_cached": 0}
    again = ladder("rummy500", CHEAP, 2, 2, 2, seed=3, out=tmp_path)
    assert again["run"]["games_played"] == 0 and without_run(again) == without_run(first)
    joined = ladder("rummy500", [*CHEAP, "agents.random_agent:RandomAgent"], 2, 2, 2, seed=3, out=tmp_path)
    assert joined["run"]["games_played"] == 3 * 4 * 2 and joined["run"]["games_cached"] == 24  # its 3 pairings
    old = [record for record in joined["games"] if "agents.random_agent:RandomAgent" not in record["seats"]]
    assert old == first["games"]  # the old pairings' games, as cached
    longer = ladder("rummy500", CHEAP, 2, 3, 2, seed=3, out=tmp_path)
    assert longer["run"]["games_played"] == 3 * 2  # one more deal of one round for each pairing
    fresh = ladder("rummy500", CHEAP, 2, 3, 2, seed=3, out=tmp_path / "fresh")
    assert without_run(fresh) == without_run(longer)  # cached games are the games a fresh run plays


def test_the_results_do_not_depend_on_the_workers_or_the_order_of_the_agents(tmp_path: Path) -> None:
    one = ladder("rummy500", CHEAP, 2, 2, 1, seed=5, out=tmp_path / "one", workers=1)
    two = ladder("rummy500", CHEAP[::-1], 2, 2, 1, seed=5, out=tmp_path / "two", workers=2)
    assert two["run"]["workers"] == 2 and two["run"]["games_played"] == one["run"]["games_played"] == 18
    assert one["rating"]["agents"] == two["rating"]["agents"] and one["games"] == two["games"]
    assert one["matches"] == two["matches"]
    other = ladder("rummy500", CHEAP, 2, 2, 1, seed=6, out=tmp_path / "other", workers=1)
    assert other["games"] != one["games"]


def test_three_seats_play_every_table_of_three_in_every_seating_order(tmp_path: Path) -> None:
    four = [*CHEAP, "value_hold"]
    units = plan(four, 3, deals=1, matches=0)
    assert len(units) == 4 and all(len(set(unit.table)) == 3 for unit in units)
    result = ladder("rummy500", four, 3, 1, 0, seed=1, out=tmp_path)
    assert len(result["games"]) == 4 * 6 and {len(r["seats"]) for r in result["games"]} == {3}
    assert {row["games"] for row in result["agents"].values()} == {3 * 6}  # 3 tables of 6 orders each


def test_the_registered_agents_include_the_shipped_learner_where_one_ships() -> None:
    assert entrants("rummy500", 2)[:4] == ["random", "greedy", "value", "value_hold"]
    assert ("ppo" in entrants("rummy500", 2)) == shipped_path("rummy500", 2).is_file()
    assert ("ppo" in entrants("rummy500", 3)) == shipped_path("rummy500", 3).is_file()


def test_an_agent_is_known_by_its_source_and_its_checkpoints_content() -> None:
    rules = make_rules("rummy500")
    found = identity("value", rules, 2)
    assert found["class"] == "agents.rummy500_bots.ValueAgent" and len(found["source"]) == 64
    assert "checkpoint" not in found
    if shipped_path("rummy500", 2).is_file():
        assert identity("ppo", rules, 2)["checkpoint"] == file_hash(shipped_path("rummy500", 2))


def test_module_class_specs_build_agents() -> None:
    built = make_agent("agents.random_agent:RandomAgent", "rummy500", 2, seed=7)  # takes no rules: Class(), reseeded
    assert isinstance(built, RandomAgent)
    mask, reference = np.ones(50, dtype=np.int8), RandomAgent(7)
    assert [built.act(None, mask) for _ in range(5)] == [reference.act(None, mask) for _ in range(5)]
    assert isinstance(make_agent("agents.rummikub_bots:MaxTilesAgent", "rummikub", 2, seed=1), MaxTilesAgent)


@pytest.mark.parametrize("spec,message", [
    ("agents.no_such_module:Agent", "module 'agents.no_such_module' cannot be imported"),
    ("agents.random_agent:NoSuchClass", "module 'agents.random_agent' has no class 'NoSuchClass'"),
    ("collections:OrderedDict", "agent 'collections:OrderedDict' is not an agent: OrderedDict has no act"),
    ("missing.pt", "checkpoint 'missing.pt' does not exist"),
])
def test_make_agent_refuses_what_is_not_an_agent_on_one_line(spec: str, message: str) -> None:
    with pytest.raises(ValueError) as err:
        make_agent(spec, "rummy500", 2)
    text = str(err.value)
    assert message in text and "\n" not in text and "value_hold" in text and "module:Class" in text


@pytest.mark.parametrize("args,message", [
    (["--agents", "random", "nobody"], "argument --agents: 'nobody' is not one of the ladder's agents for rummy500 "
                                       "at 2 seats: random, greedy, value, value_hold"),
    (["--agents", "value"], "argument --agents: a ladder at 2 seats needs at least 2 agents, got 1: value"),
    (["--add", "collections:OrderedDict"], "argument --add: agent 'collections:OrderedDict' is not an agent"),
    (["--add", "agents.no_such_module:Agent"], "argument --add: agent 'agents.no_such_module:Agent': module"),
    (["--add", "missing.pt"], "argument --add: checkpoint 'missing.pt' does not exist"),
    (["--add", "value"], "argument --add: 'value' is already in the ladder"),
    (["--deals", "0"], "argument --deals: must be a whole number of at least 1, got 0"),
    (["--players", "5"], "argument --players: must be a whole number from 2 to 4, got 5"),
    (["--workers", "0"], "argument --workers: must be a whole number of at least 1, got 0"),
    (["--rules", "missing.yaml"], "argument --rules: rules file 'missing.yaml' does not exist"),
])
def test_bad_input_is_refused_before_any_game(args: list[str], message: str, monkeypatch, capsys,
                                              tmp_path: Path) -> None:
    def no_games(*args, **kwargs):
        raise AssertionError("a game was played before the arguments were checked")

    monkeypatch.setattr(ladder_command, "ladder", no_games)
    with pytest.raises(SystemExit) as stop:
        ladder_command.main(["--game", "rummy500", "--out", str(tmp_path), "--no-progress", *args])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and message in err and err.startswith("usage:")
    assert len(err.strip().splitlines()[-1]) > 0 and err.strip().splitlines()[-1].startswith("python -m agents.ladder")
