"""Fuzzed inputs: positions, replays, rules overrides and training configs, as a person or a damaged file
gives them.

Every input either loads and plays on (the state keeps its invariants: a legal action unless the game is
over, its position reads back the same, a legal action applies) or is refused with the project's own error
and a one-line message, never with an exception from inside or a state that breaks later. Profiles are in
conftest.py: ``HYPOTHESIS_PROFILE=soak`` runs many more examples.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from fuzz_strategies import (
    POSITION_ERRORS,
    REPLAY_ERRORS,
    accepted,
    check_state,
    damaged,
    json_values,
    keyed,
    mutated,
    piece_names,
    play_randomly,
    real_positions,
    refused,
)
from hypothesis import given
from hypothesis import strategies as st

import rummienv
from agents.train_config import ConfigError, TrainConfig, from_dict, load_config, to_dict
from rummienv import games, replay
from rummienv.errors import RulesError
from rummienv.rules import make_rules

GAMES = games.names()
CONFIGS = Path(__file__).resolve().parents[1] / "configs"


def position_inputs(game: str) -> st.SearchStrategy[Any]:
    bases = real_positions(game)
    keys = sorted(set().union(*bases))
    tokens = piece_names(game)
    return st.one_of(st.sampled_from(bases), mutated(bases, tokens, keys), mutated(bases, tokens, keys),
                     mutated(bases, tokens, keys), keyed(keys, tokens).map(lambda p: {**p, "game": game}),
                     json_values)


@given(data=st.data())
def test_a_position_loads_and_plays_or_is_refused_in_one_line(data: st.DataObject) -> None:
    position = data.draw(st.sampled_from(GAMES).flatmap(position_inputs), label="position")
    try:
        state = rummienv.load_state(position)
    except POSITION_ERRORS as exc:
        refused(exc)
        return
    check_state(state)


# ----------------------------------------------------------------------------------------------- replays


def real_replays() -> list[dict[str, Any]]:
    records = []
    for k, game in enumerate(GAMES):
        for players, moves, whole in ((2, 50, False), (3, 400, True)):
            state = play_randomly(games.make_game(game, players, whole_game=whole).new_initial_state(k), moves, k)
            records.append(replay.record(state, [f"bot{seat}" for seat in range(players)], given_seed=k))
    return records


def replay_files(records: list[dict[str, Any]]) -> st.SearchStrategy[bytes]:
    """A replay file's bytes: a real one, changed, damaged, or anything."""
    keys = sorted(records[0])
    record = (st.sampled_from(records) | mutated(records, ["rummikub", "rummy500", "you", "-1"], keys)
              | keyed(keys, ["rummienv-replay/1", *GAMES]).map(lambda r: {**r, "format": replay.FORMAT}))
    return record.flatmap(lambda r: damaged(json.dumps(r).encode()))


@given(data=st.data())
def test_a_replay_file_plays_again_or_is_refused_in_one_line(tmp_path_factory: pytest.TempPathFactory,
                                                            data: st.DataObject) -> None:
    path = tmp_path_factory.mktemp("replay") / "game.json"
    path.write_bytes(data.draw(replay_files(_REPLAYS), label="file"))
    try:
        states = replay.states(replay.read(path))
        state = next(states)  # the one state, advanced in place
        for _ in states:
            pass
    except REPLAY_ERRORS as exc:
        refused(exc)
        return
    check_state(state)


_REPLAYS = real_replays()


# ------------------------------------------------------------------------------------------------- rules


def rules_inputs(game: str) -> st.SearchStrategy[Any]:
    preset = games.info(game).rules
    fields = {k: v for k, v in vars(preset).items()}
    base = [{k: v} for k, v in fields.items()] + [fields]
    return st.one_of(mutated(base, ["rummikub", "rummy500", "lot", "keep_valid"], sorted(fields)),
                     keyed(sorted(fields), list(GAMES)), json_values)


def _check_rules(game: str, overrides: Any) -> None:
    """Rules that load make a game whose deals play."""
    try:
        rules = make_rules(game, overrides)
    except RulesError as exc:
        refused(exc)
        return
    for players in (2, 4):
        try:  # rules may deal more cards than a pack holds at this table
            state = games.make_game(game, players, rules).new_initial_state(players)
        except RulesError as exc:
            refused(exc)
            continue
        check_state(play_randomly(state, 40, players))


@given(data=st.data())
def test_rules_overrides_make_a_game_or_are_refused_in_one_line(data: st.DataObject) -> None:
    game = data.draw(st.sampled_from(GAMES), label="game")
    _check_rules(game, data.draw(rules_inputs(game), label="overrides"))


@given(data=st.data())
def test_a_rules_file_makes_a_game_or_is_refused_in_one_line(tmp_path_factory: pytest.TempPathFactory,
                                                             data: st.DataObject) -> None:
    game = data.draw(st.sampled_from(GAMES), label="game")
    path = tmp_path_factory.mktemp("rules") / "rules.yaml"
    path.write_bytes(data.draw(yaml_files(rules_inputs(game)), label="file"))
    _check_rules(game, path)


def yaml_files(values: st.SearchStrategy[Any]) -> st.SearchStrategy[bytes]:
    """A YAML file's bytes: values written out, damaged, or anything."""
    return values.flatmap(lambda v: damaged(yaml.safe_dump(v).encode()))


# ----------------------------------------------------------------------------------------- training configs


def real_configs() -> list[dict[str, Any]]:
    shipped = [yaml.safe_load(path.read_text()) for path in sorted(CONFIGS.glob("*.yaml"))]
    return shipped + [to_dict(TrainConfig(game=game)) for game in GAMES]


def config_inputs() -> st.SearchStrategy[Any]:
    bases = _CONFIGS
    keys = sorted(to_dict(TrainConfig()))
    tokens = [*GAMES, "max_tiles", "random", "value", "win", "score", "expert"]
    return st.one_of(mutated(bases, tokens, keys), mutated(bases, tokens, keys), keyed(keys, tokens), json_values)


_CONFIGS = real_configs()


def _check_config(config: TrainConfig) -> None:
    """A config that loads is stored in checkpoints as plain values, and those read back the same."""
    accepted()
    assert from_dict(to_dict(config)) == config


@given(values=config_inputs())
def test_a_training_config_loads_or_is_refused_in_one_line(values: Any) -> None:
    try:
        config = from_dict(values)
    except ConfigError as exc:
        refused(exc)
        return
    _check_config(config)


@given(data=st.data())
def test_a_config_file_loads_or_is_refused_in_one_line(tmp_path_factory: pytest.TempPathFactory,
                                                     data: st.DataObject) -> None:
    path = tmp_path_factory.mktemp("config") / "run.yaml"
    path.write_bytes(data.draw(yaml_files(config_inputs()), label="file"))
    try:
        config = load_config(path)
    except ConfigError as exc:
        refused(exc)
        return
    _check_config(config)
