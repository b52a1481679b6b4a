"""The inputs the fuzz tests found failing from inside, each refused now with the project's error in one line.

Kept as they were found, beside the property tests, so that each stays fixed whatever the strategies draw.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from fuzz_strategies import real_positions

import rummienv
from agents.train_config import ConfigError, from_dict, load_config
from rummienv import games, play_text, replay
from rummienv.errors import IllegalActionError, NotationError, PositionError, ReplayError, RulesError
from rummienv.rules import make_rules
from rummienv.tiles import tile_index


def _one_line(error: type[Exception], call: Any, *args: Any) -> None:
    with pytest.raises(error) as refusal:
        call(*args)
    assert "\n" not in str(refusal.value)


def _rummikub(**changes: Any) -> dict[str, Any]:
    return {**real_positions("rummikub")[1], **changes}


@pytest.mark.parametrize("position", [
    {"game": ["rummikub"]},  # TypeError: unhashable
    _rummikub(passes="rummikub"),  # ValueError from int()
    _rummikub(seed=[]),  # TypeError from int()
    _rummikub(totals=["o1", "0"]),  # ValueError from Fraction()
    _rummikub(totals=["1/0", "0"]),  # ZeroDivisionError
    _rummikub(totals=["0"]),  # loaded, then IndexError in the observation
    _rummikub(racks=[5, ["k2"]]),  # TypeError: 'int' object is not iterable
    _rummikub(table=5),  # TypeError
    _rummikub(opened=[True, False], plays=[10**30, 0]),  # OverflowError
    _rummikub(whole_game="false"),  # read as true
    _rummikub(rules="rules.yaml"),  # read as a rules file's path
    _rummikub(racks=[["r1"] * 130, ["k2"]], pool=[]),  # 8-bit counts wrapped around to -126 copies
    _rummikub(round=5),  # a round of a one-round game that does not exist
    {**real_positions("rummy500")[1], "phase": ["draw"]},  # TypeError: unhashable
    {**real_positions("rummy500")[5], "rng": {**real_positions("rummy500")[5]["rng"],  # OverflowError
                                              "state": {"state": -1, "inc": 1}}},
])
def test_positions_found_are_refused(position: dict[str, Any]) -> None:
    _one_line(PositionError, rummienv.load_state, position)


def _replay_file(tmp_path: Path, content: bytes | dict[str, Any]) -> Path:
    path = tmp_path / "game.json"
    path.write_bytes(content if isinstance(content, bytes) else json.dumps(content).encode())
    return path


def _record(game: str, players: int = 2, **changes: Any) -> dict[str, Any]:
    state = games.make_game(game, players).new_initial_state(1)
    return {**replay.record(state, ["a"] * players), **changes}


@pytest.mark.parametrize("content", [
    b"\x8b\x00",  # UnicodeDecodeError
    b"[" * 3000,  # RecursionError
    {k: v for k, v in _record("rummikub").items() if k != "whole_game"},  # KeyError when played
    _record("rummy500", rules={"target_scgre": 1}),  # RulesError when played, not the replay's error
    _record("rummy500", moves=[-1]),  # AttributeError: a timeout in a game without a clock
    _record("rummy500", players=3, rules={"hand_size": 20}),  # RulesError dealing 60 cards to three
])
def test_replays_found_are_refused(tmp_path: Path, content: bytes | dict[str, Any]) -> None:
    path = _replay_file(tmp_path, content)
    _one_line(ReplayError, lambda: list(replay.states(replay.read(path))))


@pytest.mark.parametrize("overrides", [{"jokers": math.nan}, {"jokers": math.inf}])  # ValueError, OverflowError
def test_rules_found_are_refused(overrides: dict[str, Any]) -> None:
    _one_line(RulesError, make_rules, "rummikub", overrides)


@pytest.mark.parametrize("content", [  # not UTF-8, too deep, a message over lines, the parser's own ValueError
    b"\xbb", b"[" * 3000, b"jokers: [1\n", b'"\\U10010000": 1\n', b'"\\U80010000": []\n'])
def test_rules_files_found_are_refused(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "rules.yaml"
    path.write_bytes(content)
    _one_line(RulesError, make_rules, "rummikub", path)


@pytest.mark.parametrize("values", [
    {"num_envs": math.nan},  # ValueError from int()
    {"num_envs": math.inf},  # OverflowError
    {"learning_rate": math.nan},  # accepted
    {1: 2, "a": 3},  # TypeError sorting the unknown keys
    {"seed": 2**64},  # accepted, then refused by torch.manual_seed when training starts
])
def test_configs_found_are_refused(values: dict[Any, Any]) -> None:
    _one_line(ConfigError, from_dict, values)


@pytest.mark.parametrize("content", [b"\xda", b"{a: " * 3000, b"seed: [1\n", b'"\\U10010000": null\n',
                                     b'"\\r\\U00010000\\U80010000": null\n'])
def test_config_files_found_are_refused(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "run.yaml"
    path.write_bytes(content)
    _one_line(ConfigError, load_config, path)


@pytest.mark.parametrize("action", [np.array([[False], [False]]), True])  # a message over lines; played as 1
def test_env_actions_found_are_refused(action: Any) -> None:
    env = gym.make("rummienv/Rummikub-v0")
    env.reset(seed=0)
    _one_line(IllegalActionError, env.step, action)


@pytest.mark.parametrize("whole_turns", [False, True])
def test_an_action_string_that_is_no_string_is_refused(whole_turns: bool) -> None:  # AttributeError
    state = games.make_game("rummikub", 2, whole_turns=whole_turns).new_initial_state(0)
    _one_line(IllegalActionError, state.string_to_action, None)


@pytest.mark.parametrize("token", ["r²", "r١"])  # ValueError from int(); read as r1
def test_tiles_with_other_digits_are_refused(token: str) -> None:
    _one_line(NotationError, tile_index, token)
    _one_line(NotationError, play_text.parse_move, "rummikub", f"play {token}",
              games.make_game("rummikub").new_initial_state(0))
