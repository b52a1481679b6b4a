"""Rummy 500 rules F1-F13 (docs/RULES.md), each on scripted positions, plus bad input."""

from __future__ import annotations

import numpy as np
import pytest

from rummienv.cards import CARD_STRINGS, CARD_VALUES, card_to_str, parse_card, parse_cards
from rummienv.errors import IllegalActionError, NotationError, PositionError, RulesError
from rummienv.rules import Rummy500Rules
from rummienv.rummy500 import NUM_ACTIONS, Rummy500Game, load_state, string_to_action
from rummienv.rummy500.actions import MELD_CARDS, MELD_KIND, RUN


def position(hands, melds=(), discard="", stock=None, phase="draw", current=0, **extra):
    """A position dict; cards not placed anywhere else make up the stock (in pack order)."""
    hands = [h.split() for h in hands]
    melds = [{"kind": kind, "cards": cards.split(), "owners": list(owners)} for kind, cards, owners in melds]
    discard = discard.split()
    placed = {c for h in hands for c in h} | {c for m in melds for c in m["cards"]} | set(discard)
    if stock is None:
        stock = [c for c in CARD_STRINGS if c not in placed]
    pos = {
        "game": "rummy500",
        "hands": hands,
        "melds": melds,
        "stock": stock,
        "discard": discard,
        "current_player": current,
        "dealer": (current - 1) % len(hands),
        "phase": phase,
    }
    pos.update(extra)
    return pos


def rest_of_pack(*used: str) -> list[str]:
    taken = {c for group in used for c in group.split()}
    return [c for c in CARD_STRINGS if c not in taken]


def legal(state) -> set[str]:
    return {state.action_to_string(a) for a in state.legal_actions()}


def play(state, *texts: str) -> None:
    for text in texts:
        state.apply_action(string_to_action(text))


# --------------------------------------------------------------------------- F1
def test_F1_one_pack_notation_and_two_to_four_players():
    assert len(set(CARD_STRINGS)) == 52
    assert all(parse_card(card_to_str(c)) == c for c in range(52))
    assert parse_card("AS") == 0 and parse_card("KC") == 51
    assert parse_card("10H") == parse_card("TH") == 13 + 9
    assert parse_cards("qd 2c") == [2 * 13 + 11, 3 * 13 + 1]
    for players in (2, 3, 4):
        assert Rummy500Game(num_players=players).new_initial_state(0).num_players == players
    for players in (1, 5):
        with pytest.raises(RulesError, match="2-4 players"):
            Rummy500Game(num_players=players)


# --------------------------------------------------------------------------- F2
@pytest.mark.parametrize("players,size", [(2, 13), (3, 7), (4, 7)])
def test_F2_deal_upcard_stock_and_first_player(players, size):
    dealers = set()
    for seed in range(20):
        pos = Rummy500Game(num_players=players).new_initial_state(seed).to_dict()
        assert [len(h) for h in pos["hands"]] == [size] * players
        assert len(pos["discard"]) == 1
        assert len(pos["stock"]) == 52 - players * size - 1
        assert pos["current_player"] == (pos["dealer"] + 1) % players
        dealers.add(pos["dealer"])
    assert dealers == set(range(players))  # the first dealer is random


def test_F2_deal_passes_left_in_a_whole_game():
    pos = position(["7S 7H 7D", "2C 9D"], phase="discard", dealer=1, rules={"whole_game": True})
    state = load_state(pos)
    play(state, "MELD 7S 7H 7D")  # seat 0 goes out; nobody is near 500: next hand
    new = state.to_dict()
    assert new["dealer"] == 0 and new["current_player"] == 1 and new["hand_number"] == 1
    assert [len(h) for h in new["hands"]] == [13, 13] and new["melds"] == []


# --------------------------------------------------------------------------- F3
def test_F3_discard_pile_is_spread_for_every_seat():
    pos = position(["2S 3S", "4S 5S"], discard="9C KD 3H")
    state = load_state(pos)
    for seat in range(2):
        assert state.view(seat)["discard"] == ["9C", "KD", "3H"]
        obs = state.observation(seat)
        pile = obs[state.observation_layout["discard"]]
        depth = {c: pile[parse_card(c)] for c in ("9C", "KD", "3H")}
        assert depth["3H"] == 1.0 and depth["KD"] == pytest.approx(1 - 1 / 52)
        assert depth["9C"] == pytest.approx(1 - 2 / 52)


# --------------------------------------------------------------------------- F4
def test_F4_card_values():
    values = dict(zip(CARD_STRINGS, CARD_VALUES, strict=True))
    assert [values[c] for c in "2H 9H TH JH QH KH AH".split()] == [2, 9, 10, 10, 10, 10, 15]


@pytest.mark.parametrize(
    "meld,table_value",
    [
        ("AS 2S 3S", 1 + 2 + 3),  # ace low in a run: 1
        ("QS KS AS", 10 + 10 + 15),  # ace high in a run: 15
        ("AS AH AD", 45),  # ace in a group: 15
    ],
)
def test_F4_ace_is_1_only_low_in_a_run(meld, table_value):
    state = load_state(position([meld + " AC", "5C 6C"], phase="discard"))
    play(state, "MELD " + meld)
    # Seat 0 holds the ace of clubs (15 in hand); seat 1 holds 11 points.
    assert state.hand_points().tolist() == [table_value - 15, -11]


# --------------------------------------------------------------------------- F5
def test_F5_meld_table_has_every_group_and_run_once():
    kinds = np.bincount(MELD_KIND)
    assert kinds.tolist() == [13 * 5, 4 * 76]
    assert len({frozenset(cards) for cards in MELD_CARDS}) == len(MELD_CARDS)
    runs = {
        frozenset(CARD_STRINGS[c] for c in cards) for cards, k in zip(MELD_CARDS, MELD_KIND, strict=True) if k == RUN
    }
    assert frozenset("QS KS AS".split()) in runs and frozenset("AS 2S 3S".split()) in runs
    assert frozenset("KS AS 2S".split()) not in runs


def test_F5_no_run_around_the_corner():
    state = load_state(position(["KS AS 2S 9D", "5C 6C"], phase="discard"))
    assert not any(text.startswith("MELD") for text in legal(state))
    with pytest.raises(NotationError, match="not a group or run"):
        string_to_action("MELD KS AS 2S")
    state = load_state(position(["QS KS AS 2S 3S", "5C 6C"], phase="discard"))
    assert {t for t in legal(state) if t.startswith("MELD")} == {"MELD QS KS AS", "MELD AS 2S 3S"}


def test_F5_groups_of_three_and_four():
    state = load_state(position(["7S 7H 7D 7C", "5C 6C"], phase="discard"))
    melds = {t for t in legal(state) if t.startswith("MELD")}
    assert melds == {"MELD 7S 7H 7D", "MELD 7S 7H 7C", "MELD 7S 7D 7C", "MELD 7H 7D 7C", "MELD 7S 7H 7D 7C"}


# --------------------------------------------------------------------------- F6
def test_F6_take_a_card_and_all_above_it_then_use_it():
    pos = position(["9H 9D 2C", "4C 5C"], discard="9S 5H KD")
    state = load_state(pos)
    assert "TAKE 9S" in legal(state)
    assert "TAKE 5H" not in legal(state) and "TAKE KD" not in legal(state)  # no use for them
    play(state, "TAKE 9S")
    after = state.to_dict()
    assert after["discard"] == [] and sorted(after["hands"][0]) == sorted("9H 9D 2C 9S 5H KD".split())
    assert state.phase == "meld" and after["must_use"] == "9S"
    assert not any(t.startswith("DISCARD") for t in legal(state))  # F8: 9S is owed first
    play(state, "MELD 9S 9H 9D")
    assert state.phase == "discard" and "DISCARD 5H" in legal(state) and "DISCARD KD" in legal(state)


def test_F6_the_top_card_must_be_used_too_unless_free_top_discard():
    pos = position(["2C 9D", "4C 5C"], discard="3H KD")
    assert "TAKE KD" not in legal(load_state(pos))
    state = load_state({**pos, "rules": {"free_top_discard": True}})
    assert "TAKE KD" in legal(state) and "TAKE 3H" not in legal(state)
    play(state, "TAKE KD")
    assert state.phase == "discard" and "DISCARD KD" in legal(state)


def test_F6_taken_card_may_be_used_on_a_table_meld_through_a_chain():
    pos = position(["8S 8H 8D 2C", "4C 5C"], melds=[("run", "5S 6S 7S", [1, 1, 1])], discard="9S")
    state = load_state(pos)
    assert "TAKE 9S" in legal(state)  # lay off 8S, then 9S
    play(state, "TAKE 9S")
    moves = legal(state)
    assert "LAYOFF 8S RUN" in moves and "LAYOFF 9S RUN" not in moves
    assert "MELD 8S 8H 8D" not in moves  # it would strand 9S
    play(state, "LAYOFF 8S RUN", "LAYOFF 9S RUN")
    assert state.phase == "discard"
    assert state.to_dict()["melds"][0] == {"kind": "run", "cards": "5S 6S 7S 8S 9S".split(), "owners": [1, 1, 1, 0, 0]}


def test_F6_cards_taken_are_known_to_everyone_until_played():
    pos = position(["9H 9D 2C", "4C 5C"], discard="9S 5H")
    state = load_state(pos)
    play(state, "TAKE 9S")
    assert sorted(state.view(1)["known"][0]) == ["5H", "9S"]
    play(state, "MELD 9S 9H 9D", "DISCARD 2C")
    assert state.view(1)["known"][0] == ["5H"]
    obs = state.observation(1)
    assert obs[state.observation_layout["known"]][parse_card("5H")] == 1.0


# --------------------------------------------------------------------------- F7
def test_F7_lay_off_on_any_meld_and_the_card_counts_for_the_layer():
    melds = [("group", "7H 7D 7C", [1, 1, 1]), ("run", "4S 5S 6S", [1, 1, 1])]
    state = load_state(position(["7S 3S 9D", "KC QC"], melds=melds, phase="discard"))
    moves = legal(state)
    assert {"LAYOFF 7S GROUP", "LAYOFF 7S RUN", "LAYOFF 3S RUN"} <= moves  # the player chooses
    play(state, "LAYOFF 7S GROUP", "LAYOFF 3S RUN")
    pos = state.to_dict()
    assert pos["melds"][0] == {"kind": "group", "cards": "7S 7H 7D 7C".split(), "owners": [0, 1, 1, 1]}
    assert pos["melds"][1]["cards"] == "3S 4S 5S 6S".split()
    assert state.hand_points().tolist() == [7 + 3 - 9, 21 + 15 - 20]


def test_F7_never_past_an_ace():
    melds = [("run", "QS KS AS", [1, 1, 1]), ("run", "AH 2H 3H", [1, 1, 1])]
    state = load_state(position(["JS 4H 2S KH", "5C 6C"], melds=melds, phase="discard"))
    moves = {t for t in legal(state) if t.startswith("LAYOFF")}
    assert moves == {"LAYOFF JS RUN", "LAYOFF 4H RUN"}


def test_F7_card_between_two_runs_and_ace_after_king():
    melds = [
        ("run", "3S 4S 5S", [1, 1, 1]),
        ("run", "7S 8S 9S", [1, 1, 1]),
        ("run", "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH", [1] * 12),
    ]
    state = load_state(position(["6S AH 9D", "5C 6C"], melds=melds, phase="discard"))
    play(state, "LAYOFF 6S RUN", "LAYOFF AH RUN")
    pos = state.to_dict()
    assert pos["melds"][0]["cards"] == "3S 4S 5S 6S".split()  # the run below takes it
    assert pos["melds"][2]["cards"][-1] == "AH"  # high end: 15 for the layer, not 1
    assert state.hand_points()[0] == 6 + 15 - 9


# --------------------------------------------------------------------------- F8
def test_F8_discard_ends_the_turn():
    state = load_state(position(["2S 9D", "4C 5C"], phase="discard"))
    play(state, "DISCARD 9D")
    assert state.current_player == 1 and state.phase == "draw"
    assert state.to_dict()["discard"][-1] == "9D"


def test_F8_the_taken_card_cannot_be_discarded():
    state = load_state(position(["9H 9D 2C", "4C 5C"], discard="9S"))
    play(state, "TAKE 9S")
    with pytest.raises(IllegalActionError, match="DISCARD 9S.*phase 'meld'.*must be melded or laid off"):
        play(state, "DISCARD 9S")


# --------------------------------------------------------------------------- F9
def test_F9_going_out_by_melding_everything():
    state = load_state(position(["7S 7H 7D", "KC QC"], phase="discard"))
    play(state, "MELD 7S 7H 7D")
    assert state.is_terminal() and state.current_player == -1 and state.phase == "over"
    assert state.scores().tolist() == [21, -20]
    assert state.legal_actions() == []


def test_F9_going_out_by_discarding_the_last_card():
    state = load_state(position(["9D", "KC QC"], phase="discard"))
    play(state, "DISCARD 9D")
    assert state.is_terminal() and state.scores().tolist() == [0, -20]


# -------------------------------------------------------------------------- F10
def test_F10_empty_stock_take_from_the_pile_or_end_the_hand():
    hands = ["9H 9D 2C", "4C 5C"]
    pile = " ".join(rest_of_pack(*hands, "9S")) + " 9S"
    state = load_state(position(hands, discard=pile, stock=[]))
    assert {"TAKE 9S", "END_HAND"} <= legal(state) and "DRAW_STOCK" not in legal(state)
    play(state, "END_HAND")
    assert state.is_terminal() and state.scores().tolist() == [-(9 + 9 + 2), -9]


# -------------------------------------------------------------------------- F11
def test_F11_table_minus_hand_87_minus_90_is_minus_3():
    melds = [
        ("group", "KS KH KD KC", [0] * 4),
        ("run", "2D 3D 4D 5D 6D", [0] * 5),
        ("group", "9S 9H 9C", [0] * 3),
    ]
    hand = "QS QH QD JS JH JD TS TH TD"  # 90
    rest = rest_of_pack(hand, "KS KH KD KC 2D 3D 4D 5D 6D 9S 9H 9C", "2S")
    state = load_state(position([hand, "2S"], melds=melds, discard=" ".join(rest), stock=[], scores=[10, 0]))
    play(state, "END_HAND")
    assert state.scores().tolist() == [87 - 90, -2]
    assert state.to_dict()["scores"] == [10 - 3, -2]  # added to the running total


def test_F11_ace_in_hand_counts_15_against_the_holder():
    state = load_state(position(["AS 2H", "4C 5C"], phase="discard"))
    assert state.hand_points().tolist() == [-17, -9]


def test_F11_laid_off_ace_low_counts_1():
    melds = [("run", "2S 3S 4S", [1, 1, 1])]
    state = load_state(position(["AS 9D", "4C 5C"], melds=melds, phase="discard"))
    play(state, "LAYOFF AS RUN")
    assert state.hand_points().tolist() == [1 - 9, 9 - 9]


# -------------------------------------------------------------------------- F12
def whole_game(hands, scores, **extra):
    return position(hands, phase="discard", scores=scores, rules={"whole_game": True, "target_score": 500}, **extra)


def test_F12_game_ends_when_a_total_reaches_500_and_winner_collects_differences():
    state = load_state(whole_game(["7S 7H 7D", "KC QC", "2D"], [480, 300, 100]))
    play(state, "MELD 7S 7H 7D")
    assert state.is_terminal()
    assert state.totals.tolist() == [501, 280, 98]
    assert state.scores().tolist() == [(501 - 280) + (501 - 98), -(501 - 280), -(501 - 98)]


def test_F12_highest_total_wins_when_several_reach_500():
    state = load_state(whole_game(["7S 7H 7D", "2D"], [480, 505]))
    play(state, "MELD 7S 7H 7D")
    assert state.is_terminal() and state.totals.tolist() == [501, 503]
    assert state.scores().tolist() == [-2, 2]


def test_F12_exact_tie_at_the_top_plays_one_more_hand():
    state = load_state(whole_game(["7S 7H 7D", "2D"], [480, 503]))
    play(state, "MELD 7S 7H 7D")
    assert not state.is_terminal() and state.totals.tolist() == [501, 501]
    assert state.to_dict()["hand_number"] == 1 and state.phase == "draw"
    assert state.scores().tolist() == [0, 0]  # nothing is paid before the end


def test_F12_one_hand_is_the_default_episode():
    state = load_state(position(["7S 7H 7D", "2D"], phase="discard", scores=[480, 0]))
    play(state, "MELD 7S 7H 7D")
    assert state.is_terminal() and state.scores().tolist() == [21, -2]


# -------------------------------------------------------------------------- F13
def test_F13_no_turn_time_limit():
    assert not any("time" in field or "second" in field for field in Rummy500Rules.__dataclass_fields__)
    state = Rummy500Game().new_initial_state(3)
    names = {state.action_to_string(a).split()[0] for a in range(NUM_ACTIONS)}
    assert names == {"DRAW_STOCK", "TAKE", "MELD", "LAYOFF", "DISCARD", "END_HAND"}


# ---------------------------------------------------------------------- bad input
@pytest.mark.parametrize("token", ["1S", "AX", "11H", "", "A", "ASS", 7])
def test_bad_card_notation_names_the_token_and_the_allowed_forms(token):
    with pytest.raises(NotationError) as info:
        parse_card(token)
    assert repr(token) in str(info.value) and "allowed" in str(info.value)


@pytest.mark.parametrize("text", ["DRAW", "TAKE", "TAKE 1S", "LAYOFF 7S SET", "MELD 7S 7H", "DISCARD 7S 7H", ""])
def test_unknown_action_strings_are_refused_clearly(text):
    with pytest.raises(NotationError, match="action"):
        string_to_action(text)


def test_action_strings_round_trip_and_accept_free_forms():
    state = Rummy500Game().new_initial_state(0)
    for a in range(NUM_ACTIONS):
        assert state.string_to_action(state.action_to_string(a)) == a
    assert string_to_action("meld 3s as 2s") == string_to_action("MELD AS 2S 3S")
    assert string_to_action("take 10h") == string_to_action("TAKE TH")


BASE = position(["2S 3S", "4S 5S"], discard="9C")


@pytest.mark.parametrize(
    "change,message",
    [
        ({"hands": [["2S", "3S"], ["4S", "2S"]]}, "2S is in two places: hands\\[0\\] and hands\\[1\\]"),
        ({"stock": BASE["stock"][1:]}, "51 cards, a pack has 52.*missing: " + BASE["stock"][0]),
        ({"hands": [["2S", "3X"], ["4S", "5S"]]}, "hands\\[0\\]\\[1\\].*'3X'"),
        ({"phase": "play"}, "phase must be one of"),
        ({"phase": "meld"}, "must_use"),
        ({"must_use": "2S"}, "owes no card"),
        ({"current_player": 2}, "current_player must be a whole number in 0..1"),
        ({"colour": 1}, "unknown \\['colour'\\]"),
        ({"game": "rummikub"}, "not 'rummy500'"),
        ({"hands": [["2S", "3S"], []], "discard": ["9C", "4S", "5S"]}, "seat 1 is empty.*F9"),
        ({"known": [["4S"], []]}, "known\\[0\\]: 4S is not in hands\\[0\\]"),
        ({"rules": {"free_top": True}}, "unknown rules field 'free_top'"),
    ],
)
def test_bad_positions_name_what_is_wrong(change, message):
    with pytest.raises((PositionError, RulesError), match=message):
        load_state({**BASE, **change})


def test_a_position_of_hands_alone_fills_in_the_rest_as_documented():
    """Like a Rummikub position, a Rummy 500 one needs only its hands: no melds, an empty pile, the other
    cards as the stock in pack order, seat 0 to draw, the seat before it dealing (F2)."""
    state = load_state({"game": "rummy500", "hands": [["5C", "6C", "7C"], ["9H"], ["KD"]]})
    pos = state.to_dict()
    assert pos["melds"] == [] and pos["discard"] == [] and pos["phase"] == "draw"
    assert pos["current_player"] == 0 and pos["dealer"] == 2
    assert pos["stock"] == [c for c in CARD_STRINGS if c not in {"5C", "6C", "7C", "9H", "KD"}]
    assert load_state(pos).to_dict() == pos
    assert legal(state) == {"DRAW_STOCK"}


def _with_meld(kind, cards, owners):
    pos = position(["2S 3S", "4S 5S"], melds=[(kind, cards, owners)], discard="9C")
    return pos


@pytest.mark.parametrize(
    "kind,cards,owners,message",
    [
        ("run", "KD AD 2D", [0, 0, 0], "not a run written low to high"),
        ("run", "7D 8D 9C", [0, 0, 0], "different suits"),
        ("group", "7D 7C 8H", [0, 0, 0], "not a group"),
        ("group", "7D 7C", [0, 0], "at least 3"),
        ("run", "7D 8D 9D TD", [0, 1, 0, 1], "nobody melded it"),
        ("set", "7D 8D 9D", [0, 0, 0], "kind must be"),
        ("run", "7D 8D 9D", [0, 0], "one seat per card"),
    ],
)
def test_bad_melds_in_a_position_are_refused(kind, cards, owners, message):
    with pytest.raises(PositionError, match=message):
        load_state(_with_meld(kind, cards, owners))


def test_owed_card_must_be_usable_in_a_position():
    pos = position(["9S 2C 3D", "4C 5C"], phase="meld", must_use="9S")
    with pytest.raises(PositionError, match="must_use 9S cannot be melded or laid off"):
        load_state(pos)


def test_illegal_action_names_action_phase_and_reason():
    state = load_state(position(["9H 9D 2C", "4C 5C"], discard="9S KD", stock=rest_of_pack("9H 9D 2C 4C 5C 9S KD")))
    with pytest.raises(IllegalActionError, match="TAKE KD is not legal for seat 0 in phase 'draw'.*F6"):
        play(state, "TAKE KD")
    with pytest.raises(IllegalActionError, match="not an action index"):
        state.apply_action(NUM_ACTIONS)
    play(state, "DRAW_STOCK")
    with pytest.raises(IllegalActionError, match="already drawn"):
        play(state, "DRAW_STOCK")
    with pytest.raises(IllegalActionError, match="does not hold 7S"):
        play(state, "DISCARD 7S")
    with pytest.raises(IllegalActionError, match="no group of three on the table takes 2C"):
        play(state, "LAYOFF 2C GROUP")
