"""Bad input to the Rummikub engine: each is refused with a message naming what is wrong."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from rummikub_helpers import play, position

from rummienv.errors import IllegalActionError, NotationError, PositionError, RulesError
from rummienv.rummikub import RummikubGame, load_state
from rummienv.solve import main as solve_main


def _base(**changes):
    pos = {"game": "rummikub", "racks": [["r1"], ["k2"]], "table": [], "opened": [False, False],
           "current_player": 0}
    pos.update(changes)
    return pos


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"racks": [["r1", "r1"], ["r1"]]}, "tile r1 appears 3 times"),
        ({"racks": [["J", "J"], ["J"]]}, "tile J appears 3 times"),
        ({"table": [["r1", "r2", "r4"]]}, r"table set 0: set \[r1 r2 r4\]"),
        ({"table": [["J", "J", "J"]]}, "only jokers"),
        ({"table": [["k5", "b5"]]}, "needs at least 3"),
        ({"racks": [["r1"]]}, "2 to 4 racks"),
        ({"current_player": 2}, "current_player must be a seat 0..1"),
        ({"opened": [True]}, "'opened' must be a list of 2"),
        ({"plays": [1, 0]}, r"'plays' must list 2 counts .* 0 for a seat that has not opened"),
        ({"opened": [True, False], "plays": [0, 0]}, "at least 1 for one that has"),
        ({"staged": ["k2"]}, "staged tiles must all be in the current player's rack"),
        ({"game": "chess"}, "position game must be"),
        ({"colour": "red"}, "unknown position keys"),
        ({"table": [{"chain": ["r1", "r2", "r3"]}]}, "write a set as a list"),
        ({"over": True}, "must give its 'round_scores'"),
        ({"racks": [["r1"], []]}, r"rack of seat 1 is empty, so the round is over \(T8\)"),
        ({"table": [["r3", "r4", "r5"]]}, r"the table holds sets but no seat has opened \(T4/K3\)"),
    ],
)
def test_bad_positions_are_refused_with_the_reason(changes, message):
    with pytest.raises(PositionError, match=message):
        load_state(_base(**changes))


def test_a_table_laid_by_the_other_seat_and_a_finished_round_are_positions():
    load_state(_base(table=[["r3", "r4", "r5"]], opened=[False, True]))
    load_state(_base(racks=[["r1"], []], over=True, round_scores=[-1, 1]))


def test_bad_tile_in_a_position_names_the_token():
    with pytest.raises(NotationError, match="'q7'"):
        load_state(_base(racks=[["q7"], ["k2"]]))


def test_bad_rules_override_names_the_field():
    with pytest.raises(RulesError, match="unknown rules field 'jokerz'"):
        load_state(_base(rules={"jokerz": 3}))
    with pytest.raises(RulesError, match="'opening_threshold' of rummikub must be in 0..200"):
        RummikubGame(load_state(_base(rules={"opening_threshold": 500})).rules)


def test_illegal_action_names_action_phase_and_what_is_legal():
    state = position(["r1 r2 r3 k1", "k2"])
    with pytest.raises(IllegalActionError, match=r"PLACE r1 is not legal for seat 0 in phase 'turn start'; legal now: "
                                                 r".*DRAW"):
        play(state, "PLACE r1")
    with pytest.raises(IllegalActionError, match="not an action index"):
        state.apply_action(999)
    with pytest.raises(IllegalActionError, match="unknown action 'JUMP'"):
        state.string_to_action("JUMP")


def test_actions_after_the_end_are_refused():
    state = position(["r10 r11 r12", "k2"])
    play(state, "PLACE r10", "PLACE r11", "PLACE r12", "COMMIT")
    with pytest.raises(IllegalActionError, match="game is over"):
        state.apply_action(54)


def _solve(capsys, *args):
    code = solve_main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_solve_command_prints_the_best_play_as_json(capsys):
    code, out, _ = _solve(capsys, "--game", "rummikub", "--table", "r1 r2 r3 k7 b7 o7", "--rack", "r4 r5 J k1")
    assert code == 0
    result = json.loads(out)
    assert result["tiles_played"] == 4 and result["points_played"] == 1 + 4 + 5 + 30
    assert sorted(result["play"]) == ["J", "k1", "r4", "r5"]
    assert sum(len(s) for s in result["table"]) == 10
    none = json.loads(_solve(capsys, "--table", "r1 r2 r3", "--rack", "k9 o1")[1])
    assert none["tiles_played"] == 0 and none["play"] == []
    opening = json.loads(_solve(capsys, "--table", "r1 r2 r3", "--rack", "r4 k10 b10 o10", "--opening")[1])
    assert opening["play"] == ["k10", "b10", "o10"]  # r4 cannot join the table before opening
    cards = json.loads(_solve(capsys, "--game", "rummikub_cards", "--table", "r5 r6 r7 J", "--rack", "k9 b9")[1])
    assert cards["tiles_played"] == 0  # K5: that joker is an 8 and stays one


def test_solve_command_refuses_bad_input(capsys):
    code, _, err = _solve(capsys, "--table", "r1 r2 r4", "--rack", "k1")
    assert code == 2 and "cannot be laid out" in err
    code, _, err = _solve(capsys, "--table", "r1 r2 r3", "--rack", "r1 r1")
    assert code == 2 and "tile r1 appears 3 times" in err
    code, _, err = _solve(capsys, "--table", "r1 r1 r1 r2 r3", "--rack", "k1")  # named, not "cannot be laid out"
    assert code == 2 and "tile r1 appears 3 times on the table and rack" in err
    code, _, err = _solve(capsys, "--game", "rummikub_cards", "--table", "r1 r2 r3 k7 b7 o7", "--rack", "k1")
    assert code == 2 and "separated by '|'" in err


def test_solve_runs_as_a_module():
    out = subprocess.run([sys.executable, "-m", "rummienv.solve", "--table", "r1 r2 r3", "--rack", "r4 k1"],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["play"] == ["r4"]
