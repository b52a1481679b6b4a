"""The whole-turn action mode: its three plays against brute force, its mask, its observation, and the agent that
carries a whole-turn network into the per-piece games."""

from __future__ import annotations

import bruteforce as bf
import gymnasium as gym
import numpy as np
import positions as ps
import pytest

import rummienv  # noqa: F401  (registers the envs)
from agents.evaluate import evaluate
from agents.imitation import record_teacher
from agents.ppo import ActorCritic, PolicyAgent
from agents.registry import make_agent
from agents.whole_turn_policy import WholeTurnPolicy
from rummienv.errors import IllegalActionError
from rummienv.rules import make_rules
from rummienv.rummikub import RummikubGame, observation
from rummienv.rummikub import actions as A
from rummienv.rummikub import whole_turns as W
from rummienv.tiles import JOKER


@pytest.mark.parametrize("fixed_jokers", [False, True])
def test_plays_are_the_most_pieces_with_and_without_the_racks_jokers(fixed_jokers):
    """MAX_PLAY lays as many pieces as any legal play holding the staged ones, KEEP_JOKERS_PLAY as many as any
    such play that adds none of the rack's jokers (brute force over every play of small positions)."""
    checked = kept_differs = 0
    for k, pos in enumerate(ps.random_positions(77 + fixed_jokers, 60, fixed_jokers=fixed_jokers)):
        table, rack, staged, fixed = (pos[key].astype(np.int64) for key in ("table", "rack", "staged", "fixed"))
        if k % 3 == 0:
            rack[JOKER] = max(rack[JOKER], staged[JOKER] + 1)  # a rack joker to keep, in a third of them
        args = {"opened": True, "fixed": fixed} if pos["opened"] else {"opened": False, "threshold": pos["threshold"]}
        most, kept = W.plays(table, rack, staged, args)
        bf_args = dict(fixed=fixed, opened=pos["opened"], threshold=pos["threshold"])
        value, _ = bf.best_play(table, rack, staged, **bf_args)
        kept_rack = rack.copy()
        kept_rack[JOKER] = staged[JOKER]
        kept_value, _ = bf.best_play(table, kept_rack, staged, **bf_args)
        for play, want, source in ((most, value, rack), (kept, kept_value, kept_rack)):
            if play is None:
                assert not bf.legal_plays(table, source, staged, **bf_args)
                continue
            assert play.sum() == want
            assert (play >= staged).all() and bf.is_legal_play(table, source, play, **bf_args)
        checked += most is not None
        kept_differs += most is not None and (kept is None or not np.array_equal(kept, most))
    assert checked >= 20 and kept_differs >= 3  # the positions exercise both plays


@pytest.mark.parametrize("fixed_jokers", [False, True])
def test_the_points_play_sheds_the_most_points_and_exists_with_the_most_pieces_play(fixed_jokers):
    """MOST_POINTS_PLAY sheds as many points (a joker at its penalty) as any legal play holding the staged pieces
    (brute force over every play of small positions), and is offered exactly when MAX_PLAY is."""
    checked = differs = 0
    for pos in ps.random_positions(91 + fixed_jokers, 60, fixed_jokers=fixed_jokers):
        table, rack, staged, fixed = (pos[key].astype(np.int64) for key in ("table", "rack", "staged", "fixed"))
        args = {"opened": True, "fixed": fixed} if pos["opened"] else {"opened": False, "threshold": pos["threshold"]}
        most, _, points = W.whole_plays(table, rack, staged, args, joker_penalty=25)
        bf_args = dict(fixed=fixed, opened=pos["opened"], threshold=pos["threshold"])
        value, _ = bf.best_play(table, rack, staged, **bf_args, objective="points", joker_penalty=25)
        assert (points is None) == (most is None)
        if points is None:
            assert not bf.legal_plays(table, rack, staged, **bf_args)
            continue
        assert bf.play_score(points, "points", 25) == value
        assert (points >= staged).all() and bf.is_legal_play(table, rack, points, **bf_args)
        checked += 1
        differs += not np.array_equal(points, most)
    assert checked >= 20 and differs >= 3  # the positions exercise a points play other than the most pieces'


def _random_games(game: str, players: int, seed: int, count: int):
    """Whole-turn states along random games (whole plays taken half the time they are offered)."""
    engine = W.WholeTurnGame(make_rules(game), players)
    rng = np.random.default_rng(seed)
    for k in range(count):
        state = engine.new_initial_state(seed * 1000 + k)
        while not state.is_terminal():
            yield state
            mask = state.legal_action_mask()
            whole = np.flatnonzero(mask[A.NUM_ACTIONS:])
            if len(whole) and rng.random() < 0.5:
                state.apply_action(A.NUM_ACTIONS + int(rng.choice(whole)))
            else:
                state.apply_action(int(rng.choice(np.flatnonzero(mask))))
        yield state


@pytest.mark.parametrize("game", ["rummikub", "rummikub_cards"])
def test_whole_plays_are_offered_exactly_when_a_play_exists_and_lay_what_the_observation_shows(game):
    for state in _random_games(game, 2, 3, 6):
        mask = state.legal_action_mask()
        assert mask.shape == (W.NUM_ACTIONS,)
        if state.is_terminal():
            assert not mask.any()
            continue
        plain = per_piece_mask(state)
        assert np.array_equal(mask[:A.NUM_ACTIONS], plain)
        assert mask[W.MAX_PLAY] == mask[W.MOST_POINTS_PLAY] == plain[A.PLACE:A.COMMIT + 1].any()
        obs = state.observation(state.current_player)
        layout = W.layout(state.num_players)
        for action, name in zip(range(W.MAX_PLAY, W.NUM_ACTIONS), W.PLAYS, strict=True):
            facts = obs[layout[f"{name}_facts"]]
            assert facts[0] == mask[action]
            if mask[action]:
                after = state.clone()
                before = after.racks[after.current_player].copy()
                after.apply_action(action)
                laid = before - after.racks[state.current_player]
                assert np.allclose(obs[layout[name]], laid * np.where(np.arange(53) == JOKER, 0.25, 0.5))
                assert after.history[len(state.history):] == [*(A.PLACE + t for t in np.repeat(
                    np.arange(53), np.maximum(laid - state.staged, 0))), A.COMMIT]
        other = (state.current_player + 1) % state.num_players
        hidden = state.observation(other)[observation.size(state.num_players):]
        assert not hidden.any()  # another seat's plays are not known


def per_piece_mask(state) -> np.ndarray:
    """The per-piece mask of the same position, from a per-piece state replayed to it."""
    plain = RummikubGame(state.rules, state.num_players).new_initial_state(state.seed)
    for action in state.history:
        plain.apply_action(action)
    return plain.legal_action_mask()


def test_a_whole_turn_game_replays_move_for_move_in_the_per_piece_mode():
    last = None
    for state in _random_games("rummikub", 3, 5, 3):
        if state.is_terminal():
            plain = RummikubGame(state.rules, 3).new_initial_state(state.seed)
            for action in state.history:
                plain.apply_action(action)
            assert plain.is_terminal() and np.array_equal(plain.scores(), state.scores())
            last = state
    assert last is not None


def test_whole_plays_are_named_and_refused_when_not_offered():
    engine = W.WholeTurnGame(make_rules("rummikub"), 2)
    state = engine.new_initial_state(1)
    assert state.string_to_action("max_play") == W.MAX_PLAY
    assert state.action_to_string(W.KEEP_JOKERS_PLAY) == "KEEP_JOKERS_PLAY"
    assert state.string_to_action(" most_points_play") == W.MOST_POINTS_PLAY
    assert state.action_to_string(W.MOST_POINTS_PLAY) == "MOST_POINTS_PLAY"
    with pytest.raises(IllegalActionError, match="MAX_PLAY"):
        state.string_to_action("PLAY_ALL")
    state = next(s for s in map(engine.new_initial_state, range(50)) if not s.legal_action_mask()[W.MAX_PLAY])
    with pytest.raises(IllegalActionError, match="MAX_PLAY is not legal"):
        state.apply_action(W.MAX_PLAY)


def test_the_env_offers_the_mode_and_refuses_it_for_rummy500():
    env = gym.make("rummienv/RummikubCards-v0", whole_turns=True, opponents="hold_back")
    obs, _ = env.reset(seed=2)
    assert env.action_space.n == W.NUM_ACTIONS and obs["observation"].shape == (W.size(2),)
    done = False
    while not done:
        legal = np.flatnonzero(obs["action_mask"])
        obs, _, done, _, _ = env.step(int(legal[-1]))
        assert env.observation_space.contains(obs)
    with pytest.raises(ValueError, match="whole_turns is an action mode of the Rummikub games"):
        gym.make("rummienv/Rummy500-v0", whole_turns=True)
    with pytest.raises(ValueError, match="whole_turns must be True or False"):
        gym.make("rummienv/Rummikub-v0", whole_turns="yes")


@pytest.mark.parametrize("game", ["rummikub", "rummikub_cards"])
def test_hold_back_is_one_whole_turn_action_per_turn(game):
    """The warm start writes hold_back's turns as the single decisions they are in this mode."""
    data = record_teacher(W.WholeTurnGame(make_rules(game), 2), "hold_back", 600, "win", 4)
    actions = set(data["actions"].tolist())
    assert {A.DRAW, W.MAX_PLAY} <= actions
    assert actions <= {A.DRAW, W.MAX_PLAY, W.KEEP_JOKERS_PLAY, A.PASS, *range(A.SWAP, A.NUM_ACTIONS)}


def test_a_whole_turn_network_sees_in_the_per_piece_game_what_the_whole_turn_state_shows():
    """WholeTurnPolicy builds the network's observation and mask from the seat's view: at every decision of
    whole-turn games they equal the state's own."""
    agent = WholeTurnPolicy(PolicyAgent(ActorCritic(W.size(2), W.NUM_ACTIONS), seed=0), make_rules("rummikub_cards"))
    seen = 0
    for state in _random_games("rummikub_cards", 2, 9, 4):
        if state.is_terminal():
            continue
        seat = state.current_player
        plain = per_piece_mask(state)
        own = state.observation(seat)[:observation.size(state.num_players)]
        obs, mask, _ = agent.widen(own, plain, state.view(seat))
        assert np.array_equal(obs, state.observation(seat)) and np.array_equal(mask, state.legal_action_mask())
        seen += 1
    assert seen > 100


def test_a_network_of_the_two_play_mode_plays_as_trained_and_training_can_start_from_it(tmp_path):
    """A network trained before MOST_POINTS_PLAY loads and is shown the first two plays' observation and mask,
    where they were (so it plays as it did); grown for this mode (``init_from``), it gives the same logits and
    the points play a copy of MAX_PLAY's."""
    from agents.checkpoint import load_agent, save_checkpoint
    from agents.whole_turn_policy import with_all_plays

    torch = pytest.importorskip("torch")
    torch.manual_seed(1)
    old = ActorCritic(W.size(2, 2), A.NUM_ACTIONS + 2)
    path = tmp_path / "two_plays.pt"
    save_checkpoint(path, {"config": {"game": "rummikub_cards", "num_players": 2, "whole_turns": True},
                           "model": old.state_dict(), "model_shape": old.shape, "global_step": 0})
    agent = load_agent(path, "rummikub_cards", 2)
    assert isinstance(agent, WholeTurnPolicy) and agent.count == 2
    grown = ActorCritic(W.size(2), W.NUM_ACTIONS)
    grown.load_state_dict(with_all_plays(old.state_dict(), 2))
    seen = 0
    for state in _random_games("rummikub_cards", 2, 4, 2):
        if state.is_terminal():
            continue
        seat, full = state.current_player, state.observation(state.current_player)
        obs, mask, found = agent.widen(full[:observation.size(2)], per_piece_mask(state), state.view(seat))
        assert len(found) == 2 and np.array_equal(obs, full[:W.size(2, 2)])
        assert np.array_equal(mask, state.legal_action_mask()[:W.MOST_POINTS_PLAY])
        with torch.no_grad():
            before = old.actor(old.trunk(torch.as_tensor(obs)))
            after = grown.actor(grown.trunk(torch.as_tensor(full)))
        assert torch.allclose(after[:-1], before, atol=1e-5) and after[-1] == after[W.MAX_PLAY]
        seen += 1
    assert seen > 50
    import train
    from agents.train_config import from_dict

    config = from_dict({"game": "rummikub_cards", "whole_turns": True, "init_from": str(path),
                        "imitation_teacher": "", "baselines": ["hoard"], "eval_opponents": ["hoard"]})
    started = ActorCritic(W.size(2), W.NUM_ACTIONS)
    train.start_from(started, config, W.WholeTurnGame(make_rules("rummikub_cards"), 2))
    assert all(torch.equal(started.state_dict()[k], v) for k, v in grown.state_dict().items())
    wrong = ActorCritic(W.size(2, 2), A.NUM_ACTIONS + 1)
    save_checkpoint(path, {"config": {"game": "rummikub_cards", "num_players": 2, "whole_turns": True},
                           "model": wrong.state_dict(), "model_shape": wrong.shape, "global_step": 0})
    with pytest.raises(ValueError, match="holds a network for 296 observations and 109 actions"):
        load_agent(path, "rummikub_cards", 2)


def test_a_whole_turn_checkpoint_plays_the_per_piece_game(tmp_path):
    """Through the registry a whole-turn network is an ordinary opponent: legal moves only, whole plays laid
    piece by piece, and the same moves for the same seed."""
    from agents.checkpoint import save_checkpoint

    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    net = ActorCritic(W.size(2), W.NUM_ACTIONS)
    with torch.no_grad():
        net.actor.bias[W.MAX_PLAY] = 5.0  # a network that mostly lays its most pieces
    path = tmp_path / "whole.pt"
    save_checkpoint(path, {"config": {"game": "rummikub", "num_players": 2, "whole_turns": True},
                           "model": net.state_dict(), "model_shape": net.shape, "global_step": 0})
    assert isinstance(make_agent(str(path), "rummikub", 2, seed=3), WholeTurnPolicy)
    reports = [evaluate("rummikub", [str(path), "max_tiles"], 2, 4, seed=6, progress=False) for _ in range(2)]
    assert reports[0]["agents"] == reports[1]["agents"]
    env = gym.make("rummienv/Rummikub-v0", opponents=[str(path)])
    obs, _ = env.reset(seed=1)
    for _ in range(40):
        obs, _, done, _, _ = env.step(int(np.flatnonzero(obs["action_mask"])[-1]))
        if done:
            obs, _ = env.reset()



def test_a_chosen_whole_play_is_laid_in_one_transition_with_the_same_game():
    """``make_move`` takes the rest of a whole play the network chose from ``plan_turn``: the same histories
    as laying it piece by piece, with the agent asked once a turn where it was asked once a piece."""
    from agents.evaluate import play_game

    torch = pytest.importorskip("torch")
    rules = make_rules("rummikub")
    torch.manual_seed(0)
    net = ActorCritic(W.size(2), W.NUM_ACTIONS)
    with torch.no_grad():
        net.actor.bias[W.MAX_PLAY] = 5.0
    game = RummikubGame(rules, 2)
    asked = {True: 0, False: 0}
    for seed in range(3):
        histories = []
        for at_once in (True, False):
            agent = _Counted(WholeTurnPolicy(PolicyAgent(net, seed=seed), rules), at_once)
            histories.append(play_game(game, [agent, make_agent("hoard", rules, 2, seed=0)], seed).history)
            asked[at_once] += agent.acts
        assert histories[0] == histories[1]
    assert asked[True] < 0.75 * asked[False]


class _Counted:
    """An agent whose calls of ``act`` are counted, with its ``plan_turn`` or (``at_once`` False) without it,
    so that every driver lays its whole plays piece by piece."""

    reads_view = True

    def __init__(self, agent: WholeTurnPolicy, at_once: bool) -> None:
        self.agent, self.acts = agent, 0
        if at_once:
            self.plan_turn = agent.plan_turn

    def observe(self, view):
        self.agent.observe(view)

    def act(self, observation, action_mask):
        self.acts += 1
        return self.agent.act(observation, action_mask)
