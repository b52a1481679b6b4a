"""Rummy 500 under random play: the mask against a brute-force oracle, invariants, determinism.

The oracle reads only the position dict and action strings and decides legality by
plain search (for F6, every sequence of melds and lay-offs that could bring the
taken card to the table), so it shares no code with the compiled mask.
"""

from __future__ import annotations

import random
from itertools import combinations

import numpy as np
import pytest

from rummienv.cards import CARD_STRINGS
from rummienv.core import State
from rummienv.rummy500 import NUM_ACTIONS, Rummy500Game, load_state
from rummienv.rummy500.kernels import layoff_target, table_fits

RANKS = "A23456789TJQK"
ACTIONS = [Rummy500Game().new_initial_state(0).action_to_string(a) for a in range(NUM_ACTIONS)]


# ------------------------------------------------------------------ the oracle
def rank_of(card: str) -> int:
    return RANKS.index(card[0]) + 1


def positions_of(card: str) -> tuple[int, ...]:
    """Run positions a card can stand at: an ace low (1) or high (14)."""
    return (1, 14) if card[0] == "A" else (rank_of(card),)


def run_span(cards) -> tuple[int, int] | None:
    if len(cards) < 3 or len({c[1] for c in cards}) != 1:
        return None
    for ace in (14, 1):
        pos = sorted(ace if c[0] == "A" else rank_of(c) for c in cards)
        if pos == list(range(pos[0], pos[0] + len(pos))):
            return pos[0], pos[-1]
    return None


def is_group(cards) -> bool:
    return 3 <= len(cards) <= 4 and len({c[0] for c in cards}) == 1


def new_meld(cards) -> tuple:
    if is_group(cards):
        return ("group", next(iter(cards))[0], len(cards))
    lo, hi = run_span(cards)
    return ("run", next(iter(cards))[1], lo, hi)


def fits(card: str, meld: tuple) -> bool:
    if meld[0] == "group":
        return meld[1] == card[0] and meld[2] == 3
    _, suit, lo, hi = meld
    return suit == card[1] and any(p == lo - 1 or p == hi + 1 for p in positions_of(card))


def extended(meld: tuple, card: str) -> list[tuple]:
    """Every meld that laying ``card`` off on ``meld`` can give."""
    if meld[0] == "group":
        return [("group", meld[1], 4)]
    _, suit, lo, hi = meld
    out = []
    for p in positions_of(card):
        if p == lo - 1:
            out.append(("run", suit, p, hi))
        if p == hi + 1:
            out.append(("run", suit, lo, p))
    return out


def card_at(pos: int, suit: str) -> str:
    return RANKS[(pos - 1) % 13] + suit


def melds_in(hand: frozenset):
    """Every group and run (as a card set) inside ``hand``."""
    by_rank: dict[str, list[str]] = {}
    for card in hand:
        by_rank.setdefault(card[0], []).append(card)
    for cards in by_rank.values():
        for size in (3, 4):
            yield from (frozenset(c) for c in combinations(cards, size))
    for suit in "SHDC":
        for lo in range(1, 13):
            hi = lo
            while card_at(lo, suit) in hand and hi < 14 and card_at(hi + 1, suit) in hand:
                hi += 1
                if hi - lo >= 2 and not (lo == 1 and hi == 14):
                    yield frozenset(card_at(p, suit) for p in range(lo, hi + 1))


def can_use(card: str, hand: frozenset, table: tuple, seen=None) -> bool:
    """Whether some sequence of melds and lay-offs puts ``card`` on the table."""
    seen = set() if seen is None else seen
    key = (hand, tuple(sorted(table)))
    if key in seen:
        return False
    seen.add(key)
    moves = []
    for meld in melds_in(hand):
        if card in meld:
            return True
        moves.append((hand - meld, table + (new_meld(meld),)))
    for other in hand:
        for i, meld in enumerate(table):
            if fits(other, meld):
                if other == card:
                    return True
                for grown in extended(meld, other):
                    moves.append((hand - {other}, table[:i] + (grown,) + table[i + 1 :]))
    return any(can_use(card, h, t, seen) for h, t in moves)


def table_of(pos: dict) -> tuple:
    table = []
    for meld in pos["melds"]:
        cards = meld["cards"]
        if meld["kind"] == "group":
            table.append(("group", cards[0][0], len(cards)))
        else:
            lo = 1 if cards[0][0] == "A" else rank_of(cards[0])
            hi = 14 if cards[-1][0] == "A" else rank_of(cards[-1])
            table.append(("run", cards[0][1], lo, hi))
    return tuple(table)


def oracle_mask(pos: dict) -> list[bool]:
    """Legality of every action string in ``ACTIONS`` for the position, by plain rules."""
    if pos["phase"] == "over":
        return [False] * len(ACTIONS)
    hand = frozenset(pos["hands"][pos["current_player"]])
    table = table_of(pos)
    return [oracle_legal(pos, hand, table, text) for text in ACTIONS]


def oracle_legal(pos: dict, hand: frozenset, table: tuple, text: str) -> bool:
    words = text.split()
    if pos["phase"] == "draw":
        if text == "DRAW_STOCK":
            return bool(pos["stock"])
        if text == "END_HAND":
            return not pos["stock"]
        if words[0] != "TAKE" or words[1] not in pos["discard"]:
            return False
        pile = pos["discard"]
        depth = pile.index(words[1])
        if pos["rules"]["free_top_discard"] and depth == len(pile) - 1:
            return True
        return can_use(words[1], hand | frozenset(pile[depth:]), table)
    owed = pos["must_use"]
    if words[0] == "DISCARD":
        return words[1] in hand and owed is None
    if words[0] == "MELD":
        cards = frozenset(words[1:])
        if not cards <= hand or not (is_group(cards) or run_span(cards)):
            return False
        return owed is None or owed in cards or can_use(owed, hand - cards, table + (new_meld(cards),))
    if words[0] == "LAYOFF":
        card, kind = words[1], words[2].lower()
        if card not in hand:
            return False
        targets = [i for i, meld in enumerate(table) if meld[0] == kind and fits(card, meld)]
        if not targets or owed is None or owed == card:
            return bool(targets)
        return any(
            can_use(owed, hand - {card}, table[:i] + (grown,) + table[i + 1 :])
            for i in targets
            for grown in extended(table[i], card)
        )
    return False


# ------------------------------------------------------------------ random play
def lively_choice(state, legal: np.ndarray, pick: random.Random) -> int:
    """Random, but leaning to takes, melds and lay-offs so the table fills up."""
    busy = [a for a in legal if 1 <= a < NUM_ACTIONS - 53]
    if busy and pick.random() < 0.6:
        return int(pick.choice(busy))
    return int(legal[pick.randrange(len(legal))])


def games(count: int, seed: int):
    """Seeded hands over 2-4 players, some with free_top_discard, yielding every state."""
    pick = random.Random(seed)
    for i in range(count):
        players = 2 + i % 3
        rules = {"free_top_discard": i % 5 == 4}
        state = Rummy500Game(rules, players).new_initial_state(seed * 100_000 + i)
        yield state
        while not state.is_terminal():
            legal = np.flatnonzero(state.legal_action_mask())
            state.apply_action(lively_choice(state, legal, pick))
            yield state


def oracle_points(pos: dict) -> list[int]:
    """F11 from the position: laid cards (an ace first in a run is low: 1) minus held cards."""

    def value(card: str) -> int:
        return 15 if card[0] == "A" else min(rank_of(card), 10)

    points = [-sum(value(c) for c in hand) for hand in pos["hands"]]
    for meld in pos["melds"]:
        for i, (card, owner) in enumerate(zip(meld["cards"], meld["owners"], strict=True)):
            low_ace = meld["kind"] == "run" and i == 0 and card[0] == "A"
            points[owner] += 1 if low_ace else value(card)
    return points


def card_places(pos: dict) -> list[str]:
    return (
        [c for hand in pos["hands"] for c in hand]
        + [c for meld in pos["melds"] for c in meld["cards"]]
        + pos["stock"]
        + pos["discard"]
    )


def test_mask_matches_brute_force_oracle_on_random_positions():
    checked = phases = 0
    seen_phases = set()
    for n, state in enumerate(games(100, seed=1)):
        if n % 3:
            continue
        pos = state.to_dict()
        mask = state.legal_action_mask()
        for a, expected in enumerate(oracle_mask(pos)):
            if bool(mask[a]) != expected:
                pytest.fail(f"{ACTIONS[a]}: mask {mask[a]} but oracle {expected} in {pos}")
        checked += 1
        seen_phases.add(pos["phase"])
    phases = len(seen_phases)
    assert checked >= 1000 and phases == 4


def dense_position(pick: random.Random) -> dict:
    """A random table of runs and groups, with hands and pile crowded into two suits.

    Random play rarely builds long chains of lay-offs; crowding the cards makes
    F6 takes through chains, and melds that would strand the owed card, common.
    """
    deck = list(CARD_STRINGS)
    pick.shuffle(deck)
    used: set[str] = set()
    melds = []
    for _ in range(pick.randint(0, 6)):
        if pick.random() < 0.4:
            rank = pick.choice(RANKS)
            cards = [rank + s for s in "SHDC" if pick.random() < 0.8][:4]
        else:
            suit, lo = pick.choice("SHDC"), pick.randint(1, 12)
            cards = [card_at(p, suit) for p in range(lo, min(14, lo + pick.randint(2, 5)) + 1)]
        if len(cards) >= 3 and not used & set(cards):
            used |= set(cards)
            owner = pick.randint(0, 1)
            melds.append(
                {
                    "kind": "group" if len({c[0] for c in cards}) == 1 else "run",
                    "cards": cards,
                    "owners": [owner] * len(cards),
                }
            )
    suits = pick.sample("SHDC", 2)
    crowd = [c for c in deck if c not in used and c[1] in suits]
    rest = [c for c in deck if c not in used and c[1] not in suits]
    hand = crowd[: pick.randint(2, 9)]
    pile = crowd[len(hand) : len(hand) + pick.randint(1, 6)]
    others = crowd[len(hand) + len(pile) :] + rest
    pos = {
        "game": "rummy500",
        "hands": [hand, others[:5]],
        "melds": melds,
        "stock": others[5:],
        "discard": pile,
        "current_player": 0,
        "dealer": 1,
        "phase": "draw",
    }
    return load_state(pos).to_dict()


def test_mask_matches_oracle_on_dense_random_tables():
    pick = random.Random(4)
    owed_positions = 0
    for _ in range(400):
        pos = dense_position(pick)
        positions = [pos]
        hand = frozenset(pos["hands"][0])
        owed = [c for c in sorted(hand) if can_use(c, hand, table_of(pos))]
        if owed:
            positions.append(load_state({**pos, "phase": "meld", "must_use": pick.choice(owed)}).to_dict())
            owed_positions += 1
        for p in positions:
            mask = load_state(p).legal_action_mask()
            for a, expected in enumerate(oracle_mask(p)):
                if bool(mask[a]) != expected:
                    pytest.fail(f"{ACTIONS[a]}: mask {mask[a]} but oracle {expected} in {p}")
    assert owed_positions > 100


def test_random_play_invariants_over_1000_hands():
    ended_by = {"out": 0, "stock": 0}
    for n, state in enumerate(games(1000, seed=2)):
        mask = state.legal_action_mask()
        if state.is_terminal():
            assert not mask.any() and state.current_player == -1
            pos = state.to_dict()
            empty = any(not hand for hand in pos["hands"])
            ended_by["out" if empty else "stock"] += 1
            if not empty:
                assert pos["stock"] == []
            assert load_state(pos).to_dict() == pos
            assert state.scores().tolist() == oracle_points(pos)
            continue
        assert mask.any(), "dead end"
        if n % 3 == 0:
            for a in np.flatnonzero(mask):
                state.clone().apply_action(int(a))
        if n % 10 == 0:
            pos = state.to_dict()
            assert sorted(card_places(pos)) == sorted(CARD_STRINGS)
            assert load_state(pos).to_dict() == pos
    assert ended_by["out"] > 100 and ended_by["stock"] > 10


def test_same_seed_same_game_and_replay():
    def run(seed: int):
        pick = random.Random(seed)
        state = Rummy500Game({"whole_game": True, "target_score": 300}, 3).new_initial_state(seed)
        while not state.is_terminal():
            legal = np.flatnonzero(state.legal_action_mask())
            state.apply_action(lively_choice(state, legal, pick))
        return state

    first, second = run(7), run(7)
    assert first.to_dict() == second.to_dict()
    assert first.to_dict()["hand_number"] >= 1  # several deals from one generator
    replayed = Rummy500Game({"whole_game": True, "target_score": 300}, 3).replay(7, first.history)
    assert replayed.to_dict() == first.to_dict()
    assert run(8).to_dict() != first.to_dict()
    assert sum(first.scores()) == 0 and max(first.totals) >= 300


@pytest.mark.parametrize("players", [2, 3, 4])
def test_compiled_random_moves_equal_the_generic_loop(players):
    """The envs' random opponents run compiled; a seed must give the moves of the plain loop."""
    game = Rummy500Game({"whole_game": True, "target_score": 200}, players)
    random_seats = np.array([seat != 0 for seat in range(players)])
    for seed in range(3):
        fast, plain = game.new_initial_state(seed), game.new_initial_state(seed)
        fast_rng, plain_rng = np.random.default_rng(seed), np.random.default_rng(seed)
        while not plain.is_terminal():
            fast.play_uniform(fast_rng, random_seats)
            State.play_uniform(plain, plain_rng, random_seats)
            assert fast.to_dict() == plain.to_dict()
            if plain.is_terminal():
                break
            first_legal = int(np.flatnonzero(plain.legal_action_mask())[0])
            fast.apply_action(first_legal)
            plain.apply_action(first_legal)
        assert fast.is_terminal() and fast.scores().tolist() == plain.scores().tolist()


def test_clone_is_independent_and_round_trip_continues_identically():
    game = Rummy500Game({"whole_game": True, "target_score": 100})
    state = game.new_initial_state(11)
    pick = random.Random(0)
    for _ in range(40):
        state.apply_action(lively_choice(state, np.flatnonzero(state.legal_action_mask()), pick))
    assert not state.is_terminal()
    copy, loaded = state.clone(), load_state(state.to_dict())
    before = state.to_dict()
    for follower in (copy, loaded):
        rng = random.Random(5)
        while not follower.is_terminal():
            follower.apply_action(lively_choice(follower, np.flatnonzero(follower.legal_action_mask()), rng))
    assert state.to_dict() == before
    assert copy.to_dict() == loaded.to_dict() != before


def test_hidden_information_never_reaches_view_or_observation():
    for n, state in enumerate(games(30, seed=3)):
        if n % 7 or state.is_terminal():
            continue
        pos = state.to_dict()
        me = state.current_player
        # Swap the unknown cards of the other hands with the stock: same public facts.
        hidden = list(pos["stock"])
        for seat, hand in enumerate(pos["hands"]):
            if seat != me:
                hidden += [c for c in hand if c not in pos["known"][seat]]
        random.Random(n).shuffle(hidden)
        other = {**pos, "hands": [list(h) for h in pos["hands"]], "seed": None, "actions": []}
        for seat, hand in enumerate(pos["hands"]):
            if seat != me:
                secret = len([c for c in hand if c not in pos["known"][seat]])
                other["hands"][seat] = pos["known"][seat] + [hidden.pop() for _ in range(secret)]
        other["stock"] = hidden
        twin = load_state(other)
        assert np.array_equal(twin.observation(me), state.observation(me))
        assert twin.view(me) == state.view(me)


def test_observation_layout_covers_the_vector():
    for players in (2, 3, 4):
        game = Rummy500Game(num_players=players)
        state = game.new_initial_state(0)
        obs = state.observation(0)
        assert obs.dtype == np.float32 and obs.shape == (game.observation_size,)
        parts = sorted(game.observation_layout.values(), key=lambda s: s.start)
        assert parts[0].start == 0 and parts[-1].stop == len(obs)
        assert all(a.stop == b.start for a, b in zip(parts, parts[1:], strict=False))
        assert obs[game.observation_layout["hand"]].sum() == len(state.view(0)["hand"])
        assert obs[game.observation_layout["phase"]].tolist() == [1, 0, 0]


def test_table_fits_is_layoff_target_for_every_card():
    """The lay-off ends read in one pass over the table answer what ``layoff_target`` answers, card by card."""
    pick = random.Random(6)
    boards = [state.board.copy() for n, state in enumerate(games(60, seed=6)) if n % 4 == 0]
    boards += [load_state(dense_position(pick)).board.copy() for _ in range(200)]
    fitted = 0
    for board in boards:
        groups, runs = table_fits(board)
        for card in range(52):
            for as_run in (False, True):
                expected = layoff_target(board, card, as_run)[0] >= 0
                fitted += expected
                bits = runs[card // 13] if as_run else groups
                assert bool(bits >> (card % 13) & 1) == expected, (card, as_run, board)
    assert fitted > 1000
