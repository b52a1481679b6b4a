"""Hypothesis strategies for the inputs the project reads: real ones taken from play and then damaged, and
arbitrary JSON.

Arbitrary data alone rarely gets past a loader's first check, so most examples start from something real (a
position written by ``to_dict`` of a state reached by random legal play, a replay, a shipped config) and change
it a little in the ways a person editing a file or a damaged copy would: a key deleted, duplicated or replaced,
a piece renamed, a piece moved to another list, a wrong type, a huge number, nested garbage.
"""

from __future__ import annotations

import copy
import functools
import json
import math
from typing import Any

import numpy as np
from hypothesis import event
from hypothesis import strategies as st

import rummienv
from rummienv import games
from rummienv.cards import CARD_STRINGS
from rummienv.errors import IllegalActionError, NotationError, PositionError, ReplayError, RulesError
from rummienv.tiles import COLOURS

POSITION_ERRORS = (PositionError, RulesError, NotationError)  # what a position may be refused with
ACTION_ERRORS = (IllegalActionError, NotationError)  # what a move or an action may be refused with
REPLAY_ERRORS = (ReplayError,)

HUGE = [2**31, 2**63, 2**64 + 1, -(2**63) - 1, 10**30, -(10**30), 1e308, -1e308, math.inf, -math.inf, math.nan]

TILES = [f"{c}{n}" for c in COLOURS for n in range(1, 14)] + ["J"]
NEAR_TILES = ["j", "r0", "r14", "x5", "R5", "k013", "r 5", " r5", "r5 ", "r²", "r١", "r-1", "r1.0", "", "JJ", "r"]
NEAR_CARDS = ["as", "10H", "1S", "ZZ", "11C", "A", "S", "TT", "10", "aß", "9s ", "Ⅸs", ""]


def refused(exc: BaseException) -> None:
    """A refusal a person reads in a terminal: one line that says something (counted in the statistics)."""
    message = str(exc)
    assert message.strip(), f"{type(exc).__name__} with an empty message"
    assert "\n" not in message, f"{type(exc).__name__} message spans lines: {message!r}"
    event(f"refused: {type(exc).__name__}")


def accepted() -> None:
    event("accepted")


def piece_names(game: str) -> list[str]:
    """The game's own piece tokens and near misses of them."""
    return list(CARD_STRINGS) + NEAR_CARDS if games.info(game).family == "rummy500" else TILES + NEAR_TILES


numbers = st.one_of(st.integers(-3, 20), st.sampled_from(HUGE), st.integers(), st.floats())
leaves = st.one_of(st.none(), st.booleans(), numbers, st.text(max_size=12))
json_values = st.recursive(
    leaves, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12)


def _paths(value: Any, path: tuple = ()) -> list[tuple]:
    """Every place in a JSON tree, the root first."""
    found = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += _paths(item, (*path, i))
    return found


def _at(value: Any, path: tuple) -> Any:
    for step in path:
        value = value[step]
    return value


def _replace(root: Any, path: tuple, new: Any) -> Any:
    if not path:
        return new
    _at(root, path[:-1])[path[-1]] = new
    return root


def _wrong_type(value: Any) -> list[Any]:
    return [[value], {"value": value}, str(value), None, True, 1.5, -1, [], {}]


@st.composite
def _mutate_once(draw: st.DrawFn, root: Any, tokens: list[str], keys: list[str]) -> Any:
    paths = _paths(root)
    path = draw(st.sampled_from(paths))
    here = _at(root, path)
    parent = _at(root, path[:-1]) if path else None
    op = draw(st.sampled_from(["delete", "duplicate", "replace", "token", "move", "type", "huge", "garbage",
                               "key"]))
    if op == "delete" and path:
        del parent[path[-1]]
        return root
    if op == "duplicate" and path:
        if isinstance(parent, list):
            parent.insert(path[-1], copy.deepcopy(here))
        else:  # the value given again under another key of the same mapping
            parent[draw(st.sampled_from(sorted(parent, key=str)))] = copy.deepcopy(here)
        return root
    if op == "move" and path and isinstance(parent, list):
        lists = [_at(root, p) for p in paths if isinstance(_at(root, p), list) and p != path[:-1]]
        if lists:
            target = draw(st.sampled_from(lists))
            target.insert(draw(st.integers(0, len(target))), parent.pop(path[-1]))
            return root
    if op == "key" and isinstance(here, dict):
        here[draw(st.sampled_from(keys) | st.text(max_size=8))] = draw(json_values)
        return root
    new = {"token": st.sampled_from(tokens), "type": st.sampled_from(_wrong_type(here)), "huge": numbers,
           "garbage": json_values}.get(op, json_values | st.sampled_from(tokens))
    return _replace(root, path, draw(new))


@st.composite
def mutated(draw: st.DrawFn, bases: list[Any], tokens: list[str], keys: list[str] = ()) -> Any:
    """One of ``bases`` changed one to four times; ``tokens`` are the names a change may write in, ``keys`` the
    keys it may add."""
    value = copy.deepcopy(draw(st.sampled_from(bases)))
    for _ in range(draw(st.integers(1, 4))):
        value = draw(_mutate_once(value, tokens, list(keys)))
    return value


def keyed(keys: list[str], tokens: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    """Mappings of known keys (and a stray one) to arbitrary values, lists of tokens among them."""
    value = json_values | st.lists(st.sampled_from(tokens), max_size=6) | st.sampled_from(tokens)
    return st.dictionaries(st.sampled_from(keys) | st.text(max_size=6), value, max_size=len(keys) + 1)


def play_randomly(state: Any, moves: int, seed: int) -> Any:
    """``state`` after up to ``moves`` uniformly random legal actions."""
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        if state.is_terminal():
            break
        state.apply_action(int(rng.choice(state.legal_actions())))
    return state


@functools.cache
def real_positions(game: str) -> list[dict[str, Any]]:
    """Positions of ``game`` that play reaches: deals, games under way at 2-4 seats, under other rules, whole
    games, and a finished one."""
    rules = {"rummikub": {"jokers": 4}, "rummikub_cards": {"joker_swap_action": False},
             "rummy500": {"free_top_discard": True}}.get(game)
    found = []
    for k, (players, moves, overrides, whole) in enumerate(
            [(2, 0, None, False), (2, 9, None, False), (3, 40, None, False), (4, 120, None, False),
             (2, 60, rules, False), (2, 30, None, True), (3, 400, None, False)]):
        state = games.make_game(game, players, overrides, whole_game=whole).new_initial_state(k)
        found.append(play_randomly(state, moves, k).to_dict())
    return found


@st.composite
def damaged(draw: st.DrawFn, text: bytes) -> bytes:
    """A file's bytes as written, cut short, with a bit flipped, nested past any parser's depth, or anything."""
    damage = draw(st.sampled_from(["none", "none", "cut", "flip", "deep", "text", "bytes"]))
    if damage == "cut":
        return text[:draw(st.integers(0, len(text)))]
    if damage == "flip" and text:
        at = draw(st.integers(0, len(text) - 1))
        return text[:at] + bytes([text[at] ^ (1 << draw(st.integers(0, 7)))]) + text[at + 1:]
    if damage == "deep":
        return draw(st.sampled_from([b"[", b"{a: ", b'{"a": '])) * draw(st.integers(100, 1200))
    if damage == "text":
        return draw(st.text(max_size=80)).encode()
    if damage == "bytes":
        return draw(st.binary(max_size=200))
    return text


def check_state(state: Any) -> None:
    """What every state must allow, however it was reached: a move unless over, its position read back the
    same, each seat's view, and a legal action applied (whose state reads back the same too)."""
    accepted()
    for _ in range(2):
        position = json.loads(json.dumps(state.to_dict()))
        again = rummienv.load_state(position)
        assert json.loads(json.dumps(again.to_dict())) == position
        for seat in range(len(state.scores())):
            state.observation(seat)
            state.view(seat)
        if state.is_terminal():
            return
        legal = state.legal_actions()
        assert legal, "a state that is not over must have a legal action"
        again.apply_action(legal[len(legal) // 2])
        state = again
