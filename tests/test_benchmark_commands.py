"""The benchmark scripts as a new user first runs them: an input not made yet is refused in one line that says
how to make it, before anything is timed, and the positions file they share round-trips exactly."""

from __future__ import annotations

import importlib.util
import json
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]


def bench(script: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, f"benchmarks/{script}", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, check=False)


def refused(done: subprocess.CompletedProcess, *words: str) -> None:
    """argparse's refusal: exit status 2, every word in the message and no traceback."""
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    for word in words:
        assert word in done.stderr


@pytest.fixture(scope="module")
def solver_module():
    """benchmarks/solver.py as a module, its folder on the path as when it runs as a script (it imports its
    siblings)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        spec = importlib.util.spec_from_file_location("solver_benchmark", ROOT / "benchmarks" / "solver.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    return module


def test_missing_positions_file_says_how_to_make_one(tmp_path):
    missing = tmp_path / "positions.jsonl"
    refused(bench("solver.py", "--positions", str(missing), "--peer-results", str(tmp_path / "peer.json")),
            str(missing), "--write-positions")


def test_missing_peer_results_say_what_they_are_and_how_to_make_them(tmp_path):
    positions = tmp_path / "positions.jsonl"
    assert bench("solver.py", "--write-positions", str(positions), "--count", "2").returncode == 0
    missing = tmp_path / "peer.json"
    refused(bench("solver.py", "--positions", str(positions), "--peer-results", str(missing)),
            str(missing), "peer_rummikub_solver.py", "pip install rummikub-solver")


@pytest.mark.parametrize(("line", "reason"), [
    ("{not json", "not JSON"),
    ('{"table": [["r1", "r2"]], "rack": []}', "a set needs at least 3"),
    ('{"table": [], "rack": ["x9"]}', "bad tile"),
    ('{"table": [], "rack": ["r1", "r1", "r1"]}', "more than 2 of r1"),
    ('{"rack": []}', "not a position"),
])
def test_broken_positions_line_is_named(tmp_path, line, reason):
    path = tmp_path / "positions.jsonl"
    path.write_text('{"table": [], "rack": ["r1"]}\n' + line + "\n")
    refused(bench("solver.py", "--positions", str(path)), f"{path} line 2", reason, "--write-positions")


def test_written_positions_are_the_dealt_ones_and_read_back(tmp_path, solver_module):
    path = tmp_path / "positions.jsonl"
    done = bench("solver.py", "--write-positions", str(path), "--count", "4", "--seed", "7")
    assert done.returncode == 0, done.stderr
    rng = random.Random(7)
    dealt = [solver_module.deal(rng, 2) for _ in range(4)]
    assert [json.loads(line) for line in path.read_text().splitlines()] == dealt
    assert solver_module.read_positions(str(path), 4, 2) == dealt

    done = bench("solver.py", "--positions", str(path), "--count", "4", "--json", str(tmp_path / "out.json"))
    assert done.returncode == 0, done.stderr
    result = json.loads((tmp_path / "out.json").read_text())
    assert (result["positions"], result["source"]) == (4, str(path))


def test_missing_peer_program_is_refused_before_timing(tmp_path):
    program = tmp_path / "peers" / "bin" / "python"
    for script in ("env_throughput.py", "mask_floor.py"):
        refused(bench(script, "--seconds" if script == "env_throughput.py" else "--steps", "1",
                      "--peer", f"{program} benchmarks/peer_rlcard_gin.py 5"),
                str(program), "pip install rlcard==1.2.0")


def test_other_benchmarks_refuse_missing_paths(tmp_path):
    missing = tmp_path / "games.jsonl"
    refused(bench("mask_cost.py", "--replay", str(missing)), str(missing), "--record")
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"game": "rummikub"}\n')
    refused(bench("mask_cost.py", "--replay", str(broken)), f"{broken} line 1", "not a recorded game")
    nowhere = tmp_path / "no" / "out.json"
    refused(bench("mask_cost.py", "--record", str(nowhere)), str(nowhere))
    refused(bench("expert_decisions.py", "--json", str(nowhere)), str(nowhere))
    refused(bench("solver.py", "--json", str(nowhere)), str(nowhere))


def test_big_racks_times_the_whole_turn_plays_as_the_mode_asks_them():
    """The big-rack benchmark's four answers at logged positions are the whole-turn mode's plays (most pieces,
    jokers kept, most points, asked only where the most pieces leave some) and whether the whole rack goes out."""
    from rummienv.rummikub import solver, whole_turns

    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import big_racks
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    positions = big_racks.read_positions(str(ROOT / "benchmarks" / "big_racks_answers.jsonl"), 12)
    asked = 0
    for table, rack, staged, args in positions:
        found = big_racks.answers(solver, table, rack, staged, args, 30, {q: [] for q in big_racks.QUESTIONS})
        plays = whole_turns.whole_plays(table, rack, staged, args, 30)
        most = None if found[0] is None else found[0].play
        for k, (answer, play) in enumerate(zip(found[:3], plays, strict=True)):
            # a question the benchmark does not ask (no joker to keep, a rack that goes out) is, in the mode,
            # answered by the play with the most pieces
            got = most if answer is None and k else (None if answer is None else answer.play)
            assert (got is None) == (play is None) and (play is None or np.array_equal(got, play))
        asked += found[2] is not None
        assert found[3] == (found[0] is not None and found[0].play.sum() == rack.sum())
    assert 0 < asked < len(positions)  # some racks go out whole and skip the points question
    done = bench("big_racks.py", "--positions", str(ROOT / "benchmarks" / "big_racks_answers.jsonl"), "--count", "3")
    assert done.returncode == 0, done.stderr
    assert set(big_racks.QUESTIONS) <= set(json.loads(done.stdout.splitlines()[-1])["new"])


def test_solver_states_counts_the_live_states_of_the_exact_pass_what_bounds_would_cut_and_refuses_bad_input(tmp_path):
    done = bench("solver_states.py", "--positions", str(ROOT / "benchmarks" / "big_racks_answers.jsonl"), "--bounds")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["exact_passes"] > 0 and 0 < result["live"] < result["states"]
    assert sum(result["dead_ends_by_number"].values()) == result["states"] - result["live"]
    bounds = result["bounds"]
    kept = bounds["kept"]
    # every stored state passed today's bound at its own floor; an exact bound, or the optimum, keeps fewer
    assert bounds["states"] == result["states"] == kept["today_bound_own_floor"] and bounds["left_out"] == 0
    assert result["exact_passes"] <= kept["exact_bound_optimum"] < kept["exact_bound_own_floor"] < result["states"]
    assert kept["exact_bound_optimum"] <= kept["coarse_bound_optimum"] < kept["today_bound_optimum"] < result["states"]
    assert kept["exact_bound_own_floor"] <= kept["coarse_bound_own_floor"] <= result["states"]
    assert 0 < bounds["no_completion"] <= result["states"] - result["live"]
    capped = bench("solver_states.py", "--positions", str(ROOT / "benchmarks" / "big_racks_answers.jsonl"), "--bounds",
                   "--bounds-cap", "1")  # no position's unpruned programme fits: each is left out, none counted
    capped_bounds = json.loads(capped.stdout.splitlines()[-1])["bounds"]
    assert capped_bounds["left_out"] == result["exact_passes"] and capped_bounds["states"] == 0
    refused(bench("solver_states.py", "--positions", str(tmp_path / "none.jsonl")), "none.jsonl", "--write-positions")
    refused(bench("solver_states.py", "--positions", str(tmp_path / "none.jsonl"), "--every", "0"), "--every")
    refused(bench("solver_states.py", "--positions", str(tmp_path / "none.jsonl"), "--bounds-cap", "0"), "--bounds-cap")


def test_expert_decisions_names_the_actions_it_chose(tmp_path):
    """The experts' benchmark ends with a digest of the actions chosen, the same in its JSON, so two builds'
    runs on the same positions show whether they decided alike."""
    out = tmp_path / "decisions.json"
    done = bench("expert_decisions.py", "--game", "rummy500", "--games", "1", "--samples", "4", "--json", str(out))
    assert done.returncode == 0, done.stderr
    digest = json.loads(out.read_text())["digest"]
    assert len(digest) == 64 and f"actions chosen: sha256 {digest[:16]}" in done.stdout
