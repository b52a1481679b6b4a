"""The actor-critic network and its masked policy, shared by training and play.

Illegal actions are removed from the distribution by replacing their logits with
a large negative number before the softmax, in acting and in the PPO update
alike, so the policy never spends probability (or entropy) on moves the rules
forbid, and the ratio in the update compares the same distributions that acted.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

# Finite, so that 0 * log(0) stays 0 in the entropy instead of becoming NaN.
ILLEGAL_LOGIT = -1e8


def layer_init(layer: nn.Linear, std: float = np.sqrt(2), bias_const: float = 0.0) -> nn.Linear:
    """Orthogonal initialisation, as in the PPO implementation details."""
    torch.nn.init.orthogonal_(layer.weight, std)
    torch.nn.init.constant_(layer.bias, bias_const)
    return layer


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return logits.masked_fill(~mask, ILLEGAL_LOGIT)


def gumbel_sample(logits: torch.Tensor, generator: torch.Generator | None = None) -> torch.Tensor:
    """One draw per row from softmax(logits) by the Gumbel-max trick: on CPU several times
    faster than ``torch.multinomial`` over hundreds of actions, and masked logits never win."""
    uniform = torch.rand(logits.shape, generator=generator).clamp_(min=1e-20)
    return (logits - torch.log(-torch.log(uniform))).argmax(dim=-1)


class ActorCritic(nn.Module):
    """An MLP trunk shared by a policy head (one logit per action) and a value head."""

    def __init__(self, obs_size: int, num_actions: int, hidden_size: int = 256, num_layers: int = 2) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        width = obs_size
        for _ in range(num_layers):
            layers += [layer_init(nn.Linear(width, hidden_size)), nn.ReLU()]
            width = hidden_size
        self.trunk = nn.Sequential(*layers)
        self.actor = layer_init(nn.Linear(hidden_size, num_actions), std=0.01)
        self.critic = layer_init(nn.Linear(hidden_size, 1), std=1.0)
        self.shape = {"obs_size": obs_size, "num_actions": num_actions,
                      "hidden_size": hidden_size, "num_layers": num_layers}

    def plain_layers(self) -> list[tuple[torch.Tensor, torch.Tensor]]:
        """The policy's layers (the trunk's, then the actor) as (weight, bias) tensors for ``policy_logits``.

        They share the parameters' storage, so in-place updates (an optimiser's step, ``load_state_dict``) show
        through them; a learner's network acts through them between its updates.
        """
        linears = [m for m in self.trunk if isinstance(m, nn.Linear)] + [self.actor]
        return [(m.weight.detach(), m.bias.detach()) for m in linears]

    def get_value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.critic(self.trunk(obs)).squeeze(-1)

    def get_action_and_value(
        self, obs: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None,
        generator: torch.Generator | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """Sample (from ``generator``) or score an action of the masked policy; also its entropy and the
        state value.

        Written out with log_softmax rather than torch.distributions.Categorical, whose
        logsumexp is several times slower on CPU at this size.
        """
        hidden = self.trunk(obs)
        logp = torch.log_softmax(masked_logits(self.actor(hidden), mask), dim=-1)
        if action is None:
            action = gumbel_sample(logp, generator)
        logprob = logp.gather(-1, action.unsqueeze(-1)).squeeze(-1)
        entropy = -(logp.exp() * logp).sum(-1)  # illegal entries: 0 * (about -1e8) = 0
        return action, logprob, entropy, self.critic(hidden).squeeze(-1)


def policy_logits(layers: list[tuple[torch.Tensor, torch.Tensor]], obs: torch.Tensor) -> torch.Tensor:
    """``actor(trunk(obs))``, bit for bit, from ``ActorCritic.plain_layers``.

    Agents act one row at a time in evaluation, play and the envs' opponents, where calling the modules costs
    more than their arithmetic: a row through the plain tensors took 82 us against 150 through the modules
    (median of five runs, one thread).
    """
    hidden = obs
    for weight, bias in layers[:-1]:
        hidden = F.linear(hidden, weight, bias).relu_()
    return F.linear(hidden, *layers[-1])


def network_for(shape: dict[str, int]) -> ActorCritic:
    """A network of ``shape`` (``ActorCritic.shape``) to load weights into, made without drawing from torch's
    global generator: the learner's minibatches draw from it, so a run must not depend on how many such
    networks its process happened to make (one per pool snapshot, made once and kept)."""
    with torch.random.fork_rng(devices=[]):
        return ActorCritic(**shape)


ONE_THREAD_ROWS = 64  # batches up to this many rows are played on one thread (``few_threads``)


@contextmanager
def few_threads(rows: int) -> Iterator[None]:
    """One torch thread for a batch of a few rows, the process's own setting restored after.

    Agents act on one row at a time in evaluation, play and the envs' opponents, where a second thread
    cannot speed a network this small up, and on a busy machine its waiting for a core made each call six
    times dearer (1 ms against 0.15 ms measured with both cores loaded); a learner's big batches keep
    the process's threads.
    """
    threads = torch.get_num_threads()
    if rows > ONE_THREAD_ROWS or threads == 1:
        yield
        return
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


class PolicyAgent:
    """A network as a table agent: observation and mask in, action out.

    It samples from its policy (the strategy PPO optimised; hidden information
    makes deterministic play exploitable), from its own seeded generator so that
    a match replays exactly; ``greedy=True`` plays the most likely action instead.
    """

    def __init__(self, net: ActorCritic, seed: int | None = 0, greedy: bool = False, name: str = "ppo") -> None:
        self.name = name  # the label evaluation tables show
        self.net = net.eval()
        self.layers = net.plain_layers()
        self.greedy = greedy
        self.generator = torch.Generator().manual_seed(int(seed or 0))

    def reseed(self, seed: int) -> None:
        """Restart the agent's sampling from ``seed``: an env reseeds its opponents at every reset and the
        evaluator each deal's agents, so that a seed fixes the episode or the deal whoever played before."""
        self.generator.manual_seed(int(seed))

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray, views: Any = None) -> np.ndarray:
        """One action per row; ``views`` is accepted for the agent protocol and unused (learned
        agents read the observation only)."""
        obs = torch.as_tensor(np.asarray(observations, dtype=np.float32))
        mask = torch.as_tensor(np.asarray(action_masks) != 0)
        with torch.inference_mode(), few_threads(len(obs)):
            logits = masked_logits(policy_logits(self.layers, obs), mask)
            if self.greedy:
                return logits.argmax(dim=-1).numpy()
            return gumbel_sample(logits, self.generator).numpy()

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(self.act_batch(observation[None], action_mask[None])[0])
