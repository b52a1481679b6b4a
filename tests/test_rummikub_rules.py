"""Rules C1-C7 and T1-T12 (docs/RULES.md), each named by its id, on scripted positions."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from rummikub_helpers import legal, play, position

from rummienv.errors import NotationError
from rummienv.rules import make_rules
from rummienv.rummikub import RummikubGame
from rummienv.rummikub.sets import set_kind, set_numbers, set_value
from rummienv.rummikub.state import _draw_for_start, full_set
from rummienv.tiles import JOKER, parse_tiles, tile_index, tile_name


def test_C1_notation_round_trip():
    for t in range(53):
        assert tile_index(tile_name(t)) == t
    assert tile_name(tile_index("k13")) == "k13"
    assert parse_tiles("r7 k13 b1 o12 J") == [3 * 13 + 6, 12, 13, 2 * 13 + 11, JOKER]


@pytest.mark.parametrize("token", ["r0", "r14", "x7", "7r", "", "JJ", "r07", "k1.5"])
def test_C1_bad_tokens_name_the_token(token):
    with pytest.raises(NotationError, match="bad tile|not a string") as err:
        tile_index(token)
    assert repr(token) in str(err.value)


def test_C1_two_copies_of_each_piece():
    counts = full_set(make_rules("rummikub"))
    assert (counts[:52] == 2).all() and counts[JOKER] == 2


def test_C2_groups():
    assert set_kind(parse_tiles("k7 b7 o7")) == "group"
    assert set_kind(parse_tiles("k7 b7 o7 r7")) == "group"
    assert set_kind(parse_tiles("k7 k7 o7")) is None
    assert set_kind(parse_tiles("k7 b7")) is None


def test_C3_runs_1_low_13_high():
    assert set_kind(parse_tiles("r1 r2 r3")) == "run"
    assert set_kind(parse_tiles(" ".join(f"r{n}" for n in range(1, 14)))) == "run"
    assert set_kind(parse_tiles("r12 r13 r1")) is None
    assert set_kind(parse_tiles("r1 r3 r2")) is None
    assert set_kind(parse_tiles("r1 b2 r3")) is None


def test_C4_jokers_stand_for_one_piece_and_need_a_numbered_piece():
    assert set_numbers(parse_tiles("r5 J r7"), "run") == [5, 6, 7]
    assert set_numbers(parse_tiles("J r2 r3"), "run") == [1, 2, 3]
    assert set_numbers(parse_tiles("J r1 r2"), "run") is None  # nothing below 1
    assert set_numbers(parse_tiles("k9 b9 J"), "group") == [9, 9, 9]
    assert set_kind(parse_tiles("J J J")) is None
    state = position(["J J", "k2"], opened=[True, True])
    assert not legal(state, "PLACE J")  # jokers alone never make a set
    assert legal(position(["J J k1", "k2"], opened=[True, True]), "PLACE J")  # k1 J J is a set


def test_C5_set_value_counts_jokers():
    assert set_value(parse_tiles("r9 J r11"), "run") == 30
    assert set_value(parse_tiles("k13 b13 J"), "group") == 39


def test_C6_table_stays_valid_and_pieces_never_return():
    game = RummikubGame("rummikub", 2)
    rng = np.random.default_rng(3)
    for seed in range(2):
        state = game.new_initial_state(seed)
        while not state.is_terminal():
            before = state.table_counts()
            state.apply_action(int(rng.choice(state.legal_actions())))
            assert (state.table_counts() >= before).all()  # nothing leaves the table
            for kind, pieces in state.table_sets:
                assert set_numbers(pieces, kind) is not None


def test_C7_opened_player_may_rearrange_the_table():
    state = position(["r3 k13", "k1"], table=["r1 r2 r3 r4 r5 r6"], opened=[True, True])
    assert legal(state, "PLACE r3")
    play(state, "PLACE r3", "COMMIT")
    assert sorted(len(s) for _, s in state.table_sets) == [3, 4]  # split into r1-r3 and r3-r6


def test_T1_deal_106_tiles_14_each():
    for players in (2, 3, 4):
        state = RummikubGame("rummikub", players).new_initial_state(7)
        assert (state.racks.sum(axis=1) == 14).all()
        total = state.racks.sum(axis=0) + np.bincount(state.pool, minlength=53)
        assert total.sum() == 106 and total[JOKER] == 2
    with pytest.raises(ValueError, match="num_players"):
        RummikubGame("rummikub", 5)


class _ScriptedRng:
    """Hands out scripted permutations so the T2 draw can be checked move by move."""

    def __init__(self, draws):
        self.draws = list(draws)

    def permutation(self, pieces):
        return np.array(parse_tiles(self.draws.pop(0)))


def test_T2_highest_starts_jokers_and_ties_draw_again():
    rules = make_rules("rummikub")
    assert _draw_for_start(_ScriptedRng(["k3 r9 b5"]), 3, rules) == 1
    assert _draw_for_start(_ScriptedRng(["J k3 r9 b5"]), 3, rules) == 1  # joker drawer draws k3
    # seats 0 and 2 tie on 9, redraw: seat 2 wins with 12
    assert _draw_for_start(_ScriptedRng(["r9 k3 b9", "k4 o12"]), 3, rules) == 2
    starts = {RummikubGame("rummikub", 4).new_initial_state(s).current_player for s in range(40)}
    assert starts == {0, 1, 2, 3}


def test_T3_draw_is_allowed_even_when_a_play_exists():
    state = position(["r10 r11 r12 k1", "k2"])
    assert legal(state, "PLACE r10") and legal(state, "DRAW")
    rack_before = state.racks[0].sum()
    play(state, "PLACE r10", "DRAW")  # staged pieces go back, one is drawn, the turn ends
    assert state.racks[0].sum() == rack_before + 1 and state.current_player == 1
    assert not state.staged.any()


def test_T4_opening_needs_30_from_rack():
    state = position(["r10 r11 r12 k1", "k2"])
    play(state, "PLACE r10", "PLACE r11", "PLACE r12")
    assert legal(state, "COMMIT")
    low = position(["r1 r2 r3 k1", "k2"])
    assert not legal(low, "PLACE r1")
    assert not legal(low, "COMMIT")


def test_T4_opening_touches_nothing_on_the_table():
    state = position(["r4 r10 r11 r12", "k2"], table=["r1 r2 r3"], opened=[False, True])
    assert not legal(state, "PLACE r4")  # cannot extend a table run before opening
    play(state, "PLACE r10", "PLACE r11", "PLACE r12", "COMMIT")
    assert ("run", tuple(parse_tiles("r1 r2 r3"))) in state.table_sets


def test_T4_jokers_count_as_the_tile_they_stand_for():
    state = position(["J r9 r10 k1", "k2"])  # J as r11: 9 + 10 + 11 = 30
    play(state, "PLACE J", "PLACE r9", "PLACE r10")
    assert legal(state, "COMMIT")


def test_T5_no_joker_from_the_table_before_opening():
    state = position(["r12 r13 k9", "k2"], table=["k10 b10 o10 J"], opened=[False, True])
    assert not legal(state, "PLACE r12")  # J r12 r13 would be 36, but the joker is on the table
    opened = position(["r12 r13 k9", "k2"], table=["k10 b10 o10 J"], opened=[True, False])
    assert legal(opened, "PLACE r12")


def test_T6_freed_joker_is_used_again_the_same_turn():
    state = position(["o7 r5 r6 k1", "k2"], table=["k7 b7 J"], opened=[True, True])
    play(state, "PLACE o7", "PLACE r5", "PLACE r6", "COMMIT")
    sets = {tuple(tile_name(t) for t in s) for _, s in state.table_sets}
    assert sum(s.count("J") for s in sets) == 1  # the joker is still on the table, in a valid set
    assert ("k7", "b7", "o7") in sets


def test_T7_empty_pool_must_play_if_able_and_round_ends_when_all_pass():
    able = position(["r4 k1", "k5"], table=["r1 r2 r3"], opened=[True, True], pool=[])
    assert not legal(able, "PASS") and not legal(able, "DRAW") and legal(able, "PLACE r4")
    stuck = position(["k1 b5", "o9 r11"], table=["r1 r2 r3"], opened=[True, True], pool=[])
    assert stuck.legal_actions() == [stuck.string_to_action("PASS")]
    play(stuck, "PASS")
    assert not stuck.is_terminal()
    play(stuck, "PASS")
    assert stuck.is_terminal()


def test_T8_round_ends_when_rack_is_empty_even_on_the_opening():
    state = position(["r10 r11 r12", "k2 k3"])
    play(state, "PLACE r10", "PLACE r11", "PLACE r12", "COMMIT")
    assert state.is_terminal() and state.current_player == -1


def test_T9_scoring_when_someone_goes_out():
    state = position(["r10 r11 r12", "k2 J", "b13"])
    play(state, "PLACE r10", "PLACE r11", "PLACE r12", "COMMIT")
    assert state.exact_scores() == [45, -32, -13]  # joker 30
    assert sum(state.exact_scores()) == 0


def test_T10_empty_pool_lowest_rack_wins_and_co_winners_share():
    state = position(["k1 b5", "o1 r5", "k8"], table=["r1 r2 r3"], opened=[True] * 3, pool=[])
    play(state, "PASS", "PASS", "PASS")
    # values 6, 6, 8: the two lowest share the loser's 2 points
    assert state.exact_scores() == [Fraction(1), Fraction(1), Fraction(-2)]
    odd = position(["k1", "b1", "o2"], table=["r1 r2 r3"], opened=[True] * 3, pool=[])
    play(odd, "PASS", "PASS", "PASS")
    assert odd.exact_scores() == [Fraction(1, 2), Fraction(1, 2), Fraction(-1)]


def test_T11_several_rounds_add_up():
    assert RummikubGame("rummikub", 2, whole_game=True).num_rounds == 2  # one round per player by default
    game = RummikubGame(make_rules("rummikub", {"jokers": 0}), 2, whole_game=True)  # short random rounds
    state = game.new_initial_state(11)
    rng = np.random.default_rng(0)
    rounds_seen = {0}
    while not state.is_terminal():
        state.apply_action(int(rng.choice(state.legal_actions())))
        rounds_seen.add(state.round)
    assert rounds_seen == {0, 1}
    assert sum(state.exact_scores()) == 0 and state.exact_scores() == state.totals
    assert state.winners() == [int(np.argmax(state.scores()))] or len(state.winners()) > 1


def test_T11_ties_go_to_most_rounds_won():
    state = RummikubGame("rummikub", 2, whole_game=True).new_initial_state(0)
    state.totals = [Fraction(10), Fraction(10)]
    state.rounds_won = [0, 2]
    assert state.winners() == [1]
    state.rounds_won = [1, 1]
    assert state.winners() == [0, 1]


def test_T12_timeout_restores_the_turn_and_draws_three():
    state = position(["r4 k9 k10 k11", "k2"], table=["r1 r2 r3"], opened=[True, False])
    play(state, "PLACE r4")
    table_before, rack_before = list(state.table_sets), state.racks[0].sum()
    state.apply_timeout()
    assert state.table_sets == table_before
    assert state.racks[0].sum() == rack_before + 3 and state.current_player == 1
    few = position(["r4 k9", "k2"], table=["r1 r2 r3"], opened=[True, False], pool="k5 k6")
    few.apply_timeout()
    assert few.racks[0].sum() == 4 and not few.pool  # all that is left
