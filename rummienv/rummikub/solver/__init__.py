"""Exact answers about a Rummikub position, for the state machine, agents and the CLI.

Positions are count vectors of length 53 (see ``rummienv.tiles``). The table's
free jokers are its count at index 52; jokers that must keep a number (K5, the
card edition) are given apart as ``fixed[n]``. A *play* is the multiset of rack
pieces that goes down this turn; ``staged`` pieces are a play's lower bound.

All questions run the same compiled programme (``passes.forward``, or a
depth-first walk over its moves, ``search.exists``) with different bounds, so
legality, the mask and the best play can never disagree.
"""

from __future__ import annotations

import os
import sys
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

import numpy as np

from rummienv.tiles import JOKER, NUM_TYPES, NUMBER_OF_TYPE, NUMBERS, counts_text, face_points

# caching first: numba's cache of every module below then sees the whole package
from . import caching, masks, passes, search  # noqa: F401
from .layout import Layout, rebuild
from .store import NO_FLOOR, SUBSTEPS, Store, open_store

Objective = Literal["tiles", "points"]
_WS: Store | None = None
_NO_FIXED = np.zeros(NUMBERS + 1, dtype=np.int64)
_NO_STAGED = np.zeros(NUM_TYPES, dtype=np.int64)
_NO_TABLE = _NO_STAGED
_TILE_WEIGHT = np.ones(52, dtype=np.int64)


def overflow_error() -> RuntimeError:
    """The store filled up: positions within the rules never do, so this is a bug worth reporting."""
    return RuntimeError("solver state store overflowed; the position is larger than the rules allow")


def workspace() -> Store:
    """The store every question works in, made on first use."""
    global _WS
    if _WS is None:
        announce_compiling(masks.turn_mask)
        _WS = open_store()
    return _WS


def announce_compiling(probe: Callable) -> None:
    """Say once, on stderr, that the solver is being compiled, when numba holds no compiled copy of
    ``probe`` (a kernel) yet: a fresh install's first move waits about a minute for it, and would seem to
    hang. numba keeps what it compiles beside the module, so later processes load it in a moment. Says
    nothing where this numba keeps its cache differently."""
    index = getattr(getattr(getattr(probe, "_cache", None), "_cache_file", None), "_index_path", None)
    if isinstance(index, str) and not os.path.exists(index):
        print("rummienv: compiling the Rummikub solver for this machine, once (about a minute)...",
              file=sys.stderr, flush=True)


@dataclass
class Solution:
    """A best play; its table layout is rebuilt only when asked for (bots need the play alone)."""

    play: np.ndarray  # counts of rack pieces played (length 53)
    value: int  # the objective's value of the play
    arrange: Callable[[], Layout] = field(repr=False)

    @cached_property
    def layout(self) -> Layout:
        return self.arrange()


@dataclass
class _Problem:
    lo: np.ndarray
    hi: np.ndarray
    jlo: int
    jhi: int
    fixed: np.ndarray
    threshold: int
    base: np.ndarray  # what of lo is not the player's (the table)

    @property
    def question(self) -> tuple:
        """The compiled functions' view of the problem: ``programme.Question``'s fields as a plain tuple, which
        numba's dispatch types in about 0.8 microseconds against 2.5 for the named tuple itself."""
        return self.lo, self.hi, self.jlo, self.jhi, self.fixed, self.threshold > 0, self.threshold


def _problem(table, rack, staged, fixed, opened: bool, threshold: int) -> _Problem:
    table = np.asarray(table, dtype=np.int64)
    rack = np.asarray(rack, dtype=np.int64)
    staged = np.zeros(NUM_TYPES, dtype=np.int64) if staged is None else np.asarray(staged, dtype=np.int64)
    if opened:
        fixed = _NO_FIXED if fixed is None else np.asarray(fixed, dtype=np.int64)
        lo, hi, base, thr = table + staged, table + rack, table, 0
    else:
        # T4/K3: the table is untouched, the play alone must reach the threshold
        fixed, lo, hi, base, thr = _NO_FIXED, staged, rack, np.zeros(NUM_TYPES, dtype=np.int64), threshold
    thr = min(thr, 255)
    return _Problem(lo[:52].copy(), hi[:52].copy(), int(lo[JOKER]), int(hi[JOKER]), fixed, thr, base)


def _one_pass(p: _Problem, weight: np.ndarray, joker_weight: int, jcap: int, floor: int, bonus: int,
              valued: bool) -> tuple[Store, int, int]:
    """One pass of the programme over ``p`` (no threshold in the state): the store index of its best layout
    (-1: none) and that layout's value."""
    ws = workspace()
    best, value = passes.one_pass((p.lo, p.hi, p.jlo, p.jhi, p.fixed, valued, 0), weight, joker_weight, jcap, floor,
                                  bonus, ws)
    if best == -2:
        raise overflow_error()
    return ws, int(best), int(value)


def mask_problem(table, fixed, opened: bool, threshold: int) -> tuple[np.ndarray, np.ndarray, bool, int]:
    """The compiled view of a mask question: (table, fixed jokers, valued, threshold).

    An opened player's play goes onto the table; an opening (T4/K3) is the rack alone, worth the threshold.
    """
    if opened:
        return (np.asarray(table, dtype=np.int64), _NO_FIXED if fixed is None else np.asarray(fixed, dtype=np.int64),
                False, 0)
    return _NO_TABLE, _NO_FIXED, True, min(threshold, 255)


def legal_mask(table, rack, staged=None, *, fixed=None, opened: bool = True, threshold: int = 30) -> np.ndarray:
    """``mask[t]``: some legal play holds everything staged plus one more ``t`` (53 bools)."""
    # one compiled call: the Python around it cost more than a small position's solve
    ws = workspace()
    table, fixed, valued, threshold = mask_problem(table, fixed, opened, threshold)
    staged = _NO_STAGED if staged is None else np.asarray(staged, dtype=np.int64)
    mask, ok = masks.mask((table, np.asarray(rack, dtype=np.int64), staged, fixed, valued, threshold), _TILE_WEIGHT,
                          ws)
    if not ok:
        raise overflow_error()
    return mask


def is_legal_play(table, play, *, fixed=None, opened: bool = True, threshold: int = 30) -> bool:
    """``play`` (non-empty) goes down legally: the whole table stays valid, or it opens."""
    play = np.asarray(play, dtype=np.int64)
    if play.sum() == 0:
        return False
    return _some_layout(_problem(table, play, play, fixed, opened, threshold))


def goes_out(table: np.ndarray, rack: np.ndarray, fixed: np.ndarray) -> bool:
    """An opened seat's whole (non-empty) ``rack`` goes down with the ``table`` at once, ``fixed`` jokers (K5)
    at their numbers: ``is_legal_play`` of the rack, in one compiled call for the question a hoarder asks every
    turn. ``table`` and ``rack`` share one integer type, as a state keeps them."""
    found, ok = masks.whole_rack(table, rack, fixed, workspace())
    if not ok:
        raise overflow_error()
    return found


def can_play(table, rack, staged, *, fixed=None, opened: bool = True, threshold: int = 30) -> bool:
    """Some legal play holds everything ``staged`` (non-empty): the question a joker swap (K6) asks, since
    the freed joker must go down again this turn."""
    return _some_layout(_problem(table, rack, staged, fixed, opened, threshold))


def _some_layout(p: _Problem) -> bool:
    ws = workspace()
    found, ok = masks.legal_layout(p.question, ws)
    if not ok:
        raise overflow_error()
    return found


def best_play(table, rack, staged=None, *, fixed=None, opened: bool = True, threshold: int = 30,
              objective: Objective = "tiles", joker_penalty: int = 30, known=None) -> Solution | None:
    """The play with the most pieces (or the most rack points shed) and the resulting table.

    ``None`` when no legal play contains the staged pieces.

    Every piece weighs something in either objective (a joker too, unless its penalty is nought), so when the
    whole rack goes down in some legal play, that play is the best and the only one: a search that stops at
    the first layout (``is_legal_play``'s) says so at a fraction of the passes' cost, and a hoarder's rack
    that can go out costs the passes most. The passes then run only if the play's table is asked for, so it
    is the layout they would have given.

    ``known``, a legal play of the same position completing ``staged`` (such as the best play by the other
    objective), only saves time: its value is a floor under which the passes store nothing. The best plays
    of the last questions about the same table and staged pieces, with a rack this one holds, are floors too
    (``_Floors``). No floor changes the answer (``passes.best_layout``).
    """
    if objective not in ("tiles", "points"):
        raise ValueError(f"objective must be 'tiles' or 'points', got {objective!r}")
    p = _problem(table, rack, staged, fixed, opened, threshold)
    weight, joker_weight = (_TILE_WEIGHT, 1) if objective == "tiles" else (NUMBER_OF_TYPE, joker_penalty)
    if joker_weight > 0 and _some_layout(_Problem(p.hi, p.hi, p.jhi, p.jhi, p.fixed, p.threshold, p.base)):
        used = np.append(p.hi, p.jhi)
        floor = _layout_value(used, weight, joker_weight)
        arrange = lambda: _passes(p, weight, joker_weight, floor)[1]()  # noqa: E731
    else:
        floor = NO_FLOOR if known is None else _layout_value(p.base + np.asarray(known, dtype=np.int64), weight,
                                                             joker_weight)
        found = _passes(p, weight, joker_weight, floor)
        if found is None:
            return None
        used, arrange = found
    play = used - p.base
    if play.sum() == 0:
        return None
    value = int(play.sum()) if objective == "tiles" else face_points(play, joker_penalty)
    return Solution(play=play.astype(np.int8), value=value, arrange=arrange)


def _layout_value(used: np.ndarray, weight: np.ndarray, joker_weight: int) -> int:
    """The passes' objective of a layout of ``used`` (pieces of each type, jokers last, the table's included):
    each piece at its weight, each joker at ``joker_weight``."""
    return int(used[:JOKER] @ weight) + joker_weight * int(used[JOKER])


class _Floors:
    """The best values of the last questions asked about each table, as floors for the next.

    A layout stays legal when the rack grows and the table, the staged pieces and the fixed jokers do not, so
    the best value of an earlier question whose rack this one holds is a floor: a seat asks again after a draw,
    and every seat asks about the same table until it changes. The last ``PER_TABLE`` answers of the last
    ``TABLES`` tables are kept (a few hundred kilobytes at most). Only questions with a joker are remembered
    and helped: without one the passes are small, and the lookup cost more than it saved (the keep-jokers
    questions of logged big racks took 12% longer at the median with it).
    """

    TABLES = 256
    PER_TABLE = 8

    def __init__(self) -> None:
        self._seen: OrderedDict[tuple, list[tuple[np.ndarray, int, int]]] = OrderedDict()

    @staticmethod
    def key(p: _Problem, weight: np.ndarray, joker_weight: int) -> tuple | None:
        """What a question's floors are kept under; None for a question without a joker, left alone."""
        if not p.jhi:
            return None
        return weight is _TILE_WEIGHT, joker_weight, p.lo.tobytes(), p.jlo, p.fixed.tobytes(), p.threshold

    def floor(self, key: tuple | None, p: _Problem) -> int:
        """The best value remembered under ``key`` of a question whose rack ``p``'s holds."""
        best = NO_FLOOR
        for hi, jhi, value in self._seen.get(key, ()):  # None is never kept
            if value > best and jhi <= p.jhi and (hi <= p.hi).all():
                best = value
        return best

    def remember(self, key: tuple | None, p: _Problem, value: int) -> None:
        if key is None:
            return
        answers = self._seen.pop(key, [])
        answers.append((p.hi, p.jhi, value))
        self._seen[key] = answers[-self.PER_TABLE:]
        if len(self._seen) > self.TABLES:
            self._seen.popitem(last=False)


_FLOORS = _Floors()


def _passes(p: _Problem, weight: np.ndarray, joker_weight: int,
            known: int = NO_FLOOR) -> tuple[np.ndarray, Callable[[], Layout]] | None:
    """The pieces of each type the passes' best layout uses, and a way to rebuild that layout; None when
    there is no layout. ``known`` is a floor (``best_play``)."""
    ws = workspace()
    table = _Floors.key(p, weight, joker_weight)
    floor = max(known, _FLOORS.floor(table, p))
    best = passes.best_layout(p.question, weight, joker_weight, floor, ws)
    if best == -2:
        raise overflow_error()
    if best == -3:
        raise RuntimeError(f"solver floor {floor} above the best value; the floor was not a legal play's value")
    if best < 0:
        return None
    used = np.zeros(NUM_TYPES, dtype=np.int64)
    ok = passes.used_pieces(best, p.question, joker_weight, ws, used)
    assert ok
    _FLOORS.remember(table, p, _layout_value(used, weight, joker_weight))
    key, opts = int(ws.key[best]), ws.path[:SUBSTEPS].tolist()
    return used, lambda: rebuild(key, opts, p.jlo, joker_weight, p.lo, p.hi, p.fixed)


def lay_out(table, play, *, fixed=None, opened: bool = True, threshold: int = 30) -> Layout:
    """The sets a legal ``play`` goes down in: the whole table laid out anew with it, or (an opening, T4/K3)
    the play alone, worth the threshold. The first layout the depth-first search meets, or the best play's
    when the search runs out of budget; the same for the same position."""
    p = _problem(table, play, play, fixed, opened, threshold)
    ws = workspace()
    answer, key = search.play_path(p.question, ws)
    if answer == search.FOUND:
        return rebuild(int(key), ws.path[:SUBSTEPS].tolist(), p.jlo, 1, p.lo, p.hi, p.fixed)
    solution = best_play(table, play, play, fixed=fixed, opened=opened, threshold=threshold)
    if solution is None:
        raise ValueError(f"not a legal play: {counts_text(np.asarray(play))}")
    return solution.layout


def arrange(counts, *, fixed=None) -> Layout | None:
    """A concrete layout of ``counts`` (and fixed jokers) into valid sets, or None."""
    p = _problem(np.zeros(NUM_TYPES, dtype=np.int64), counts, counts, fixed, True, 0)
    ws, best, _ = _one_pass(p, _TILE_WEIGHT, 1, p.jhi, NO_FLOOR, 0, False)
    if best < 0:
        return None
    k = passes.path(best, ws)
    assert k == SUBSTEPS
    return rebuild(int(ws.key[best]), ws.path[:k].tolist(), p.jlo, 1, p.lo, p.hi, p.fixed)
