"""No seat sees what it may not know: other racks and hands, the pool's and the stock's order.

For positions in every phase of every game, the test changes exactly the hidden
part (a piece swapped between another seat's rack and the pool, the pool
shuffled; at the end, only the order), rebuilds the state from the changed
position, and checks that the seat's observation, its mask and its moves as text
when it is to move, its render and its text (``rummienv.text_interface``) are
unchanged. The envs hand out ``state.observation(seat)``
(tests in test_envs.py and test_envs_aec.py check that), so this covers them.
"""

from __future__ import annotations

import numpy as np
import pytest

import rummienv
from rummienv import text_interface
from rummienv.envs.games import make_adapter
from rummienv.errors import PositionError

RUMMIKUB_PHASES = {"turn start", "staging", "over"}
RUMMY500_PHASES = {"draw", "meld", "discard", "over"}


def hide_rummikub(position: dict, viewer: int, rng: np.random.Generator) -> dict:
    changed = {**position, "racks": [list(r) for r in position["racks"]], "pool": list(position["pool"])}
    if position["over"]:
        rng.shuffle(changed["pool"])  # the racks are counted at the end: only the order stays hidden
        return changed
    for seat, rack in enumerate(changed["racks"]):
        if seat == viewer or not changed["pool"]:
            continue
        staged = list(position["staged"]) if seat == position["current_player"] else []
        for tile in staged:  # staged pieces stay: they must be in the rack of the seat to move
            rack.remove(tile)
        if rack:
            mine, theirs = int(rng.integers(len(rack))), int(rng.integers(len(changed["pool"])))
            rack[mine], changed["pool"][theirs] = changed["pool"][theirs], rack[mine]
        rack += staged
    rng.shuffle(changed["pool"])
    return changed


def hide_rummy500(position: dict, viewer: int, rng: np.random.Generator) -> dict:
    changed = {**position, "hands": [list(h) for h in position["hands"]], "stock": list(position["stock"])}
    if position["phase"] != "over":
        for seat, hand in enumerate(changed["hands"]):
            public = set(position["known"][seat]) | {position["must_use"]}
            free = [i for i, card in enumerate(hand) if card not in public]
            if seat != viewer and changed["stock"]:
                _swap_keeping_it_legal(changed, hand, free, rng)
    rng.shuffle(changed["stock"])
    return changed


def _swap_keeping_it_legal(position: dict, hand: list[str], free: list[int], rng: np.random.Generator) -> None:
    """Swap a hand card with a stock card; the seat owing a card (F6) must still be able to use it."""
    stock = position["stock"]
    for mine in rng.permutation(free):
        theirs = int(rng.integers(len(stock)))
        hand[mine], stock[theirs] = stock[theirs], hand[mine]
        try:
            rummienv.load_state(position)
            return
        except PositionError:
            hand[mine], stock[theirs] = stock[theirs], hand[mine]


def seen_by(state, seat: int, adapter) -> tuple:
    to_move = seat == state.current_player
    mask = state.legal_action_mask().tobytes() if to_move else b""
    moves = text_interface.legal_moves(state) if to_move else []
    text = text_interface.seat_text(state, seat)
    return state.observation(seat).tobytes(), mask, adapter.render(state, seat), text, moves


def assert_no_leak(states: list, hide, seed: int) -> set[str]:
    rng = np.random.default_rng(seed)
    phases = set()
    for state in states:
        phases.add(state.phase)
        adapter = make_adapter(state.rules.game, state.num_players)
        position = state.to_dict()
        for seat in range(state.num_players):
            changed = hide(position, seat, rng)
            other = rummienv.load_state(changed)
            assert other.to_dict() != position or len(position.get("pool", position.get("stock", []))) < 2
            assert seen_by(other, seat, adapter) == seen_by(state, seat, adapter), (state.phase, seat)
    return phases


def random_play(game: str, players: int, seed: int, actions: int, every: int) -> list:
    adapter, rng = make_adapter(game, players), np.random.default_rng(seed)
    state, states = adapter.new_state(seed), []
    for i in range(actions):
        if state.is_terminal():
            break
        if i % every == 0 or state.phase == "meld":
            states.append(state.clone())
        state.apply_action(int(rng.choice(np.flatnonzero(state.legal_action_mask()))))
    return states + [state]


def rummikub_round_end(game: str) -> object:
    """Seat 0, opened, goes out with a group: the round's last move."""
    state = rummienv.load_state({"game": game, "racks": [["k5", "b5", "o5"], ["r1", "r2", "k9", "J"]],
                                 "opened": [True, False], "table": [["k10", "k11", "k12"]]})
    for action in ("PLACE k5", "PLACE b5", "PLACE o5", "COMMIT"):
        state.apply_action(state.string_to_action(action))
    return state


@pytest.mark.parametrize("game", ["rummikub", "rummikub_cards"])
def test_rummikub_observations_hide_racks_and_pool(game):
    states = [rummikub_round_end(game)]
    for players, seed in ((2, 0), (3, 1), (4, 2)):
        states += random_play(game, players, seed, actions=90, every=6)
    assert assert_no_leak(states, hide_rummikub, 0) == RUMMIKUB_PHASES
    assert any(s.opened.any() for s in states), "some seat should have opened"


def test_rummy500_observations_hide_hands_and_stock():
    states = []
    for players in (2, 3, 4):
        for seed in range(3):
            states += random_play("rummy500", players, seed, actions=1000, every=7)
    assert assert_no_leak(states, hide_rummy500, 0) == RUMMY500_PHASES
