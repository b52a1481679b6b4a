"""Fuzzed moves: action indices given to each Gymnasium env's ``step``, moves typed in the terminal game and
action strings given to ``State.string_to_action``.

An action is played or refused with IllegalActionError (a typed move also with NotationError) in one line, and
a refused one leaves the game as it was, able to go on.
"""

from __future__ import annotations

import functools
import json
from typing import Any

import gymnasium as gym
import numpy as np
from fuzz_strategies import (
    ACTION_ERRORS,
    HUGE,
    accepted,
    check_state,
    piece_names,
    play_randomly,
    real_positions,
    refused,
)
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import rummienv
from rummienv import games, play_text
from rummienv.errors import IllegalActionError

GAMES = games.names()


def _position(state: Any) -> str:
    return json.dumps(state.to_dict(), sort_keys=True)


def actions(num_actions: int, legal: list[int]) -> st.SearchStrategy[Any]:
    """Indices in and out of range, legal and not, of other types, and arrays as vectorised trainers pass."""
    small = st.sampled_from(legal) | st.integers(-3, num_actions + 3)
    ints = small | st.sampled_from([-(2**63), 2**63, 2**64, 10**30])
    return st.one_of(
        ints, ints, (small | st.sampled_from([-(2**63), 2**63 - 1])).map(np.int64),
        small.filter(lambda a: 0 <= a < 256).map(np.uint8), st.floats(),
        ints.map(float), st.sampled_from([*HUGE, None, True, False, "1", "DRAW", b"\x01", [1], (1,), {1: 1}]),
        hnp.arrays(hnp.scalar_dtypes(), hnp.array_shapes(min_dims=0, max_dims=2, max_side=3)),
        ints.map(lambda a: np.array([a])), st.sampled_from(legal).map(lambda a: np.full((1, 1), a)))


ENVS = [*rummienv.ENV_IDS, "whole_turns"]  # each registered env, and Rummikub's whole-turn action mode


@functools.cache
def make_env(name: str) -> gym.Env:
    return gym.make("rummienv/Rummikub-v0", whole_turns=True) if name == "whole_turns" else gym.make(name)


@given(data=st.data())
def test_env_step_plays_an_action_or_refuses_it_in_one_line_and_goes_on(data: st.DataObject) -> None:
    env = make_env(data.draw(st.sampled_from(ENVS), label="env"))
    env.reset(seed=data.draw(st.integers(0, 50), label="seed"))
    inner = env.unwrapped
    for _ in range(data.draw(st.integers(0, 6), label="legal moves first")):
        _, _, over, _, _ = env.step(int(np.flatnonzero(inner.action_masks())[0]))
        if over:
            return
    legal = np.flatnonzero(inner.action_masks()).tolist()
    action = data.draw(actions(env.action_space.n, legal), label="action")
    before = _position(inner.state)
    try:
        env.step(action)
    except IllegalActionError as exc:
        refused(exc)
        assert _position(inner.state) == before, "a refused action changed the game"
        env.step(legal[0])
        return
    accepted()


def typed_moves(game: str) -> st.SearchStrategy[str]:
    """What a person may type: the games' verbs with pieces, near misses and junk, in any case and spacing."""
    verbs = ["play", "place", "draw", "pass", "commit", "swap", "take", "discard", "meld", "layoff", "end", "undo",
             "hint", "PLAY", "Draw", ""]
    word = st.sampled_from(verbs) | st.sampled_from(piece_names(game)) | st.sampled_from(["run", "group", "RUN"]) \
        | st.text(max_size=5)
    sentence = st.tuples(st.sampled_from(verbs), st.lists(word, max_size=5), st.sampled_from([" ", "  ", "\t"]))
    return sentence.map(lambda s: s[2].join([s[0], *s[1]])) | st.text(max_size=30)


def live_states(game: str) -> st.SearchStrategy[Any]:
    """States of ``game`` that play reaches and that are not over: positions read back, played on a little."""
    positions = [p for p in real_positions(game) if p.get("phase", "") != "over" and not p.get("over")]
    return st.tuples(st.sampled_from(positions), st.integers(0, 8), st.integers(0, 3)).map(
        lambda t: play_randomly(rummienv.load_state(t[0]), t[1], t[2])).filter(lambda s: not s.is_terminal())


@given(data=st.data())
def test_a_typed_move_is_played_whole_or_refused_in_one_line(data: st.DataObject) -> None:
    game = data.draw(st.sampled_from(GAMES), label="game")
    state = data.draw(live_states(game), label="state")
    hinted = st.sampled_from(state.legal_actions()).map(lambda a: play_text.as_command(game, [a]))
    text = data.draw(typed_moves(game) | hinted, label="typed")
    try:
        moves = play_text.parse_move(game, text, state)
    except ACTION_ERRORS as exc:
        refused(exc)
        return
    assert moves and all(type(a) is int and 0 <= a < len(state.legal_action_mask()) for a in moves), moves
    trial = state.clone()  # as the terminal game plays a move: all of it on a copy, or none
    for action in moves:
        try:
            trial.apply_action(action)
        except IllegalActionError as exc:
            refused(exc)
            reason = play_text.why_not(trial, action, exc)
            assert reason.strip() and "\n" not in reason, reason
            return
    check_state(trial)


def action_strings(game: str) -> st.SearchStrategy[Any]:
    names = ["PLACE", "COMMIT", "DRAW", "PASS", "SWAP_JOKER", "MAX_PLAY", "KEEP_JOKERS_PLAY", "DRAW_STOCK", "TAKE",
             "MELD", "LAYOFF", "LAYOFF_RUN", "LAYOFF_GROUP", "DISCARD", "END_HAND", "place", "meld"]
    word = st.sampled_from(names) | st.sampled_from(piece_names(game)) | st.sampled_from(["RUN", "group"]) \
        | st.text(max_size=4)
    return st.one_of(st.lists(word, min_size=1, max_size=5).map(" ".join), st.text(max_size=20),
                     st.sampled_from([None, 3, 3.0, b"DRAW", ["DRAW"], True]))


@given(data=st.data())
def test_an_action_string_names_an_action_or_is_refused_in_one_line(data: st.DataObject) -> None:
    game = data.draw(st.sampled_from([*GAMES, "whole_turns"]), label="game")
    made = games.make_game("rummikub", 2, whole_turns=True) if game == "whole_turns" else games.make_game(game)
    state = made.new_initial_state(0)
    text = data.draw(action_strings("rummikub" if game == "whole_turns" else game)
                     | st.integers(0, made.num_actions - 1).map(state.action_to_string), label="text")
    try:
        action = state.string_to_action(text)
    except ACTION_ERRORS as exc:
        refused(exc)
        return
    accepted()
    assert type(action) is int and 0 <= action < made.num_actions
    assert state.string_to_action(state.action_to_string(action)) == action
