"""``render_mode="rgb_array"``: frames of the declared shape, that follow the game and show one seat's
knowledge only."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import rummienv
from rummienv import ENV_IDS
from rummienv.drawing import FRAME_SHAPE
from rummienv.envs.games import make_adapter

GAME_OF = {"rummienv/Rummikub-v0": "rummikub", "rummienv/RummikubCards-v0": "rummikub_cards",
           "rummienv/Rummy500-v0": "rummy500"}


def _table(view: dict) -> object:
    return view.get("table_sets", view.get("melds"))


@pytest.mark.parametrize("env_id", sorted(ENV_IDS))
def test_frames_have_the_declared_shape_and_follow_the_table(env_id):
    opponents = ["max_tiles"] if GAME_OF[env_id] != "rummy500" else None  # random staging seldom opens
    env = gym.make(env_id, render_mode="rgb_array", opponents=opponents)
    obs, _ = env.reset(seed=4)
    rng = np.random.default_rng(4)
    frame, table = env.render(), _table(env.unwrapped.state.view(env.unwrapped.seat))
    changes = 0
    for _ in range(400):
        obs, _, terminated, _, _ = env.step(rng.choice(np.flatnonzero(obs["action_mask"])))
        if terminated:
            break
        new_frame, new_table = env.render(), _table(env.unwrapped.state.view(env.unwrapped.seat))
        assert new_frame.shape == FRAME_SHAPE and new_frame.dtype == np.uint8
        if new_table != table:
            assert not np.array_equal(new_frame, frame), "the table changed but the frame did not"
            changes += 1
        frame, table = new_frame, new_table
    assert changes >= 2


def _swap_hidden(position: dict, key: str, stock: str) -> dict:
    """The same position but for one piece of seat 1's rack or hand traded with one of the pool or stock
    that it does not hold: what seat 0 cannot know."""
    changed = {**position, key: [list(p) for p in position[key]], stock: list(position[stock])}
    theirs, pile = changed[key][1], changed[stock]
    k = next(i for i, piece in enumerate(pile) if piece not in theirs)
    theirs[0], pile[k] = pile[k], theirs[0]
    return changed


@pytest.mark.parametrize("game", ["rummikub", "rummikub_cards", "rummy500"])
def test_a_frame_shows_nothing_of_another_seats_rack(game):
    adapter = make_adapter(game, 2)
    state = adapter.new_state(11)
    key, stock = ("hands", "stock") if game == "rummy500" else ("racks", "pool")
    other = rummienv.load_state(_swap_hidden(state.to_dict(), key, stock))
    assert np.array_equal(adapter.frame(state, 0), adapter.frame(other, 0))
    assert not np.array_equal(adapter.frame(state, 1), adapter.frame(other, 1))  # seat 1 sees its own rack


def test_the_aec_env_draws_the_agent_to_act():
    env = rummienv.aec_env("rummikub", num_players=3, render_mode="rgb_array")
    env.reset(seed=2)
    frame = env.render()
    assert frame.shape == FRAME_SHAPE and frame.dtype == np.uint8
    seat = env._seat_of[env.agent_selection]
    assert np.array_equal(frame, env.adapter.frame(env.game_state, seat))
