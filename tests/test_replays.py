"""Replays: written by the evaluator, the play command and the env wrapper, read back, played again to the
very same states, drawn as frames; bad files refused by name."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from PIL import Image

from agents.evaluate import evaluate
from rummienv import replay
from rummienv.drawing import FRAME_SHAPE
from rummienv.envs import RecordReplays
from rummienv.envs.games import make_adapter
from rummienv.errors import ReplayError

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(("game", "players", "rules"), [("rummikub", 2, None), ("rummikub_cards", 3, None),
                                                         ("rummy500", 2, None), ("rummikub", 2, {"jokers": 0})])
def test_a_replay_reaches_the_same_states(tmp_path, game, players, rules):
    adapter = make_adapter(game, players, rules)
    state = adapter.new_state(7)
    rng = np.random.default_rng(7)
    seen = [json.dumps(state.to_dict())]
    for _ in range(300):
        if state.is_terminal():
            break
        if game != "rummy500" and rng.random() < 0.02:
            state.apply_timeout()  # a turn clock running out is a move of the record too (T12/K8)
        else:
            state.apply_action(int(rng.choice(np.flatnonzero(state.legal_action_mask()))))
        seen.append(json.dumps(state.to_dict()))
    path = replay.write(tmp_path / "game.json", state, [f"seat{s}" for s in range(players)])
    again = [json.dumps(s.to_dict()) for s in replay.states(replay.read(path))]
    assert again == seen


def test_the_evaluator_writes_a_replay_per_game_that_ends_as_played(tmp_path):
    result = evaluate("rummy500", ["value", "greedy"], 2, 2, seed=3, progress=False, replays=tmp_path)
    files = sorted(tmp_path.glob("*.json"))
    assert len(files) == len(result["games"]) == 4
    for path, played in zip(files, result["games"], strict=True):
        record = replay.read(path)
        assert record["agents"] == played["seats"] and record["scores"] == played["scores"]
        *_, last = replay.states(record)
        assert last.is_terminal() and last.scores().tolist() == played["scores"]


def test_the_env_wrapper_writes_each_episode(tmp_path):
    env = RecordReplays(gym.make("rummienv/Rummy500-v0", opponents=["value"]), tmp_path)
    rng = np.random.default_rng(1)
    for episode in range(2):
        obs, _ = env.reset(seed=episode)
        terminated = False
        while not terminated:
            obs, _, terminated, _, _ = env.step(rng.choice(np.flatnonzero(obs["action_mask"])))
        record = replay.read(tmp_path / f"episode-{episode:05d}.json")
        assert sorted(record["agents"]) == ["learner", "value"]
        assert replay.given_seed(record) == episode  # the seed given to reset, not the deal's drawn from it
        *_, last = replay.states(record)
        assert last.to_dict() == env.unwrapped.state.to_dict()


def test_the_play_command_writes_the_game_and_the_replay_command_draws_it(tmp_path):
    path = tmp_path / "mine.json"
    run = subprocess.run([sys.executable, "-m", "rummienv.play", "--game", "rummy500", "--seed", "4",
                          "--replay", str(path)], input="draw\n", capture_output=True, text=True, timeout=240,
                         cwd=ROOT)
    assert run.returncode == 0, run.stderr
    record = replay.read(path)
    assert record["agents"][0] == "you" and record["moves"] and record["scores"] is None  # quit mid-game
    gif, folder = tmp_path / "mine.gif", tmp_path / "frames"
    run = subprocess.run([sys.executable, "-m", "rummienv.replay", str(path), "--gif", str(gif), "--frames",
                          str(folder), "--seat", "0"], capture_output=True, text=True, timeout=240, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    pictures = sorted(folder.glob("*.png"))
    assert len(pictures) == len(record["moves"]) + 1
    assert np.asarray(Image.open(pictures[0]).convert("RGB")).shape == FRAME_SHAPE
    with Image.open(gif) as animation:
        assert animation.n_frames > 1  # (a GIF merges identical frames that follow each other)


@pytest.mark.parametrize(("content", "message"), [
    ("not json", "is not JSON"),
    ('{"format": "other"}', "is not a replay"),
    ('{"format": "rummienv-replay/1", "game": "chess"}', "'game' must be one of"),
    ('{"format": "rummienv-replay/1", "game": "rummy500", "num_players": 2, "seed": 1, "moves": [9999], '
     '"agents": ["a", "b"], "rules": {}, "whole_game": false}', "move 0 of the replay does not fit"),
])
def test_bad_replays_are_refused_by_name(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(ReplayError, match=message):
        list(replay.states(replay.read(path)))


@pytest.fixture
def bots_record(tmp_path):
    """A short game of bots, written and read back as a replay."""
    state = make_adapter("rummikub", 2).new_state(1)
    for _ in range(4):
        state.apply_action(state.legal_actions()[0])
    return replay.read(replay.write(tmp_path / "bots.json", state, ["greedy", "max_tiles"]))


@pytest.mark.parametrize(("options", "message"), [
    (["--gif", "{tmp}/afile/x.gif"], "--gif '{tmp}/afile/x.gif' cannot be made: '{tmp}/afile' is a file, not a folder"),
    (["--html", "{tmp}"], "--html '{tmp}' is a folder, not a file"),
    (["--frames", "{tmp}/afile"], "--frames '{tmp}/afile' is a file, not a folder"),
    (["--html", "{tmp}/ok.html", "--gif", "{tmp}"], "--gif '{tmp}' is a folder, not a file"),
])
def test_the_replay_command_refuses_an_output_it_cannot_write_before_drawing(tmp_path, bots_record, options,
                                                                               message):
    (tmp_path / "afile").write_text("")
    run = subprocess.run([sys.executable, "-m", "rummienv.replay", str(tmp_path / "bots.json"),
                          *(o.format(tmp=tmp_path) for o in options)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and len(run.stderr.splitlines()) == 1, run.stderr
    assert run.stderr.startswith(f"error: {message.format(tmp=tmp_path)}")
    assert not (tmp_path / "ok.html").exists()  # nothing drawn before every output was checked


def test_a_gif_is_written_whatever_its_name_and_its_folder_is_made(tmp_path, bots_record):
    gif = tmp_path / "new" / "game"
    assert replay.main([str(tmp_path / "bots.json"), "--gif", str(gif)]) == 0
    with Image.open(gif) as animation:
        assert animation.format == "GIF"


def test_pictures_call_only_a_persons_seat_you(bots_record):
    from rummienv.rummikub.picture import rummikub_frame

    adapter = replay.adapter_of(bots_record)
    first = next(replay.states(bots_record, adapter))
    view = first.view(first.current_player)
    drawn = next(replay.frames(bots_record))
    assert np.array_equal(drawn, rummikub_frame(view, adapter.game))
    assert not np.array_equal(drawn, rummikub_frame(view, adapter.game, you=view["player"]))
    played = {**bots_record, "agents": ["greedy", replay.PERSON]}
    assert replay.person_seat(bots_record) is None and replay.person_seat(played) == 1
    assert np.array_equal(next(replay.frames(played)), rummikub_frame(view, adapter.game, you=1))


def test_a_replay_keeps_the_seed_the_person_gave(tmp_path):
    state = make_adapter("rummy500", 2).new_state(4242424242424242424)
    path = replay.write(tmp_path / "drawn.json", state, ["a", "b"], given_seed=0)
    assert replay.given_seed(replay.read(path)) == 0 and replay.read(path)["seed"] == 4242424242424242424
    own = replay.write(tmp_path / "own.json", make_adapter("rummy500", 2).new_state(7), ["a", "b"])
    assert replay.given_seed(replay.read(own)) == 7
    path.write_text(path.read_text().replace('"given_seed": 0', '"given_seed": -1'))
    with pytest.raises(ReplayError, match="'given_seed' must be a whole number from 0, or null"):
        replay.read(path)
