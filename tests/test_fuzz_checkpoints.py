"""Fuzzed checkpoints and agent files: real ones saved with ``save_checkpoint``, then damaged on disk (cut short,
a bit flipped, other bytes) or saved with their contents changed (another game, other shapes, wrong types).

``load_agent`` either gives an agent that picks legal moves or refuses the file with CheckpointError in one
line. Changed contents still break ``agents.checkpoint`` from inside: those cases are expected failures until
it checks them, and a damaged file that reaches them is counted apart.
"""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any

import pytest
import torch
from fuzz_strategies import accepted, damaged, refused
from hypothesis import given
from hypothesis import strategies as st

from agents.checkpoint import CheckpointError, load_agent, save_checkpoint
from agents.ppo import ActorCritic
from agents.train_config import TrainConfig, to_dict
from rummienv import games
from rummienv.envs.opponents import decide

GAMES = games.names()


@functools.cache
def real_payload(game: str, players: int) -> dict[str, Any]:
    """What a training run saves, with a small network."""
    made = games.make_game(game, players)
    net = ActorCritic(made.observation_size, made.num_actions, hidden_size=8, num_layers=1)
    config = TrainConfig(game=game, num_players=players, hidden_size=8, num_layers=1, num_workers=1)
    return {"config": to_dict(config), "model": net.state_dict(), "model_shape": dict(net.shape), "global_step": 0}


@functools.cache
def real_file(game: str, players: int, folder: Path) -> bytes:
    path = folder / f"{game}-{players}.pt"
    save_checkpoint(path, real_payload(game, players))
    return path.read_bytes()


def check_agent_file(path: Path, game: str, players: int) -> None:
    state = games.make_game(game, players).new_initial_state(0)
    try:
        agent = load_agent(path, game, players)
        action = decide(agent, state)
    except CheckpointError as exc:
        refused(exc)
        return
    accepted()
    assert state.legal_action_mask()[action]


@given(data=st.data())
def test_a_damaged_agent_file_plays_or_is_refused_in_one_line(tmp_path_factory: pytest.TempPathFactory,
                                                              data: st.DataObject) -> None:
    folder = tmp_path_factory.getbasetemp()
    game = data.draw(st.sampled_from(GAMES), label="game")
    players = data.draw(st.sampled_from([2, 3]), label="players")
    path = tmp_path_factory.mktemp("agent") / "agent.pt"
    path.write_bytes(data.draw(damaged(real_file(game, players, folder)), label="file"))
    check_agent_file(path, game, players)


def _wrong(value: Any) -> st.SearchStrategy[Any]:
    return st.sampled_from([None, [value], "x", -1, 0, 10**6, {}, {"x": 1}, 1.5])


@st.composite
def changed_payloads(draw: st.DrawFn, game: str) -> dict[str, Any]:
    """A real payload with one part replaced: its config, a config field, the shape, a shape field, the weights,
    one weight, or the way it acts."""
    payload = copy.deepcopy(real_payload(game, 2))
    part = draw(st.sampled_from(["config", "config field", "model_shape", "shape field", "model", "weight", "act"]))
    if part == "config field":
        field = draw(st.sampled_from(["game", "num_players", "whole_turns"]))
        payload["config"][field] = draw(st.sampled_from([*GAMES, 2, 3, 5, True, None]))
    elif part == "shape field":
        field = draw(st.sampled_from(sorted(payload["model_shape"])))
        payload["model_shape"][field] = draw(_wrong(payload["model_shape"][field]) | st.integers(1, 400))
    elif part == "weight":
        name = draw(st.sampled_from(sorted(payload["model"])))
        payload["model"][name] = torch.zeros(draw(st.lists(st.integers(0, 4), max_size=3)))
    else:
        payload[part] = draw(_wrong(payload.get(part)))
    return payload


@given(data=st.data())
def test_an_agent_file_with_changed_contents_plays_or_is_refused_in_one_line(
        tmp_path_factory: pytest.TempPathFactory, data: st.DataObject) -> None:
    game = data.draw(st.sampled_from(GAMES), label="game")
    path = tmp_path_factory.mktemp("agent") / "agent.pt"
    save_checkpoint(path, data.draw(changed_payloads(game), label="payload"))
    check_agent_file(path, game, 2)


def _changed(part: str, value: Any) -> dict[str, Any]:
    payload = copy.deepcopy(real_payload("rummikub", 2))
    payload[part] = value
    return payload


def _shape(**fields: Any) -> dict[str, Any]:
    return _changed("model_shape", {**real_payload("rummikub", 2)["model_shape"], **fields})


FOUND = {  # what the property tests found loading or acting from inside, each as found
    "config a list (AttributeError)": lambda: _changed("config", ["rummikub"]),
    "model_shape a list (TypeError)": lambda: _changed("model_shape", [1, 2]),
    "model_shape with a stray field (TypeError)": lambda: _shape(width=3),
    "model_shape with a negative size (RuntimeError)": lambda: _shape(hidden_size=-1),
    "model_shape of another observation size (RuntimeError when it acts)": lambda: {
        **_shape(obs_size=5), "model": ActorCritic(5, games.make_game("rummikub").num_actions, 8, 1).state_dict()},
    "model a list (TypeError)": lambda: _changed("model", [1]),
    "a weight renamed (message over several lines)": lambda: _changed("model", {
        ("britic.bias" if k == "critic.bias" else k): v for k, v in real_payload("rummikub", 2)["model"].items()}),
}


@pytest.mark.parametrize("case", sorted(FOUND))
def test_agent_files_the_fuzzing_found_are_refused_in_one_line(tmp_path: Path, case: str) -> None:
    path = tmp_path / "agent.pt"
    save_checkpoint(path, FOUND[case]())
    try:
        agent = load_agent(path, "rummikub", 2)
        decide(agent, games.make_game("rummikub").new_initial_state(0))
    except CheckpointError as exc:
        assert "\n" not in str(exc)
        return
    raise AssertionError("a damaged agent file loaded and played")
