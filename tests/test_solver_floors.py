"""Floors save the solver time and never change its answer.

A pass stores no state that cannot reach its floor. Of two equally good paths into a state it keeps the one
from the smaller parent key (then the smaller option), and of equally good layouts the one with the smaller
key (``passes._earlier``), so the layout it returns does not depend on which states a floor left out, as long
as the floor is at most the best value. Checked on the 50 logged big-rack positions of
``benchmarks/big_racks_answers.jsonl``: tile game and card edition, openings, staged pieces, fixed jokers.
"""

from __future__ import annotations

import pytest
from test_big_racks import ENTRIES, IDS, INPUTS

from rummienv.rummikub import solver
from rummienv.rummikub.solver import passes
from rummienv.tiles import NUMBER_OF_TYPE

OBJECTIVES = {"tiles": (solver._TILE_WEIGHT, 1), "points": (NUMBER_OF_TYPE, 30)}


def _exact_pass(index: int, objective: str, floor: int) -> tuple[int, int, int, list[int]]:
    """The exact pass (every joker free to stand in) at ``floor``: its best layout's value, key and path."""
    table, rack, staged, args = INPUTS[index]
    p = solver._problem(table, rack, staged, args.get("fixed"), args["opened"], args.get("threshold", 30))
    weight, joker_weight = OBJECTIVES[objective]
    ws = solver.workspace()
    best, value = passes.one_pass(p.question, weight, joker_weight, p.jhi, floor, joker_weight * p.jhi, ws)
    if best < 0:
        return best, 0, 0, []
    assert passes.path(best, ws) == passes.SUBSTEPS
    return best, value, int(ws.key[best]), ws.path[:passes.SUBSTEPS].tolist()


@pytest.mark.parametrize("objective", OBJECTIVES)
@pytest.mark.parametrize("index", range(len(ENTRIES)), ids=IDS)
def test_a_floor_at_the_best_value_changes_no_layout(index, objective):
    best, value, key, path = _exact_pass(index, objective, passes.NO_FLOOR)
    if best < 0:
        pytest.skip("no layout")
    _, again, floored_key, floored_path = _exact_pass(index, objective, value)
    assert (again, floored_key, floored_path) == (value, key, path)
