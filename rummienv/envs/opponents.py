"""The other seats of the single-agent env: resolving the ``opponents`` argument, and their moves.

"random" is played by the env itself, from its own ``np_random``, so that a seed
fixes the whole episode. Every other name (a baseline or a checkpoint path) is
the business of a package of agents, which registers a factory here
(``register_agent_factory``, or the ``rummienv.agents`` entry point that the
project's ``agents`` package declares): the environment layer imports no agents,
and works, and is tested, without them.

How an agent makes a move on a state (``make_move``) is defined here, for the
env's opponents, and the agents package's evaluator and self-play use the same
functions, so an agent plays the same moves under every driver.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from importlib import metadata
from typing import Any, Protocol, runtime_checkable

import numpy as np

from rummienv.core import State

RANDOM = "random"
ALLOWED = ("'random', a baseline's name or a checkpoint path (made by the registered agent factory), "
           "or an object with act(observation, action_mask)")
ENTRY_POINTS = "rummienv.agents"  # where an installed package of agents names its factory


@runtime_checkable
class Agent(Protocol):
    """What plays a seat: the seat's flat observation and int8 mask in, an action index out.

    An agent that sets ``reads_view`` (the heuristics) also gets ``observe(view)``
    with the seat's structured view before each ``act`` (``decide``). One with
    ``plan_turn(view)`` is asked first for a whole play, which a state with
    ``apply_play`` lays down in one transition (``play_whole``). One with
    ``reseed(seed)`` is reseeded from the env's generator at every reset, so the
    env's seed fixes its choices too. One with ``take_report()`` hands over what it
    kept of a game when the game ends (``take_reports``).
    """

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int: ...


def action_index(action: Any) -> Any:
    """Unwrap a one-element integer array (what vectorised trainers pass); the state checks the rest."""
    if isinstance(action, np.ndarray) and action.size == 1 and action.dtype.kind in "iu":
        return action.item()
    return action


def reads_view(agent: Agent) -> bool:
    return bool(getattr(agent, "reads_view", False))


def decide(agent: Agent, state: State, view: dict[str, Any] | None = None) -> int:
    """The action ``agent`` picks for the seat to move, from what that seat may know only (``view``: that
    seat's view, where the caller has made it already)."""
    player = state.current_player
    if reads_view(agent):
        agent.observe(state.view(player) if view is None else view)
    return action_index(agent.act(state.observation(player), state.legal_action_mask().copy()))


def play_whole(agent: Agent, state: State, view: dict[str, Any] | None = None) -> int:
    """Lay down ``agent``'s whole play in one transition if both sides offer that; the actions it stands for.

    A planning agent knows its whole play at the start of the turn, and laying it
    down piece by piece would cost a full mask per piece. 0 when nothing was
    played: the agent has no ``plan_turn``, the state no ``apply_play``, or the
    agent's next move is not a play (it draws, passes or swaps first).
    """
    if not (hasattr(agent, "plan_turn") and hasattr(state, "apply_play")):
        return 0
    play = agent.plan_turn(state.view(state.current_player) if view is None else view)
    if play is None:
        return 0
    before = len(state.history)
    state.apply_play(play)
    return len(state.history) - before


def make_move(agent: Agent, state: State) -> int:
    """Let ``agent`` move for the seat to move: a whole play where it can (``play_whole``), else one action.

    The number of actions made, so drivers count moves the same either way. The seat's view is made once
    for both questions: a network that reads it (``agents.whole_turn_policy``) is asked both every turn.
    """
    view = state.view(state.current_player) if reads_view(agent) else None
    made = play_whole(agent, state, view)
    if made:
        return made
    state.apply_action(decide(agent, state, view))
    return 1


def take_reports(agents: list[Any]) -> list[dict[str, Any] | None]:
    """What each agent kept of the game just played (``take_report``: a chat model's counts and its log of
    prompts and answers), None for an agent that keeps nothing; asked once a game, by whoever wrote its replay."""
    return [agent.take_report() if callable(getattr(agent, "take_report", None)) else None for agent in agents]


def report_logs(reports: list[dict[str, Any] | None]) -> list[Any] | None:
    """The logs in ``take_reports``' reports, one per seat, as a replay keeps them (``agent_logs``); None when no
    agent kept anything, so that other replays stay as they were."""
    return [None if r is None else r.get("log") for r in reports] if any(reports) else None


AgentFactory = Callable[..., Any]  # (spec, game, num_players, seed) -> an agent
_factory: AgentFactory | None = None


def register_agent_factory(factory: AgentFactory) -> None:
    """Make agents named by a string (a baseline's name, a checkpoint path) with ``factory(spec, game,
    num_players, seed)``; its ValueError for an unknown name is passed on. The last one registered wins."""
    global _factory
    _factory = factory


def _installed_factory() -> AgentFactory | None:
    """The registered factory, else the one an installed package declares under the ``rummienv.agents``
    entry point (loaded once)."""
    if _factory is None:
        for entry in metadata.entry_points(group=ENTRY_POINTS):
            register_agent_factory(entry.load())
    return _factory


def make_agent(spec: Any, game: Any, num_players: int, seed: int | None = None) -> Agent:
    """The agent named ``spec`` for a game (its name, rules or Game) at ``num_players`` seats."""
    factory = _installed_factory()
    if factory is None:
        raise ValueError(
            f"agent {spec!r} needs a factory of named agents, and none is registered (install the project's agents "
            f"package, or call rummienv.envs.opponents.register_agent_factory); without one the allowed opponents "
            f"are 'random' or an object with act(observation, action_mask)"
        )
    return factory(spec, game, num_players, seed)  # its ValueError names the baselines of the game


def _resolve(spec: Any, where: str, game: str, num_players: int) -> Agent | None:
    """An opponent, or None for the env's own uniformly random legal play."""
    if isinstance(spec, str) and spec == RANDOM:
        return None
    if isinstance(spec, (str, os.PathLike)):
        return make_agent(os.fspath(spec), game, num_players)
    if isinstance(spec, Agent):
        return spec
    raise ValueError(f"{where} must be {ALLOWED}; got {spec!r}")


def opponent_specs(opponents: Any, num_players: int) -> list[Any]:
    """One spec per other seat, in turn order from the learner's left.

    ``None`` means all random; a single spec stands for every other seat.
    """
    others = num_players - 1
    if opponents is None:
        opponents = [RANDOM] * others
    elif not isinstance(opponents, (list, tuple)):
        opponents = [opponents] * others
    if len(opponents) != others:
        raise ValueError(
            f"opponents must list one entry per other seat ({others} for num_players={num_players}), "
            f"got {len(opponents)}: {list(opponents)!r}"
        )
    return list(opponents)


def resolve_opponents(opponents: Any, game: str, num_players: int) -> list[Agent | None]:
    """The agent of each other seat (``opponent_specs``); None for a random seat."""
    return [_resolve(spec, f"opponents[{i}]", game, num_players)
            for i, spec in enumerate(opponent_specs(opponents, num_players))]


def opponent_names(opponents: Any, num_players: int) -> list[str]:
    """How each opponent was named: its spec (a baseline's name, a checkpoint's path, "random"), or an agent
    object's ``name`` or class."""
    return [spec if isinstance(spec, str) else str(getattr(spec, "name", type(spec).__name__))
            for spec in opponent_specs(opponents, num_players)]
