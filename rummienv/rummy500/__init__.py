"""Rummy 500 (docs/RULES.md section F): the game, its states and positions."""

from rummienv.rummy500.actions import NUM_ACTIONS, action_to_string, string_to_action
from rummienv.rummy500.position import load_state
from rummienv.rummy500.state import Rummy500Game, Rummy500State

__all__ = [
    "NUM_ACTIONS",
    "Rummy500Game",
    "Rummy500State",
    "action_to_string",
    "load_state",
    "string_to_action",
]
