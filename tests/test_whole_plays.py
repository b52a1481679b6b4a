"""Whole plays: a planning bot's turn laid down in one transition plays the same games as piece by piece."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from rummikub_helpers import play, position

import agents.selfplay as selfplay_module
import rummienv  # noqa: F401  (registers the env ids)
import rummienv.envs.opponents as opponents_module
from agents.evaluate import evaluate
from agents.ppo import ActorCritic
from agents.registry import make_agent
from agents.rummikub_bots import MaxTilesAgent
from agents.selfplay import OpponentPool, SelfPlay, act_batch
from rummienv.envs.opponents import make_move
from rummienv.errors import IllegalActionError
from rummienv.games import make_game
from rummienv.rummikub import RummikubGame, solver
from rummienv.rummikub import actions as A
from rummienv.rummikub.state import RummikubState
from rummienv.tiles import counts_of, parse_tiles

LINEUPS = {
    (2, "bots"): ["max_tiles", "hold_back"],
    (2, "bots_and_random"): ["hold_back", "random"],
    (4, "bots"): ["max_tiles", "hold_back", "greedy", "max_tiles"],
    (4, "bots_and_random"): ["random", "max_tiles", "random", "hold_back"],
}


@pytest.fixture
def stepwise(monkeypatch):
    """Switch whole plays off everywhere: every move goes through ``act`` and the mask, as before."""

    def switch_off() -> None:
        monkeypatch.setattr(opponents_module, "play_whole", lambda agent, state, view=None: 0)
        monkeypatch.setattr(selfplay_module, "play_whole", lambda agent, state, view=None: 0)

    return switch_off


@pytest.fixture
def whole_plays(monkeypatch):
    """Count the whole plays laid down, so a comparison cannot pass with the fast path unused."""
    calls = []
    real = RummikubState.apply_play

    def counted(self, play):
        calls.append(int(np.asarray(play).sum()))
        return real(self, play)

    monkeypatch.setattr(RummikubState, "apply_play", counted)
    return calls


def play_out(game_name: str, names: list[str], seed: int, whole_game: bool = False) -> RummikubState:
    game = RummikubGame(game_name, len(names), whole_game=whole_game)
    agents = [make_agent(name, game_name, len(names), seed=seed * 10 + seat) for seat, name in enumerate(names)]
    state = game.new_initial_state(seed)
    while not state.is_terminal():
        make_move(agents[state.current_player], state)
    return state


def same_state(a: RummikubState, b: RummikubState) -> None:
    assert a.history == b.history
    assert a.to_dict() == b.to_dict()
    assert a.exact_scores() == b.exact_scores()
    assert a.current_player == b.current_player and a.is_terminal() == b.is_terminal()
    np.testing.assert_array_equal(a.racks, b.racks)
    np.testing.assert_array_equal(a.table, b.table)
    np.testing.assert_array_equal(a.fixed, b.fixed)
    assert a.table_sets == b.table_sets and a.passes == b.passes and a.swapped == b.swapped


@pytest.mark.parametrize("game_name", ["rummikub", "rummikub_cards"])
@pytest.mark.parametrize(("players", "lineup"), list(LINEUPS))
def test_whole_games_are_the_same_with_whole_plays_and_piece_by_piece(game_name, players, lineup, stepwise,
                                                                      whole_plays):
    names = LINEUPS[players, lineup]
    seeds = range(3)
    fast = [play_out(game_name, names, seed) for seed in seeds]
    assert whole_plays, "no whole play was laid down"
    stepwise()
    slow = [play_out(game_name, names, seed) for seed in seeds]
    for a, b in zip(fast, slow, strict=True):
        same_state(a, b)


def test_whole_games_of_several_rounds_are_the_same_either_way(stepwise, whole_plays):
    fast = play_out("rummikub", ["hold_back", "max_tiles", "random"], 5, whole_game=True)
    stepwise()
    slow = play_out("rummikub", ["hold_back", "max_tiles", "random"], 5, whole_game=True)
    assert fast.round == 2 and whole_plays
    same_state(fast, slow)


def test_the_evaluation_numbers_are_the_same_either_way(stepwise, whole_plays):
    def run():
        return evaluate("rummikub_cards", ["hold_back", "max_tiles", "greedy"], 3, 2, seed=4, progress=False,
                        resamples=50)

    fast = run()
    stepwise()
    assert run() == fast and whole_plays


@pytest.mark.parametrize(("env_id", "opponents"), [("rummienv/Rummikub-v0", ["max_tiles"]),
                                                   ("rummienv/RummikubCards-v0", ["hold_back", "random", "max_tiles"])])
def test_the_env_plays_the_same_episodes_either_way(env_id, opponents, stepwise, whole_plays):
    def episodes():
        env = gym.make(env_id, num_players=len(opponents) + 1, opponents=opponents, seat="random")
        rng = np.random.default_rng(0)
        trace = []
        for episode in range(3):
            obs, _ = env.reset(seed=episode)
            done = False
            while not done:
                action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
                obs, reward, done, _, _ = env.step(action)
                trace.append((action, reward, obs["observation"].tobytes(), obs["action_mask"].tobytes()))
            trace.append(tuple(env.unwrapped.state.history))
        return trace

    fast = episodes()
    assert whole_plays
    stepwise()
    assert episodes() == fast


def test_self_play_plays_the_same_games_either_way(stepwise, whole_plays):
    def run():
        game = make_game("rummikub", 2)
        net = ActorCritic(*selfplay_module.game_shape(game), hidden_size=8)
        pool = OpponentPool(["max_tiles", "hold_back"], latest_prob=0.0, pool_size=2, power=1.0)
        envs = SelfPlay(game, 4, pool, net, "win", seed=2)
        _, masks = envs.reset()
        rng = np.random.default_rng(1)
        for _ in range(60):
            _, masks, _, _ = envs.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        return [s.history for s in envs.states], envs.env_steps, envs.episodes

    fast = run()
    assert whole_plays
    stepwise()
    assert run() == fast


def test_a_bot_shared_by_games_played_in_turn_plays_each_as_its_own_bot():
    """Self-play and the warm start drive one bot through many games a step at a time."""
    game = RummikubGame("rummikub", 2)

    def run(shared: bool) -> list[list[int]]:
        states = [game.new_initial_state(seed) for seed in range(12)]
        own = [MaxTilesAgent(game.rules) for _ in states]
        one = MaxTilesAgent(game.rules)
        for _ in range(250):
            live = [k for k, s in enumerate(states) if not s.is_terminal()]
            if not live:
                break
            if shared:
                actions = act_batch(one, [states[k] for k in live])
            else:
                actions = [act_batch(own[k], [states[k]])[0] for k in live]
            for k, action in zip(live, actions, strict=True):
                states[k].apply_action(int(action))
        return [s.history for s in states]

    assert run(shared=True) == run(shared=False)


def test_a_bot_that_draws_decides_once(monkeypatch):
    state = position(["k1 b5 o9 r13", "k2 k3"], ["r1 r2 r3"], opened=[True, True])
    bot = MaxTilesAgent(state.rules)
    calls = []
    real = solver.best_play
    monkeypatch.setattr(solver, "best_play", lambda *a, **k: calls.append(1) or real(*a, **k))
    monkeypatch.setattr(RummikubState, "legal_action_mask", lambda self: pytest.fail("a draw needs no mask"))
    made = make_move(bot, state)
    assert made == 1 and state.history == [A.DRAW] and len(calls) == 1


# ------------------------------------------------------------------ the transition
def counts(text: str) -> np.ndarray:
    return counts_of(parse_tiles(text))


def stepped(state: RummikubState, pieces: str) -> RummikubState:
    """The same play made the old way: PLACE each new piece (ascending, as a bot would), then COMMIT."""
    state = state.clone()
    for t in np.flatnonzero(counts(pieces) - state.staged):
        for _ in range(int(counts(pieces)[t] - state.staged[t])):
            state.apply_action(A.PLACE + int(t))
    state.apply_action(A.COMMIT)
    return state


def laid(state: RummikubState, pieces: str) -> RummikubState:
    state = state.clone()
    state.apply_play(counts(pieces))
    return state


@pytest.mark.parametrize(("racks", "table", "opened", "staged", "pieces"), [
    (["r10 r11 r12 k1", "b1 b2"], [], [False, False], "", "r10 r11 r12"),  # an opening
    (["r4 r5 J k9 k9", "b1 b2"], ["r1 r2 r3", "k7 b7 o7"], [True, True], "r5", "r4 r5 J"),  # staged first
    (["k4 k4 b4 o4 r4", "b1"], ["k1 k2 k3"], [True, False], "", "k4 k4 b4 o4 r4"),  # goes out: the round ends
])
def test_a_whole_play_leaves_the_state_as_place_and_commit_do(racks, table, opened, staged, pieces):
    state = position(racks, table, opened=opened, staged=staged)
    same_state(laid(state, pieces), stepped(state, pieces))


def test_a_whole_play_finishes_a_turn_that_swapped_a_joker():
    state = position(["r5 k9 k10 o2", "b1 b2"], [{"run": ["r4", "J", "r6"]}], game="rummikub_cards",
                     opened=[True, True])
    play(state, "SWAP_JOKER r5")
    after = laid(state, "r5 J k9 k10")
    same_state(after, stepped(state, "r5 J k9 k10"))
    assert after.history[-3:] == [A.PLACE + parse_tiles("k9")[0], A.PLACE + parse_tiles("k10")[0], A.COMMIT]


def test_a_whole_play_computes_no_mask(monkeypatch):
    state = position(["r4 r5 J k7", "b1 b2"], ["r1 r2 r3"], opened=[True, True])

    def refuse(*args, **kwargs):
        raise AssertionError("a mask was computed")

    monkeypatch.setattr(RummikubState, "legal_action_mask", refuse)
    monkeypatch.setattr(solver, "legal_mask", refuse)
    state.apply_play(counts("r4 r5 J"))
    assert state.current_player == 1 and state._mask is None


@pytest.mark.parametrize(("staged", "pieces", "message"), [
    ("r5", "r4 r5 r6", "needs \\[r6\\], which seat 0 does not hold"),
    ("r5", "r4 J", "leaves out staged \\[r5\\]"),
    ("r5", "r5 k7", "not legal for seat 0: with the table, every set must be a valid group or run"),
])
def test_an_illegal_whole_play_says_why_and_changes_nothing(staged, pieces, message):
    state = position(["r4 r5 J k7", "b1 b2"], ["r1 r2 r3"], opened=[True, True], staged=staged)
    before = state.to_dict(), list(state.history)
    with pytest.raises(IllegalActionError, match=message):
        state.apply_play(counts(pieces))
    assert (state.to_dict(), state.history) == before


def test_T3_an_empty_play_draws_without_a_mask(monkeypatch):
    state = position(["r4 r5 J k7", "b1 b2"], ["r1 r2 r3"], opened=[True, True])
    drawn = state.pool[-1]

    def refuse(*args, **kwargs):
        raise AssertionError("a mask was computed")

    monkeypatch.setattr(RummikubState, "legal_action_mask", refuse)
    state.apply_play(np.zeros(53, dtype=np.int64))
    assert state.history == [A.DRAW] and state.current_player == 1 and state.racks[0][drawn] >= 1


def test_T7_an_empty_play_with_the_pool_empty_is_refused():
    state = position(["r4 r5 J k7", "b1 b2"], ["r1 r2 r3"], opened=[True, True], pool="")
    with pytest.raises(IllegalActionError, match="an empty play lays nothing down"):
        state.apply_play(np.zeros(53, dtype=np.int64))


def test_a_whole_play_refuses_an_opening_short_of_the_threshold_and_malformed_plays():
    state = position(["r1 r2 r3 k9", "b1 b2"], [])
    with pytest.raises(IllegalActionError, match="initial meld .* worth at least 30"):
        state.apply_play(counts("r1 r2 r3"))
    with pytest.raises(IllegalActionError, match="53 integer piece counts"):
        state.apply_play(np.ones(52, dtype=np.int64))
    with pytest.raises(IllegalActionError, match="53 integer piece counts"):
        state.apply_play(counts("r1 r2 r3").astype(float))
    state = play_out("rummikub", ["max_tiles", "max_tiles"], 0)
    with pytest.raises(IllegalActionError, match="game is over"):
        state.apply_play(counts("r1 r2 r3"))


def test_an_opponents_illegal_whole_play_names_the_opponent():
    class Cheat:
        reads_view = True

        def observe(self, view):
            pass

        def act(self, observation, action_mask):
            return int(np.flatnonzero(action_mask)[0])

        def plan_turn(self, view):
            return counts("k1 k1 k1")

    env = gym.make("rummienv/Rummikub-v0", opponents=Cheat(), seat=1)
    with pytest.raises(IllegalActionError, match="opponent .* at seat 0: play \\[k1 k1 k1\\]"):
        env.reset(seed=0)
