"""The evaluation commands as a user meets them: output paths checked first, deals and games named apart, plurals,
one bar per run and an estimate of the time left."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import agents.evaluate as evaluate_command
import agents.ladder as ladder_command
import agents.results as results_command
from agents.evaluate import ROUND, WHOLE_GAME, Progress, evaluate, plural

CHEAP = ["--game", "rummy500", "--agents", "random", "greedy"]


def refused(main, argv: list[str], capsys) -> str:
    """The error line of a command that stopped like argparse does."""
    with pytest.raises(SystemExit) as stop:
        main(argv)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.startswith("usage:")
    return err.strip().splitlines()[-1]


@pytest.fixture
def no_games(monkeypatch):
    def play(*args, **kwargs):
        raise AssertionError("a game was played before the outputs were checked")

    monkeypatch.setattr(evaluate_command, "evaluate", play)
    monkeypatch.setattr(ladder_command, "ladder", play)


@pytest.fixture
def a_file(tmp_path: Path) -> Path:
    path = tmp_path / "a_file"
    path.write_text("")
    return path


@pytest.mark.parametrize("option,where,message", [
    ("--replays", "a_file/replays", "argument --replays: cannot write the folder '{a_file}/replays' ('{a_file}' is a "
                                    "file); give --replays a folder you can write to"),
    ("--replays", "a_file", "argument --replays: cannot write the folder '{a_file}' (it is a file)"),
    ("--json", "a_file/out.json", "argument --json: cannot write the file '{a_file}/out.json' ('{a_file}' is a file)"),
    ("--json", ".", "argument --json: cannot write the file '{tmp}' (it is a folder); give --json a file"),
])
def test_evaluate_refuses_an_output_it_cannot_write_before_any_game(option, where, message, a_file, tmp_path,
                                                                    no_games, capsys):
    line = refused(evaluate_command.main, [*CHEAP, "--no-progress", option, str(tmp_path / where)], capsys)
    assert line.startswith("python -m agents.evaluate: error: " + message.format(a_file=a_file, tmp=tmp_path))


@pytest.mark.parametrize("out,blocked,message", [
    ("a_file/ladder", None, "cannot write the folder '{tmp}/a_file/ladder' ('{tmp}/a_file' is a file)"),
    ("out", "cache", "cannot write the folder '{tmp}/out/cache' (it is a file)"),
    ("out", "ladder.json/", "cannot write the file '{tmp}/out/ladder.json' (it is a folder); give --out a folder"),
])
def test_the_ladder_refuses_an_output_it_cannot_write_before_any_game(out, blocked, message, a_file, tmp_path,
                                                                      no_games, capsys):
    if blocked == "cache":
        (tmp_path / out).mkdir()
        (tmp_path / out / blocked).write_text("")
    elif blocked:
        (tmp_path / out / blocked).mkdir(parents=True)
    line = refused(ladder_command.main, [*CHEAP, "--no-progress", "--out", str(tmp_path / out)], capsys)
    assert line.startswith("python -m agents.ladder: error: argument --out: " + message.format(tmp=tmp_path))


def test_unwritable_places_are_named(tmp_path: Path) -> None:
    from agents.evaluate import output_problem

    assert output_problem(tmp_path / "new" / "folder", folder=True) is None and (tmp_path / "new" / "folder").is_dir()
    assert output_problem(tmp_path / "missing" / "out.json") == f"folder {str(tmp_path / 'missing')!r} does not exist"


def test_deals_is_the_option_and_games_its_older_name(capsys) -> None:
    argv = [*CHEAP, "--matches", "0", "--no-progress"]
    assert evaluate_command.main([*argv, "--deals", "1"]) == 0
    by_deals = capsys.readouterr().out
    assert evaluate_command.main([*argv, "--games", "1"]) == 0
    assert capsys.readouterr().out == by_deals
    assert "seed 0: 1 duplicate deal of one round, each played" in by_deals  # not "1 duplicate deals"
    with pytest.raises(SystemExit):
        evaluate_command.main(["--help"])
    usage = capsys.readouterr().out
    assert "--deals DEALS" in usage and "--games is an older name" in usage and "--games GAMES" not in usage
    assert "(default: --deals)" in usage


def test_counts_read_as_words() -> None:
    assert [plural(1, "deal"), plural(2000, "deal"), plural(0, "worker"), plural(1, "copy", "copies"),
            plural(3, "copy", "copies")] == ["1 deal", "2,000 deals", "0 workers", "1 copy", "3 copies"]


def test_the_estimate_extrapolates_the_timed_games_per_kind_and_worker(monkeypatch, capsys) -> None:
    with Progress("run", {ROUND: 12, WHOLE_GAME: 6}, workers=2) as bar:
        for _ in range(2):  # each worker's first game is not timed: it pays for first calls
            bar.add(ROUND, 60.0)
            bar.add(WHOLE_GAME, 60.0)
        for _ in range(2):
            bar.add(ROUND, 2.0)
        bar.add(WHOLE_GAME, 6.0, games=2)
        bar.add(ROUND, 2.0, games=8)
        bar.add(WHOLE_GAME, 6.0, games=2)
    err = capsys.readouterr().err
    # two rounds took 2 s each: 8 left on 2 workers are 8 s; then two whole games 3 s each: (16 s + 6 s) / 2
    lines = [line.strip() for line in err.replace("\r", "\n").splitlines() if line.startswith("run: about")]
    assert lines == ["run: about 8 s on 2 workers: 8 rounds; 4 whole games not timed yet",
                     "run: about 11 s on 2 workers: 8 rounds and 2 whole games"]
    assert "18/18" in err and "game/s" in err


def estimates(err: str) -> list[str]:
    return re.findall(r"^\S.*: about \d.*$", err.replace("\r", "\n"), flags=re.MULTILINE)


def test_each_command_shows_one_bar_of_games_and_an_estimate(monkeypatch, capsys, tmp_path: Path) -> None:
    monkeypatch.setattr(evaluate_command, "SAMPLE_SECONDS", 0.0)  # cheap games: estimate after the first timed one
    assert evaluate_command.main([*CHEAP, "--deals", "2", "--matches", "1", "--workers", "1"]) == 0
    err = capsys.readouterr().err
    assert "6/6" in err and re.fullmatch(r"rummy500 2p: about \d+ s on 1 worker: 2 rounds; 2 whole games not timed yet",
                                         estimates(err)[0])
    assert ladder_command.main([*CHEAP, "--deals", "3", "--out", str(tmp_path), "--workers", "1"]) == 0
    err = capsys.readouterr().err
    assert "12/12" in err and re.fullmatch(r"ladder rummy500 2p: about \d+ s on 1 worker: 2 rounds; 6 whole games "
                                           r"not timed yet", estimates(err)[0])
    assert "12 games played, 0 from the cache, " in err and "s with 1 worker;" in err
    assert results_command.main(["--deals", "1", "--matches", "0", "--agents", "rummy500_2p"]) == 0
    err = capsys.readouterr().err
    assert "4/4" in err and err.count("0/4") == 1  # one bar over both line-ups
    assert re.fullmatch(r"results: about \d+ s on 1 worker: 2 rounds", estimates(err)[0])


def test_no_progress_means_no_bar_and_no_estimate(monkeypatch, capsys) -> None:
    monkeypatch.setattr(evaluate_command, "SAMPLE_SECONDS", 0.0)
    assert evaluate_command.main([*CHEAP, "--deals", "2", "--no-progress"]) == 0
    assert capsys.readouterr().err == ""


def test_the_bar_and_the_estimate_change_no_result() -> None:
    shown = evaluate("rummikub", ["max_tiles", "random"], 2, 2, seed=9, matches=1, progress=True)
    assert shown == evaluate("rummikub", ["max_tiles", "random"], 2, 2, seed=9, matches=1, progress=False)
