"""A network trained in the whole-turn action mode, playing where only per-piece actions exist.

Evaluation, the play command and the envs' opponents drive the per-piece game; a
network trained with ``whole_turns`` expects the wider observation and mask
(``rummienv.rummikub.whole_turns``). This agent works them out from the seat's
view, exactly as the whole-turn state does. When the network picks a whole play,
the rest of the turn is decided: a driver whose state lays a play down in one
transition gets it from ``plan_turn`` (``agents.base.make_move``) and pays no
per-piece mask for it; other drivers get it piece by piece, then COMMIT, and the
network is asked nothing more that turn.

A network of the two-play mode (trained before MOST_POINTS_PLAY) is asked as it was
trained: with the first two plays only, whose parts of the observation and mask are
where they were, so it plays as it did and pays no points solve.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from agents.base import BaseAgent, View
from agents.ppo import PolicyAgent
from agents.rummikub_bots import PLANS_KEPT, Position, next_piece, position_of, turn_key
from rummienv.rules import Rules, RummikubRules
from rummienv.rummikub import actions as A
from rummienv.rummikub import whole_turns
from rummienv.rummikub.whole_turns import Plays


class WholeTurnPolicy(BaseAgent):
    """``policy`` (a whole-turn network) as a per-piece agent: it reads the view to build what the network saw."""

    reads_view = True

    def __init__(self, policy: PolicyAgent, rules: RummikubRules) -> None:
        super().__init__()
        self.policy, self.rules, self.name = policy, rules, policy.name
        self.count = plays_of(policy.net.shape["num_actions"])  # the whole plays the network knows
        self.plans: dict[bytes, np.ndarray] = {}  # turn -> the whole play being laid down

    def reseed(self, seed: int) -> None:
        self.policy.reseed(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(self.act_batch(observation[None], action_mask[None], [self._require_view()])[0])

    def plan_turn(self, view: View) -> np.ndarray | None:
        """The whole play the network chose earlier this turn, to be laid at once; None when it chose none.

        Only the network decides, and it needs the per-piece mask the driver computes for ``act``: so a turn
        starts with ``act``, and once the network has picked a whole play (``act`` returned its first piece),
        the driver's next move takes the rest from here, which ends the turn as laying it piece by piece would.
        """
        pos = position_of(view, self.rules)
        turn = turn_key(pos, view)
        plan = self.plans.get(turn)
        if plan is None or (pos.staged > plan).any():
            return None
        del self.plans[turn]
        return plan

    def widen(self, observation: np.ndarray, mask: np.ndarray, view: View) -> tuple[np.ndarray, np.ndarray, Plays]:
        """What the whole-turn state would show this seat (observation, mask), and the plays behind them."""
        return self._widen(observation, mask, position_of(view, self.rules))

    def _widen(self, observation: np.ndarray, mask: np.ndarray, pos: Position) -> tuple[np.ndarray, np.ndarray, Plays]:
        found = whole_turns.whole_plays(pos.table, pos.rack, pos.staged, pos.solver_args, self.rules.joker_penalty,
                                        mask, self.count)
        wide_obs = np.concatenate([observation, whole_turns.features(found, pos.rack, self.rules.joker_penalty)])
        return wide_obs, whole_turns.widen(mask, found), found

    def act_batch(self, observations: np.ndarray, masks: np.ndarray,
                  views: Sequence[View] | None = None) -> np.ndarray:
        """Rows laying down a chosen whole play take its next piece; the others ask the network, in one batch."""
        if views is None:
            raise ValueError("WholeTurnPolicy reads the acting seat's view: pass views= to act_batch")
        actions = np.empty(len(masks), dtype=np.int64)
        asked: list[tuple[int, bytes, np.ndarray, Plays]] = []
        wide_obs, wide_masks = [], []
        for i, view in enumerate(views):
            pos = position_of(view, self.rules)
            staged, turn = pos.staged, turn_key(pos, view)
            plan = self.plans.get(turn)
            if plan is not None and not (staged > plan).any():
                actions[i] = self._lay(turn, plan, staged, masks[i])
                continue
            self.plans.pop(turn, None)
            obs, mask, found = self._widen(observations[i], masks[i], pos)
            asked.append((i, turn, staged, found))
            wide_obs.append(obs)
            wide_masks.append(mask)
        if asked:
            chosen = self.policy.act_batch(np.stack(wide_obs), np.stack(wide_masks))
            for (i, turn, staged, found), action in zip(asked, chosen, strict=True):
                if action < A.NUM_ACTIONS:
                    actions[i] = action
                    continue
                self.plans[turn] = found[action - A.NUM_ACTIONS]
                if len(self.plans) > PLANS_KEPT:  # turns abandoned half-way are forgotten, oldest first
                    del self.plans[next(iter(self.plans))]
                actions[i] = self._lay(turn, self.plans[turn], staged, masks[i])
        return actions

    def _lay(self, turn: bytes, plan: np.ndarray, staged: np.ndarray, mask: np.ndarray) -> int:
        """The next piece of ``plan`` to stage, or COMMIT (ending the plan) once all of it is staged."""
        action = next_piece(plan, staged, mask)
        if action is not None:
            return action
        del self.plans[turn]
        return A.COMMIT


def plays_of(num_actions: int) -> int:
    """How many whole plays a whole-turn network of ``num_actions`` outputs chooses among: all of them, or the
    first two of the mode before the points play."""
    count = num_actions - A.NUM_ACTIONS
    if count not in (whole_turns.TWO_PLAYS, len(whole_turns.PLAYS)):
        raise ValueError(f"a whole-turn network has {A.NUM_ACTIONS + whole_turns.TWO_PLAYS} or "
                         f"{whole_turns.NUM_ACTIONS} actions, not {num_actions}")
    return count


def with_all_plays(weights: dict[str, Any], num_players: int) -> dict[str, Any]:
    """A two-play network's weights in the shape of this mode's, so that training can start from it
    (``init_from``).

    The points play's observation parts come last and get no weight, so the network reads what it read; its
    action starts as a copy of MAX_PLAY's, which it equals where the two plays are the same, and training
    learns where they are not.
    """
    grown = dict(weights)
    first = grown["trunk.0.weight"]
    extra = whole_turns.size(num_players) - first.shape[1]
    grown["trunk.0.weight"] = torch.cat([first, first.new_zeros(first.shape[0], extra)], dim=1)
    row = whole_turns.MAX_PLAY
    grown["actor.weight"] = torch.cat([grown["actor.weight"], grown["actor.weight"][row:row + 1]])
    grown["actor.bias"] = torch.cat([grown["actor.bias"], grown["actor.bias"][row:row + 1]])
    return grown


def per_piece_agent(policy: PolicyAgent, rules: Rules, whole_turns: bool) -> PolicyAgent | WholeTurnPolicy:
    """A network as an agent of the per-piece games every driver plays: wrapped if it was trained for whole turns."""
    if not whole_turns:
        return policy
    if not isinstance(rules, RummikubRules):
        raise ValueError(f"a whole-turn network plays Rummikub only, not {rules.game!r}")
    return WholeTurnPolicy(policy, rules)
