"""Baselines play only legal moves, see only their own seat, and are made by name."""

from __future__ import annotations

import numpy as np
import pytest

from agents import BaseAgent, baseline_names, decide, make_agent
from agents.evaluate import new_game
from agents.random_agent import RandomAgent
from rummienv.rules import make_rules
from rummienv.rummikub import RummikubGame
from rummienv.rummy500 import Rummy500Game


class Spy(BaseAgent):
    """Records what it is shown and plays like the wrapped agent."""

    def __init__(self, inner):
        super().__init__()
        self.inner = inner
        self.reads_view = True
        self.views = []

    def observe(self, view):
        self.views.append(view)
        if getattr(self.inner, "reads_view", False):
            self.inner.observe(view)

    def act(self, observation, action_mask):
        return self.inner.act(observation, action_mask)


def play_checked(game, agents, seed, max_actions=None):
    """Play a game checking every chosen action against the mask; the number of actions."""
    state = game.new_initial_state(seed)
    count = 0
    while not state.is_terminal() and (max_actions is None or count < max_actions):
        mask = state.legal_action_mask().copy()
        action = decide(agents[state.current_player], state)
        assert mask[action], f"{state.action_to_string(action)} not legal for {agents[state.current_player]}"
        state.apply_action(action)
        count += 1
    return state, count


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("name", ["random", "greedy", "value", "value_hold", "expert"])
def test_rummy500_baselines_play_legal_moves(name, players):
    game = Rummy500Game(None, players)
    opponents = ["greedy", "value", "random"]
    for seed in range(4 if name == "expert" else 12):  # the expert's hands cost seconds each
        agents = [make_agent(name, "rummy500", players, seed)] + [
            make_agent(opponents[(seed + i) % 3], "rummy500", players, seed + i) for i in range(1, players)]
        state, _ = play_checked(game, agents, seed)
        assert state.is_terminal()


@pytest.mark.parametrize("game_name", ["rummikub", "rummikub_cards"])
@pytest.mark.parametrize("name", ["greedy", "max_tiles", "hold_back", "hoard"])
def test_rummikub_baselines_play_legal_moves_without_jokers(name, game_name):
    """Jokers are nearly all of the solver's cost, so most games leave them out."""
    rules = make_rules(game_name, {"jokers": 0})
    for players, seeds in ((2, range(4)), (3, range(1))):
        game = RummikubGame(rules, players)
        for seed in seeds:
            agents = [make_agent(name, rules, players, seed)] + [
                make_agent(("max_tiles", "greedy")[i % 2], rules, players, seed) for i in range(1, players)]
            state, _ = play_checked(game, agents, seed)
            assert state.is_terminal()


@pytest.mark.parametrize("game_name", ["rummikub", "rummikub_cards"])
def test_rummikub_planners_play_legal_moves_with_jokers(game_name):
    game = RummikubGame(game_name, 2)
    for seed, pair in enumerate([("max_tiles", "hold_back"), ("hold_back", "greedy")]):
        state, _ = play_checked(game, [make_agent(n, game_name, 2, seed) for n in pair], seed)
        assert state.is_terminal()


@pytest.mark.parametrize("game_name", ["rummikub", "rummikub_cards"])
def test_rummikub_random_plays_legal_moves(game_name):
    """Random play stages pieces at random and is slow to finish, so only the opening stretch."""
    game = RummikubGame(game_name, 2)
    for seed in range(2):
        agents = [make_agent("random", game_name, 2, seed), make_agent("max_tiles", game_name, 2, seed)]
        _, count = play_checked(game, agents, seed, max_actions=120)
        assert count == 120


def test_max_tiles_goes_out_when_it_can():
    from rummienv.rummikub import load_state

    state = load_state({"game": "rummikub", "racks": [["k1", "k2", "k3", "r5"], ["b1"]],
                        "table": [["r6", "r7", "r8"]], "opened": [True, True], "current_player": 0})
    agent = make_agent("max_tiles", "rummikub", 2)
    while not state.is_terminal() and state.current_player == 0:
        state.apply_action(decide(agent, state))
    assert state.is_terminal() and state.scores()[0] > 0


@pytest.mark.parametrize("game", ["rummikub", "rummy500"])
def test_heuristics_are_shown_only_the_acting_seats_view(game):
    engine = new_game(make_rules(game, {"jokers": 0} if game == "rummikub" else None), 2)
    state = engine.new_initial_state(5)
    spies = [Spy(make_agent(baseline_names(game)[2], game, 2, s)) for s in range(2)]
    for _ in range(30):
        if state.is_terminal():
            break
        seat = state.current_player
        state.apply_action(decide(spies[seat], state))
        assert spies[seat].views[-1]["player"] == seat
    for seat, spy in enumerate(spies):
        for view in spy.views:
            assert view["player"] == seat
            assert not {"racks", "hands", "pool", "stock"} & set(view)


def test_view_readers_refuse_to_act_blind():
    agent = make_agent("max_tiles", "rummikub", 2)
    with pytest.raises(ValueError, match="observe"):
        agent.act(np.zeros(10, np.float32), np.ones(108, np.int8))


def test_act_batch_gives_legal_actions_for_every_row():
    masks = np.zeros((64, 579), dtype=np.int8)
    rng = np.random.default_rng(0)
    for row in masks:
        row[rng.choice(579, size=rng.integers(1, 6), replace=False)] = 1
    actions = RandomAgent(seed=1).act_batch(np.zeros((64, 3)), masks)
    assert actions.shape == (64,)
    assert masks[np.arange(64), actions].all()
    state = Rummy500Game(None, 2).new_initial_state(0)
    views = [state.view(state.current_player)] * 2
    batch = make_agent("value", "rummy500", 2).act_batch(
        np.stack([state.observation(state.current_player)] * 2), np.stack([state.legal_action_mask()] * 2), views)
    assert all(state.legal_action_mask()[a] for a in batch)


def test_random_agent_is_uniform_over_legal_actions():
    mask = np.zeros(10, dtype=np.int8)
    mask[[2, 5, 7]] = 1
    agent = RandomAgent(seed=0)
    picks = np.bincount([agent.act(None, mask) for _ in range(3000)], minlength=10)
    assert set(np.flatnonzero(picks)) == {2, 5, 7}
    assert picks[[2, 5, 7]].min() > 900


def test_make_agent_names_allowed_baselines_per_game():
    with pytest.raises(ValueError) as err:
        make_agent("alphago", "rummy500", 2)
    message = str(err.value)
    for name in ("value", "max_tiles", "hold_back", "rummikub_cards"):
        assert name in message
    with pytest.raises(ValueError, match="max_tiles"):
        make_agent("value", "rummikub", 2)  # a Rummy 500 bot is not a Rummikub bot


def test_make_agent_refuses_checkpoints_while_there_is_no_loader(tmp_path, monkeypatch):
    import agents.registry as registry

    def missing(name):
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)

    monkeypatch.setattr(registry.importlib, "import_module", missing)
    with pytest.raises(ValueError, match="not available until trained agents land"):
        make_agent(str(tmp_path / "policy.pt"), "rummikub", 2)


def test_make_agent_hands_checkpoint_paths_to_the_loader(tmp_path, monkeypatch):
    import sys
    import types

    calls = []
    loader = types.ModuleType("agents.checkpoint")
    loader.load_agent = lambda path, rules, players, seed=None: calls.append((path, rules.game, players, seed)) or "net"
    monkeypatch.setitem(sys.modules, "agents.checkpoint", loader)
    assert make_agent(str(tmp_path / "p.pt"), "rummy500", 3, seed=4) == "net"
    assert calls == [(tmp_path / "p.pt", "rummy500", 3, 4)]


def test_make_agent_passes_agent_objects_through_and_accepts_games_and_rules():
    agent = RandomAgent()
    assert make_agent(agent, "rummikub", 2) is agent
    assert isinstance(make_agent("greedy", RummikubGame("rummikub_cards", 3), 3), BaseAgent)
    assert isinstance(make_agent("value", make_rules("rummy500"), 2), BaseAgent)
    assert baseline_names("rummikub") == ["random", "greedy", "max_tiles", "hold_back", "hoard", "expert"]
    assert baseline_names("rummy500") == ["random", "greedy", "value", "value_hold", "expert"]


def _rummikub_turn(name, rack):
    """The actions a bot takes in one turn of an opened position against a short table."""
    from rummienv.rummikub import load_state

    position = {"game": "rummikub", "racks": [rack, ["b1", "b5", "b9"]], "table": [["o7", "o8", "o9"]],
                "opened": [True, True], "current_player": 0}
    state = load_state(position)
    agent, actions = make_agent(name, "rummikub", 2), []
    while not state.is_terminal() and state.current_player == 0:
        actions.append(decide(agent, state))
        state.apply_action(actions[-1])
    return [state.action_to_string(a) for a in actions]


def test_hold_back_keeps_its_joker_unless_it_goes_out():
    rack = ["k1", "k2", "J", "r5", "r11"]
    assert _rummikub_turn("max_tiles", rack)[-1] == "COMMIT"
    assert _rummikub_turn("hold_back", rack) == ["DRAW"]
    assert _rummikub_turn("hold_back", ["k1", "k2", "J"])[-1] == "COMMIT"


def test_hoard_opens_at_once_then_draws_until_its_rack_goes_out_in_one_play():
    from rummienv.rummikub import load_state

    unopened = {"game": "rummikub", "racks": [["k10", "b10", "o10", "r2"], ["b1", "b5"]], "table": [],
                "opened": [False, True], "current_player": 0}
    state = load_state(unopened)
    agent = make_agent("hoard", "rummikub", 2)
    while state.current_player == 0:
        state.apply_action(decide(agent, state))
    assert state.opened[0] and state.racks[0].sum() == 1  # opened with the 30 points it had
    assert _rummikub_turn("hoard", ["k1", "k2", "k3", "r5"]) == ["DRAW"]  # k1-k3 could go down: it keeps them
    assert _rummikub_turn("hoard", ["k1", "k2", "k3", "o10"])[-1] == "COMMIT"  # o10 joins o7-o9: it goes out
