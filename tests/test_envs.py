"""The Gymnasium envs: API conformance, determinism, arguments, rewards, errors, rendering.

Rummikub's mask asks an exact solver, which is slow on big tables, so its
rollouts here stay short; Rummy 500 plays whole hands.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.utils.passive_env_checker import env_step_passive_checker

import rummienv
from rummienv.envs import IllegalActionPenalty, Rummy500Env, opponents
from rummienv.errors import IllegalActionError, PositionError, RulesError

IDS = ["rummienv/Rummikub-v0", "rummienv/RummikubCards-v0", "rummienv/Rummy500-v0"]
SHORT = {"rummienv/Rummikub-v0": 25, "rummienv/RummikubCards-v0": 25, "rummienv/Rummy500-v0": 400}
WRAPPED = "is different from the unwrapped version"  # check_env's note that it got a wrapper


def legal_choice(mask: np.ndarray, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


def rollout_digest(env_id: str, seed: int, steps: int, **kwargs) -> str:
    """Hash of everything a seeded rollout returns, the learner playing random legal actions from ``seed``."""
    env = gym.make(env_id, **kwargs)
    rng = np.random.default_rng(seed)
    digest = hashlib.sha256()
    obs, info = env.reset(seed=seed)
    for _ in range(steps):
        digest.update(obs["observation"].tobytes() + obs["action_mask"].tobytes())
        obs, reward, terminated, truncated, info = env.step(legal_choice(info["action_mask"], rng))
        digest.update(repr((reward, terminated, truncated)).encode())
        if terminated:
            obs, info = env.reset()
    return digest.hexdigest()


# ----------------------------------------------------------------- API checks
def test_import_registers_every_id():
    assert set(IDS) <= set(gym.registry)
    assert set(rummienv.ENV_IDS) == set(IDS)


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("env_id", IDS)
def test_check_env(env_id, players):
    """check_env samples the whole action space, so it runs over the penalty wrapper; nothing else may warn."""
    env = gym.make(env_id, num_players=players)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(IllegalActionPenalty(env.unwrapped))
    assert [str(w.message) for w in caught if WRAPPED not in str(w.message)] == []
    raw = env.unwrapped
    _, info = raw.reset(seed=1)
    env_step_passive_checker(raw, legal_choice(info["action_mask"], np.random.default_rng(1)))


@pytest.mark.parametrize("env_id", IDS)
def test_observation_mask_and_layout_agree(env_id):
    env = gym.make(env_id, num_players=3)
    raw = env.unwrapped
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=0)
    layout = raw.observation_layout
    starts = sorted((s.start, s.stop) for s in layout.values())
    assert starts[0][0] == 0 and starts[-1][1] == obs["observation"].shape[0]
    assert all(a[1] == b[0] for a, b in zip(starts, starts[1:], strict=False)), "slices must tile the vector"
    for _ in range(SHORT[env_id] // 5):
        assert env.observation_space.contains(obs)
        assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].any()
        assert np.array_equal(obs["action_mask"], info["action_mask"])
        assert np.array_equal(obs["action_mask"], raw.action_masks())
        assert raw.state.current_player == raw.seat
        assert np.array_equal(obs["observation"], raw.state.observation(raw.seat))
        obs, _, terminated, _, info = env.step(legal_choice(info["action_mask"], rng))
        if terminated:
            obs, info = env.reset()


# --------------------------------------------------------------- determinism
@pytest.mark.parametrize("env_id", IDS)
def test_same_seed_same_rollout(env_id):
    steps = SHORT[env_id]
    first = rollout_digest(env_id, 7, steps, num_players=3, seat="random")
    assert rollout_digest(env_id, 7, steps, num_players=3, seat="random") == first
    assert rollout_digest(env_id, 8, steps, num_players=3, seat="random") != first


def test_same_seed_same_rollout_in_another_process():
    cases = [("rummienv/Rummy500-v0", 300), ("rummienv/RummikubCards-v0", 15)]
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); from test_envs import rollout_digest\n"
        f"for env_id, steps in {cases!r}: print(rollout_digest(env_id, 3, steps, num_players=2))"
    )
    out = subprocess.run([sys.executable, "-c", code, str(Path(__file__).parent)],
                         capture_output=True, text=True, check=True).stdout.split()
    assert out == [rollout_digest(env_id, 3, steps, num_players=2) for env_id, steps in cases]


def test_random_seat_comes_from_the_seed():
    env = gym.make("rummienv/Rummy500-v0", num_players=4, seat="random")
    seats = []
    for seed in range(12):
        env.reset(seed=seed)
        seats.append(env.unwrapped.seat)
    assert len(set(seats)) > 1
    env.reset(seed=5)
    assert env.unwrapped.seat == seats[5]


# ------------------------------------------------------------------- episodes
def play_to_end(env: gym.Env, seed: int) -> tuple[float, dict, dict]:
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    while True:
        obs, reward, terminated, truncated, info = env.step(legal_choice(info["action_mask"], rng))
        assert not truncated
        if terminated:
            return reward, obs, info
        assert reward == 0.0


@pytest.mark.parametrize("players", [2, 4])
def test_score_and_win_rewards_at_the_end(players):
    for seed in range(4):
        env = gym.make("rummienv/Rummy500-v0", num_players=players, seat="random")
        reward, obs, info = play_to_end(env, seed)
        seat = env.unwrapped.seat
        assert reward == pytest.approx(info["scores"][seat] / 100.0)
        assert not obs["action_mask"].any() and not env.unwrapped.action_masks().any()
        with pytest.raises(gym.error.ResetNeeded):
            env.step(0)
        margin_env = gym.make("rummienv/Rummy500-v0", num_players=players, seat="random", reward="margin")
        margin, _, margin_info = play_to_end(margin_env, seed)
        scores, mine = margin_info["scores"], margin_env.unwrapped.seat
        others = (scores.sum() - scores[mine]) / (players - 1)
        assert np.array_equal(scores, info["scores"]) and margin == pytest.approx((scores[mine] - others) / 100.0)
        win_env = gym.make("rummienv/Rummy500-v0", num_players=players, seat="random", reward="win")
        win, _, win_info = play_to_end(win_env, seed)
        assert np.array_equal(win_info["scores"], info["scores"])
        winners = win_info["winners"]
        assert win == (-1.0 if seat not in winners else 1.0 if len(winners) == 1 else 0.0)


@pytest.mark.parametrize("env_id", ["rummienv/Rummikub-v0", "rummienv/RummikubCards-v0"])
@pytest.mark.parametrize("players", [2, 4])
def test_rummikub_margin_is_the_score_times_n_over_n_minus_one(env_id, players):
    """A Rummikub round's points add up to zero (T9/T10, K7), so the margin over the others' mean trains for the
    same thing as the score, only scaled."""
    for seed in range(3):
        score, _, info = play_to_end(gym.make(env_id, num_players=players, seat="random"), seed)
        margin_env = gym.make(env_id, num_players=players, seat="random", reward="margin")
        margin, _, margin_info = play_to_end(margin_env, seed)
        assert info["scores"].sum() == 0 and np.array_equal(info["scores"], margin_info["scores"])
        assert margin == pytest.approx(score * players / (players - 1))


def test_whole_game_spans_hands_until_the_target():
    env = gym.make("rummienv/Rummy500-v0", whole_game=True, rules={"target_score": 60})
    reward, _, info = play_to_end(env, 2)
    state = env.unwrapped.state
    assert state.rules.whole_game and state.totals.max() >= 60
    assert reward == pytest.approx(info["scores"][0] / 60)
    assert gym.make("rummienv/Rummikub-v0", whole_game=True).unwrapped.adapter.game.whole_game


def test_a_deal_is_never_over_before_the_learner_moves():
    env = gym.make("rummienv/Rummy500-v0", num_players=4, seat=3)
    for seed in range(30):
        obs, _ = env.reset(seed=seed)
        assert obs["action_mask"].any()


# ------------------------------------------------------------------ opponents
class LowestLegal:
    """Plays the lowest legal index; records what it was shown."""

    def __init__(self) -> None:
        self.seen: list[tuple[int, int]] = []

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        self.seen.append((observation.shape[0], action_mask.dtype.itemsize))
        return int(np.flatnonzero(action_mask)[0])


def test_opponent_objects_play_their_seats():
    bot = LowestLegal()
    env = gym.make("rummienv/Rummy500-v0", num_players=3, opponents=[bot, "random"])
    size = env.observation_space["observation"].shape[0]
    play_to_end(env, 0)
    assert bot.seen and set(bot.seen) == {(size, 1)}


def test_an_illegal_opponent_move_names_the_opponent():
    class Stubborn:
        def act(self, observation, action_mask):
            return int(np.flatnonzero(action_mask == 0)[0])

    env = gym.make("rummienv/Rummy500-v0", opponents=Stubborn(), seat=0)
    with pytest.raises(IllegalActionError, match="opponent .* at seat 1"):
        play_to_end(env, 0)


def test_named_opponents_go_through_the_registered_agent_factory(monkeypatch):
    calls = []

    class ViewReader(LowestLegal):
        reads_view = True

        def observe(self, view):
            assert "hand" in view and view["player"] == 1

    def make_agent(spec, game, num_players, seed):
        calls.append((spec, game, num_players))
        return ViewReader()

    monkeypatch.setattr(opponents, "_factory", None)
    opponents.register_agent_factory(make_agent)
    env = gym.make("rummienv/Rummy500-v0", opponents=["greedy"])
    play_to_end(env, 1)
    assert calls == [("greedy", "rummy500", 2)]


def test_the_installed_agents_package_is_found_through_its_entry_point(monkeypatch):
    monkeypatch.setattr(opponents, "_factory", None)
    env = gym.make("rummienv/Rummy500-v0", opponents=["greedy"])
    assert type(env.unwrapped._opponents[0]).__module__ == "agents.rummy500_bots"


def test_named_opponents_without_an_agent_factory_are_refused(monkeypatch):
    monkeypatch.setattr(opponents, "_factory", None)
    monkeypatch.setattr(opponents.metadata, "entry_points", lambda group: [])
    with pytest.raises(ValueError, match="'random'"):
        gym.make("rummienv/Rummy500-v0", opponents=["greedy"])


def test_the_env_layer_imports_no_agents():
    """The layers as docs/contract.md draws them: nothing under rummienv/ imports the agents package, even lazily."""
    sources = Path(rummienv.__file__).parent.rglob("*.py")
    offenders = [str(path) for path in sources
                 if re.search(r"^\s*(from agents\b|import agents\b)", path.read_text(), re.MULTILINE)]
    assert offenders == []


# ------------------------------------------------------------ bad arguments
@pytest.mark.parametrize(("kwargs", "words"), [
    ({"num_players": 5}, "num_players must be 2, 3 or 4"),
    ({"num_players": True}, "num_players"),
    ({"opponents": ["random", "random"]}, "one entry per other seat"),
    ({"opponents": [42]}, r"opponents\[0\] must be"),
    ({"seat": 2}, "seat must be a seat number 0..1 or 'random'"),
    ({"reward": "points"}, r"reward must be one of \['score', 'margin', 'win'\]"),
    ({"render_mode": "rgb"}, "render_mode must be one of"),
    ({"whole_game": "yes"}, "whole_game must be True or False"),
    ({"rules": {"hand_sise": 7}}, "unknown rules field 'hand_sise'"),
    ({"rules": {"hand_size": 0}}, "'hand_size'.*1..20"),
    ({"rules": 7}, "rules must be a dict"),
])
def test_bad_arguments_are_named(kwargs, words):
    with pytest.raises(ValueError, match=words):
        Rummy500Env(**kwargs)


def test_rules_from_a_yaml_file(tmp_path):
    path = tmp_path / "rules.yaml"
    path.write_text("opening_threshold: 20\njokers: 1\n")
    env = gym.make("rummienv/Rummikub-v0", rules=str(path))
    assert env.unwrapped.adapter.rules.opening_threshold == 20
    with pytest.raises(RulesError, match="rummy500"):
        gym.make("rummienv/Rummikub-v0", rules={"game": "rummy500"})


# ------------------------------------------------------------ illegal actions
def test_an_illegal_action_raises_with_action_phase_and_reason():
    env = gym.make("rummienv/Rummy500-v0")
    obs, _ = env.reset(seed=0)
    assert env.unwrapped.state.phase == "draw"
    discard = 526 + int(np.flatnonzero(obs["observation"][:52])[0])
    with pytest.raises(IllegalActionError, match=r"DISCARD .* phase 'draw'.*why"):
        env.step(discard)
    with pytest.raises(IllegalActionError, match="not an action index"):
        env.step(10_000)
    env.step(np.array([0]))  # a one-element integer array, as vectorised trainers pass, is an action


def test_penalty_wrapper_ends_the_episode_instead():
    env = IllegalActionPenalty(gym.make("rummienv/Rummy500-v0"), penalty=-2.0)
    obs, info = env.reset(seed=0)
    legal = legal_choice(info["action_mask"], np.random.default_rng(0))
    obs, reward, terminated, _, info = env.step(legal)
    assert reward == 0.0 and not terminated
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    end_obs, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated) == (-2.0, True, False)
    assert "not legal" in info["illegal_action"] and not end_obs["action_mask"].any()
    assert np.array_equal(end_obs["observation"], obs["observation"])
    with pytest.raises(gym.error.ResetNeeded):
        env.step(legal)
    env.reset(seed=1)


# ------------------------------------------------------------------ rendering
@pytest.mark.parametrize("env_id", IDS)
def test_ansi_render_shows_the_learners_knowledge(env_id):
    env = gym.make(env_id, num_players=3, render_mode="ansi")
    env.reset(seed=4)
    text = env.render()
    state, seat = env.unwrapped.state, env.unwrapped.seat
    view = state.view(seat)
    assert f"seat {state.current_player} to move" in text
    if "rack" in view:
        from rummienv.tiles import sort_key, tile_name

        rack = [tile_name(t) for t in sorted(view["rack"], key=sort_key)]
        assert f"({len(rack)}): {' '.join(rack)}" in text and "Pool:" in text
    else:
        assert " ".join(view["hand"]) in text and "Stock:" in text


def test_human_render_prints(capsys):
    env = gym.make("rummienv/Rummy500-v0", render_mode="human")
    env.reset(seed=0)
    assert "Hand of seat 0" in capsys.readouterr().out
    plain = gym.make("rummienv/Rummy500-v0").unwrapped
    plain.reset(seed=0)
    with pytest.warns(UserWarning, match="without a render_mode"):
        assert plain.render() is None


# ------------------------------------------------------------------ positions
def test_load_state_dispatches_on_the_game():
    for env_id in IDS:
        env = gym.make(env_id)
        env.reset(seed=0)
        position = env.unwrapped.state.to_dict()
        assert rummienv.load_state(position).to_dict() == position
    with pytest.raises(PositionError, match="'rummikub', 'rummikub_cards' or 'rummy500'"):
        rummienv.load_state({"game": "chess"})


def test_aec_env_without_pettingzoo_says_what_to_install(monkeypatch):
    monkeypatch.delitem(sys.modules, "rummienv.envs.aec", raising=False)
    monkeypatch.setitem(sys.modules, "pettingzoo", None)
    with pytest.raises(ImportError, match=r"rummienv\[pettingzoo\]"):
        rummienv.aec_env("rummy500")


def test_seeded_env_reseeds_stochastic_opponent_objects():
    """An opponent object with its own chance follows the env's seed, reset after reset."""
    from agents.random_agent import RandomAgent

    def rollout(env, seed):
        obs, _ = env.reset(seed=seed)
        actions = []
        for _ in range(40):
            action = int(np.flatnonzero(obs["action_mask"])[0])
            obs, _, terminated, _, _ = env.step(action)
            actions.append(env.unwrapped.state.to_dict())
            if terminated:
                break
        return actions

    for opponent in (RandomAgent(seed=None), "ppo"):  # "ppo": the shipped Rummy 500 network, which samples
        env = gym.make("rummienv/Rummy500-v0", opponents=[opponent])
        first = rollout(env, 3)
        rollout(env, 4)  # the opponent's generator moves on in between
        assert rollout(env, 3) == first
