"""The Rummy 500 search expert and the determinization it samples from: sees only its seat, refuses bad
budgets, plays legally; a sampled position agrees with the view and bad assignments are refused."""

from __future__ import annotations

import numpy as np
import pytest

from agents.base import decide, make_move
from agents.evaluate import play_game
from agents.rummy500_bots import ValueAgent
from agents.rummy500_expert import ExpertAgent, worth
from rummienv.errors import PositionError
from rummienv.games import make_game
from rummienv.rummy500 import board as bd
from rummienv.rummy500.determinize import determinize, hidden_slots, sample_boards, sample_hidden, unseen_cards

SAMPLES = 16  # small budgets keep these tests fast; the search is the same at any size


def mid_hand(seed: int, moves: int, whole_game: bool = False):
    """A position ``moves`` moves into a hand of value_hold self-play, with a choice for the seat to move."""
    game = make_game("rummy500", 2, whole_game=whole_game)
    state = game.new_initial_state(seed)
    bots = [ValueAgent(seat, hold=True) for seat in range(2)]
    for _ in range(moves):
        make_move(bots[state.current_player], state)
    while state.legal_action_mask().sum() < 2:
        make_move(bots[state.current_player], state)
    return game, state


@pytest.mark.parametrize(("seed", "moves"), [(1, 0), (2, 9), (3, 14), (4, 21)])
def test_same_view_different_hidden_cards_same_decision(seed, moves):
    game, state = mid_hand(seed, moves)
    me = state.current_player
    view = state.view(me)
    others = [determinize(view, game.rules, *sample_hidden(view, np.random.default_rng(k))) for k in range(2)]
    assert all(other.view(me) == view for other in others)
    assert bd.stock(others[0].board).tolist() != bd.stock(others[1].board).tolist()
    decisions = {decide(ExpertAgent(game.rules, seed=7, samples=SAMPLES), s) for s in (state, *others)}
    assert len(decisions) == 1


def test_decision_depends_on_the_view_only_not_on_earlier_calls():
    game, state = mid_hand(5, 12)
    agent = ExpertAgent(game.rules, seed=3, samples=SAMPLES)
    first = decide(agent, state)
    _, elsewhere = mid_hand(6, 7)
    decide(agent, elsewhere)
    assert decide(agent, state) == first == decide(ExpertAgent(game.rules, seed=3, samples=SAMPLES), state)


def test_works_from_the_view_alone():
    """The agent is handed the seat's view and a poisoned observation: it has nothing else to read."""
    game, state = mid_hand(8, 10)
    mask = state.legal_action_mask().copy()
    agent = ExpertAgent(game.rules, seed=2, samples=SAMPLES)
    agent.observe(state.view(state.current_player))
    action = agent.act(np.full(game.observation_size, np.nan, dtype=np.float32), mask)
    assert mask[action]
    assert action == decide(ExpertAgent(game.rules, seed=2, samples=SAMPLES), state)


def test_refuses_a_view_that_is_not_the_seats():
    game, state = mid_hand(9, 10)
    view = state.view(state.current_player)
    view["hand_sizes"][1 - view["player"]] += 1  # one card more than the pack leaves unseen
    agent = ExpertAgent(game.rules, seed=0, samples=SAMPLES)
    agent.observe(view)
    with pytest.raises(PositionError):
        agent.act(state.observation(state.current_player), state.legal_action_mask().copy())


@pytest.mark.parametrize("samples", [0, -3, 2.5, "8", True, None])
def test_refuses_bad_budgets(samples):
    with pytest.raises(ValueError, match=r"^samples must be a whole number of at least 1, got .*") as caught:
        ExpertAgent(make_game("rummy500", 2).rules, seed=0, samples=samples)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("hold", [(True,), [True, False], (1, 0)])
def test_refuses_bad_hold(hold):
    with pytest.raises(ValueError, match=r"^hold must be a pair of True/False"):
        ExpertAgent(make_game("rummy500", 2).rules, seed=0, hold=hold)


def test_registry_signature_with_defaults():
    rules = make_game("rummy500", 2).rules
    assert ExpertAgent(rules, 5).samples > 0


def rummy500_worth(points, totals=(0, 0), target=500, me=0):
    return worth(np.array(points, dtype=np.int64), np.array(totals, dtype=np.int64), me, target)


def test_a_single_hand_is_worth_its_margin_over_the_best_other_seat():
    assert rummy500_worth([40, 90, 10], totals=(0, 0, 0), target=0) == -50.0
    assert rummy500_worth([40, 90, 10], totals=(0, 0, 0), target=0, me=1) == 50.0


def test_a_hand_that_ends_the_game_is_worth_winning_it_and_nothing_more():
    assert rummy500_worth([30, 120], totals=(480, 300)) == 1.0  # loses the hand by 90, wins the game (F12)
    assert rummy500_worth([30, 200], totals=(480, 330)) == 0.0  # both cross: the higher total wins
    assert rummy500_worth([30, 110], totals=(480, 400)) == 0.5  # a tie at the top plays on


def test_before_the_end_a_hand_is_worth_the_chance_to_finish_first():
    level = rummy500_worth([50, 50], totals=(100, 100))
    assert level == pytest.approx(0.5)
    ahead, far_ahead = rummy500_worth([100, 50], totals=(100, 100)), rummy500_worth([300, 50], totals=(100, 100))
    assert 0.5 < ahead < far_ahead < 1.0
    # the same lead counts for more when fewer hands are left to undo it
    assert rummy500_worth([100, 50], totals=(350, 350)) > ahead


def test_the_view_says_whether_the_hand_is_a_whole_game():
    assert mid_hand(1, 0)[1].view(0)["target"] is None
    assert mid_hand(1, 0, whole_game=True)[1].view(0)["target"] == 500


def test_plays_a_whole_game_legally_against_value_hold():
    game = make_game("rummy500", 2, whole_game=True)
    expert = ExpertAgent(game.rules, seed=4, samples=8)
    state = play_game(game, [expert, ValueAgent(1, hold=True)], seed=11)
    assert state.is_terminal() and state.game_winner() >= 0


@pytest.mark.parametrize(("seed", "moves"), [(1, 0), (12, 17), (13, 30)])
def test_sample_boards_are_checked_positions_of_the_view(seed, moves):
    game, state = mid_hand(seed, moves, whole_game=True)
    me = state.current_player
    view = state.view(me)
    for board in sample_boards(view, game.rules, np.random.default_rng(seed), 20):
        hands = bd.hands(board)
        hidden = [sorted(set(np.flatnonzero(hands[seat]).tolist()) & set(unseen_cards(view))) for seat in range(2)]
        again = determinize(view, game.rules, hidden, bd.stock(board).tolist())
        assert (again.board == board).all()
        assert again.view(me) == view


def test_determinize_refuses_an_assignment_that_does_not_fit_the_view():
    game, state = mid_hand(14, 11)
    view = state.view(state.current_player)
    hidden, stock = sample_hidden(view, np.random.default_rng(0))
    other = 1 - view["player"]
    assert len(hidden[other]) == hidden_slots(view)[other] > 0
    with pytest.raises(PositionError, match="stock must hold"):
        determinize(view, game.rules, hidden, stock[1:])
    with pytest.raises(PositionError, match=r"hidden\[\d\] must hold"):
        determinize(view, game.rules, [cards[1:] if seat == other else cards for seat, cards in enumerate(hidden)],
                    stock)
    seen = [c for c in range(52) if c not in unseen_cards(view)][0]
    with pytest.raises(PositionError, match="exactly once"):
        determinize(view, game.rules, hidden, [seen, *stock[1:]])
    with pytest.raises(PositionError, match="one hand per seat"):
        determinize(view, game.rules, hidden[:1], stock)
