"""The training pieces on their own: config validation, the masked policy, the opponent pool."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
import torch

from agents import ppo
from agents.ppo import ActorCritic, PolicyAgent
from agents.registry import bot_names
from agents.selfplay import LATEST, OpponentPool, SelfPlay
from agents.train_config import ConfigError, from_dict, load_config, to_dict
from rummienv.games import make_game

CONFIGS = Path(__file__).resolve().parents[1] / "configs"


@pytest.mark.parametrize("path", sorted(CONFIGS.glob("*.yaml")), ids=lambda p: p.name)
def test_shipped_configs_are_valid(path: Path) -> None:
    config = load_config(path)
    assert config.name == path.stem or path.stem == "smoke"


@pytest.mark.parametrize(("values", "message"), [
    ({"num_envz": 4}, "unknown config field 'num_envz'"),
    ({"game": "chess"}, "config field 'game' must be one of"),
    ({"num_envs": 0}, "config field 'num_envs' must be in 1.."),
    ({"learning_rate": "fast"}, "config field 'learning_rate' must be a number"),
    ({"anneal_lr": 1}, "config field 'anneal_lr' must be true or false"),
    ({"num_players": 5}, "config field 'num_players' must be in 2..4"),
    ({"total_steps": 1.5}, "config field 'total_steps' must be a whole number"),
    ({"baselines": "random"}, "config field 'baselines' must be a list"),
    ({"rules": {"jokers": 9}}, "config field 'rules'.*'jokers'"),
    ({"num_envs": 2, "num_steps": 1, "num_minibatches": 4}, "'num_minibatches'"),
    ({"game": "rummy500", "baselines": ["value", "max_tiles"]}, "'baselines': 'max_tiles' is not a baseline"),
    ({"eval_opponents": ["value"]}, "'eval_opponents': 'value' is not a baseline of rummikub"),
    ({"game": "rummy500", "imitation_teacher": "hold_back"}, "'imitation_teacher': 'hold_back' is not a baseline"),
    ({"num_envs": 2, "num_workers": 3}, "'num_workers' \\(3\\) exceeds the number of chunks of games \\(1: num_envs 2"),
    ({"num_envs": 8, "games_per_chunk": 2, "num_workers": 5}, "\\(4: num_envs 8 in chunks of games_per_chunk 2\\)"),
    ({"games_per_chunk": 0}, "config field 'games_per_chunk' must be in 1.."),
    ({"num_workers": -1}, "config field 'num_workers' must be in 0.."),
    ({"judge": "hoard"}, "config field 'judge': teacher 'hoard' does not score actions; teachers that do: expert"),
    ({"judge": "expert"}, "'judge': the learner plays piece by piece, but teacher 'expert' judges whole turns"),
    ({"game": "rummy500", "judge": "expert", "judge_against": ["hoard"]},
     "'judge_against': 'hoard' is neither 'learner' nor a baseline of rummy500"),
    ({"game": "rummy500", "judge": "expert", "judge_against": []}, "'judge_against' is empty"),
    ({"act": "best"}, "config field 'act' must be one of \\['sample', 'most_likely'\\]"),
])
def test_bad_values_are_refused_by_name(values: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        from_dict(values)


def test_num_workers_0_takes_one_per_core_and_is_kept_as_a_number() -> None:
    config = from_dict({"num_envs": 256})
    assert config.num_workers == max(1, min(os.cpu_count() or 1, config.num_chunks))
    assert from_dict(to_dict(config)).num_workers == config.num_workers  # what a checkpoint stores


@pytest.mark.parametrize("game", ["rummikub", "rummikub_cards", "rummy500"])
def test_unset_opponents_follow_the_game(tmp_path: Path, game: str) -> None:
    path = tmp_path / "few.yaml"
    path.write_text(f"name: few\ngame: {game}\ntotal_steps: 64\nnum_envs: 2\nnum_steps: 8\n")
    config = load_config(path)
    assert config.baselines == config.eval_opponents == bot_names(game)
    assert "expert" not in config.baselines  # the search expert joins a pool only when named
    assert from_dict({"game": game, "baselines": []}).baselines == []  # pure self-play stays possible


def test_yaml_errors_name_the_file(tmp_path: Path) -> None:
    path = tmp_path / "x.yaml"
    path.write_text("game: [unclosed\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(path)
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "missing.yaml")


def test_masked_policy_never_picks_an_illegal_action() -> None:
    torch.manual_seed(0)
    net = ActorCritic(10, 6, hidden_size=16)
    obs = torch.randn(500, 10)
    mask = torch.rand(500, 6) < 0.3
    mask[torch.arange(500), torch.randint(0, 6, (500,))] = True
    action, logprob, entropy, _ = net.get_action_and_value(obs, mask)
    assert mask[torch.arange(500), action].all()
    assert torch.isfinite(logprob).all() and torch.isfinite(entropy).all()
    only = mask.sum(1) == 1
    assert torch.allclose(entropy[only], torch.zeros(int(only.sum())), atol=1e-6)
    agent = PolicyAgent(net, seed=1)
    picks = agent.act_batch(obs.numpy(), mask.numpy().astype(np.int8))
    assert mask.numpy()[np.arange(500), picks].all()


def test_an_agent_acts_on_a_few_rows_with_one_thread_and_gives_the_process_its_threads_back(monkeypatch) -> None:
    """Single decisions run on one torch thread (a second only waits for a core on a busy machine); big
    batches keep the process's threads, and the setting is the same after either."""
    net = ActorCritic(10, 6, hidden_size=16)
    seen = []
    forward = ppo.policy_logits
    monkeypatch.setattr(ppo, "policy_logits", lambda *args: seen.append(torch.get_num_threads()) or forward(*args))
    agent = PolicyAgent(net, seed=1)
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        for rows in (1, 1000):
            agent.act_batch(np.zeros((rows, 10), dtype=np.float32), np.ones((rows, 6), dtype=np.int8))
            assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)
    assert seen == [1, 2]


def test_pool_favours_the_opponents_it_beats_least() -> None:
    pool = OpponentPool(["random", "greedy"], latest_prob=0.0, pool_size=2, power=2.0)
    for _ in range(40):
        pool.record("random", 1.0)
        pool.record("greedy", 0.0)
    weights = pool.weights()
    assert weights["greedy"] > 10 * weights["random"]
    net = ActorCritic(4, 3, hidden_size=8)
    for k in range(3):
        pool.add_snapshot(f"s{k}", net)
    assert list(pool.snapshots) == ["s1", "s2"] and "s0" not in pool.stats
    rng = np.random.default_rng(0)
    assert {pool.sample(rng) for _ in range(200)} <= {"random", "greedy", "s1", "s2"}
    assert OpponentPool([], 0.5, 2, 2.0).sample(rng) == LATEST


def test_selfplay_stops_at_the_learner_turn_in_every_game() -> None:
    game = make_game("rummy500", 3)
    net = ActorCritic(game.observation_size, game.num_actions, hidden_size=16)
    pool = OpponentPool(["random"], latest_prob=0.5, pool_size=2, power=1.0)
    envs = SelfPlay(game, 6, pool, net, "win", seed=3)
    obs, masks = envs.reset()
    for _ in range(100):
        assert all(s.current_player == seat for s, seat in zip(envs.states, envs.seats, strict=True))
        legal = [np.flatnonzero(m) for m in masks]
        obs, masks, rewards, dones = envs.step(np.array([a[0] for a in legal]))
        assert set(rewards[~dones]) <= {0.0} and set(rewards[dones]) <= {-1.0, 0.0, 1.0}
    assert envs.episodes > 6


@pytest.mark.parametrize("reward", ["score", "margin", "win"])
def test_the_pool_records_the_learners_result_by_the_measure_the_reward_trains_for(
        reward: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Under "win" the learner's share of the win: in Rummy 500 every seat can score points in a hand it loses,
    so a positive reward is no win. Under "score" its share by score: one half, moved by a quarter per
    ``score_scale`` of margin over the others' mean."""
    game = make_game("rummy500", 3)
    net = ActorCritic(game.observation_size, game.num_actions, hidden_size=16)
    pool = OpponentPool(["random"], latest_prob=0.0, pool_size=2, power=1.0)
    envs = SelfPlay(game, 8, pool, net, reward, seed=5)
    ended = []  # (final scores, learner's seat) of each game that ends, seen before it is replaced
    new_game = SelfPlay._new_game

    def keep_ended(self: SelfPlay, i: int) -> None:
        if self.states[i] is not None and self.states[i].is_terminal():
            ended.append((self.states[i].scores(), int(self.seats[i])))
        new_game(self, i)

    monkeypatch.setattr(SelfPlay, "_new_game", keep_ended)
    obs, masks = envs.reset()
    results = []
    while len(results) < 40:
        obs, masks, _, _ = envs.step(np.array([np.flatnonzero(m)[0] for m in masks]))
        results += [result for _, result in envs.finished]
    expected = []
    for scores, seat in ended:
        if reward in ("score", "margin"):
            others = (sum(scores) - scores[seat]) / 2
            expected.append(min(max(0.5 + (scores[seat] - others) / (4 * game.score_scale), 0.0), 1.0))
        else:
            top = np.flatnonzero(scores == scores.max())
            expected.append(1.0 / len(top) if seat in top else 0.0)
    assert results == pytest.approx(expected)
    assert len(set(results)) > 2 if reward != "win" else set(results) <= {0.0, 0.5, 1.0 / 3, 1.0}
    assert any(scores[seat] > 0 and seat not in np.flatnonzero(scores == scores.max()) for scores, seat in ended)


def test_final_table_leads_with_the_score_per_round() -> None:
    from agents.train_log import format_table

    row = {"opponent": "hoard", "games": 200, "win_rate": 0.61, "win_low": 0.54, "win_high": 0.68, "score": -12.5,
           "score_low": -27.25, "score_high": 1.5}
    head, line = format_table([row]).splitlines()
    assert head.split()[:3] == ["opponent", "rounds", "score/round"]
    assert line.split()[:5] == ["hoard", "200", "-12.50", "[-27.25,", "+1.50]"]


def test_the_estimate_runs_to_whichever_limit_ends_the_run_first() -> None:
    from agents.train_control import estimate

    by_time = estimate(elapsed=60, steps_left=10**6, steps_per_second=1000, time_left=600, closing=30)
    assert by_time.limit == "time budget" and by_time.seconds_left == 600
    assert by_time.fraction(60) == pytest.approx(60 / 660)
    by_steps = estimate(elapsed=60, steps_left=100_000, steps_per_second=1000, time_left=600, closing=30)
    assert by_steps.limit == "step budget" and by_steps.seconds_left == 130  # the final evaluation counts too
    unbounded = estimate(elapsed=60, steps_left=100_000, steps_per_second=1000, time_left=None, closing=0)
    assert unbounded.limit == "step budget" and unbounded.seconds_left == 100


def test_the_commands_a_run_prints_work_the_way_it_was_started(monkeypatch: pytest.MonkeyPatch) -> None:
    """Started by make: the make form, naming CONFIG only where make was given one; started with an
    interpreter that the shell's ``python`` is not: that interpreter's path."""
    from agents import train_control
    from agents.train_control import MAKE_CONFIG_VARIABLE, command

    monkeypatch.setenv(MAKE_CONFIG_VARIABLE, "")
    assert command("train.py", "configs/rummikub_2p.yaml", ["--resume"], True, "runs") == "make train ARGS=--resume"
    assert command("train.py", "configs/rummikub_2p.yaml", [], True, "runs") == "make train"
    monkeypatch.setenv(MAKE_CONFIG_VARIABLE, "configs/smoke.yaml")
    assert command("train.py", "configs/smoke.yaml", ["--resume"], False, "my runs") == (
        "make train CONFIG=configs/smoke.yaml ARGS='--runs-dir '\"'\"'my runs'\"'\"' --resume'")
    monkeypatch.delenv(MAKE_CONFIG_VARIABLE)
    monkeypatch.setattr(train_control.shutil, "which", lambda name: "/usr/bin/python")
    monkeypatch.setattr(train_control.sys, "executable", os.path.join(os.getcwd(), ".venv", "bin", "python"))
    assert command("train.py", "c.yaml", ["--resume"], True, "runs") == ".venv/bin/python train.py --config c.yaml " \
                                                                         "--resume"
    monkeypatch.setattr(train_control.shutil, "which", lambda name: train_control.sys.executable)
    assert command("train.py", "c.yaml", ["--overwrite"], True, "runs") == "python train.py --config c.yaml --overwrite"


def test_an_agent_acts_as_its_network_computes_and_follows_its_training() -> None:
    """``policy_logits`` equals the modules' forward pass bit for bit, and an agent made before an update of
    its network (as a learner's is) acts with the updated weights."""
    torch.manual_seed(0)
    net = ActorCritic(10, 6, hidden_size=16)
    obs = torch.rand(5, 10)
    with torch.inference_mode():
        assert torch.equal(ppo.policy_logits(net.plain_layers(), obs), net.actor(net.trunk(obs)))
    agent = PolicyAgent(net, greedy=True)
    mask = np.ones((5, 6), dtype=np.int8)
    with torch.no_grad():
        net.actor.bias.copy_(torch.tensor([0.0, 0, 0, 0, 0, 100.0]))  # in place, as an optimiser's step
    assert (agent.act_batch(obs.numpy(), mask) == 5).all()
    net.load_state_dict({**net.state_dict(), "actor.bias": torch.tensor([0.0, 0, 100.0, 0, 0, 0])})
    assert (agent.act_batch(obs.numpy(), mask) == 2).all()


def test_a_mixed_table_seats_its_own_opponent_at_every_seat() -> None:
    """With ``mixed``, each other seat of a four-seat game is drawn apart and keeps its player all game; the
    pool counts a game once for each opponent at the table, however many seats it held."""
    game = make_game("rummy500", 4)
    net = ActorCritic(game.observation_size, game.num_actions, hidden_size=16)
    pool = OpponentPool(["random", "greedy"], latest_prob=0.0, pool_size=2, power=1.0, mixed=True)
    envs = SelfPlay(game, 6, pool, net, "win", seed=3)
    played: dict[int, dict[int, set]] = {}  # id of a game's state -> seat -> the agents that moved there
    seen = []  # every state logged, kept alive so that no later game's state takes its id
    play = envs._play

    def logged(agent, group):
        for i in group:
            state = envs.states[i]
            seen.append(state)
            played.setdefault(id(state), {}).setdefault(state.current_player, set()).add(agent)
        play(agent, group)

    envs._play = logged
    obs, masks = envs.reset()
    rng = np.random.default_rng(0)
    for _ in range(60):
        obs, masks, _, _ = envs.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
    assert played and all(len(table.split("+")) == 3 for table in envs.opponent)
    assert any(len(set(table.split("+"))) > 1 for table in envs.opponent)
    for i, state in enumerate(envs.states):
        names = envs.opponent[i].split("+")
        for player, agents in played.get(id(state), {}).items():
            assert agents == {envs.agents[names[(player - envs.seats[i] - 1) % 3]]}
    fresh = OpponentPool(["random", "greedy"], latest_prob=0.0, pool_size=2, power=1.0, mixed=True)
    fresh.record("random+greedy+random", 1.0)
    assert fresh.stats == {"random": [1.0, 1.0], "greedy": [1.0, 1.0]}
    one = OpponentPool(["random", "greedy"], latest_prob=0.0, pool_size=2, power=1.0)
    assert "+" not in one.table(np.random.default_rng(0), 3)
