"""Rummikub with tiles and the card edition: rules engine, exact solver, positions."""

from rummienv.rummikub.position import load_state
from rummienv.rummikub.state import RummikubGame, RummikubState

__all__ = ["RummikubGame", "RummikubState", "load_state"]
