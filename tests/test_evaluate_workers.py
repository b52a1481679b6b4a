"""Evaluation on several processes: the same numbers for any number of workers, each deal's agents seeded by the
deal alone, this process playing beside its helpers, the options refused where they make no sense, and workers
started deaf to Ctrl-C."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import time
from pathlib import Path

import pytest

import agents.evaluate as evaluate_command
import agents.results as results_command
from agents import deal_pool
from agents.evaluate import Deal, Seats, deal_games, deal_seeds, evaluate
from agents.random_agent import RandomAgent
from rummienv.rules import make_rules

SAMPLING = [  # each has an agent that draws on chance: its games hang on how it is seeded
    ("rummy500", ["random", "greedy"], 2, 3, 2),
    ("rummy500", ["random", "value", "greedy"], 4, 2, 1),
    ("rummikub", ["random", "max_tiles"], 2, 2, 1),
    ("rummikub", ["ppo", "hoard"], 4, 2, 0),  # a whole-turn network that samples, reseeded at every deal
    ("rummy500", ["ppo", "value"], 2, 2, 1),  # a per-piece network that samples, reseeded at every deal
    ("rummy500", ["seedless_agent:Seedless", "value"], 2, 2, 1),  # no reseed: made afresh for every deal
]


@pytest.mark.parametrize(("game", "agents", "players", "deals", "matches"), SAMPLING)
def test_any_number_of_workers_gives_the_same_result(game, agents, players, deals, matches) -> None:
    one = evaluate(game, agents, players, deals, seed=7, matches=matches, progress=False, resamples=200, workers=1)
    two = evaluate(game, agents, players, deals, seed=7, matches=matches, progress=False, resamples=200, workers=2)
    assert two == one
    assert [r["deal"] for r in two["games"]] == sorted(r["deal"] for r in two["games"])  # put back in deal order


def test_a_deals_games_hang_on_its_own_seed_not_on_the_deals_played_before() -> None:
    """The third deal played by agents fresh from their making is the third deal of a whole run: what a worker
    that was dealt only that deal plays."""
    rules = make_rules("rummy500", None)
    specs, labels = ("random", "random"), ("random", "random#2")
    seeds = deal_seeds(3, 3)
    run = evaluate("rummy500", list(specs), 2, 3, seed=3, progress=False, resamples=10, workers=1)
    alone = Deal(rules, 2, specs, labels, 3, False, 2, int(seeds[2]), None)
    assert [record for record, _ in deal_games(alone, Seats(specs, rules, 2))] == run["games"][-2:]


def test_agents_are_made_once_a_process_and_reseeded_where_they_can_be() -> None:
    rules = make_rules("rummy500", None)
    specs = ("random", "ppo", "seedless_agent:Seedless")
    seats = Seats(specs, rules, 2)
    deals = [Deal(rules, 2, seats.specs, specs, 1, False, deal, 0, None) for deal in range(2)]
    first, second = seats.for_deal(deals[0]), seats.for_deal(deals[1])
    assert first[0, 0] is second[0, 0]  # a baseline is reseeded
    assert first[1, 0] is second[1, 0]  # so is a network
    assert first[2, 0] is not second[2, 0]  # an agent without reseed is made again


def test_an_agent_object_plays_in_this_process_only() -> None:
    mine = RandomAgent(5)
    assert evaluate("rummy500", [mine, "greedy"], 2, 2, seed=1, progress=False, resamples=10)["agents"]["RandomAgent"]
    with pytest.raises(ValueError, match="agent objects cannot be sent to worker processes"):
        evaluate("rummy500", [mine, "greedy"], 2, 2, seed=1, progress=False, workers=2)


def test_on_game_follows_every_game_and_replays_are_the_same_from_workers(tmp_path: Path) -> None:
    games = []
    result = evaluate("rummy500", ["random", "greedy"], 2, 3, seed=2, matches=1, progress=False, resamples=10,
                      workers=2, replays=tmp_path / "two", on_game=lambda: games.append(1))
    assert len(games) == len(result["games"]) + len(result["matches"]["games"]) == 8
    evaluate("rummy500", ["random", "greedy"], 2, 3, seed=2, matches=1, progress=False, resamples=10,
             replays=tmp_path / "one")
    written = sorted(path.name for path in (tmp_path / "one").iterdir())
    assert len(written) == 8 and written == sorted(path.name for path in (tmp_path / "two").iterdir())
    assert all((tmp_path / "one" / name).read_text() == (tmp_path / "two" / name).read_text() for name in written)


def test_the_command_gives_the_same_json_with_workers_and_says_how_many_in_its_estimate(monkeypatch, capsys,
                                                                                      tmp_path: Path) -> None:
    monkeypatch.setattr(evaluate_command, "SAMPLE_SECONDS", 0.0)
    argv = ["--game", "rummy500", "--agents", "random", "greedy", "--deals", "6", "--matches", "0"]
    assert evaluate_command.main([*argv, "--workers", "2", "--json", str(tmp_path / "two.json")]) == 0
    shown = capsys.readouterr()
    assert "12/12" in shown.err and "on 2 workers: " in shown.err
    assert evaluate_command.main([*argv, "--workers", "1", "--no-progress", "--json", str(tmp_path / "one.json")]) == 0
    assert capsys.readouterr().out == shown.out
    assert json.loads((tmp_path / "two.json").read_text()) == json.loads((tmp_path / "one.json").read_text())


@pytest.mark.parametrize("main", [evaluate_command.main, results_command.main], ids=["evaluate", "results"])
@pytest.mark.parametrize(("value", "message"), [
    ("0", "argument --workers: must be a whole number of at least 1, got 0"),
    ("two", "argument --workers: must be a whole number of at least 1, got 'two'"),
])
def test_bad_worker_counts_are_refused(main, value: str, message: str, capsys) -> None:
    argv = ["--game", "rummy500", "--agents", "random", "greedy"] if main is evaluate_command.main else []
    with pytest.raises(SystemExit) as stop:
        main([*argv, "--workers", value])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.strip().splitlines()[-1].endswith(message)


def test_the_results_table_is_the_same_for_any_number_of_workers(capsys) -> None:
    argv = ["--deals", "2", "--matches", "0", "--agents", "rummy500_2p", "--no-progress"]
    assert results_command.main([*argv, "--workers", "1"]) == 0
    one = capsys.readouterr().out
    assert results_command.main([*argv, "--workers", "2"]) == 0
    assert capsys.readouterr().out == one and "| rummy500_2p | value |" in one


def test_workers_start_with_ctrl_c_ignored_and_this_process_keeps_its_handler() -> None:
    """A worker ignores Ctrl-C from its first instruction, before it has imported what it plays with."""
    before = signal.getsignal(signal.SIGINT)
    with deal_pool._born_ignoring_ctrl_c():
        pool = multiprocessing.get_context("spawn").Pool(1)
    with pool:
        assert pool.apply(signal.getsignal, (signal.SIGINT,)) == signal.SIG_IGN
    assert signal.getsignal(signal.SIGINT) is before


def where_played(job: int) -> tuple[list[dict[str, int]], float]:
    """A job's record: which process played it."""
    return [{"job": job, "pid": os.getpid()}], 0.0


def cheap(job: int) -> tuple[list[dict[str, int]], float]:
    """A job of a millisecond: helpers get such jobs in batches."""
    time.sleep(0.001)
    return where_played(job)[0], 0.001


def fails_in_a_helper(job: int) -> tuple[list[dict[str, int]], float]:
    if multiprocessing.parent_process() is not None:
        raise RuntimeError(f"job {job} broke in a helper")
    return where_played(job)


def test_this_process_plays_beside_its_helpers_and_every_job_comes_back_once() -> None:
    """With two workers this process plays jobs from the start, and the spawned one gets its first job at once."""
    rules = make_rules("rummy500", None)
    finished = list(deal_pool.play_all(where_played, list(range(30)), 2, rules, 2, ["random"]))
    assert sorted(index for index, _, _ in finished) == list(range(30))
    assert all(records == [{"job": index, "pid": records[0]["pid"]}] for index, records, _ in finished)
    pids = {records[0]["pid"] for _, records, _ in finished}
    assert os.getpid() in pids and len(pids) == 2


def test_a_helper_holds_its_next_job_before_this_process_takes_one() -> None:
    """The helper is handed ``QUEUED`` jobs at once, so it never waits for this process to send the next."""
    rules = make_rules("rummy500", None)
    finished = list(deal_pool.play_all(where_played, list(range(30)), 2, rules, 2, ["random"]))
    here = [index for index, records, _ in finished if records[0]["pid"] == os.getpid()]
    assert here[0] == deal_pool.QUEUED >= 2


def test_a_batch_holds_about_a_tenth_of_a_second_of_jobs() -> None:
    assert deal_pool.batch_size(0.0, 0) == 1  # nothing timed yet
    assert deal_pool.batch_size(0.05, 5) == 10  # 10 ms a job
    assert deal_pool.batch_size(3.0, 2) == 1  # dear jobs go one at a time
    assert deal_pool.batch_size(0.001, 100) == deal_pool.BATCH_MOST


def test_cheap_jobs_go_out_in_batches_and_each_comes_back_once() -> None:
    """This process plays its jobs five times slower, so that the helper plays many whenever it starts."""
    def here(job: int) -> tuple[list[dict[str, int]], float]:
        time.sleep(0.005)
        return where_played(job)[0], 0.001

    rules = make_rules("rummy500", None)
    finished = list(deal_pool.play_all(cheap, list(range(1500)), 2, rules, 2, ["random"], here))
    assert sorted(index for index, _, _ in finished) == list(range(1500))
    helper = sorted(index for index, records, _ in finished if records[0]["pid"] != os.getpid())
    runs = sum(1 for a, b in zip(helper, helper[1:], strict=False) if b == a + 1)
    assert len(helper) > 100 and runs > 0.9 * len(helper)  # a batch is a run of consecutive jobs


def test_a_job_that_fails_in_a_helper_raises_here() -> None:
    rules = make_rules("rummy500", None)
    with pytest.raises(RuntimeError, match="broke in a helper"):
        list(deal_pool.play_all(fails_in_a_helper, list(range(30)), 2, rules, 2, ["random"]))
