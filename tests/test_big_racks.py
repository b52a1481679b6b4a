"""The solver's shortcuts for big racks give the answers of its passes alone.

``benchmarks/big_racks_answers.jsonl`` holds 50 positions logged from games of ``hoard`` and ``ppo``
(``benchmarks/big_racks.py --write-positions``, tile game and card edition): racks of 20 to 55 pieces that go
out whole, with a joker or not, openings, pieces staged, no joker at all, jokers fixed to numbers (K5). Each
carries the answers of the passes with no floor but their own (the play with the most pieces and its table, the
same with the rack's jokers kept back, and whether the whole rack goes out). A shortcut that changed one of
them fails here: the whole-rack search before the passes, which answers without them, the passes' look-ahead,
which stores fewer states, and the floors of ``tests/test_solver_floors.py``. With the look-ahead asking one
joker too many, 45 of these tests fail. The size of each play is checked against the single exact pass's.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from rummienv.rummikub import solver
from rummienv.rummikub.solver import passes
from rummienv.tiles import JOKER, counts_text, tile_name

ROOT = Path(__file__).resolve().parents[1]
ANSWERS = ROOT / "benchmarks" / "big_racks_answers.jsonl"
sys.path.insert(0, str(ROOT / "benchmarks"))  # the benchmark reads a logged position as the solver's inputs
try:
    from big_racks import question_inputs
finally:
    sys.path.remove(str(ROOT / "benchmarks"))


ENTRIES = [json.loads(line) for line in ANSWERS.read_text().splitlines() if line.strip()]
INPUTS = [question_inputs(entry) for entry in ENTRIES]
IDS = [f"{entry['agent']}-deal{entry['deal']}-{i}" for i, entry in enumerate(ENTRIES)]


def _answer(found: solver.Solution | None) -> dict | None:
    if found is None:
        return None
    return {"play": counts_text(found.play) if found.play.any() else "",
            "sets": [[tile_name(t) for t in pieces] for pieces in found.layout.sets], "kinds": found.layout.kinds}


@pytest.mark.parametrize("index", range(len(ENTRIES)), ids=IDS)
def test_answers_are_those_of_the_solver_before_the_shortcuts(index):
    table, rack, staged, args = INPUTS[index]
    expected = ENTRIES[index]["answers"]
    most = solver.best_play(table, rack, staged, **args)
    assert _answer(most) == expected["most"]
    if expected["keep_jokers"] != "not asked":
        kept = rack.copy()
        kept[JOKER] = staged[JOKER]
        assert _answer(solver.best_play(table, kept, staged, **args)) == expected["keep_jokers"]
    goes_out = solver.is_legal_play(table, rack, **args)
    assert goes_out == expected["go_out"]
    assert goes_out == (most is not None and int(most.play.sum()) == int(rack.sum()))


@pytest.mark.parametrize("index", range(len(ENTRIES)), ids=IDS)
def test_best_play_is_as_large_as_the_single_exact_pass_finds(index):
    """The passes' floors and the whole-rack search may only choose among the best plays: each play found lays
    as many pieces as one pass with every joker free to stand in and no floor finds room for."""
    table, rack, staged, args = INPUTS[index]
    for pieces in (rack, np.where(np.arange(len(rack)) == JOKER, staged, rack)):
        p = solver._problem(table, pieces, staged, args.get("fixed"), args["opened"], args.get("threshold", 30))
        ws = solver.workspace()
        best, value = passes.one_pass(p.question, solver._TILE_WEIGHT, 1, p.jhi, passes.NO_FLOOR, p.jhi, ws)
        found = solver.best_play(table, pieces, staged, **args)
        if found is None:
            assert best < 0 or value == p.base.sum()  # no layout, or none that lays a piece of the rack
        else:
            assert int(found.play.sum()) + int(p.base.sum()) == value
