"""The Rummikub expert looks ahead only over what its seat may know, plays legally, and refuses bad budgets."""

from __future__ import annotations

import numpy as np
import pytest
from rummikub_helpers import position

from agents.base import make_move
from agents.registry import make_agent
from agents.rummikub_bots import position_of
from agents.rummikub_expert import ExpertAgent, hoard_playout, worth
from rummienv.rules import make_rules
from rummienv.rummikub import actions as A
from rummienv.rummikub import load_state, whole_turns
from rummienv.rummikub.determinize import sample_state, unseen_pieces
from rummienv.rummikub.state import RummikubGame, full_set
from rummienv.tiles import counts_of, parse_tiles


def midgame(game_name: str, players: int, seed: int, turns: int):
    """A game of hoarders played ``turns`` turns from deal ``seed``."""
    rules = make_rules(game_name)
    game = RummikubGame(rules, players)
    state = game.new_initial_state(seed)
    bots = [make_agent("hoard", rules, players, seed=s) for s in range(players)]
    for _ in range(turns):
        make_move(bots[state.current_player], state)
    return game, state


def same_view(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(np.array_equal(np.asarray(a[k], dtype=object), np.asarray(b[k], dtype=object))
                                         for k in a)


@pytest.mark.parametrize("game_name,players", [("rummikub", 2), ("rummikub_cards", 2), ("rummikub", 4)])
def test_a_sample_shows_the_seat_its_own_view_and_keeps_every_piece(game_name, players):
    game, state = midgame(game_name, players, seed=3, turns=9)
    me = state.current_player
    view = state.view(me)
    for k in range(5):
        dealt = sample_state(view, game, np.random.default_rng(k))
        assert same_view(dealt.view(me), view)
        total = dealt.racks.astype(np.int64).sum(axis=0) + dealt.table_counts() + np.bincount(dealt.pool, minlength=53)
        assert np.array_equal(total, full_set(game.rules))
        np.testing.assert_array_equal(dealt.legal_action_mask(), state.legal_action_mask())


def test_samples_differ_only_in_what_the_seat_cannot_see():
    game, state = midgame("rummikub", 2, seed=5, turns=7)
    me = state.current_player
    view = state.view(me)
    a, b = (sample_state(view, game, np.random.default_rng(k)) for k in (1, 2))
    assert np.array_equal(a.racks[me], b.racks[me])
    assert not np.array_equal(a.racks[1 - me], b.racks[1 - me])
    assert np.array_equal(unseen_pieces(view, game),
                          a.racks[1 - me] + np.bincount(a.pool, minlength=53).astype(np.int8))


def test_a_view_that_does_not_add_up_is_refused():
    game, state = midgame("rummikub", 2, seed=5, turns=7)
    view = state.view(state.current_player)
    view["pool_size"] += 1
    with pytest.raises(ValueError, match="do not hold"):
        sample_state(view, game, np.random.default_rng(0))


def decision_points(game_name: str, deals: int):
    """Positions from hoarders' games where the expert has a real choice (more than one candidate)."""
    rules = make_rules(game_name)
    expert = ExpertAgent(rules, seed=0, samples=4)
    found = []
    for deal in range(deals):
        game, state = midgame(game_name, 2, seed=deal, turns=0)
        bots = [make_agent("hoard", rules, 2, seed=s) for s in range(2)]
        while not state.is_terminal() and len(found) < 3 * (deal + 1):
            view = state.view(state.current_player)
            if len(expert.candidates(position_of(view, rules), view)) > 1:
                found.append((game, state.clone()))
            make_move(bots[state.current_player], state)
    return found


@pytest.mark.parametrize("game_name", ["rummikub", "rummikub_cards"])
def test_the_same_view_with_other_hidden_pieces_gets_the_same_decision(game_name):
    rules = make_rules(game_name)
    for game, state in decision_points(game_name, 2)[:4]:
        me = state.current_player
        view = state.view(me)
        plays = []
        for hidden in range(3):  # the real state, then two others with the same view
            other = state if hidden == 0 else sample_state(view, game, np.random.default_rng(100 + hidden))
            plays.append(ExpertAgent(rules, seed=7, samples=4).plan_turn(other.view(me)))
        assert all(p is None and plays[0] is None or np.array_equal(p, plays[0]) for p in plays)


def test_the_expert_decides_from_the_seats_view_alone():
    """Handed only a copy of the view, with nothing of the state, it lays what it lays on the state itself."""
    rules = make_rules("rummikub")
    for _, state in decision_points("rummikub", 1)[:3]:
        me = state.current_player
        alone = ExpertAgent(rules, seed=3, samples=4).plan_turn(dict(state.view(me)))
        before = state.racks[me].copy()
        make_move(ExpertAgent(rules, seed=3, samples=4), state)
        if alone.any():
            assert np.array_equal(before - state.racks[me], alone)
        else:
            assert state.racks[me].sum() == before.sum() + 1  # it drew


def test_a_play_out_exchanges_a_joker_when_only_that_makes_a_play_with_the_stock_empty():
    """K6 with K9: k2 b2 need the table's joker, so the seat may not pass; it exchanges r8 for it and lays them."""
    state = position(["r8 k2 b2 k9", "k1"], table=["r5 r6 r7 J"], opened=[True, True], game="rummikub_cards", pool=[])
    scores = hoard_playout(state)
    assert state.is_terminal() and np.array_equal(state.racks[0], counts_of(parse_tiles("k9")))
    assert list(scores) == [-8, 8]  # k9 against k1 (T10)


def test_the_seats_seen_laying_after_their_opening_are_played_out_as_layers():
    """A hoarder lays once, its opening, until it goes out: a second turn with a play marks a layer."""
    rules = make_rules("rummikub")
    game = RummikubGame(rules, 3)
    state = game.new_initial_state(7)
    bots = [make_agent(name, rules, 3, seed=0) for name in ("hoard", "max_tiles", "hoard")]
    seen = []
    while not state.is_terminal() and state.pool:
        view = state.view(state.current_player)
        seen.append((view["player"], ExpertAgent(rules, seed=0).layers(view)))
        make_move(bots[state.current_player], state)
    assert all(layers <= {1} for _, layers in seen) and any(layers == {1} for seat, layers in seen if seat != 1)
    assert all(1 not in layers for seat, layers in seen if seat == 1)  # never its own seat


def test_a_position_keeps_each_seats_turns_with_a_play():
    state = position(["r1 r2", "k5"], table=["b1 b2 b3"], opened=[True, False])
    assert list(state.plays) == [1, 0] and state.view(1)["plays_by_seat"] == [0, 1]
    state.plays[0] = 3
    assert list(load_state(state.to_dict()).plays) == [3, 0]


def standing(round_: int, rounds: int, totals=(0.0, 0.0), player: int = 1) -> dict:
    """The part of seat ``player``'s view that ``worth`` reads, at two seats."""
    seats = [player, 1 - player]
    return {"player": player, "seats": seats, "totals": [totals[s] for s in seats], "round": round_, "rounds": rounds}


def test_a_single_round_is_worth_its_score():
    assert worth([-120, 120], standing(0, 1)) == 120
    assert worth([35, -35], standing(0, 1)) == -35


def test_the_last_round_of_a_game_is_worth_winning_the_game_and_nothing_more():
    behind = standing(1, 2, totals=(90.0, -90.0))  # seat 1 is 180 behind going into the last round
    assert worth([-60, 60], behind) == 0.0  # wins the round, still 60 behind
    assert worth([-90, 90], behind) == 0.5  # level on totals
    assert worth([-91, 91], behind) == 1.0
    assert worth([400, -400], standing(1, 2, totals=(-500.0, 500.0))) == 1.0  # a big loss that still wins


def test_an_early_round_is_worth_the_chance_to_win_the_game():
    values = [worth([-m, m], standing(0, 2)) for m in (-300, -150, -60, -10, 0, 10, 60, 150, 300)]
    assert all(0 < v < 1 for v in values) and values == sorted(values) and values[4] == 0.5
    assert values[1] - values[0] < values[3] - values[2]  # trimming a lost rack: from 300 to 150 counts less
    assert worth([-60, 60], standing(0, 3)) < worth([-60, 60], standing(1, 3))  # more rounds left, less sure


@pytest.mark.parametrize("bad", [0, -3, 1, 2.5, "8", True, None])
def test_a_budget_that_is_not_a_whole_number_of_samples_is_refused(bad):
    with pytest.raises(ValueError, match="samples must be a whole number of at least 2"):
        ExpertAgent(make_rules("rummikub"), samples=bad)


@pytest.mark.parametrize("bad", [-1, "1", float("nan")])
def test_a_margin_below_zero_is_refused(bad):
    with pytest.raises(ValueError, match="margin must be a number of at least 0"):
        ExpertAgent(make_rules("rummikub"), margin=bad)


@pytest.mark.parametrize("game_name", ["rummikub", "rummikub_cards"])
def test_the_expert_plays_a_whole_round_legally_by_name(game_name):
    from agents.evaluate import new_game, play_game

    rules = make_rules(game_name)
    seats = [make_agent("expert", rules, 2, seed=1), make_agent("hoard", rules, 2, seed=2)]
    state = play_game(new_game(rules, 2), seats, seed=11)
    assert state.is_terminal()


def test_the_expert_judges_draws_and_whole_plays_by_the_play_outs_its_choice_compares_and_nothing_inside_a_turn():
    rules = make_rules("rummikub")
    (_, state), *_ = decision_points("rummikub", 1)
    view = state.view(state.current_player)
    pos = position_of(view, rules)
    found = whole_turns.whole_plays(pos.table, pos.rack, pos.staged, pos.solver_args, rules.joker_penalty)
    whole = [A.NUM_ACTIONS + k for k, play in enumerate(found) if play is not None]
    piece = A.PLACE + int(np.flatnonzero(pos.rack)[0])
    actions = np.array([A.DRAW, *whole, whole[0], piece])
    values = ExpertAgent(rules, seed=0, samples=4).values(view, actions)
    assert values.shape == (len(actions), 4)
    assert np.isfinite(values[:-1]).all() and np.isnan(values[-1]).all()  # a piece staged is a step of a turn
    assert np.array_equal(values[len(whole) + 1], values[1])  # the same action twice, one column of play-outs
    options = [None]  # the distinct plays, in the order values met them
    for k in whole:
        if not any(o is not None and np.array_equal(o, found[k - A.NUM_ACTIONS]) for o in options):
            options.append(found[k - A.NUM_ACTIONS])
    outcomes = ExpertAgent(rules, seed=0, samples=4).outcomes(options, view)
    assert np.array_equal(values[0], outcomes[:, 0])
    for row, k in enumerate(whole, start=1):
        column = next(j for j, o in enumerate(options) if o is not None and np.array_equal(o, found[k - A.NUM_ACTIONS]))
        assert np.array_equal(values[row], outcomes[:, column])
