"""Floors save the solver time and never change its answer.

A pass stores no state that cannot reach its floor. Of two equally good paths into a state it keeps the one
from the smaller parent key (then the smaller option), and of equally good layouts the one with the smaller
key (``passes._earlier``), so the layout it returns does not depend on which states a floor left out, as long
as the floor is at most the best value. ``solver.best_play`` takes two such floors: the value of a play the
caller knows (``known``: the points play gets the most-pieces play's) and the best values of earlier questions
about the same table with a rack this one holds (``solver._Floors``). Checked on the 50 logged big-rack
positions of ``benchmarks/big_racks_answers.jsonl``: tile game and card edition, openings, staged pieces,
fixed jokers.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_big_racks import ENTRIES, IDS, INPUTS, _answer

from rummienv.rummikub import solver
from rummienv.rummikub.solver import passes
from rummienv.tiles import JOKER, NUMBER_OF_TYPE

OBJECTIVES = {"tiles": (solver._TILE_WEIGHT, 1), "points": (NUMBER_OF_TYPE, 30)}


@pytest.fixture(autouse=True)
def no_floors_remembered(monkeypatch):
    """Each test starts with nothing remembered, whatever ran before it in the process."""
    monkeypatch.setattr(solver, "_FLOORS", solver._Floors())


def _problem(index: int) -> solver._Problem:
    table, rack, staged, args = INPUTS[index]
    return solver._problem(table, rack, staged, args.get("fixed"), args["opened"], args.get("threshold", 30))


def _exact_pass(index: int, objective: str, floor: int) -> tuple[int, int, int, list[int]]:
    """The exact pass (every joker free to stand in) at ``floor``: its best layout's value, key and path."""
    p = _problem(index)
    weight, joker_weight = OBJECTIVES[objective]
    ws = solver.workspace()
    best, value = passes.one_pass(p.question, weight, joker_weight, p.jhi, floor, joker_weight * p.jhi, ws)
    if best < 0:
        return best, 0, 0, []
    assert passes.path(best, ws) == passes.SUBSTEPS
    return best, value, int(ws.key[best]), ws.path[:passes.SUBSTEPS].tolist()


def _unfloored(index: int, objective: str) -> tuple[int, int, int, list[int]]:
    """The exact pass with no floor; the test is skipped where the position has no layout."""
    found = _exact_pass(index, objective, passes.NO_FLOOR)
    if found[0] < 0:
        pytest.skip("no layout")
    return found


@pytest.mark.parametrize("objective", OBJECTIVES)
@pytest.mark.parametrize("index", range(len(ENTRIES)), ids=IDS)
def test_a_floor_at_the_best_value_changes_no_layout(index, objective):
    _, value, key, path = _unfloored(index, objective)
    _, again, floored_key, floored_path = _exact_pass(index, objective, value)
    assert (again, floored_key, floored_path) == (value, key, path)


@pytest.mark.parametrize("objective", OBJECTIVES)
@pytest.mark.parametrize("index", range(len(ENTRIES)), ids=IDS)
def test_layout_value_is_the_passes_own(index, objective):
    """The floor ``best_play`` makes of a play is the value the passes give its layout."""
    best, value, _, _ = _unfloored(index, objective)
    weight, joker_weight = OBJECTIVES[objective]
    used = np.zeros(JOKER + 1, dtype=np.int64)
    assert passes.used_pieces(best, _problem(index).question, joker_weight, solver.workspace(), used)
    assert solver._layout_value(used, weight, joker_weight) == value


@pytest.mark.parametrize("index", range(len(ENTRIES)), ids=IDS)
def test_the_most_pieces_play_as_floor_changes_no_points_play(index):
    table, rack, staged, args = INPUTS[index]
    most = solver.best_play(table, rack, staged, **args)
    if most is None:
        pytest.skip("no play")
    solver._FLOORS = solver._Floors()
    alone = solver.best_play(table, rack, staged, objective="points", **args)
    solver._FLOORS = solver._Floors()
    floored = solver.best_play(table, rack, staged, objective="points", known=most.play, **args)
    assert _answer(floored) == _answer(alone)


@pytest.mark.parametrize("index", range(len(ENTRIES)), ids=IDS)
def test_floors_remembered_from_smaller_racks_change_no_answer(index):
    """A seat asks again after a draw: the answers for the rack less a few pieces are floors for the rack."""
    table, rack, staged, args = INPUTS[index]
    alone = {objective: _answer(solver.best_play(table, rack, staged, objective=objective, **args))
             for objective in OBJECTIVES}
    solver._FLOORS = solver._Floors()
    rng = np.random.default_rng(index)
    extra = rack - staged
    for _ in range(3):  # the rack as it was before up to three draws
        smaller = rack.copy()
        for t in rng.choice(np.repeat(np.arange(JOKER + 1), extra), size=min(3, int(extra.sum())), replace=False):
            smaller[t] -= 1
        for objective in OBJECTIVES:
            solver.best_play(table, smaller, staged, objective=objective, **args)
    assert {objective: _answer(solver.best_play(table, rack, staged, objective=objective, **args))
            for objective in OBJECTIVES} == alone


def test_a_floor_above_the_best_value_is_refused():
    """A ``known`` play that is not legal may set a floor no layout reaches: that is a caller's bug, said loudly
    rather than answered with no play."""
    for table, rack, staged, args in INPUTS:
        most = solver.best_play(table, rack, staged, objective="points", **args)
        if most is not None and most.play.sum() < rack.sum():
            with pytest.raises(RuntimeError, match="floor .* above the best value"):
                solver.best_play(table, rack, staged, objective="points", known=rack, **args)
            return
    pytest.fail("no logged position keeps pieces in its rack")
