"""Gymnasium vector envs of the three games, sync and async: every observation handed to the policy has a
legal move, episode ends included, and each finished episode's last observation and scores are kept."""

from __future__ import annotations

from contextlib import closing

import gymnasium as gym
import numpy as np
import pytest

import rummienv
from rummienv import ENV_IDS

STEPS = 1000  # enough for every sub-env of every game to finish an episode under random play


def _play(vec: gym.vector.VectorEnv, seed: int) -> int:
    """Random legal play, checking each mask handed out; the number of episodes that ended."""
    obs, info = vec.reset(seed=seed)
    rng = np.random.default_rng(seed)
    ended = 0
    for _ in range(STEPS):
        masks = obs["action_mask"]
        assert masks.any(axis=1).all(), "an observation with nothing legal reached the policy"
        assert np.array_equal(masks, info["action_mask"])
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in masks])
        obs, _, terminated, truncated, info = vec.step(actions)
        for i in np.flatnonzero(terminated | truncated):
            ended += 1
            assert not info["final_obs"][i]["action_mask"].any()  # the game is over: nothing legal there
            assert info["_final_info"][i] and info["final_info"]["_scores"][i]
    return ended


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("env_id", sorted(ENV_IDS))
def test_vector_envs_hand_out_only_masks_with_a_move(env_id, mode):
    opponents = "max_tiles" if "Rummikub" in env_id else None
    with closing(rummienv.make_vec(env_id, num_envs=3, vectorization_mode=mode, opponents=opponents)) as vec:
        assert _play(vec, seed=1) >= 3


def test_make_vec_without_a_mode_resets_in_the_same_step():
    with closing(gym.make_vec("rummienv/Rummy500-v0", num_envs=2)) as vec:
        assert vec.metadata["autoreset_mode"] == gym.vector.AutoresetMode.SAME_STEP
        assert _play(vec, seed=2) >= 2


def test_same_seed_same_vector_episodes():
    runs = []
    for _ in range(2):
        with closing(rummienv.make_vec("rummienv/RummikubCards-v0", num_envs=2, opponents="max_tiles")) as vec:
            obs, _ = vec.reset(seed=5)
            trace = [obs["observation"].copy()]
            for _ in range(40):
                obs, reward, *_ = vec.step(np.array([np.flatnonzero(row)[0] for row in obs["action_mask"]]))
                trace += [obs["observation"].copy(), reward.copy()]
        runs.append(trace)
    assert all(np.array_equal(a, b) for a, b in zip(*runs, strict=True))


@pytest.mark.parametrize(("args", "word"), [(("rummienv/Nope-v0", 2), "env_id"),
                                            (("rummienv/Rummy500-v0", 0), "num_envs"),
                                            (("rummienv/Rummy500-v0", 2, "threads"), "vectorization_mode")])
def test_bad_vector_arguments_are_named(args, word):
    with pytest.raises(ValueError, match=word):
        rummienv.make_vec(*args)
