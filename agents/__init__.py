"""Players for the rummienv games: baselines, evaluation, and the one interface they share."""

from agents.base import Agent, BaseAgent, decide
from agents.registry import baseline_names, make_agent

__all__ = ["Agent", "BaseAgent", "baseline_names", "decide", "make_agent"]
