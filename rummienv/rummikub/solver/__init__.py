"""Exact answers about a Rummikub position, for the state machine, agents and the CLI.

Positions are count vectors of length 53 (see ``rummienv.tiles``). The table's free jokers are its count at
index 52; jokers that must keep a number (K5, the card edition) are given apart as ``fixed[n]``. A *play* is
the multiset of rack pieces that goes down this turn; ``staged`` pieces are a play's lower bound.

All questions run the same compiled programme, with different bounds, so legality, the mask and the best
play can never disagree. The package, in the order a newcomer might read it:

* ``keys.py``: the state of the programme, packed into one integer;
* ``moves.py``: the programme's moves from one state (the sub-steps of a number);
* ``store.py``: the buffers every question reuses, and the hash tables;
* ``forward.py``: the forward pass over every state, and the best layout;
* ``search.py``: the depth-first search for one layout;
* ``witnesses.py``: legal layouts kept as proof, and mended without a search;
* ``masks.py``: masks and legality, stateless or through a turn;
* ``rebuild.py``: a layout's sets from its path;
* here: the questions asked of it from Python.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

import numpy as np

from rummienv.rummikub.solver.forward import NO_FLOOR, best_layout, one_pass, path, used_pieces
from rummienv.rummikub.solver.masks import Position, Turn, legal_layout, mask, turn_mask
from rummienv.rummikub.solver.moves import Pass, Problem
from rummienv.rummikub.solver.rebuild import sets_of_path
from rummienv.rummikub.solver.search import FOUND, play_path
from rummienv.rummikub.solver.store import SUBSTEPS, Store, new_store
from rummienv.tiles import JOKER, NUM_TYPES, NUMBERS, counts_text

__all__ = ["Layout", "Objective", "Solution", "announce_compiling", "arrange", "best_play", "can_play",
           "is_legal_play", "lay_out", "legal_mask", "mask_problem", "overflow_error", "turn_masks", "workspace"]

Objective = Literal["tiles", "points"]

_STORE: Store | None = None
_NO_FIXED = np.zeros(NUMBERS + 1, dtype=np.int64)
_NO_STAGED = np.zeros(NUM_TYPES, dtype=np.int64)
_NO_TABLE = _NO_STAGED
_TILE_WEIGHT = np.ones(52, dtype=np.int64)
_POINT_WEIGHT = np.tile(np.arange(1, NUMBERS + 1, dtype=np.int64), 4)


def overflow_error() -> RuntimeError:
    """The store filled up: positions within the rules never do, so this is a bug worth reporting."""
    return RuntimeError("solver state store overflowed; the position is larger than the rules allow")


def workspace() -> Store:
    """The store every question reuses, made (and the solver's compile announced) on first use."""
    global _STORE
    if _STORE is None:
        announce_compiling(turn_mask)
        _STORE = new_store()
    return _STORE


def announce_compiling(probe: Callable) -> None:
    """Say once, on stderr, that the solver is being compiled, when numba holds no compiled copy of
    ``probe`` (a compiled function) yet: a fresh install's first move waits about a minute for it, and would
    seem to hang. numba keeps what it compiles beside the module, so later processes load it in a moment.
    Says nothing where this numba keeps its cache differently."""
    index = getattr(getattr(getattr(probe, "_cache", None), "_cache_file", None), "_index_path", None)
    if isinstance(index, str) and not os.path.exists(index):
        print("rummienv: compiling the Rummikub solver for this machine, once (about a minute)...",
              file=sys.stderr, flush=True)


@dataclass
class Layout:
    """Sets as lists of type indices (runs low to high; a joker's place says what it stands for).

    ``kinds[i]`` says whether set i is a run or a group: a set with one numbered
    piece could be read either way, and the jokers' numbers (K5) depend on it.
    """

    sets: list[list[int]] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)


@dataclass
class Solution:
    """A best play; its table layout is rebuilt only when asked for (bots need the play alone)."""

    play: np.ndarray  # counts of rack pieces played (length 53)
    value: int  # the objective's value of the play
    arrange: Callable[[], Layout] = field(repr=False)

    @cached_property
    def layout(self) -> Layout:
        return self.arrange()


def _problem(table, rack, staged, fixed, opened: bool, threshold: int) -> tuple[Problem, np.ndarray]:
    """The programme's view of a play question, and what of its lower bound is not the player's (the
    table)."""
    table = np.asarray(table, dtype=np.int64)
    rack = np.asarray(rack, dtype=np.int64)
    staged = np.zeros(NUM_TYPES, dtype=np.int64) if staged is None else np.asarray(staged, dtype=np.int64)
    if opened:
        fixed = _NO_FIXED if fixed is None else np.asarray(fixed, dtype=np.int64)
        lo, hi, base, threshold = table + staged, table + rack, table, 0
    else:
        # T4/K3: the table is untouched, the play alone must reach the threshold
        fixed, lo, hi, base = _NO_FIXED, staged, rack, np.zeros(NUM_TYPES, dtype=np.int64)
    threshold = min(threshold, 255)
    return Problem(lo[:52].copy(), hi[:52].copy(), int(lo[JOKER]), int(hi[JOKER]), fixed, threshold > 0,
                   threshold), base


def mask_problem(table, fixed, opened: bool, threshold: int) -> tuple[np.ndarray, np.ndarray, bool, int]:
    """The programme's view of a mask question: (table, fixed jokers, valued, threshold).

    An opened player's play goes onto the table; an opening (T4/K3) is the rack alone, worth the threshold.
    """
    if opened:
        return (np.asarray(table, dtype=np.int64), _NO_FIXED if fixed is None else np.asarray(fixed, dtype=np.int64),
                False, 0)
    return _NO_TABLE, _NO_FIXED, True, min(threshold, 255)


def legal_mask(table, rack, staged=None, *, fixed=None, opened: bool = True, threshold: int = 30) -> np.ndarray:
    """``mask[t]``: some legal play holds everything staged plus one more ``t`` (53 bools)."""
    # one compiled call: the Python around it cost more than a small position's solve
    store = workspace()
    table, fixed, valued, threshold = mask_problem(table, fixed, opened, threshold)
    position = Position(table, np.asarray(rack, dtype=np.int64),
                        _NO_STAGED if staged is None else np.asarray(staged, dtype=np.int64), fixed, valued, threshold)
    answer, ok = mask(position, store)
    if not ok:
        raise overflow_error()
    return answer


def turn_masks(position: Position, turn: Turn) -> tuple[np.ndarray, bool, int]:
    """``legal_mask`` of ``position`` from what a turn has learnt (``masks.turn_mask``): the mask, whether the
    staged pieces are a legal play now, and how many witnesses the turn keeps."""
    answer, ok, kept, legal = turn_mask(position, turn, workspace())
    if not ok:
        raise overflow_error()
    return answer, legal, kept


def is_legal_play(table, play, *, fixed=None, opened: bool = True, threshold: int = 30) -> bool:
    """``play`` (non-empty) goes down legally: the whole table stays valid, or it opens."""
    play = np.asarray(play, dtype=np.int64)
    if play.sum() == 0:
        return False
    return _some_layout(_problem(table, play, play, fixed, opened, threshold)[0])


def can_play(table, rack, staged, *, fixed=None, opened: bool = True, threshold: int = 30) -> bool:
    """Some legal play holds everything ``staged`` (non-empty): the question a joker swap (K6) asks, since
    the freed joker must go down again this turn."""
    return _some_layout(_problem(table, rack, staged, fixed, opened, threshold)[0])


def _some_layout(problem: Problem) -> bool:
    found, ok = legal_layout(problem, workspace())
    if not ok:
        raise overflow_error()
    return found


def best_play(table, rack, staged=None, *, fixed=None, opened: bool = True, threshold: int = 30,
              objective: Objective = "tiles", joker_penalty: int = 30) -> Solution | None:
    """The play with the most pieces (or the most rack points shed) and the resulting table.

    ``None`` when no legal play contains the staged pieces.
    """
    if objective not in ("tiles", "points"):
        raise ValueError(f"objective must be 'tiles' or 'points', got {objective!r}")
    problem, base = _problem(table, rack, staged, fixed, opened, threshold)
    weight, joker_weight = (_TILE_WEIGHT, 1) if objective == "tiles" else (_POINT_WEIGHT, joker_penalty)
    store = workspace()
    best = best_layout(problem, weight, joker_weight, store)
    if best == -2:
        raise overflow_error()
    if best < 0:
        return None
    used = np.zeros(NUM_TYPES, dtype=np.int64)
    ok = used_pieces(best, problem, joker_weight, store, used)
    assert ok
    key, options = int(store.key[best]), store.path[:SUBSTEPS].tolist()
    arrange = lambda: _layout(key, options, joker_weight, problem)  # noqa: E731
    play = used - base
    if play.sum() == 0:
        return None
    value = int(play.sum()) if objective == "tiles" else int(
        (play[:52] * _POINT_WEIGHT).sum() + play[JOKER] * joker_penalty)
    return Solution(play=play.astype(np.int8), value=value, arrange=arrange)


def lay_out(table, play, *, fixed=None, opened: bool = True, threshold: int = 30) -> Layout:
    """The sets a legal ``play`` goes down in: the whole table laid out anew with it, or (an opening, T4/K3)
    the play alone, worth the threshold. The first layout the depth-first search meets, or the best play's
    when the search runs out of budget; the same for the same position."""
    problem = _problem(table, play, play, fixed, opened, threshold)[0]
    store = workspace()
    answer, key = play_path(problem, store)
    if answer == FOUND:
        return _layout(int(key), store.path[:SUBSTEPS].tolist(), 1, problem)
    solution = best_play(table, play, play, fixed=fixed, opened=opened, threshold=threshold)
    if solution is None:
        raise ValueError(f"not a legal play: {counts_text(np.asarray(play))}")
    return solution.layout


def arrange(counts, *, fixed=None) -> Layout | None:
    """A concrete layout of ``counts`` (and fixed jokers) into valid sets, or None."""
    problem = _problem(np.zeros(NUM_TYPES, dtype=np.int64), counts, counts, fixed, True, 0)[0]
    store = workspace()
    best, _ = one_pass(problem, Pass(_TILE_WEIGHT, np.int64(0), np.int64(problem.jokers_hi), NO_FLOOR,
                                     np.uint64(0), False), 1, store)
    if best == -2:
        raise overflow_error()
    if best < 0:
        return None
    assert path(store, best) == SUBSTEPS
    return _layout(int(store.key[best]), store.path[:SUBSTEPS].tolist(), 1, problem)


def _layout(key: int, options: list[int], joker_weight: int, problem: Problem) -> Layout:
    groups, runs = sets_of_path(key, options, problem.jokers_lo, joker_weight, problem.lo, problem.hi,
                                problem.fixed)
    return Layout(sets=groups + runs, kinds=["group"] * len(groups) + ["run"] * len(runs))
