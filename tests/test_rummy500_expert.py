"""The Rummy 500 search expert and the determinization it samples from: sees only its seat, refuses bad
budgets, plays legally; a sampled position agrees with the view and bad assignments are refused."""

from __future__ import annotations

import numpy as np
import pytest

from agents import rummy500_expert
from agents.base import decide, make_move
from agents.evaluate import play_game
from agents.rummy500_bots import MELD_POINTS, ValueAgent, partners
from agents.rummy500_expert import ExpertAgent, worth
from rummienv.cards import CARD_STRINGS, CARD_VALUES
from rummienv.errors import PositionError
from rummienv.games import make_game
from rummienv.rummy500 import actions as act
from rummienv.rummy500 import board as bd
from rummienv.rummy500 import load_state
from rummienv.rummy500.determinize import determinize, hidden_slots, sample_boards, sample_hidden, unseen_cards
from rummienv.rummy500.kernels import layoff_target

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


def chosen_by_rule(board: np.ndarray, mask: np.ndarray, free_top: bool, hold: np.ndarray) -> int:
    """The playout policy's rule read off the whole legal mask with the Python bots' ``partners``: the oracle
    for the compiled ``policy``, which asks only the legality its choice needs."""
    seat, players = int(board[bd.CURRENT]), bd.num_players(board)
    held = {c for c in range(52) if bd.hands(board)[seat, c]}
    pile = [int(c) for c in bd.pile(board)]

    def on_table(card: int) -> bool:
        return layoff_target(board, card, False)[0] >= 0 or layoff_target(board, card, True)[0] >= 0

    def best_lay() -> int:
        melds = [m for m in range(act.NUM_MELDS) if mask[act.MELD + m]]
        if melds:
            return act.MELD + max(melds, key=lambda m: (MELD_POINTS[m], -m))
        layoffs = [a for a in range(act.LAYOFF_GROUP, act.DISCARD) if mask[a]]
        return max(layoffs, key=lambda a: (CARD_VALUES[(a - act.LAYOFF_GROUP) % 52], -a)) if layoffs else -1

    def release() -> bool:
        if board[bd.STOCK_N] <= rummy500_expert._LOW_STOCK:
            return True
        short = rummy500_expert._SHORT_HAND
        if any(bd.hands(board)[other].sum() <= short for other in range(players) if other != seat):
            return True
        layable = {c for m in range(act.NUM_MELDS) if mask[act.MELD + m] for c in act.MELD_CARDS[m]}
        layable |= {(a - act.LAYOFF_GROUP) % 52 for a in range(act.LAYOFF_GROUP, act.DISCARD) if mask[a]}
        return len(held) - len(layable) <= 1

    if board[bd.STEP] == bd.DRAW_STEP:
        after = held | set(pile)
        best, choice = 0.0, act.DRAW_STOCK if mask[act.DRAW_STOCK] else act.END_HAND
        for i in reversed(range(len(pile))):
            if not mask[act.TAKE + pile[i]]:
                continue
            gain = CARD_VALUES[pile[i]] + sum(
                0.25 * CARD_VALUES[c] if partners(c, after) >= 2 or on_table(c) else -0.5 * CARD_VALUES[c]
                for c in pile[i + 1:])
            if gain > best:
                best, choice = gain, act.TAKE + pile[i]
        return choice
    if board[bd.MUST_USE] >= 0 or not hold[seat] or release():
        choice = best_lay()
        if choice >= 0:
            return choice
    nxt = {c for c in range(52) if bd.known(board)[(seat + 1) % players, c]}
    discards = [c for c in sorted(held) if mask[act.DISCARD + c]]
    if not discards:
        return best_lay()
    cost = {c: 8 * partners(c, held) - CARD_VALUES[c] + (20 if on_table(c) or partners(c, nxt) >= 2 else 0)
            for c in discards}
    return act.DISCARD + min(discards, key=lambda c: (cost[c], c))


def test_the_playout_policy_chooses_by_its_rule_on_the_whole_mask():
    """Over hands of 2-4 seats that fill the table (value_hold and random moves, owed cards, the free top card),
    holding and not, the compiled policy picks what its rule picks from the legal mask."""
    rng = np.random.default_rng(8)
    compared, kinds = 0, set()
    for n in range(45):
        players = 2 + n % 3
        game = make_game("rummy500", players, rules={"free_top_discard": n % 4 == 3})
        free_top = game.rules.free_top_discard
        state = game.new_initial_state(n)
        bots = [ValueAgent(seat, hold=bool(n % 2)) for seat in range(players)]
        while not state.is_terminal():
            mask = state.legal_action_mask()
            for hold in (np.ones(players, dtype=np.bool_), np.zeros(players, dtype=np.bool_)):
                board = state.board.copy()
                choice = rummy500_expert.policy(board, free_top, hold)
                assert np.array_equal(board, state.board), "the policy must leave the board as it found it"
                assert choice == chosen_by_rule(state.board, mask, free_top, hold), (hold, state.to_dict())
                assert mask[choice]
                kinds.add(np.searchsorted([act.TAKE, act.MELD, act.LAYOFF_GROUP, act.DISCARD, act.END_HAND], choice,
                                          side="right"))
                compared += 1
            if rng.random() < 0.3:
                state.apply_action(int(rng.choice(np.flatnonzero(mask))))
            else:
                make_move(bots[state.current_player], state)
    assert compared > 3000 and kinds == set(range(6))  # stock, takes, melds, lay-offs, discards, END_HAND


def test_the_playout_policy_chooses_by_its_rule_with_nearly_melded_hands():
    """Hands of a run (over the ace too), maybe a group, and up to two loose cards, so whether a holding seat
    lays its melds turns on the last card or two, and which card it keeps on runs and groups."""
    pick = np.random.default_rng(9)
    outcomes = {False: 0, True: 0}
    for _ in range(400):
        suit, lo = "SHDC"[pick.integers(4)], int(pick.integers(1, 13))
        hi = min(14, lo + int(pick.integers(2, 5) if pick.random() < 0.7 else pick.integers(5, 14)))  # A-K too
        hand = {("A" if p in (1, 14) else "23456789TJQK"[p - 2]) + suit for p in range(lo, hi + 1)}
        if pick.random() < 0.5:
            rank = "A23456789TJQK"[pick.integers(13)]
            group = {rank + t for t in pick.choice(list("SHDC"), 3, replace=False)}
            hand |= group if not group & hand else set()
        rest = [CARD_STRINGS[c] for c in pick.permutation(52) if CARD_STRINGS[c] not in hand]
        loose = int(pick.integers(0, 3))
        hand |= set(rest[:loose])
        position = {"game": "rummy500", "hands": [sorted(hand), rest[loose:loose + 8]], "melds": [],
                    "discard": rest[loose + 8:loose + 8 + int(pick.integers(1, 5))], "current_player": 0,
                    "dealer": 1, "phase": "draw" if pick.random() < 0.3 else "discard"}
        position["stock"] = [c for c in rest[loose + 8:] if c not in position["discard"]]
        state = load_state(position)
        for hold in (np.ones(2, dtype=np.bool_), np.zeros(2, dtype=np.bool_)):
            choice = rummy500_expert.policy(state.board.copy(), False, hold)
            assert choice == chosen_by_rule(state.board, state.legal_action_mask(), False, hold), position
            if hold[0] and position["phase"] == "discard":
                outcomes[act.MELD <= choice < act.DISCARD] += 1
    assert min(outcomes.values()) > 50  # laid and kept
