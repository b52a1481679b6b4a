"""Self-play: many games in one process, and the pool of opponents they are played against.

The learner sits at a random seat of each game; the other seats are played by one
opponent drawn per game from a pool of the learner's own past snapshots, the
baselines and the current network itself, or (a mixed table) by one drawn per seat,
as evaluation seats different players at one table. Drawing favours the opponents the
learner beats least (prioritised fictitious self-play, as in AlphaStar), so time
goes where there is still something to learn.

Games are stepped together: whenever every game waits on the learner, one
batched forward pass chooses all its moves; opponents' moves are batched the same
way per opponent. A rollout (``SelfPlay.rollout``) writes each of the learner's
decisions into arrays laid out [step, game], which training reads; its samples come
from a generator seeded by the update, so a rollout is the same wherever it runs.
A run's games are split into chunks, a ``SelfPlay`` each, played in the learner's
process or by whichever worker is free (``agents.rollout_workers``), which is why a
chunk's games travel between processes as they are (``export``, ``adopt``). Between
rollouts the whole pool, every game in flight (as its replay record) and the random
generator are plain data, so a checkpoint holds them and a resumed run continues
exactly where it stopped.
"""

from __future__ import annotations

import io
import pickle
from typing import Any

import numpy as np
import torch

from agents.base import play_whole, reads_view
from agents.ppo import ActorCritic, PolicyAgent, network_for
from rummienv.core import Game, State
from rummienv.outcome import results, rewards

LATEST = "latest"
SEATS = "+"  # joins the opponents of a mixed table, seat by seat, into the name a game records
# How fast an opponent's win statistics forget: about the last 50 games count.
STATS_DECAY = 0.98
# No opponent's weight falls below this share, so none is starved of games.
MIN_WEIGHT = 0.02


def game_shape(game: Game) -> tuple[int, int]:
    """(observation size, number of actions) of a game at its table size."""
    return game.observation_size, game.num_actions


def derive_seed(*parts: int) -> int:
    """An independent 63-bit seed for each (run seed, purpose, index) tuple."""
    return int(np.random.SeedSequence([int(p) for p in parts]).generate_state(2, np.uint64)[0] >> np.uint64(1))


def rollout_buffers(num_steps: int, num_envs: int, obs_size: int, num_actions: int) -> dict[str, tuple]:
    """Shape and dtype of each array a rollout fills: per step and game, then the games' next decision."""
    per_step = (num_steps, num_envs)
    return {"obs": ((*per_step, obs_size), np.float32), "masks": ((*per_step, num_actions), np.bool_),
            "actions": (per_step, np.int64), "logprobs": (per_step, np.float32),
            "values": (per_step, np.float32), "rewards": (per_step, np.float32), "dones": (per_step, np.float32),
            "next_obs": ((num_envs, obs_size), np.float32), "next_mask": ((num_envs, num_actions), np.bool_),
            "next_done": ((num_envs,), np.float32)}


def rollout_generator(seed: int, update: int, part: int) -> torch.Generator:
    """The learner's sampler for one rollout of one chunk of the games: fixed by the seed, the update and the
    chunk, so that it does not matter which process plays it or when."""
    return torch.Generator().manual_seed(derive_seed(seed, 12, update, part))


def act_batch(agent: Any, states: list[State]) -> np.ndarray:
    """One move per state for its seat to move, handing heuristics that seat's view only."""
    obs = np.stack([s.observation(s.current_player) for s in states])
    masks = np.stack([s.legal_action_mask() for s in states])
    views = [s.view(s.current_player) for s in states] if reads_view(agent) else None
    return agent.act_batch(obs, masks, views=views)


class OpponentPool:
    """Baselines, past snapshots and the current network, drawn by how hard they are.

    Each entry keeps decayed counts of the learner's results against it, by the
    measure the reward trains for (``rummienv.outcome.results``: its share of the
    win, or its share by score); its weight is ``(1 - win rate) ** power``. The
    current network itself takes a fixed share of games, since its strength moves
    with every update.
    """

    def __init__(self, baselines: list[str], latest_prob: float, pool_size: int, power: float,
                 mixed: bool = False) -> None:
        self.latest_prob = latest_prob
        self.pool_size = pool_size
        self.power = power
        self.mixed = mixed
        self.stats: dict[str, list[float]] = {name: [0.0, 0.0] for name in baselines}  # name -> [wins, games]
        self.snapshots: dict[str, dict[str, torch.Tensor]] = {}

    def win_rate(self, name: str) -> float:
        wins, games = self.stats[name]
        return (wins + 0.5) / (games + 1.0)  # half a win of prior: an unseen opponent counts as even

    def weights(self) -> dict[str, float]:
        raw = {name: max((1.0 - self.win_rate(name)) ** self.power, MIN_WEIGHT) for name in self.stats}
        total = sum(raw.values())
        return {name: w / total for name, w in raw.items()}

    def sample(self, rng: np.random.Generator) -> str:
        if not self.stats or rng.random() < self.latest_prob:
            return LATEST
        weights = self.weights()
        names = list(weights)
        return names[rng.choice(len(names), p=np.array([weights[n] for n in names]))]

    def table(self, rng: np.random.Generator, others: int) -> str:
        """Who plays the ``others`` seats of a new game: one opponent for all, or (``mixed``) one drawn for each
        seat in turn after the learner's, joined by ``SEATS``."""
        return SEATS.join(self.sample(rng) for _ in range(others)) if self.mixed else self.sample(rng)

    def record(self, table: str, result: float) -> None:
        """The learner's result against each opponent at the table (``table``'s names), once each."""
        for name in dict.fromkeys(table.split(SEATS)):
            if name in self.stats:
                wins, games = self.stats[name]
                self.stats[name] = [wins * STATS_DECAY + result, games * STATS_DECAY + 1.0]

    def add_snapshot(self, name: str, net: ActorCritic) -> None:
        """Freeze a copy of ``net``; past ``pool_size`` snapshots the oldest leaves."""
        self.snapshots[name] = {k: v.detach().clone() for k, v in net.state_dict().items()}
        self.stats[name] = [0.0, 0.0]
        while len(self.snapshots) > self.pool_size:
            oldest = next(iter(self.snapshots))
            del self.snapshots[oldest]
            del self.stats[oldest]

    def state_dict(self) -> dict[str, Any]:
        return {"stats": {k: list(v) for k, v in self.stats.items()}, "snapshots": dict(self.snapshots)}

    def copy(self) -> OpponentPool:
        """The same record and snapshots, recorded into apart: a chunk of games draws by the pool as its
        rollout began, whoever plays the other chunks meanwhile (the snapshots are shared, never changed)."""
        pool = OpponentPool([], self.latest_prob, self.pool_size, self.power, self.mixed)
        pool.stats = {name: list(record) for name, record in self.stats.items()}
        pool.snapshots = dict(self.snapshots)
        return pool

    def load_state_dict(self, data: dict[str, Any]) -> None:
        self.stats = {k: [float(x) for x in v] for k, v in data["stats"].items()}
        self.snapshots = dict(data["snapshots"])


class SelfPlay:
    """``num_envs`` games that always stop where the learner is to move.

    ``reset`` and ``step`` return, per game, the learner's observation and mask;
    ``step`` also returns the learner's reward and whether its last move ended
    a game (the finished game is replaced by a new deal at once), which is the
    vector-env convention CleanRL's PPO loop expects.
    """

    def __init__(self, game: Game, num_envs: int, pool: OpponentPool, learner: ActorCritic, reward: str, seed: int,
                 buffers: dict[str, np.ndarray] | None = None, part: int = 0,
                 nets: dict[str, ActorCritic] | None = None) -> None:
        self.game, self.num_envs = game, num_envs
        self.pool, self.learner, self.reward_mode, self.seed = pool, learner, reward, seed
        self.num_players = game.num_players
        self.rng = np.random.default_rng(derive_seed(seed, 1))
        self.episodes = 0
        self.env_steps = 0
        self.states: list[State] = [None] * num_envs  # type: ignore[list-item]
        self.seats = np.zeros(num_envs, dtype=np.int64)
        self.opponent = [LATEST] * num_envs
        self.agents: dict[str, Any] = {}
        self.finished: list[tuple[str, float]] = []  # (opponent, learner's result) of games ended by step()
        self.done = np.zeros(num_envs, dtype=bool)  # whether each game's next decision is a new game's first
        self.buffers = buffers  # the rollout's arrays (rollout_buffers), these games' columns
        self.part = part  # which share of a run's games these are (rollout_generator)
        self.nets = {} if nets is None else nets  # the pool's snapshots as networks, shared by a process's chunks

    # --------------------------------------------------------------- rollouts
    def begin_rollout(self, update: int) -> None:
        """Fresh opponent agents for this rollout, seeded by the update so a resume replays them.

        A game whose snapshot opponent has left the pool is finished by the current network.
        """
        self.opponent = [SEATS.join(name if name in self.pool.stats else LATEST for name in table.split(SEATS))
                         for table in self.opponent]
        for gone in [name for name in self.nets if name not in self.pool.snapshots]:
            del self.nets[gone]
        self.agents = {}
        for k, name in enumerate(self.pool.stats):
            seed = derive_seed(self.seed, 2, update, k)
            if name in self.pool.snapshots:
                if name not in self.nets:  # a snapshot's weights never change: built once per process
                    self.nets[name] = network_for(self.learner.shape)
                    self.nets[name].load_state_dict(self.pool.snapshots[name])
                self.agents[name] = PolicyAgent(self.nets[name], seed=seed)
            else:
                from agents.registry import make_agent

                self.agents[name] = make_agent(name, self.game, self.num_players, seed)
        self.agents[LATEST] = PolicyAgent(self.learner, seed=derive_seed(self.seed, 3, update))

    def reset(self) -> tuple[np.ndarray, np.ndarray]:
        """New deals, played on to the learner's first decision; ``finished`` holds any game that ended on the
        way."""
        self.finished = []
        self.begin_rollout(0)
        for i in range(self.num_envs):
            self._new_game(i)
        self._advance(range(self.num_envs))
        self.done[:] = False
        return self.observe()

    def rollout(self, update: int) -> list[tuple[str, float]]:
        """The learner's decisions of one rollout, as CleanRL's PPO collects them, into ``buffers``: each step
        the network chooses in every game at once, and each game plays on to the learner's next turn, against
        the opponents drawn for this update (``begin_rollout``). Returns the (opponent, learner's result) of
        the games that ended."""
        self.begin_rollout(update)
        buf, finished = self.buffers, []
        generator = rollout_generator(self.seed, update, self.part)
        obs, mask = self.observe()
        for step in range(len(buf["rewards"])):
            buf["obs"][step], buf["masks"][step], buf["dones"][step] = obs, mask, self.done
            with torch.no_grad():
                action, logprob, _, value = self.learner.get_action_and_value(
                    torch.from_numpy(obs), torch.from_numpy(mask), generator=generator)
            buf["actions"][step], buf["logprobs"][step], buf["values"][step] = action, logprob, value
            obs, mask, buf["rewards"][step], _ = self.step(action.numpy())
            finished += self.finished
        buf["next_obs"][:], buf["next_mask"][:], buf["next_done"][:] = obs, mask, self.done
        return finished

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        self.finished = []
        rewards = np.zeros(self.num_envs, dtype=np.float32)
        dones = np.zeros(self.num_envs, dtype=bool)
        for i, action in enumerate(actions):
            self.states[i].apply_action(int(action))
        self.env_steps += self.num_envs
        for i, reward in self._advance(range(self.num_envs)):
            rewards[i], dones[i] = reward, True
        self.done = dones
        obs, masks = self.observe()
        return obs, masks, rewards, dones

    def observe(self) -> tuple[np.ndarray, np.ndarray]:
        obs = np.stack([s.observation(int(seat)) for s, seat in zip(self.states, self.seats, strict=True)])
        masks = np.stack([s.legal_action_mask() for s in self.states]).astype(bool)
        return obs, masks

    # ------------------------------------------------------------- internals
    def _new_game(self, i: int) -> None:
        self.states[i] = self.game.new_initial_state(derive_seed(self.seed, 4, self.episodes))
        self.episodes += 1
        self.seats[i] = self.rng.integers(self.num_players)
        self.opponent[i] = self.pool.table(self.rng, self.num_players - 1)

    def _advance(self, envs: range | list[int]) -> list[tuple[int, float]]:
        """Play opponents' moves until each game waits on the learner; return (env, reward) of ended games."""
        ended = []
        waiting = list(envs)
        while waiting:
            turns: dict[str, list[int]] = {}
            for i in waiting:
                state = self.states[i]
                if state.is_terminal():
                    reward = float(rewards(self.game, state, self.reward_mode)[self.seats[i]])
                    result = float(results(self.game, state, self.reward_mode)[self.seats[i]])
                    ended.append((i, reward))
                    self.finished.append((self.opponent[i], result))
                    self.pool.record(self.opponent[i], result)
                    self._new_game(i)
                player = self.states[i].current_player
                if player != self.seats[i]:
                    turns.setdefault(self._seated(i, player), []).append(i)
            for name, group in turns.items():
                self._play(self.agents[name], group)
            waiting = [i for group in turns.values() for i in group]
        return ended

    def _seated(self, i: int, player: int) -> str:
        """The opponent at seat ``player`` of game ``i``: a mixed table names its seats in turn after the
        learner's."""
        names = self.opponent[i].split(SEATS)
        return names[(player - self.seats[i] - 1) % len(names)]

    def _play(self, agent: Any, group: list[int]) -> None:
        """One move in each game of ``group``: a whole play where the agent has one, else one batched action."""
        stepwise = []
        for i in group:
            made = play_whole(agent, self.states[i])
            self.env_steps += made
            if not made:
                stepwise.append(self.states[i])
        self.env_steps += len(stepwise)
        if stepwise:
            for state, action in zip(stepwise, act_batch(agent, stepwise), strict=True):
                state.apply_action(int(action))

    # ----------------------------------------------------------- checkpoints
    def state_dict(self) -> dict[str, Any]:
        """Games in flight as replay records (seed and moves), plus the seat and opponent draws."""
        return {"games": [{"seed": int(s.seed), "history": [int(a) for a in s.history]} for s in self.states],
                **self._draws()}

    def load_state_dict(self, data: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
        """Replay every game in flight; return the learner's observations and masks."""
        for i, record in enumerate(data["games"]):
            state = self.game.new_initial_state(record["seed"])
            for action in record["history"]:
                state.apply_action(action)
            self.states[i] = state
        self._take_draws(data)
        return self.observe()

    def export(self) -> bytes:
        """The games in flight as they are, for another process to play on: a replay record would cost every
        move again. The game object stays out (each process has its own, ``adopt``)."""
        out = io.BytesIO()
        _GameLeftOut(out, self.game).dump({"states": self.states, **self._draws()})
        return out.getvalue()

    def adopt(self, exported: bytes) -> None:
        """Play on from games ``export`` wrote, in this process's game object."""
        data = _GameLeftOut.load(exported, self.game)
        self.states = data["states"]
        self._take_draws(data)

    def _draws(self) -> dict[str, Any]:
        """What besides the games a resumed or moved chunk needs: seats, opponents, counters, generator."""
        return {"seats": self.seats.tolist(), "opponent": list(self.opponent), "episodes": self.episodes,
                "env_steps": self.env_steps, "rng": self.rng.bit_generator.state, "done": self.done.tolist()}

    def _take_draws(self, data: dict[str, Any]) -> None:
        self.seats = np.array(data["seats"], dtype=np.int64)
        self.opponent = list(data["opponent"])
        self.episodes, self.env_steps = int(data["episodes"]), int(data["env_steps"])
        self.rng.bit_generator.state = data["rng"]
        self.done = np.array(data["done"], dtype=bool)


class _GameLeftOut(pickle.Pickler):
    """Pickles states with their game object named rather than copied, so that they rejoin the receiver's."""

    def __init__(self, file: io.BytesIO, game: Game) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.game = game

    def persistent_id(self, obj: Any) -> str | None:
        return "game" if obj is self.game else None

    @staticmethod
    def load(data: bytes, game: Game) -> Any:
        unpickler = pickle.Unpickler(io.BytesIO(data))
        unpickler.persistent_load = lambda name: game  # type: ignore[method-assign]
        return unpickler.load()
