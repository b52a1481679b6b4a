"""The PettingZoo AEC env: PettingZoo's own API and seed tests, and what they do not check."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import rummienv
from rummienv.errors import IllegalActionError

pettingzoo_test = pytest.importorskip("pettingzoo.test")

# Rummikub's solver is slow on big tables: a few dozen turns per check.
CYCLES = {"rummikub": 40, "rummikub_cards": 40, "rummy500": 1000}
# PettingZoo's generic advice for Dict observations, given for its own classic games too.
PETTINGZOO_ADVICE = ("Observation space for each agent probably should be", "Observation is not a NumPy array")


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("game", sorted(CYCLES))
def test_pettingzoo_api_and_seed_tests(game, players):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pettingzoo_test.api_test(rummienv.aec_env(game, num_players=players), num_cycles=CYCLES[game])
        pettingzoo_test.seed_test(lambda: rummienv.aec_env(game, num_players=players), num_cycles=CYCLES[game])
    assert [str(w.message) for w in caught if not str(w.message).startswith(PETTINGZOO_ADVICE)] == []


def play_out(env, seed: int) -> dict[str, float]:
    """Random legal play to the end; each agent's reward as ``last`` reports it on its final turn."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    final = {}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        seat = int(agent.split("_")[1])
        state = env.unwrapped.game_state
        if terminated or truncated:
            final[agent] = reward
            env.step(None)
            continue
        assert seat == state.current_player and obs["action_mask"].any()
        assert np.array_equal(obs["observation"], state.observation(seat))
        for other in env.agents:
            if other != agent:
                assert not env.observe(other)["action_mask"].any()
        assert reward == 0.0
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return final


@pytest.mark.parametrize("reward", ["score", "margin", "win"])
def test_rewards_come_once_at_the_end(reward):
    env = rummienv.aec_env("rummy500", num_players=3, reward=reward)
    final = play_out(env, 5)
    state = env.unwrapped.game_state
    expected = env.unwrapped.adapter.rewards(state, reward)
    assert final == {f"player_{s}": pytest.approx(expected[s]) for s in range(3)}
    scores = state.scores()
    if reward == "score":
        assert expected == pytest.approx(scores / 100.0)
    if reward == "margin":
        assert expected == pytest.approx([(scores[s] - (scores.sum() - scores[s]) / 2) / 100.0 for s in range(3)])
    assert env.agents == []


def test_render_and_errors():
    env = rummienv.aec_env("rummikub_cards", num_players=2, render_mode="ansi")
    assert env.metadata["name"] == "rummikub_cards_v0"
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    env.reset(seed=3)
    seat = env.unwrapped.game_state.current_player
    assert f"seat {seat} to move" in env.render()
    illegal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError, match="not legal for seat"):
        env.step(illegal)
    with pytest.raises(ValueError, match="game must be one of"):
        rummienv.aec_env("poker")
