"""RLlib's PPO on the multi-agent form of Rummy 500: the adapter's turns, and a few training iterations in
which no illegal action is ever chosen (the game raises on one) and the policy moves. RLlib is an optional
extra with its own Gymnasium pin: ``make rllib-check`` runs this file in an environment of its own (CI does
so after the suite); elsewhere it skips."""

from __future__ import annotations

import numpy as np
import pytest

ray = pytest.importorskip("ray", reason="RLlib is an optional extra: make rllib-check runs these tests")

from rummienv.envs.rllib_env import RummyMultiAgentEnv, ppo_config  # noqa: E402


def test_only_the_seat_to_move_is_asked_and_every_seat_is_paid_at_the_end():
    env = RummyMultiAgentEnv({"game": "rummy500", "num_players": 3})
    obs, _ = env.reset(seed=1)
    rng = np.random.default_rng(1)
    done = False
    while not done:
        (agent, seen), = obs.items()
        assert agent == f"seat_{env.state.current_player}" and seen["action_mask"].any()
        obs, rewards, terminated, _, _ = env.step({agent: int(rng.choice(np.flatnonzero(seen["action_mask"])))})
        done = terminated["__all__"]
    assert set(obs) == set(rewards) == set(env.agents)
    assert sorted(rewards.values()) in ([-1.0, -1.0, 1.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 0.0])


def _positions(count: int) -> dict[str, np.ndarray]:
    """Observations met in random play, with their masks: where the policy's moves are compared."""
    env = RummyMultiAgentEnv({"game": "rummy500"})
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(3)
    seen = []
    while len(seen) < count:
        (agent, here), = obs.items()
        seen.append(here)
        obs, _, terminated, _, _ = env.step({agent: int(rng.choice(np.flatnonzero(here["action_mask"])))})
        if terminated["__all__"]:
            obs, _ = env.reset()
    return {key: np.stack([s[key] for s in seen]) for key in ("observations", "action_mask")}


def _policy(algo, positions: dict[str, np.ndarray]) -> np.ndarray:
    """The shared policy's move probabilities at ``positions`` (zero off the mask)."""
    import torch

    module = algo.get_module("shared")
    with torch.no_grad():
        out = module.forward_inference({"obs": {k: torch.as_tensor(v) for k, v in positions.items()}})
    return torch.softmax(out["action_dist_inputs"], dim=-1).numpy()


def test_ppo_trains_without_an_illegal_action():
    positions = _positions(64)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        algo = ppo_config("rummy500", env_runners=0, batch=600, seed=0).build_algo()  # games in this process
        try:
            before = _policy(algo, positions)
            results = [algo.train() for _ in range(3)]  # an illegal action would raise in here
            after = _policy(algo, positions)
        finally:
            algo.stop()
    finally:
        ray.shutdown()
    assert results[-1]["env_runners"]["num_env_steps_sampled_lifetime"] >= 1800
    assert np.all(before[positions["action_mask"] == 0] < 1e-6)  # the mask holds in the policy itself
    moved = 0.5 * np.abs(after - before).sum(axis=1).mean()  # total variation, averaged over positions
    assert moved > 0.01, f"the policy barely moved in training ({moved:.4f})"
