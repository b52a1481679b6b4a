"""What one seat may know of a Rummikub position, as a flat vector and as a dict.

The vector is from the seat's point of view: "me" first, then the others in turn
order. Other racks and the pool's order never enter it; only their sizes do.
Counts are scaled to about [0, 1] so a network needs no input normalisation.

| slice           | size | meaning                                                   |
|-----------------|------|-----------------------------------------------------------|
| rack            | 53   | my pieces per type (/2; jokers /4)                          |
| staged          | 53   | pieces I have staged this turn                            |
| table           | 53   | pieces on the table per type (jokers: all, fixed or free) |
| table_jokers    | 13   | table jokers fixed to each number (card edition, /4)     |
| rack_sizes      | P    | pieces in each rack (/30), me first                      |
| opened          | P    | whether each seat has opened                              |
| totals          | P    | running totals of earlier rounds (/200)                   |
| pool            | 1    | pieces left in the pool (/106)                            |
| passes          | 1    | passes in a row with the pool empty (/P)                  |
| phase           | 2    | one-hot: turn start, staging                             |
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np

from rummienv.tiles import JOKER, NUM_TYPES, NUMBERS, tiles_of

if TYPE_CHECKING:
    from rummienv.rummikub.state import RummikubState

_SCALE = np.full(NUM_TYPES, 0.5, dtype=np.float32)
_SCALE[JOKER] = 0.25
_COUNTS_SCALE = np.concatenate([_SCALE] * 3)  # rack, staged and table, which come first


@cache
def layout(num_players: int) -> dict[str, slice]:
    """Named slices of the observation vector (``env.unwrapped.observation_layout``); callers must not
    change the dict."""
    sizes = [("rack", NUM_TYPES), ("staged", NUM_TYPES), ("table", NUM_TYPES), ("table_jokers", NUMBERS),
             ("rack_sizes", num_players), ("opened", num_players), ("totals", num_players),
             ("pool", 1), ("passes", 1), ("phase", 2)]
    out, start = {}, 0
    for name, size in sizes:
        out[name] = slice(start, start + size)
        start += size
    return out


def size(num_players: int) -> int:
    return layout(num_players)["phase"].stop


@cache
def _seats(num_players: int, player: int) -> np.ndarray:
    return (player + np.arange(num_players)) % num_players


def encode(state: RummikubState, player: int) -> np.ndarray:
    """Written part by part into one buffer: the envs encode on every step."""
    p = state.num_players
    seats = _seats(p, player)
    parts = layout(p)
    obs = np.zeros(size(p), dtype=np.float32)
    obs[:NUM_TYPES] = state.racks[player]
    if player == state.current_player:
        obs[NUM_TYPES:2 * NUM_TYPES] = state.staged
    obs[2 * NUM_TYPES:3 * NUM_TYPES] = state.table
    obs[3 * NUM_TYPES - 1] += state.fixed.sum()  # every table joker, fixed or free
    obs[:3 * NUM_TYPES] *= _COUNTS_SCALE
    obs[parts["table_jokers"]] = state.fixed[1:] * 0.25
    obs[parts["rack_sizes"]] = state.racks[seats].sum(axis=1) / 30.0
    obs[parts["opened"]] = state.opened[seats]
    totals = state.totals
    obs[parts["totals"]] = [float(totals[s]) / 200.0 for s in seats.tolist()]
    obs[parts["pool"]] = len(state.pool) / 106.0
    obs[parts["passes"]] = state.passes / p
    obs[parts["phase"].start + (1 if state.staged.any() else 0)] = 1.0
    return obs


def view(state: RummikubState, player: int) -> dict[str, Any]:
    """The structured form of the same knowledge, for heuristic agents and renderers."""
    p = state.num_players
    seats = [(player + i) % p for i in range(p)]
    return {
        "game": state.rules.game,
        "player": player,
        "current_player": state.current_player,
        "rack": tiles_of(state.racks[player]),
        "staged": tiles_of(state.staged) if player == state.current_player else [],
        "table_sets": list(state.table_sets),
        "table": state.table_counts(),
        "fixed_jokers": state.fixed.copy(),
        "opened": bool(state.opened[player]),
        "seats": seats,
        "rack_sizes": [int(state.racks[s].sum()) for s in seats],
        "opened_by_seat": [bool(state.opened[s]) for s in seats],
        "pool_size": len(state.pool),
        "passes": state.passes,
        "round": state.round,
        "totals": [float(state.totals[s]) for s in seats],
        "phase": state.phase,
    }
