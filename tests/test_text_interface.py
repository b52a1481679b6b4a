"""The text interface: every legal action prints to a string that reads back as it, whole moves are legal turns,
and refused moves say why in one line and change nothing. (That a seat's text and moves hold no hidden
information is tested with the observations, in test_envs_leaks.py.)"""

from __future__ import annotations

import numpy as np
import pytest

import rummienv
from rummienv import games
from rummienv import text_interface as ti
from rummienv.errors import IllegalActionError, NotationError

POSITIONS = 2000  # per game: the count of random positions whose every legal action must round-trip
TABLES = {"rummikub": [(2, False), (4, False), (2, True)], "rummikub_cards": [(2, False), (3, True)],
          "rummy500": [(2, False), (4, False)]}  # (seats, whole-turn mode)


def random_positions(name: str, count: int, seed: int = 0):
    """``count`` states met in uniformly random legal play, over the game's table sizes and action modes."""
    rng = np.random.default_rng(seed)
    tables, deal, found = TABLES[name], 0, 0
    while found < count:
        players, whole = tables[deal % len(tables)]
        state = games.make_game(name, players, whole_turns=whole).new_initial_state(seed=seed + deal)
        deal += 1
        while not state.is_terminal() and found < count:
            yield state
            found += 1
            state.apply_action(int(rng.choice(state.legal_actions())))


@pytest.mark.parametrize("name", sorted(TABLES))
def test_every_legal_action_round_trips_through_its_string(name):
    actions = 0
    for state in random_positions(name, POSITIONS):
        for action in state.legal_actions():
            move = ti.action_text(state, action)
            assert ti.parse_move(state, move) == [action], (move, action)
            actions += 1
    assert actions > POSITIONS  # most positions offer several actions


@pytest.mark.parametrize("name", sorted(TABLES))
def test_listed_moves_are_legal_and_include_every_action(name):
    for state in random_positions(name, 150, seed=7):
        moves = ti.legal_moves(state)
        assert len(set(moves)) == len(moves)
        singles = {ti.action_text(state, a) for a in state.legal_actions()}
        assert singles <= set(moves)
        for move in moves:
            trial = state.clone()
            done = ti.apply_move(trial, move)
            assert done and (trial.is_terminal() or len(trial.history) == len(state.history) + len(done))


def test_whole_turns_lay_the_solvers_plays():
    """A Rummikub seat that can play is offered the most pieces, the most without its jokers and the most points,
    each as one move that commits at once, and each play once."""
    state = rummienv.load_state({"game": "rummikub", "racks": [["r3", "r4", "r5", "k7", "b7", "o7", "J"], ["k1"]],
                                 "opened": [True, True], "table": [["k10", "k11", "k12"]]})
    moves = ti.legal_moves(state)
    assert moves[0] == "play k7 b7 o7 r3 r4 r5 J"  # the most pieces, the joker included
    assert moves[1] == "play k7 b7 o7 r3 r4 r5"  # the most without spending the joker
    before = state.clone()
    ti.apply_move(state, moves[0])
    assert state.current_player == -1 and before.current_player == 0  # seat 0 went out
    state = rummienv.load_state({"game": "rummikub", "opened": [True, True], "table": [],
                                 "racks": [["b6", "b7", "b8", "b11", "b12", "b13", "k13", "o13", "r5"], ["k1"]]})
    moves = ti.legal_moves(state)  # six pieces either way; the 13s shed 60 points, the two blue runs 57
    assert moves[:3] == ["play b6 b7 b8 b11 b12 b13", "play k13 b6 b7 b8 b13 o13", "place k13"]


def test_a_move_is_a_turn_of_steps():
    state = rummienv.load_state({"game": "rummikub_cards", "racks": [["r8", "k2", "k3", "k4"], ["k1"]],
                                 "opened": [True, True], "table": [["r5", "r6", "r7", "J"]]})
    actions = ti.parse_move(state, "swap r8; play k2 k3 k4")  # the freed joker is staged: it goes down with them
    assert [state.action_to_string(a) for a in actions] == ["SWAP_JOKER r8", "PLACE k2", "PLACE k3", "PLACE k4",
                                                            "COMMIT"]
    assert ti.parse_move(state, "SWAP_JOKER r8\nPLACE k2; place k3 ; place k4; COMMIT") == actions
    with pytest.raises(IllegalActionError, match="J is not in your rack"):
        ti.parse_move(state, "swap r8; play k2 k3 k4 J")


def test_rummy500_whole_turn_after_taking_from_the_pile():
    state = rummienv.load_state({"game": "rummy500", "hands": [["5H", "6H", "KC", "2D"], ["AS", "AD", "AC"]],
                                 "discard": ["9S", "7H"], "current_player": 0})
    actions = ti.apply_move(state, "take 7H; meld 5H 6H 7H; discard KC")
    assert len(actions) == 3 and state.current_player == 1


@pytest.mark.parametrize("move, error, words", [
    ("", NotationError, "empty move"),
    ("fly r7", NotationError, "unknown move"),
    ("play r7 r99", NotationError, "r99"),
    ("play k1 k2 k3", IllegalActionError, "not in your rack"),
    ("draw; play r3 r4 r5", IllegalActionError, "turn ended"),
    ("play r3 r4 r5; draw", IllegalActionError, "turn ended"),
    ("place r3; place k7; commit", IllegalActionError, "step 2 .*no legal play holds k7"),
    ("place r3; commit", IllegalActionError, "step 2 .*do not make a legal play"),
])
def test_refused_moves_say_why_and_change_nothing(move, error, words):
    state = rummienv.load_state({"game": "rummikub", "racks": [["r3", "r4", "r5", "k7"], ["k1", "k9", "b9", "o9"]],
                                 "opened": [True, True], "table": [["k10", "k11", "k12"]], "pool": ["b1", "b2"]})
    before = state.to_dict()
    with pytest.raises(error, match=words) as refused:
        ti.apply_move(state, move)
    assert "\n" not in str(refused.value)
    assert state.to_dict() == before


def test_rummy500_refusals_name_the_rule():
    state = rummienv.load_state({"game": "rummy500", "hands": [["5H", "6H", "KC", "2D"], ["AS", "AD", "AC"]],
                                 "discard": ["9S", "7H"], "current_player": 0})
    with pytest.raises(IllegalActionError, match="step 1 .*F6"):
        ti.parse_move(state, "take 9S; discard KC")  # 9S could not be used this turn
    with pytest.raises(IllegalActionError, match="step 2 "):
        ti.parse_move(state, "take 7H; discard KC")  # 7H taken must be used before the discard (F6, F8)
    with pytest.raises(IllegalActionError, match="nothing may follow a draw"):
        ti.parse_move(state, "draw; discard KC")
    with pytest.raises(NotationError, match="a move is a string"):
        ti.parse_move(state, 7)


def test_over_game_has_no_moves():
    state = rummienv.load_state({"game": "rummikub", "racks": [["r3", "r4", "r5"], ["k1"]], "opened": [True, True]})
    ti.apply_move(state, "play r3 r4 r5")
    assert state.is_terminal() and ti.legal_moves(state) == []
    with pytest.raises(IllegalActionError, match="over"):
        ti.parse_move(state, "draw")


def test_prompt_parts_name_the_game_and_its_moves():
    for name in games.names():
        assert games.info(name).title.split()[0].lower() in ti.rules_brief(name).lower()
        assert "';'" in ti.move_help(name) and "hint" not in ti.move_help(name)
    cards = ti.rules_brief(games.make_game("rummikub_cards", 3))
    assert "40 or more" in cards and "3 players" in cards and "swap k5" in cards
