"""Warm start: clone a baseline's play before self-play begins.

A network that plays at random almost never opens in Rummikub (it must lay 30
points in valid sets from its rack in one turn), so it almost never sees a
reward that depends on what it did. Cloning the ``max_tiles`` baseline first
puts the policy where rewards are informative. The value head is fitted to the
teacher's game outcomes at the same time, so PPO's first advantages are not noise.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.base import decide
from agents.ppo import ActorCritic, masked_logits
from agents.selfplay import act_batch, derive_seed
from rummienv.core import Game
from rummienv.outcome import rewards

# Games recorded side by side (fewer for a small recording: every game under way is finished).
PARALLEL_GAMES = 32


def record_teacher(game: Game, teacher: str, num_steps: int, reward: str, seed: int,
                   on_decisions: Callable[[int], None] | None = None) -> dict[str, np.ndarray]:
    """``num_steps`` decisions of the teacher playing every seat, with each seat's final reward.

    Only whole games are kept, so every decision has its outcome; recording stops
    once enough decisions are in and the games under way have finished. ``on_decisions``
    hears how many decisions each round of moves made (a progress bar, a place to stop).
    """
    from agents.registry import make_agent

    agent = make_agent(teacher, game, game.num_players, derive_seed(seed, 5))
    records: list[tuple[np.ndarray, np.ndarray, int, float]] = []
    parallel = min(PARALLEL_GAMES, max(1, num_steps // 200))
    games = [game.new_initial_state(derive_seed(seed, 6, k)) for k in range(parallel)]
    trails: list[list[tuple[np.ndarray, np.ndarray, int, int]]] = [[] for _ in games]
    started = parallel
    while any(g is not None for g in games):
        live = [k for k, g in enumerate(games) if g is not None]
        states = [games[k] for k in live]
        seats = [s.current_player for s in states]
        batch_obs = np.stack([s.observation(p) for s, p in zip(states, seats, strict=True)])
        batch_masks = np.stack([s.legal_action_mask() for s in states])
        chosen = act_batch(agent, states) if not game.whole_turns else [whole_turn(agent, s) for s in states]
        for k, p, o, m, a in zip(live, seats, batch_obs, batch_masks, chosen, strict=True):
            trails[k].append((o, m, int(a), p))
            games[k].apply_action(int(a))
            if not games[k].is_terminal():
                continue
            final = rewards(game, games[k], reward)
            records += [(o_, m_, a_, float(final[p_])) for o_, m_, a_, p_ in trails[k]]
            trails[k] = []
            games[k] = None
            if len(records) + sum(map(len, trails)) < num_steps:
                games[k] = game.new_initial_state(derive_seed(seed, 6, started))
                started += 1
        if on_decisions is not None:
            on_decisions(len(live))
    obs, masks, actions, returns = zip(*records, strict=True)
    return {"obs": np.stack(obs), "masks": np.stack(masks).astype(bool),
            "actions": np.array(actions, dtype=np.int64), "returns": np.array(returns, dtype=np.float32)}


def whole_turn(agent: Any, state: Any) -> int:
    """The teacher's move in the whole-turn mode: its turn as one whole-turn action where one lays the same
    play, so the clone learns the turn as the decision it is; else its move piece by piece."""
    play = agent.plan_turn(state.view(state.current_player)) if hasattr(agent, "plan_turn") else None
    action = None if play is None else state.action_for(play)
    return decide(agent, state) if action is None else action


def accuracy(net: ActorCritic, data: dict[str, np.ndarray]) -> float:
    """The share of decisions where the network's most likely action is the teacher's."""
    if len(data["actions"]) == 0:
        return float("nan")
    with torch.no_grad():
        logits = masked_logits(net.actor(net.trunk(torch.as_tensor(data["obs"]))), torch.as_tensor(data["masks"]))
        return agreement(logits, torch.as_tensor(data["actions"]))


def agreement(logits: torch.Tensor, actions: torch.Tensor) -> float:
    """The share of rows whose most likely action is ``actions``' (``accuracy`` from logits already made)."""
    return float((logits.argmax(-1) == actions).float().mean())


def behaviour_clone(net: ActorCritic, data: dict[str, np.ndarray], epochs: int, learning_rate: float,
                    minibatch_size: int, vf_coef: float, generator: torch.Generator,
                    on_batch: Callable[[int], None] | None = None) -> dict[str, float]:
    """Fit the masked policy to the teacher's choices (cross-entropy) and the value to outcomes; ``on_batch``
    follows each minibatch."""
    obs, masks = torch.as_tensor(data["obs"]), torch.as_tensor(data["masks"])
    actions, returns = torch.as_tensor(data["actions"]), torch.as_tensor(data["returns"])
    optimizer = torch.optim.Adam(net.parameters(), lr=learning_rate)
    n = len(actions)
    for _ in range(epochs):
        for idx in torch.randperm(n, generator=generator).split(minibatch_size):
            hidden = net.trunk(obs[idx])
            logits = masked_logits(net.actor(hidden), masks[idx])
            policy_loss = nn.functional.cross_entropy(logits, actions[idx])
            value_loss = 0.5 * ((net.critic(hidden).squeeze(-1) - returns[idx]) ** 2).mean()
            optimizer.zero_grad()
            (policy_loss + vf_coef * value_loss).backward()
            optimizer.step()
            if on_batch is not None:
                on_batch(1)
    with torch.no_grad():
        hidden = net.trunk(obs)
        logits = masked_logits(net.actor(hidden), masks)
        return {
            "imitation/policy_loss": float(nn.functional.cross_entropy(logits, actions)),
            "imitation/accuracy": agreement(logits, actions),
            "imitation/value_loss": float(0.5 * ((net.critic(hidden).squeeze(-1) - returns) ** 2).mean()),
            "imitation/decisions": float(n),
        }
