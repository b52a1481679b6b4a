"""Self-check of the oracle in ``bruteforce.py``: hand-made cases with known answers.

The solver tests trust ``bruteforce`` blindly, so it is pinned down here against
answers worked out by hand from the rules (each test names its rule id), plus a
second, catalogue-based partition check written differently on purpose, and the
invariants of the random position generator.
"""

from __future__ import annotations

import functools
import itertools
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bruteforce as bf
import positions as ps

C = bf.counts
F = bf.fixed_of


def valid(text: str, fixed: list[int] | None = None) -> bool:
    return bf.partitionable(C(text), F(fixed or []))


def value(text: str, fixed: list[int] | None = None) -> int | None:
    return bf.max_partition_value(C(text), F(fixed or []))


def P(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in C(text))


# --------------------------------------------------------------------------------------
# partitions: C2-C5, K5
# --------------------------------------------------------------------------------------


def test_run_c3():
    assert valid("r1 r2 r3") and value("r1 r2 r3") == 6
    assert valid(" ".join(f"r{n}" for n in range(1, 14)))
    assert value(" ".join(f"r{n}" for n in range(1, 14))) == 91
    assert valid("r11 r12 r13") and value("r11 r12 r13") == 36
    assert not valid("r1 r2")
    assert not valid("r1 r2 b3"), "a run is one colour"
    assert not valid("r1 r2 r4"), "a run has no gaps"


def test_no_wraparound_c3():
    assert not valid("r12 r13 r1")
    assert not valid("r13 r1 r2")
    assert value("r12 r13 J J") == 46, "J J can only be r10 r11"
    assert value("r12 r13 J") == 36, "the joker can only be r11"
    assert value("r1 r2 J") == 6, "the joker can only be r3"


def test_group_c2():
    assert valid("k7 b7 o7") and value("k7 b7 o7") == 21
    assert valid("k7 b7 o7 r7") and value("k7 b7 o7 r7") == 28
    assert not valid("k7 k7 b7"), "group colours differ pairwise"
    assert not valid("k7 b7 o7 r7 k7"), "no fifth colour"
    assert not valid("k7 b7 o8")
    assert valid("k7 k7 b7 b7 o7 o7"), "two groups of 7"


def test_group_with_jokers_c4():
    assert valid("k7 b7 o7 J") and value("k7 b7 o7 J") == 28
    assert valid("k7 b7 J") and value("k7 b7 J") == 21
    assert valid("k7 J J") and value("k7 J J") == 24  # best as run 7-8-9, group is 21
    assert not valid("k7 b7 o7 r7 J"), "a five-piece group is impossible, with or without jokers"
    # k7 J J J: group of four 7s (28) or a run of four from k7 up (7..10 = 34).
    assert value("k7 J J J") == 34
    assert value("k13 J J") == 39, "group of 13s beats the run 11-12-13 (36)"


def test_jokers_need_a_numbered_piece_c4():
    assert not valid("J")
    assert not valid("J J")
    assert not valid("J J J")
    assert not valid("J J J J")
    assert value("r1 r2 r3 J J J") == 21, "jokers extend the run to r6"
    assert not valid("k13 b13 o13 r13 J"), "no place for the joker"
    assert valid("k13 b13 o13 r13 J J"), "k13 b13 J + o13 r13 J"
    assert valid("") and value("") == 0


def test_run_with_joker_inside_c4():
    assert valid("r1 J r3") and value("r1 J r3") == 6
    assert value("J r9 r10") == 30, "J r9 r10 is r8-r10 (27) or r9-r11 (30)"
    assert value("r5 J J r8") == 26


def test_fixed_joker_k5():
    # a joker fixed to 7 cannot be r6, but can be any colour of 7
    assert not valid("r4 r5", [7])
    assert valid("r4 r5 J")
    assert valid("k7 b7", [7]) and value("k7 b7", [7]) == 21
    assert valid("r6 r8", [7]) and value("r6 r8", [7]) == 21
    assert valid("r5 r6", [7]) and value("r5 r6", [7]) == 18
    assert not valid("k8 b8", [7])
    assert not valid("", [7]), "a fixed joker alone is no set"
    # a fixed joker plus a free one
    assert valid("k7", [7]) is False
    assert valid("k7 J", [7]) and value("k7 J", [7]) == 21
    # two jokers fixed to the same number: group k7 + two 7s, or both in different runs
    assert valid("k7", [7, 7]) and value("k7", [7, 7]) == 21
    assert valid("k6 k8 b6 b8", [7, 7])
    assert not valid("k6 k8 b6 b9", [7, 7])


def test_partitions_enumeration_agrees():
    got = list(bf.partitions(C("r5 r6 J")))
    assert sorted(got) == sorted([[("r5", "r6", "J=r7")], [("J=r4", "r5", "r6")]])
    got = list(bf.partitions(C("k7 b7"), F([7])))
    assert len(got) == 1 and got[0][0][:2] == ("k7", "b7") and got[0][0][2] in ("J7=o7", "J7=r7")
    assert list(bf.partitions(C("r12 r13 r1"))) == []
    assert list(bf.partitions(C(""))) == [[]]


# --------------------------------------------------------------------------------------
# an independent partition check: explicit catalogue of all sets
# --------------------------------------------------------------------------------------


def _catalogue() -> list[list[tuple[int, int]]]:
    """Every valid set as the list of (colour, number) its pieces stand for."""
    sets = []
    for c in range(4):
        for s in range(1, 14):
            for e in range(s + 2, 14):
                sets.append([(c, n) for n in range(s, e + 1)])
    for n in range(1, 14):
        for size in (3, 4):
            for cols in itertools.combinations(range(4), size):
                sets.append([(c, n) for c in cols])
    return sets


_CAT = _catalogue()


def _slow_value(cnt: tuple[int, ...], fixed: tuple[int, ...]) -> int | None:
    """Max partition value by trying, for the lowest piece, every catalogue set that
    holds it and every real/free-joker/fixed-joker filling of the set's other places."""

    @functools.cache
    def rec(real: tuple[int, ...], free: int, fx: tuple[int, ...]) -> int | None:
        if not any(real):
            return 0 if free == 0 and not any(fx) else None
        t = next(i for i, k in enumerate(real) if k)
        tc, tn = divmod(t, 13)
        tn += 1
        best = None
        for st in _CAT:
            if (tc, tn) not in st:
                continue
            rest_places = [p for p in st if p != (tc, tn)]
            jokers = free + sum(fx)
            if sum(real[c * 13 + n - 1] == 0 for c, n in rest_places) > jokers:
                continue  # cheap cut: not enough jokers for the missing places
            choices = [
                [h for h in "RJF" if (h == "R" and real[c * 13 + n - 1]) or (h == "J" and free) or (h == "F" and fx[n])]
                for c, n in rest_places
            ]
            for fill in itertools.product(*choices):
                r, f, x = list(real), free, list(fx)
                r[t] -= 1
                ok = True
                for (c, n), how in zip(rest_places, fill, strict=True):
                    if how == "R":
                        r[c * 13 + n - 1] -= 1
                        ok = r[c * 13 + n - 1] >= 0
                    elif how == "J":
                        f -= 1
                        ok = f >= 0
                    else:
                        x[n] -= 1
                        ok = x[n] >= 0
                    if not ok:
                        break
                if not ok:
                    continue
                sub = rec(tuple(r), f, tuple(x))
                if sub is not None:
                    v = sub + sum(n for _, n in st)
                    best = v if best is None else max(best, v)
        return best

    return rec(cnt[:52], cnt[52], fixed)


def _random_multiset(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A union of 1-2 random short sets, perhaps with jokers, perhaps perturbed."""
    cnt = np.zeros(53, dtype=np.int64)
    fixed = np.zeros(14, dtype=np.int64)
    short = [s for s in _CAT if len(s) <= 4]
    for _ in range(int(rng.integers(1, 3))):
        st = short[int(rng.integers(len(short)))]
        for c, n in st:
            roll = rng.random()
            if roll < 0.15:
                cnt[52] += 1
            elif roll < 0.25:
                fixed[n] += 1
            else:
                cnt[c * 13 + n - 1] += 1
    roll = rng.random()
    if roll < 0.3:
        nz = np.flatnonzero(cnt)
        cnt[nz[int(rng.integers(len(nz)))]] -= 1
    elif roll < 0.6:
        cnt[int(rng.integers(53))] += 1
    return np.minimum(cnt, np.array([2] * 52 + [4])), fixed


def test_against_catalogue_search():
    rng = np.random.default_rng(7)
    seen_true = seen_false = 0
    for _ in range(150):
        cnt, fixed = _random_multiset(rng)
        want = _slow_value(tuple(int(x) for x in cnt), tuple(int(x) for x in fixed))
        got = bf.max_partition_value(cnt, fixed)
        assert got == want, f"{bf.names(cnt)} fixed={fixed.tolist()}: {got} != {want}"
        seen_true += want is not None
        seen_false += want is None
    assert seen_true > 30 and seen_false > 30


def _check_set(pieces: tuple[str, ...]) -> int:
    """Validate one described set independently of the oracle; return its value."""
    stands = [p.split("=")[-1] for p in pieces]
    cols = [s[0] for s in stands]
    nums = [int(s[1:]) for s in stands]
    assert any("=" not in p for p in pieces), "C4: a numbered piece"
    for p in pieces:
        if p.startswith("J") and p[1] != "=":
            assert int(p[1 : p.index("=")]) == int(p.split("=")[1][1:]), "K5"
    if len(set(nums)) == 1:
        assert len(pieces) in (3, 4) and len(set(cols)) == len(cols)
    else:
        assert len(set(cols)) == 1 and len(pieces) >= 3
        assert sorted(nums) == list(range(min(nums), min(nums) + len(nums)))
    return sum(nums)


def test_partitions_are_valid_and_reach_the_max():
    rng = np.random.default_rng(11)
    for _ in range(60):
        cnt, fixed = _random_multiset(rng)
        best = None
        for part in itertools.islice(bf.partitions(cnt, fixed), 200):
            used = C([p if "=" not in p else "J" for st in part for p in st if not (p[0] == "J" and p[1] != "=")])
            assert (used == cnt).all()
            fixed_jokers = [p for st in part for p in st if p.startswith("J") and not p.startswith("J=")]
            fixed_used = bf.fixed_of(int(p[1 : p.index("=")]) for p in fixed_jokers)
            assert (fixed_used == fixed).all()
            total = sum(_check_set(st) for st in part)
            best = total if best is None else max(best, total)
        assert best == bf.max_partition_value(cnt, fixed)


# --------------------------------------------------------------------------------------
# plays: T3, T4, K3, C6, C7, T6, K5
# --------------------------------------------------------------------------------------

EMPTY = C("")


def test_opening_threshold_t4():
    rack = C("r10 r11 r12 k1")
    assert bf.is_legal_play(EMPTY, rack, C("r10 r11 r12"), opened=False, threshold=30)  # 33
    assert not bf.is_legal_play(EMPTY, rack, C("r10 r11 r12"), opened=False, threshold=40)
    rack = C("r1 r2 r3 k9 b9 o9")
    assert bf.is_legal_play(EMPTY, rack, rack, opened=False, threshold=30)  # 6 + 27
    assert not bf.is_legal_play(EMPTY, rack, C("k9 b9 o9"), opened=False, threshold=30)  # 27
    assert bf.is_legal_play(EMPTY, rack, C("r1 r2 r3"), opened=True)  # no threshold once opened


def test_opening_counts_joker_at_best_t4():
    rack = C("J r9 r10")
    assert bf.is_legal_play(EMPTY, rack, rack, opened=False, threshold=30)  # r9 r10 J=r11: 30
    assert not bf.is_legal_play(EMPTY, rack, rack, opened=False, threshold=31)


def test_opening_does_not_touch_the_table_t4():
    table = C("r4 r5 r6")
    rack = C("r7")
    assert bf.legal_plays(table, rack, opened=True) == [P("r7")]
    assert bf.legal_plays(table, rack, opened=False, threshold=0) == []
    # a fixed joker on the table is no help before opening either
    assert bf.legal_plays(C("k12 b12"), C("r11 r13"), fixed=F([12]), opened=False, threshold=30) == []


def test_play_must_be_nonempty_t3():
    table = C("r4 r5 r6")
    assert not bf.is_legal_play(table, C("k1"), EMPTY)
    assert bf.legal_plays(table, EMPTY) == []
    assert bf.best_play(table, EMPTY) == (0, None)


def test_play_not_in_rack():
    assert not bf.is_legal_play(C("r4 r5 r6"), C("k1"), C("r7"))


def test_rearrangement_c7():
    # r6 must leave its run to join k6 b6: legal only because the table is free to rearrange.
    table = C("r3 r4 r5 r6")
    rack = C("k6 b6")
    assert bf.is_legal_play(table, rack, rack)
    assert not bf.is_legal_play(table, rack, C("k6"))
    assert not bf.is_legal_play(table, rack, rack, opened=False, threshold=0)


def test_peer_example_joker_joins_a_group():
    table = C("o10 b10 r10 o7 k7 b7")
    rack = C("J")
    assert bf.legal_plays(table, rack) == [P("J")]
    assert bf.legal_mask(table, rack).tolist() == [i == 52 for i in range(53)]


def test_free_joker_retrieval_t6():
    table = C("r5 J r7")  # free joker (tile edition)
    rack = C("r6 k9 b9")
    assert bf.is_legal_play(table, rack, C("r6 k9 b9")), "r5 r6 r7 + k9 b9 J"
    assert bf.is_legal_play(table, rack, C("r6")), "r5 r6 r7 + J as r4 or r8"
    assert not bf.is_legal_play(table, rack, C("k9 b9")), "the joker cannot be in two places"


def test_fixed_joker_retrieval_k5():
    # table k1 k2 J3 (fixed to 3). k3 frees it but it may only become a 3.
    table = C("k1 k2")
    fixed = F([3])
    assert bf.is_legal_play(table, C("k3 b5 o5"), C("k3 b5 o5"), fixed=None) is False  # no joker at all
    assert bf.is_legal_play(C("k1 k2 J"), C("k3 b5 o5"), C("k3 b5 o5")), "free joker becomes a 5"
    assert not bf.is_legal_play(table, C("k3 b5 o5"), C("k3 b5 o5"), fixed=fixed), "J3 cannot be a 5"
    assert bf.is_legal_play(table, C("k3 b3 o3"), C("k3 b3 o3"), fixed=fixed), "J3 joins b3 o3"
    assert bf.is_legal_play(table, C("k4"), C("k4"), fixed=fixed), "k1 k2 J3 k4"
    # fixed joker at 7 cannot complete r4 r5 but completes k7 b7
    assert not bf.is_legal_play(EMPTY, C("r4 r5"), C("r4 r5"), fixed=F([7]))
    assert bf.is_legal_play(EMPTY, C("k7 b7"), C("k7 b7"), fixed=F([7]))
    assert bf.is_legal_play(EMPTY, C("r4 r5 J"), C("r4 r5 J"), fixed=None)


def test_fixed_and_free_jokers_together():
    # table: k7 b7 J7 (fixed) and r1 r2 J (free). Rack J: the new free joker joins anywhere.
    table = C("k7 b7 r1 r2 J")
    fixed = F([7])
    rack = C("J o9")
    plays = bf.legal_plays(table, rack, fixed=fixed)
    assert P("J") in plays
    assert P("J o9") not in plays  # o9 needs two more 9s or o8/o10


def test_legal_plays_listing():
    table = C("r5 r6 r7")
    rack = C("r4 r8 J k1")
    got = bf.legal_plays(table, rack)
    assert got == sorted([P("r4"), P("r8"), P("J"), P("r4 r8"), P("r4 J"), P("r8 J"), P("r4 r8 J")])


def test_best_play_objectives():
    table = C("r5 r6 r7")
    rack = C("r4 r8 J k1")
    assert bf.best_play(table, rack) == (3, P("r4 r8 J"))
    assert bf.best_play(table, rack, objective="points") == (42, P("r4 r8 J"))
    assert bf.best_play(table, rack, objective="points", joker_penalty=25) == (37, P("r4 r8 J"))
    # with staged k1 nothing is legal
    assert bf.best_play(table, rack, staged=C("k1")) == (0, None)
    with pytest.raises(ValueError):
        bf.best_play(table, rack, objective="nonsense")


def test_best_play_points_vs_tiles():
    # Before opening, rack r1 r2 r3 k10 b10 o10 r10 k13 b13 o13: tiles objective takes all
    # 10 (6 + 40 + 39); points objective too. With threshold 100 nothing is legal.
    rack = C("r1 r2 r3 k10 b10 o10 r10 k13 b13 o13")
    assert bf.best_play(EMPTY, rack, opened=False, threshold=40)[0] == 10
    assert bf.best_play(EMPTY, rack, opened=False, threshold=40, objective="points")[0] == 85
    assert bf.best_play(EMPTY, rack, opened=False, threshold=100) == (0, None)
    # tiles vs points differ: table k1 k2 k3; rack k4 k12 b12 o12 r12 ... use a simpler one:
    table = C("b3 b4 b5")
    rack = C("b2 b6 k13 o13 r13 o12")  # {b2 b6} 2 tiles 8 points vs {k13 o13 r13} 3 tiles 39
    assert bf.best_play(table, rack)[0] == 5
    assert bf.best_play(table, rack, objective="points")[0] == 47


def test_legal_mask():
    table = C("o10 b10 r10 o7 k7 b7")
    rack = C("J k10 k2")
    mask = bf.legal_mask(table, rack)
    assert mask[52] and mask[bf.tile_index("k10")] and not mask[bf.tile_index("k2")]
    assert mask.sum() == 2
    staged = C("J")
    mask = bf.legal_mask(table, rack, staged)
    assert not mask[52], "no second joker in the rack"
    assert mask[bf.tile_index("k10")] and mask.sum() == 1
    assert not bf.legal_mask(table, rack, C("k2")).any(), "staged k2 can never be placed"
    # before opening
    rack = C("r10 r11 r12 k1")
    mask = bf.legal_mask(EMPTY, rack, opened=False, threshold=30)
    assert mask.tolist() == [bf.tile_name(i) in ("r10", "r11", "r12") for i in range(53)]
    assert not bf.legal_mask(EMPTY, rack, opened=False, threshold=40).any()
    # a staged play that is already complete still marks extensions only if they stay legal
    table = C("r5 r6 r7")
    rack = C("r8 r8")
    mask = bf.legal_mask(table, rack, C("r8"))
    assert not mask.any(), "a second r8 cannot go anywhere"


def test_bad_inputs():
    with pytest.raises(ValueError):
        bf.legal_plays(EMPTY, C("r1"), C("r2"))
    with pytest.raises(ValueError):
        bf.partitionable(np.zeros(52, dtype=int))


# --------------------------------------------------------------------------------------
# consistency on generated positions, and the generator's own invariants
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("kw", [{}, {"jokers_in_play": 4, "fixed_jokers": True}])
def test_generated_positions(kw):
    positions = ps.random_positions(3, 60, **kw)
    again = ps.random_positions(3, 60, **kw)
    max_jokers = kw.get("jokers_in_play", 2)
    with_play = 0
    for pos, pos2 in zip(positions, again, strict=True):
        for key in ("table", "rack", "staged", "fixed"):
            assert (pos[key] == pos2[key]).all(), "same seed, same positions"
        table, rack, staged, fixed = pos["table"], pos["rack"], pos["staged"], pos["fixed"]
        desc = ps.describe(pos)
        assert table.shape == rack.shape == staged.shape == (53,) and fixed.shape == (14,)
        assert ((table + rack)[:52] <= 2).all(), desc
        assert int(table[52] + rack[52] + fixed.sum()) <= max_jokers, desc
        assert (staged <= rack).all() and (staged >= 0).all(), desc
        assert fixed[0] == 0 and (fixed.sum() == 0 or kw.get("fixed_jokers")), desc
        assert bf.partitionable(table, fixed), f"the table must be valid: {desc}"
        assert pos["threshold"] in (30, 40)
        args = (table, rack, staged, fixed, pos["opened"], pos["threshold"])
        plays = bf.legal_plays(*args)
        with_play += bool(plays)
        mask = bf.legal_mask(*args)
        derived = np.zeros(53, dtype=bool)
        for p in plays:
            assert bf.is_legal_play(table, rack, p, fixed, pos["opened"], pos["threshold"]), desc
            assert all(s <= x <= r for s, x, r in zip(staged, p, rack, strict=True))
            derived |= np.array(p) > staged
        assert (mask == derived).all(), desc
        value, best = bf.best_play(*args)
        assert value == max((sum(p) for p in plays), default=0)
        assert (best is None) == (not plays)
    assert 0.3 <= with_play / len(positions) <= 0.9
