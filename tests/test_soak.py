"""The soak benchmark (benchmarks/soak.py) as a suite test: a thousand deals over the five table sizes, every action
audited against the rule book (rummienv.audit), plus a few deals of the strong agents, which reach positions
random play rarely does (long runs, late rearrangements, hoarded jokers).

The deals are split by cost, not evenly: a random Rummikub deal at two seats is some 650 audited actions (a
fifth of a second), a Rummy 500 deal under a hundred (a fortieth), and the whole test must stay near a minute on
a loaded two-core machine: split so, they take about 25 s there, where an even split took two and a half
minutes. The benchmark itself plays as many of each as one asks."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from rummienv import replay

ROOT = Path(__file__).resolve().parents[1]
SUITE = {("rummikub", 2): 40, ("rummikub", 4): 60, ("rummikub_cards", 2): 40, ("rummy500", 2): 430,
         ("rummy500", 4): 430}  # 1,000 deals of random play
STRONG = [("rummikub", 2, ["random", "hoard"], 4), ("rummikub_cards", 2, ["ppo", "hoard"], 1),
          ("rummikub", 4, ["hoard", "ppo"], 1), ("rummy500", 2, ["value_hold", "ppo"], 4),
          ("rummy500", 4, ["random", "value_hold"], 4), ("rummy500", 2, ["random", "expert"], 1)]
WORKERS = 2
ROUNDTRIP_EVERY = 10  # positions round-trip every 10 actions here (and at every deal's end): the loader costs most


@pytest.fixture(scope="module")
def soak():
    """benchmarks/soak.py as a module, its folder on the path as when it runs as a script, so that its worker
    processes import it by name."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    spec = importlib.util.spec_from_file_location("soak", ROOT / "benchmarks" / "soak.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["soak"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def pool(soak):
    """One pool of workers for the file: each worker loads the kernels and networks once."""
    with soak.make_pool(WORKERS) as workers:
        yield workers


def assert_clean(table) -> None:
    assert table.breaks == 0, "\n".join(p for deal in table.broken for p in deal.problems)


def test_random_play_breaks_no_rule(soak, pool):
    assert sum(SUITE.values()) == 1000
    for (game, players), deals in SUITE.items():
        table = soak.soak(game, players, ["random"], deals, seed=1, pool=pool, roundtrip_every=ROUNDTRIP_EVERY)
        assert_clean(table)
        assert table.games == deals and table.actions > 20 * deals


@pytest.mark.parametrize(("game", "players", "agents", "deals"), STRONG)
def test_strong_agents_break_no_rule(soak, pool, game, players, agents, deals):
    assert_clean(soak.soak(game, players, agents, deals, seed=2, pool=pool, roundtrip_every=ROUNDTRIP_EVERY))


def test_a_seed_plays_the_same_deals_with_any_number_of_workers(soak, pool):
    one = soak.soak("rummy500", 4, ["random", "value_hold"], 8, seed=3)
    two = soak.soak("rummy500", 4, ["random", "value_hold"], 8, seed=3, pool=pool)
    other = soak.soak("rummy500", 4, ["random", "value_hold"], 8, seed=4)
    assert one.actions == two.actions != other.actions


def test_a_run_in_blocks_plays_the_same_deals_as_one_run(soak):
    whole = soak.soak("rummy500", 2, ["random"], 6, seed=5)
    blocks = [soak.soak("rummy500", 2, ["random"], 3, seed=5, first=first) for first in (0, 3)]
    assert sum(block.actions for block in blocks) == whole.actions
    assert blocks[1].summary()["first"] == 3
    assert blocks[0].actions != blocks[1].actions


def test_each_agent_plays_every_seat(soak):
    assert [soak.seat_agents(["random", "hoard"], 4, i) for i in range(2)] == [
        ["random", "hoard", "random", "hoard"], ["hoard", "random", "hoard", "random"]]


def test_a_broken_deal_is_written_to_reproduce(soak, tmp_path, monkeypatch):
    """A deal that breaks a rule leaves its replay (readable by the replay tools) and the position before the
    broken action; the command's exit status says so."""
    monkeypatch.setattr(soak, "audit_step", lambda before, after: ["F7: planted"] if after["melds"] else [])
    assert soak.main(["--game", "rummy500", "--players", "2", "--games", "2", "--workers", "1", "--json",
                      "--out", str(tmp_path)]) == 1
    written = sorted(tmp_path.iterdir())
    assert {p.name.split(".", 1)[1] for p in written} == {"replay.json", "position.json"}
    record = replay.read(next(p for p in written if p.name.endswith("replay.json")))
    *_, last = replay.states(record)
    assert last.to_dict()["melds"]
    position = json.loads(next(p for p in written if p.name.endswith("position.json")).read_text())
    assert position["problems"][0].endswith("F7: planted") and not position["position"]["melds"]


def test_the_command_reports_each_table(soak, capsys):
    assert soak.main(["--game", "rummy500", "--players", "2", "4", "--games", "3", "--workers", "1", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["players"], r["games"], r["breaks"]) for r in rows] == [(2, 3, 0), (4, 3, 0)]
    assert all(r["actions"] > 0 and r["games_per_s"] > 0 for r in rows)


def test_an_agent_without_a_network_for_the_table_is_refused_at_once(soak, capsys):
    with pytest.raises(SystemExit) as exit_:
        soak.main(["--game", "rummy500", "--players", "4", "--games", "1", "--agents", "ppo"])
    assert exit_.value.code == 2 and "no trained agent ships" in capsys.readouterr().err
