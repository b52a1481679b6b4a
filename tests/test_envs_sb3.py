"""sb3-contrib's MaskablePPO trains on the Rummy 500 env as it is: Dict observation, ``action_masks()``."""

from __future__ import annotations

import gymnasium as gym
import pytest

import rummienv  # noqa: F401  (registers the ids)

sb3_contrib = pytest.importorskip("sb3_contrib")


def test_maskable_ppo_runs_on_rummy500(tmp_path, monkeypatch):
    import torch

    monkeypatch.setenv("SB3_LOGDIR", str(tmp_path))  # its logger makes a folder, by default in the temp dir
    torch.set_num_threads(1)
    env = gym.make("rummienv/Rummy500-v0", num_players=2, seat="random")
    model = sb3_contrib.MaskablePPO("MultiInputPolicy", env, n_steps=512, batch_size=128, n_epochs=2,
                                    policy_kwargs={"net_arch": [64]}, seed=0, device="cpu")
    model.learn(total_timesteps=2048)
    assert model.num_timesteps >= 2048
    obs, info = env.reset(seed=1)
    action, _ = model.predict(obs, action_masks=info["action_mask"], deterministic=True)
    assert info["action_mask"][int(action)] == 1
