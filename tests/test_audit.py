"""The rule book's auditor (rummienv.audit) finds what it must: positions and moves broken by hand, each one rule
at a time, are named by that rule's id, and positions of real play pass clean. An auditor that passes
everything would make a soak of any length worthless."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from rummienv import replay
from rummienv.audit import Broken, audit_game, audit_position, audit_step, main, meld_ranks, set_numbers
from rummienv.games import make_game


def deal(game: str, players: int = 2, seed: int = 0) -> dict:
    return make_game(game, players).new_initial_state(seed).to_dict()


def finished(game: str, players: int = 2, seed: int = 0) -> dict:
    state = make_game(game, players).new_initial_state(seed)
    state.play_uniform(np.random.default_rng(seed), np.ones(players, dtype=bool))
    return state.to_dict()


def lay(position: dict, pieces: list[str], kind: str | None = None) -> dict:
    """``position`` with ``pieces`` taken from the pool (else a rack) and laid as one table set, by hand."""
    position = copy.deepcopy(position)
    for piece in pieces:
        source = next(place for place in (position["pool"], *position["racks"]) if piece in place)
        source.remove(piece)
    position["table"].append({kind: pieces} if kind else pieces)
    position["opened"][0], position["plays"][0] = True, 1
    return position


def ids(problems: list[str]) -> set[str]:
    return {p.split(":")[0] for p in problems}


@pytest.mark.parametrize(("kind", "pieces", "numbers"), [
    ("run", ["r11", "r12", "J"], [11, 12, 13]),
    ("run", ["J", "r2", "r3"], [1, 2, 3]),
    ("run", ["r5", "J", "r7"], [5, 6, 7]),
    ("group", ["k5", "b5", "J"], [5, 5, 5]),
    ("group", ["k5", "b5", "o5", "J"], [5, 5, 5, 5]),
    ("run", ["J", "r4", "J"], [3, 4, 5]),
])
def test_valid_sets_read_as_the_book_says(kind, pieces, numbers):
    assert set_numbers(kind, pieces) == numbers


@pytest.mark.parametrize(("kind", "pieces", "rule"), [
    ("run", ["r12", "r13", "r1"], "C3"),  # no wrapping round
    ("run", ["J", "r1", "r2"], "C3/C4"),  # a joker below 1
    ("run", ["r12", "r13", "J"], "C3/C4"),  # a joker above 13
    ("run", ["r5", "b6", "r7"], "C3"),
    ("run", ["r7", "r6", "r5"], "C3"),  # low to high only
    ("group", ["k5", "k5", "b5"], "C2"),  # a colour twice
    ("group", ["k5", "b5", "o5", "r5", "J"], "C2"),  # five pieces
    ("group", ["k5", "b6", "o5"], "C2"),
    ("group", ["J", "J", "J"], "C4"),
    ("run", ["r5", "r6"], "C2/C3"),
])
def test_broken_sets_are_named_by_their_rule(kind, pieces, rule):
    with pytest.raises(Broken, match=f"^{rule}:"):
        set_numbers(kind, pieces)


@pytest.mark.parametrize(("kind", "cards", "ranks"), [
    ("run", ["AS", "2S", "3S"], [1, 2, 3]),
    ("run", ["QS", "KS", "AS"], [12, 13, 14]),
    ("group", ["7S", "7H", "7C"], [7, 7, 7]),
])
def test_valid_melds(kind, cards, ranks):
    assert meld_ranks(kind, cards) == ranks


@pytest.mark.parametrize(("kind", "cards"), [
    ("run", ["KS", "AS", "2S"]),  # never round the corner
    ("run", ["2S", "3H", "4S"]),
    ("run", ["2S", "4S", "5S"]),
    ("group", ["7S", "7H", "8C"]),
    ("group", ["7S", "7H"]),
])
def test_broken_melds_break_F5(kind, cards):
    with pytest.raises(Broken, match="^F5:"):
        meld_ranks(kind, cards)


@pytest.mark.parametrize("game", ["rummikub", "rummikub_cards", "rummy500"])
@pytest.mark.parametrize("players", [2, 4])
def test_real_play_is_clean(game, players):
    """Deals and random games played to their end break no rule, whole games included."""
    assert audit_position(deal(game, players)) == []
    assert audit_position(finished(game, players, seed=players)) == []
    state = make_game(game, players, whole_game=True).new_initial_state(5)
    state.play_uniform(np.random.default_rng(5), np.ones(players, dtype=bool))
    record = replay.record(state, ["random"] * players)
    assert audit_game(s.to_dict() for s in replay.states(record)) == []


def test_a_broken_table_set_is_caught():
    good = lay(deal("rummikub"), ["J", "r12", "r13"])
    assert audit_position(good) == []
    assert ids(audit_position(lay(deal("rummikub"), ["r12", "r13", "r1"], "run"))) == {"C3"}
    assert ids(audit_position(lay(deal("rummikub"), ["k5", "k5", "b5"], "group"))) == {"C2"}


def test_a_lost_or_doubled_piece_is_caught():
    lost = deal("rummikub")
    gone = lost["pool"].pop()
    problems = audit_position(lost)
    assert ids(problems) == {"T1/K1"} and gone in problems[0]
    doubled = deal("rummikub_cards")
    doubled["racks"][1].append(doubled["racks"][0][0])
    assert ids(audit_position(doubled)) == {"T1/K1"}
    cards = deal("rummy500")
    cards["discard"].append(cards["stock"][0])
    assert ids(audit_position(cards)) == {"F1"}


def test_staged_pieces_must_be_in_the_movers_rack():
    position = deal("rummikub")
    other = position["racks"][1 - position["current_player"]]
    position["staged"] = [p for p in other if p not in position["racks"][position["current_player"]]][:1]
    assert ids(audit_position(position)) == {"T3"}


def test_a_wrong_rummikub_score_is_caught():
    position = finished("rummikub")
    assert audit_position(position) == []
    position["round_scores"] = [str(int(position["round_scores"][0]) + 1), position["round_scores"][1]]
    assert {"T9/K7", "T10/K7", "T9/T10"} & ids(audit_position(position))


def test_the_joker_penalty_is_the_editions():
    """T9 counts a joker left on a rack 30, K7 25: the same finished round scores differently in each edition."""
    for game, penalty in (("rummikub", 30), ("rummikub_cards", 25)):
        position = deal(game)
        position["pool"] += position["racks"][0] + position["racks"][1]
        for piece in ("J", "r5"):
            position["pool"].remove(piece)
        position.update(racks=[[], ["J", "r5"]], over=True)
        scores = [str(penalty + 5), str(-penalty - 5)]
        position.update(round_scores=scores, totals=scores)
        assert audit_position(position) == [], game
        position.update(round_scores=["35", "-35"], totals=["35", "-35"])
        assert ids(audit_position(position)) == ({"T9/K7"} if penalty != 30 else set()), game


def test_a_wrong_rummy500_score_is_caught():
    position = finished("rummy500")
    assert audit_position(position) == []
    position["scores"][1] += 1
    assert ids(audit_position(position)) == {"F11"}


def test_an_ace_counts_one_low_in_a_run_and_15_elsewhere():
    """F4 in F11: seat 0 laid A-2-3 of spades (1 + 2 + 3), seat 1 three aces (45) and holds a king (10)."""
    position = finished("rummy500")
    laid = ["AS", "2S", "3S", "AH", "AD", "AC", "KS"]
    position.update(melds=[{"kind": "run", "cards": laid[:3], "owners": [0, 0, 0]},
                           {"kind": "group", "cards": laid[3:6], "owners": [1, 1, 1]}],
                    hands=[[], ["KS"]], discard=[], known=[[], []], scores=[6, 35],
                    stock=[r + s for s in "SHDC" for r in "A23456789TJQK" if r + s not in laid])
    assert audit_position(position) == []
    position["scores"] = [48, 35]  # the ace at 15
    assert ids(audit_position(position)) == {"F11"}


def test_a_piece_leaving_the_table_is_caught():
    before = lay(deal("rummikub"), ["r11", "r12", "r13"])
    after = copy.deepcopy(before)
    after["table"] = []
    after["racks"][0] += ["r11", "r12", "r13"]
    assert ids(audit_step(before, after)) == {"C6"}


def test_an_opening_under_the_threshold_is_caught():
    before = deal("rummikub")
    seat = before["current_player"]
    before["racks"][seat] += ["r1", "r2", "r3"]
    before["pool"] = [p for p in before["pool"] if p not in ("r1", "r2", "r3")] + [
        p for p in ("r1", "r2", "r3") if p not in before["pool"]]
    before["staged"] = ["r1", "r2", "r3"]
    after = copy.deepcopy(before)
    for piece in before["staged"]:
        after["racks"][seat].remove(piece)
    after.update(table=[["r1", "r2", "r3"]], staged=[], current_player=1 - seat)
    after["opened"][seat], after["plays"][seat] = True, 1
    assert ids(audit_step(before, after)) == {"T4/K3"}


def test_a_card_edition_joker_changing_its_number_is_caught():
    before = lay(deal("rummikub_cards"), ["r5", "r6", "r7", "J"], "run")
    moved = lay(deal("rummikub_cards"), ["r5", "r6", "r7"], "run")
    after = lay(moved, ["k9", "b9", "J"], "group")  # the joker stood for 8
    assert audit_position(after) == []
    assert ids(audit_step(before, after)) == {"K5"}
    eight = lay(lay(deal("rummikub_cards"), ["r5", "r6", "r7"], "run"), ["k8", "b8", "J"], "group")
    assert "K5" not in ids(audit_step(before, eight))
    tile = lay(deal("rummikub"), ["k9", "b9", "J"], "group")
    assert "K5" not in ids(audit_step(lay(deal("rummikub"), ["r5", "r6", "r7", "J"], "run"), tile))


def test_a_rearranged_meld_is_caught():
    before = finished("rummy500")
    after = copy.deepcopy(before)
    first = after["melds"][0]
    first["owners"] = [1 - o for o in first["owners"]]
    before["phase"] = after["phase"] = "discard"
    assert ids(audit_step(before, after)) == {"F7"}
    after["melds"] = after["melds"][1:]
    assert "F7" in ids(audit_step(before, after))


def test_the_command_audits_replay_files(tmp_path, capsys):
    state = make_game("rummy500", 2).new_initial_state(1)
    state.play_uniform(np.random.default_rng(1), np.ones(2, dtype=bool))
    path = replay.write(tmp_path / "game.json", state, ["random", "random"])
    assert main([str(path)]) == 0
    assert "0 problems" in capsys.readouterr().out
