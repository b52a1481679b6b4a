"""Rules K1-K10 of the card edition (docs/RULES.md), each named by its id."""

from __future__ import annotations

import numpy as np
from rummikub_helpers import legal, play, position

from rummienv.rules import make_rules
from rummienv.rummikub import RummikubGame, load_state
from rummienv.rummikub.state import rack_value
from rummienv.tiles import JOKER, counts_of, parse_tiles, tile_name


def _sets(state):
    return {tuple(tile_name(t) for t in s) for _, s in state.table_sets}


def test_K1_108_cards_with_4_jokers_14_each():
    state = RummikubGame("rummikub_cards", 3).new_initial_state(1)
    total = state.racks.sum(axis=0) + np.bincount(state.pool, minlength=53)
    assert total.sum() == 108 and total[JOKER] == 4 and (state.racks.sum(axis=1) == 14).all()


def test_K2_starting_player_by_lot():
    starts = [RummikubGame("rummikub_cards", 3).new_initial_state(s).current_player for s in range(60)]
    assert set(starts) == {0, 1, 2}
    assert starts == [RummikubGame("rummikub_cards", 3).new_initial_state(s).current_player for s in range(60)]


def test_K3_opening_needs_40_from_the_hand():
    state = position(["r10 r11 r12 k1", "k2"], game="rummikub_cards")  # 33 is not enough here
    assert not legal(state, "PLACE r10") and legal(state, "DRAW")
    ok = position(["r12 r13 J k1", "k2"], game="rummikub_cards")  # J r12 r13 = 36 < 40: still not
    assert not legal(ok, "PLACE r12")
    four = position(["r10 r11 r12 r13", "k2"], game="rummikub_cards")  # 46
    play(four, "PLACE r10", "PLACE r11", "PLACE r12", "PLACE r13")
    assert legal(four, "COMMIT")


def test_K4_no_rebuilding_before_or_on_the_opening_turn():
    state = position(["r4 r10 r11 r12 r13", "k2"], table=["r1 r2 r3"], opened=[False, True], game="rummikub_cards")
    assert not legal(state, "PLACE r4")
    play(state, "PLACE r10", "PLACE r11", "PLACE r12", "PLACE r13")
    assert not legal(state, "PLACE r4")  # still the opening turn


def test_K5_a_table_joker_keeps_its_number():
    tiles = position(["k9 b9 o1", "k2"], table=["r5 r6 r7 J"], opened=[True, True])
    assert legal(tiles, "PLACE k9")  # tile game: the joker may become a 9
    cards = position(["k9 b9 o1", "k2"], table=["r5 r6 r7 J"], opened=[True, True], game="rummikub_cards")
    assert cards.fixed[8] == 1
    assert not legal(cards, "PLACE k9")  # card edition: it stays an 8
    eights = position(["k8 b8 o1", "k2"], table=["r5 r6 r7 J"], opened=[True, True], game="rummikub_cards")
    play(eights, "PLACE k8", "PLACE b8")
    assert legal(eights, "COMMIT")  # the joker moves to a group of 8s; its colour may change
    play(eights, "COMMIT")
    assert eights.fixed[8] == 1


def test_K6_swap_a_joker_for_the_card_it_stands_for():
    state = position(["r8 k2 b2", "k1"], table=["r5 r6 r7 J"], opened=[True, True], game="rummikub_cards")
    assert legal(state, "SWAP_JOKER r8")
    assert not legal(state, "SWAP_JOKER k2")  # the joker stands for an 8
    play(state, "SWAP_JOKER r8")
    assert state.staged[JOKER] == 1 and state.swapped == parse_tiles("r8")  # the freed joker must go down
    assert load_state(state.to_dict()).to_dict() == state.to_dict()
    assert not legal(state, "DRAW") or state.pool  # drawing undoes the whole turn
    play(state, "PLACE k2", "PLACE b2", "COMMIT")
    assert ("k2", "b2", "J") in _sets(state) and state.fixed[2] == 1  # it may stand for anything now
    assert not state.racks[0].any() and state.is_terminal()
    before_opening = position(["r8 k2 b2", "k1"], table=["r5 r6 r7 J"], opened=[False, True], game="rummikub_cards")
    assert not legal(before_opening, "SWAP_JOKER r8")
    tiles = position(["r8 k2 b2", "k1"], table=["r5 r6 r7 J"], opened=[True, True])
    assert not legal(tiles, "SWAP_JOKER r8")  # the tile game rearranges freely instead


def test_K6_draw_after_a_swap_undoes_it():
    state = position(["r8 k2 b2", "k1"], table=["r5 r6 r7 J"], opened=[True, True], game="rummikub_cards")
    play(state, "SWAP_JOKER r8", "DRAW")
    assert state.fixed[8] == 1 and state.racks[0][JOKER] == 0
    assert state.racks[0].sum() == 4 and ("r5", "r6", "r7", "J") in _sets(state)


def test_K7_joker_left_in_hand_costs_25():
    assert rack_value(counts_of(parse_tiles("J k3")), 25) == 28
    state = position(["r10 r11 r12 r13", "J k3"], game="rummikub_cards")
    play(state, "PLACE r10", "PLACE r11", "PLACE r12", "PLACE r13", "COMMIT")
    assert state.exact_scores() == [28, -28]


def test_K8_timeout_keeps_what_is_valid():
    state = position(["r4 k9 o1", "k2"], table=["r1 r2 r3"], opened=[True, True], game="rummikub_cards")
    play(state, "PLACE r4")
    state.staged[parse_tiles("k9")[0]] += 1  # a front end let the player put down a loose card
    state.apply_timeout()
    assert ("r1", "r2", "r3", "r4") in _sets(state)
    assert sorted(tile_name(t) for t in np.flatnonzero(state.racks[0])) == ["k9", "o1"]
    assert state.current_player == 1


def test_K8_timeout_with_nothing_valid_draws_one():
    state = position(["k9 o1", "k2"], table=["r1 r2 r3"], opened=[True, True], game="rummikub_cards")
    state.staged[parse_tiles("k9")[0]] += 1
    state.apply_timeout()
    assert state.racks[0].sum() == 3 and state.current_player == 1 and not state.staged.any()


def test_K8_timeout_before_opening_keeps_only_a_40_opening():
    state = position(["r10 r11 r12 k1", "k2"], game="rummikub_cards")
    state.staged[parse_tiles("r10 r11 r12")] += 1  # 33: below the 40 threshold
    state.apply_timeout()
    assert not state.table_sets and state.racks[0].sum() == 5


def test_K9_empty_stock_scores_as_T10_with_jokers_25():
    state = position(["k1 J", "o5 r6"], opened=[True, True], game="rummikub_cards",
                     pool=[])
    play(state, "PASS")
    assert not state.is_terminal()
    play(state, "PASS")
    assert state.exact_scores() == [-15, 15]  # 26 against 11


def test_K10_game_ends_after_the_agreed_rounds():
    assert RummikubGame("rummikub_cards", 3, whole_game=True).num_rounds == 3
    # no jokers and two players keep random play short; the round logic is the same
    game = RummikubGame(make_rules("rummikub_cards", {"jokers": 0}), 2, whole_game=True)
    state = game.new_initial_state(2)
    rng = np.random.default_rng(1)
    while not state.is_terminal():
        state.apply_action(int(rng.choice(state.legal_actions())))
    assert state.round == 1 and sum(state.exact_scores()) == 0
    assert set(state.winners()) <= {0, 1}
