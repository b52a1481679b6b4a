"""A game added as docs/adding_a_game.md says (``toy_game``) plays in every layer above the rules:
the Gymnasium env, the vector form, the PettingZoo AEC env, positions, replays, the evaluator, self-play's
rewards. Nothing outside the toy's own module and its one registration is written for it."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
import toy_game
from gymnasium.utils.env_checker import check_env
from test_envs import WRAPPED
from test_envs_aec import PETTINGZOO_ADVICE

import rummienv
from agents import registry
from agents.evaluate import evaluate
from agents.ppo import ActorCritic
from agents.random_agent import RandomAgent
from agents.registry import baseline_names
from agents.selfplay import OpponentPool, SelfPlay, game_shape, rollout_buffers
from rummienv import games, replay
from rummienv.envs import IllegalActionPenalty
from rummienv.outcome import rewards, win_shares

ENV_ID = toy_game.INFO.env_id


@pytest.fixture(scope="module", autouse=True)
def high_card():
    rummienv.register_game(toy_game.INFO)
    yield
    games.unregister("high_card")


def test_the_registered_game_is_listed_and_built_by_name():
    assert "high_card" in games.names() and ENV_ID in rummienv.envs.registration.env_ids()
    game = games.make_game("high_card", 3, {"hand_size": 2})
    assert isinstance(game, toy_game.HighCardGame) and game.rules.hand_size == 2
    assert game.observation_size == 9 + 27 + 3


def test_its_env_passes_gymnasiums_checks_and_hands_over_only_legal_moves():
    env = gym.make(ENV_ID, num_players=3, opponents="random", reward="win")
    with warnings.catch_warnings(record=True) as caught:  # as the package's own envs are checked (test_envs)
        warnings.simplefilter("always")
        check_env(IllegalActionPenalty(env.unwrapped), skip_render_check=True)
    assert [str(w.message) for w in caught if WRAPPED not in str(w.message)] == []
    rng = np.random.default_rng(0)
    for seed in range(20):
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            assert obs["action_mask"].any() and np.array_equal(obs["action_mask"], info["action_mask"])
            obs, reward, done, _, info = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert reward in (-1.0, 0.0, 1.0) and info["winners"]


def test_its_vector_env_never_hands_the_policy_an_empty_mask():
    envs = rummienv.make_vec(ENV_ID, num_envs=3, opponents="random")
    obs, _ = envs.reset(seed=1)
    rng = np.random.default_rng(1)
    for _ in range(30):
        assert obs["action_mask"].any(axis=1).all()
        actions = [int(rng.choice(np.flatnonzero(row))) for row in obs["action_mask"]]
        obs, *_ = envs.step(np.array(actions))
    envs.close()


def test_its_aec_env_passes_pettingzoos_api_and_seed_tests():
    from pettingzoo import test as pettingzoo_test

    with warnings.catch_warnings(record=True) as caught:  # as the package's own AEC envs are (test_envs_aec)
        warnings.simplefilter("always")
        pettingzoo_test.api_test(rummienv.aec_env("high_card", num_players=3), num_cycles=50)
        pettingzoo_test.seed_test(lambda: rummienv.aec_env("high_card", num_players=3), num_cycles=50)
    assert [str(w.message) for w in caught if not str(w.message).startswith(PETTINGZOO_ADVICE)] == []


def test_its_positions_and_replays_go_through_the_registry():
    state = games.make_game("high_card", 2).new_initial_state(5)
    for _ in range(3):
        state.apply_action(state.legal_actions()[0])
    assert rummienv.load_state(state.to_dict()).to_dict() == state.to_dict()
    record = replay.record(state, ["a", "b"])
    *_, last = replay.states(record)
    assert last.to_dict() == state.to_dict()


def test_the_evaluator_plays_it_with_the_baseline_every_game_has():
    assert baseline_names("high_card") == ["random"]
    first = evaluate("high_card", ["random", "random"], 2, 30, seed=4, progress=False)
    assert first == evaluate("high_card", ["random", "random"], 2, 30, seed=4, progress=False)
    assert sum(row["wins"] for row in first["agents"].values()) == pytest.approx(60)


def test_a_game_family_gets_baselines_of_its_own(monkeypatch):
    class HighestFirst(RandomAgent):  # lays its highest card: no better or worse in a game of sums
        def act(self, observation, action_mask):
            return int(np.flatnonzero(action_mask)[-1])

    monkeypatch.setitem(registry.BASELINES, "high_card", {})
    registry.register_baselines("high_card", {"random": lambda rules, seed: RandomAgent(seed),
                                              "highest": lambda rules, seed: HighestFirst(seed)})
    assert baseline_names("high_card") == ["random", "highest"]
    result = evaluate("high_card", ["highest", "random"], 2, 10, seed=1, progress=False)
    assert set(result["agents"]) == {"highest", "random"}
    with pytest.raises(ValueError, match="unknown agent 'max_tiles' for high_card"):
        registry.make_agent("max_tiles", "high_card", 2)


def test_rewards_and_win_shares_are_the_same_definitions_as_for_every_game():
    game = games.make_game("high_card", 2)
    state = game.new_initial_state(0)
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[-1])
    winner = int(np.argmax(state.scores()))
    assert win_shares(state).tolist() == [float(s == winner) for s in range(2)]
    assert rewards(game, state, "score").tolist() == (state.scores() / 27.0).tolist()


def test_self_play_hands_its_games_to_another_process_as_they_are():
    """Training's workers take a chunk's games in flight pickled (docs/adding_a_game.md: states must pickle);
    adopted by a fresh chunk, they play the next rollout as the originals do."""
    net = ActorCritic(*game_shape(games.make_game("high_card", 2)), hidden_size=8)

    def chunk() -> SelfPlay:
        game = games.make_game("high_card", 2)
        shapes = rollout_buffers(4, 3, *game_shape(game))
        arrays = {name: np.zeros(shape, dtype) for name, (shape, dtype) in shapes.items()}
        return SelfPlay(game, 3, OpponentPool(["random"], 0.5, 1, 1.0), net, "win", 4, arrays)

    original, moved = chunk(), chunk()
    original.reset()
    original.rollout(1)
    moved.adopt(original.export())
    original.rollout(2)
    moved.rollout(2)
    assert all(np.array_equal(array, moved.buffers[name]) for name, array in original.buffers.items())
    assert [s.history for s in original.states] == [s.history for s in moved.states]


def test_whole_turns_is_refused_for_a_game_without_the_mode():
    with pytest.raises(ValueError, match="whole_turns is an action mode of the Rummikub games.*High card has none"):
        games.make_game("high_card", 2, whole_turns=True)


def test_an_installed_package_declares_its_games_through_an_entry_point(monkeypatch):
    """How every process (a command line, training's workers) finds a game that is not the package's own."""

    class Entry:
        @staticmethod
        def load():
            return toy_game.INFO

    games.unregister("high_card")
    monkeypatch.setattr(games, "_discovered", False)
    monkeypatch.setattr(games.metadata, "entry_points",
                        lambda group: [Entry] if group == games.ENTRY_POINTS else [])
    assert "high_card" in games.names() and games.info("high_card").game == toy_game.INFO.game
