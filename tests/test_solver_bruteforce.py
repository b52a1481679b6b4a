"""The compiled solver against the brute-force oracle on random small positions.

Every answer the state machine relies on is compared: legality of random plays,
the optimum for both objectives, the full 53-bit mask, and that the layout of a
best play is a real partition of the table and the play into valid sets (checked
set by set here, independently of both solvers), with fixed jokers (K5) at
their numbers. Positions mix the tile game (2 jokers, T1) and the card edition
(4 jokers, K1, free or fixed), opened or not, thresholds 30 and 40 (T4, K3).
"""

from __future__ import annotations

import os
import sys
from collections import Counter

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bruteforce as bf
import positions as ps

from rummienv.rummikub import solver
from rummienv.rummikub.solver import programme, store
from rummienv.rummikub.solver import search as walks
from rummienv.rummikub.turn_memory import TurnMemory

JOKER = 52
CONFIGS = {
    "tiles-2j": dict(jokers_in_play=2, fixed_jokers=False, max_rack=6),
    "cards-4j-free": dict(jokers_in_play=4, fixed_jokers=False, max_rack=6),
    "cards-4j-fixed": dict(jokers_in_play=4, fixed_jokers=True, max_rack=6),
    "tiles-2j-rack8": dict(jokers_in_play=2, fixed_jokers=False, max_rack=8, max_table_sets=2),
    "cards-4j-fixed-rack7": dict(jokers_in_play=4, fixed_jokers=True, max_rack=7, max_table_sets=2),
    "cards-4j-heavy": dict(jokers_in_play=4, fixed_jokers=True, max_rack=5),
    # several fixed jokers in one set: runs headed by two or three jokers fixed to their numbers
    "cards-4j-fixed-heads": dict(jokers_in_play=4, fixed_jokers=True, max_rack=6, max_set_jokers=3),
}
COUNTS = {"tiles-2j": 300, "cards-4j-free": 300, "cards-4j-fixed": 300, "tiles-2j-rack8": 100,
          "cards-4j-fixed-rack7": 100, "cards-4j-heavy": 200, "cards-4j-fixed-heads": 300}


def _joker_numbers(pieces: list[int], kind: str) -> list[int] | None:
    """The numbers the jokers of one set stand for, or None if it is not a valid ``kind`` (C2-C4)."""
    real = [t for t in pieces if t != JOKER]
    jokers = len(pieces) - len(real)
    colours = [t // 13 for t in real]
    if not real or not 3 <= len(pieces) <= 13:
        return None
    if kind == "group":
        numbers = {t % 13 + 1 for t in real}
        ok = len(numbers) == 1 and len(pieces) <= 4 and len(set(colours)) == len(colours)
        return [numbers.pop()] * jokers if ok else None
    # a run is listed low to high, so the place of each piece fixes what it stands for
    first = next(i for i, t in enumerate(pieces) if t != JOKER)
    start = pieces[first] % 13 + 1 - first
    stands = list(range(start, start + len(pieces)))
    if (len(set(colours)) == 1 and start >= 1 and stands[-1] <= 13
            and all(t == JOKER or t % 13 + 1 == n for t, n in zip(pieces, stands, strict=True))):
        return [n for t, n in zip(pieces, stands, strict=True) if t == JOKER]
    return None


def _check_layout(layout: solver.Layout, expected: np.ndarray, fixed: np.ndarray) -> None:
    """The sets are valid, hold exactly ``expected`` plus the fixed jokers, and each fixed joker
    can stand at its number (K5)."""
    sets = layout.sets
    assert len(layout.kinds) == len(sets)
    got = Counter(t for s in sets for t in s)
    want = Counter({t: int(expected[t]) for t in range(53) if expected[t]})
    want[JOKER] += int(fixed.sum())
    assert got == +want, f"layout {sets} does not hold the pieces"
    places = Counter()
    for s, kind in zip(sets, layout.kinds, strict=True):
        numbers = _joker_numbers(s, kind)
        assert numbers is not None, f"invalid {kind} {s} in {sets}"
        places.update(numbers)
    need = Counter({n: int(fixed[n]) for n in range(1, 14) if fixed[n]})
    assert not need - places, f"fixed jokers {dict(need)} have no place in {sets}"


def _cases():
    for seed, (name, kw) in enumerate(CONFIGS.items()):
        for i, pos in enumerate(ps.random_positions(1000 + seed, COUNTS[name], **kw)):
            if name.endswith("heavy"):
                # every joker in play: what is not on the table is on the rack, free
                pos["rack"][JOKER] = 4 - pos["table"][JOKER] - pos["fixed"].sum()
            yield name, i, pos


CASES = list(_cases())


@pytest.mark.parametrize("chunk", range(10))
def test_solver_matches_bruteforce(chunk):
    rng = np.random.default_rng(chunk)
    for name, i, pos in CASES[chunk::10]:
        table, rack, staged = (pos[k].astype(np.int64) for k in ("table", "rack", "staged"))
        fixed = pos["fixed"].astype(np.int64)
        opts = dict(fixed=fixed, opened=pos["opened"], threshold=pos["threshold"])
        where = f"{name} #{i}: {ps.describe(pos)}"

        plays = bf.legal_plays(table, rack, staged, **opts)
        mask = np.zeros(53, dtype=bool)
        for p in plays:
            mask |= np.array(p) > staged
        assert np.array_equal(solver.legal_mask(table, rack, staged, **opts), mask), where
        if staged.any():
            assert solver.can_play(table, rack, staged, **opts) == bool(plays), where

        for objective in ("tiles", "points"):
            want = max((bf.play_score(p, objective) for p in plays), default=None)
            sol = solver.best_play(table, rack, staged, objective=objective, **opts)
            if want is None:
                assert sol is None, where
                continue
            assert sol is not None and sol.value == want, f"{objective}: {where}"
            play = sol.play.astype(np.int64)
            assert np.all(play >= staged) and np.all(play <= rack), where
            assert bf.play_score(play, objective) == want, where
            assert bf.is_legal_play(table, rack, play, **opts), where
            if pos["opened"]:
                _check_layout(sol.layout, table + play, fixed)
            else:
                _check_layout(sol.layout, play, np.zeros(14, dtype=np.int64))

        if pos["opened"] and rack.any():  # the whole rack, as a hoarder asks it of a state's own arrays
            whole = solver.goes_out(pos["table"].astype(np.int8), pos["rack"].astype(np.int8), fixed)
            assert whole == bf.is_legal_play(table, rack, rack, **opts), f"whole rack: {where}"
        tries = plays[:3] + [tuple(int(rng.integers(0, r + 1)) for r in rack) for _ in range(4)]
        for p in tries:
            want = bf.is_legal_play(table, rack, p, **opts)
            assert solver.is_legal_play(table, np.array(p), **opts) == want, f"play {bf.names(p)}: {where}"
            if want:
                _check_laid_out(table, np.array(p), opts, where)


def _check_laid_out(table: np.ndarray, play: np.ndarray, opts: dict, where: str) -> None:
    """A legal play's layout (what a commit lays down) holds the table and the play, or opens with the play
    alone worth the threshold, every joker counting the number it stands for (T4/K3)."""
    layout = solver.lay_out(table, play, **opts)
    if opts["opened"]:
        _check_layout(layout, table + play, opts["fixed"])
        return
    _check_layout(layout, play, np.zeros(14, dtype=np.int64))
    value = 0
    for pieces, kind in zip(layout.sets, layout.kinds, strict=True):
        jokers = iter(_joker_numbers(pieces, kind))
        value += sum(next(jokers) if t == JOKER else t % 13 + 1 for t in pieces)
    assert value >= opts["threshold"], f"opening {layout.sets} worth {value}: {where}"


def _ask(search: str, more: np.ndarray, hi: np.ndarray, fixed: np.ndarray, valued: bool, threshold: int,
         shared: tuple, t: int, found: np.ndarray) -> int:
    """One question to the search: alone (a walk from 1 up with a table of its own), or as a mask asks it,
    sharing the dead states of the position's other questions (``shared``: the colour orders and stamp)."""
    ws = solver.workspace()
    budget = 1 << 20
    q = programme.Question(more[:52], hi[:52], more[JOKER], hi[JOKER], fixed, valued, threshold)
    if search == "exists":
        orders = walks._orders(more[:52], hi[:52])
        stamp = store._fresh_stamp(ws.hash_table, ws.stamp)
        dead = walks.DeadStates(ws.hash_table, store._hash_bits_for(budget), stamp)
        args = (q, budget, orders[walks.UP], walks._memo(dead, walks.UP, orders, -1))
    else:
        orders, stamp = shared
        args = (q, budget, orders, walks.DeadStates(ws.memo, store.MEMO_BITS, stamp), t)
    answer, _ = getattr(walks, search)(*args, ws, ws.path, found)
    return answer


@pytest.mark.parametrize("search", ["exists", "_search"])
@pytest.mark.parametrize("chunk", range(5))
def test_exists_matches_bruteforce(chunk, search):
    """The depth-first search, with a budget it never exhausts, finds a layout holding everything staged plus
    one more of a type (or joker) exactly when some legal play holds them, and what it finds is legal: asked
    alone, and as the masks ask it (any layout first, from 13 down then up, then raised to an opening's
    value; every question of a position, asked twice in a shuffled order, keeping the others' dead states)."""
    ws = solver.workspace()
    found = np.zeros(54, dtype=np.int64)
    rng = np.random.default_rng(chunk)
    for name, i, pos in CASES[chunk::5]:
        table, rack, staged = (pos[k].astype(np.int64) for k in ("table", "rack", "staged"))
        opts = dict(fixed=pos["fixed"].astype(np.int64), opened=pos["opened"], threshold=pos["threshold"])
        where = f"{name} #{i}: {ps.describe(pos)}"
        mask = _mask_of(bf.legal_plays(table, rack, staged, **opts), staged)
        base, fixed, valued, threshold = solver.mask_problem(table, opts["fixed"], pos["opened"], pos["threshold"])
        lo, hi = base + staged, base + rack
        shared = (walks._orders(lo[:52], hi[:52]), store._fresh_stamp(ws.memo, ws.memo_stamp))
        types = np.flatnonzero(rack > staged)
        for t in np.concatenate([rng.permutation(types), rng.permutation(types)]) if search == "_search" else types:
            more = lo.copy()
            more[t] += 1
            answer = _ask(search, more, hi, fixed, valued, threshold, shared, t, found)
            assert answer != walks.UNKNOWN, where
            assert (answer == walks.FOUND) == mask[t], f"{bf.names(more - base)} more: {where}"
            if answer != walks.FOUND:
                continue
            assert np.all(found[:52] >= more[:52]) and np.all(found[:52] <= hi[:52]), where
            # the layout stands for every joker count from those it places (or must) to its room
            for jokers in {max(found[52], more[JOKER]), found[53]}:
                assert more[JOKER] <= jokers <= hi[JOKER], where
                play = np.append(found[:52], jokers) - base
                assert bf.is_legal_play(table, rack, play, **opts), f"witness {bf.names(play)}: {where}"


def _mask_of(plays: list[tuple[int, ...]], staged: np.ndarray) -> np.ndarray:
    """The brute-force mask: the types one more of which some legal play holding ``staged`` has."""
    mask = np.zeros(53, dtype=bool)
    for p in plays:
        p = np.array(p)
        if np.all(p >= staged):
            mask |= p > staged
    return mask


@pytest.mark.parametrize("chunk", range(5))
def test_turn_memory_matches_bruteforce_along_a_turn(chunk):
    """A seat's masks, answered from what its turns learnt, equal brute force at every piece staged: also
    when a piece staged rules others out, when the staged pieces go back (a new turn of the same rack), on
    the next turn after drawing a piece (the witnesses of the last turn still hold), and after another seat
    laid a group beside the table (a new table: the memory must not answer for the old one)."""
    rng = np.random.default_rng(100 + chunk)
    for name, i, pos in CASES[chunk::5]:
        table, dealt, staged = (pos[k].astype(np.int64) for k in ("table", "rack", "staged"))
        opts = dict(fixed=pos["fixed"].astype(np.int64), opened=pos["opened"], threshold=pos["threshold"])
        memory = TurnMemory()
        drawn = dealt.copy()
        drawn[rng.choice(np.flatnonzero(table[:52] + dealt[:52] < 2))] += 1  # C1: two of each piece in all
        nothing = np.zeros(53, dtype=np.int64)
        phases = [(table, staged, dealt), (table, nothing, dealt), (table, nothing, drawn)]
        grown = _with_a_group(table, drawn)
        if grown is not None:
            phases.append((grown, nothing, drawn))
        for table, start, rack in phases:
            plays = bf.legal_plays(table, rack, np.zeros(53, dtype=np.int64), **opts)
            staged = start.copy()
            while True:
                where = f"{name} #{i}, rack {bf.names(rack)}, staged {bf.names(staged)}: {ps.describe(pos)}"
                mask, legal = memory.masks(table, rack, staged, **opts)
                assert np.array_equal(mask, _mask_of(plays, staged)), where
                assert legal == (staged.any() and bf.is_legal_play(table, rack, staged, **opts)), where
                if not mask.any():
                    break
                staged[rng.choice(np.flatnonzero(mask))] += 1


@pytest.mark.parametrize("chunk", range(5))
def test_turn_memory_copies_go_their_own_ways(chunk):
    """A memory copied at the start of a turn, and the original, stage different pieces in turn, each mask
    asked as the other's grows: each equals brute force, so neither answers from what the other's searches
    found dead (which holds only for the other's pieces staged)."""
    rng = np.random.default_rng(200 + chunk)
    for name, i, pos in CASES[chunk::5]:
        table, rack = pos["table"].astype(np.int64), pos["rack"].astype(np.int64)
        opts = dict(fixed=pos["fixed"].astype(np.int64), opened=pos["opened"], threshold=pos["threshold"])
        plays = bf.legal_plays(table, rack, np.zeros(53, dtype=np.int64), **opts)
        first = TurnMemory()
        first.masks(table, rack, np.zeros(53, dtype=np.int64), **opts)
        seats = [(first, np.zeros(53, dtype=np.int64)), (first.copy(), np.zeros(53, dtype=np.int64))]
        while seats:
            memory, staged = seats.pop(0)
            mask, _ = memory.masks(table, rack, staged, **opts)
            where = f"{name} #{i}, staged {bf.names(staged)}: {ps.describe(pos)}"
            assert np.array_equal(mask, _mask_of(plays, staged)), where
            if mask.any():
                staged[rng.choice(np.flatnonzero(mask))] += 1
                seats.append((memory, staged))


def _with_a_group(table: np.ndarray, rack: np.ndarray) -> np.ndarray | None:
    """``table`` with a group of three more pieces, as another seat lays it down, within the two copies of
    each piece (C1) that the table and ``rack`` leave; None if no number has three colours left."""
    for n in range(13):
        colours = [c for c in range(4) if table[c * 13 + n] + rack[c * 13 + n] < 2]
        if len(colours) >= 3:
            grown = table.copy()
            for c in colours[:3]:
                grown[c * 13 + n] += 1
            return grown
    return None


# Runs headed by jokers fixed to their numbers (K5), alone or after a free joker, and fixed jokers that
# can only close a run: the shapes the random tables above rarely make.
FIXED_HEADS = [
    ([1, 2, 3], "k4 k5"), ([11, 12], "k13"), ([12], "k13 J"), ([5], "k6 k7"), ([5, 6], "k7"),
    ([5, 7], "k6 r5 b5"), ([1, 2, 3, 4], "k5 k6"), ([13], "k11 k12"), ([12], "k11 k13"),
    ([3, 3], "k4 r4 k5 r5"), ([9, 10], "J k11"), ([7], "J k8"), ([11], "k12 k13 J"), ([4, 5], "r6 J"),
]


@pytest.mark.parametrize("numbers,rack", FIXED_HEADS)
def test_K5_fixed_jokers_heading_runs(numbers, rack):
    table, fixed, rack = np.zeros(53, dtype=np.int64), bf.fixed_of(numbers), bf.counts(rack)
    plays = bf.legal_plays(table, rack, None, fixed, True)
    mask = np.zeros(53, dtype=bool)
    for p in plays:
        mask |= np.array(p) > 0
    assert np.array_equal(solver.legal_mask(table, rack, fixed=fixed), mask)
    want = max((bf.play_score(p, "tiles") for p in plays), default=None)
    sol = solver.best_play(table, rack, fixed=fixed)
    assert (sol is None) if want is None else (sol is not None and sol.value == want)
    if sol is not None:
        _check_layout(sol.layout, sol.play.astype(np.int64), fixed)


# Openings led by several jokers, each counting the number it stands for (T4, K3).
JOKER_OPENINGS = [("b13 J J J J", 40), ("J J k13", 30), ("J J J k13", 40), ("k12 b12 o12 r12 J", 40),
                  ("J k2 J", 30), ("r10 J J J", 40), ("J J J J k5 k6", 30)]


@pytest.mark.parametrize("rack,threshold", JOKER_OPENINGS)
def test_T4_K3_openings_led_by_jokers(rack, threshold):
    table, rack = np.zeros(53, dtype=np.int64), bf.counts(rack)
    opts = dict(opened=False, threshold=threshold)
    plays = bf.legal_plays(table, rack, None, **opts)
    assert solver.is_legal_play(table, rack, **opts) == bf.is_legal_play(table, rack, rack, **opts)
    mask = np.zeros(53, dtype=bool)
    for p in plays:
        mask |= np.array(p) > 0
    assert np.array_equal(solver.legal_mask(table, rack, **opts), mask)
    want = max((bf.play_score(p, "tiles") for p in plays), default=None)
    sol = solver.best_play(table, rack, **opts)
    assert (sol is None) if want is None else (sol is not None and sol.value == want)
    if sol is not None:
        _check_layout(sol.layout, sol.play.astype(np.int64), np.zeros(14, dtype=np.int64))
