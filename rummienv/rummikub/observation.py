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
from numba import njit

from rummienv.tiles import JOKER, NUM_TYPES, NUMBERS, tiles_of

if TYPE_CHECKING:
    from rummienv.rummikub.state import RummikubState

# The scales, each written once: the encoder, the whole-turn features, the envs' bounds and the rewards
# under reward="score" (points) all read them here.
PIECE_SCALE = 0.5  # per copy of a numbered piece (two of each)
JOKER_SCALE = 0.25  # per joker (up to four)
RACK_SCALE = 30.0  # pieces in a rack
POINTS_SCALE = 200.0  # points: a round's result lands in about [-1, 1]
POOL_SCALE = 106.0  # pieces in the pool

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


def encode(state: RummikubState, player: int) -> np.ndarray:
    """Compiled, since the envs encode at every step: the numpy version cost as much as a cheap mask."""
    obs = np.empty(size(state.num_players), dtype=np.float32)
    totals = np.array([float(t) for t in state.totals], dtype=np.float64)
    _encode(state.racks, state.staged, state.table, state.fixed, state.opened, totals, len(state.pool),
            state.passes, player, player == state.current_player, obs)
    return obs


@njit(cache=True)
def _encode(racks, staged, table, fixed, opened, totals, pool, passes, player, own_turn, out):
    """Fill ``out`` slice by slice, in the order of ``layout``."""
    p = racks.shape[0]
    for t in range(NUM_TYPES):
        scale = JOKER_SCALE if t == JOKER else PIECE_SCALE
        out[t] = racks[player, t] * scale
        out[NUM_TYPES + t] = staged[t] * scale if own_turn else 0.0
        out[2 * NUM_TYPES + t] = table[t] * scale
    jokers = 0
    for n in range(1, NUMBERS + 1):
        jokers += fixed[n]
        out[3 * NUM_TYPES + n - 1] = fixed[n] * JOKER_SCALE
    out[3 * NUM_TYPES - 1] += jokers * JOKER_SCALE  # every table joker, fixed or free
    base = 3 * NUM_TYPES + NUMBERS
    for i in range(p):
        seat = (player + i) % p
        pieces = 0
        for t in range(NUM_TYPES):
            pieces += racks[seat, t]
        out[base + i] = pieces / RACK_SCALE
        out[base + p + i] = 1.0 if opened[seat] else 0.0
        out[base + 2 * p + i] = totals[seat] / POINTS_SCALE
    out[base + 3 * p] = pool / POOL_SCALE
    out[base + 3 * p + 1] = passes / p
    staging = False
    for t in range(NUM_TYPES):
        if staged[t]:
            staging = True
    out[base + 3 * p + 2] = 0.0 if staging else 1.0
    out[base + 3 * p + 3] = 1.0 if staging else 0.0


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
        "swapped": list(state.swapped) if player == state.current_player else [],  # K6 this turn, in order
        "table_sets": list(state.table_sets),
        "table": state.table_counts(),
        "fixed_jokers": state.fixed.copy(),
        "opened": bool(state.opened[player]),
        "seats": seats,
        "rack_sizes": [int(state.racks[s].sum()) for s in seats],
        "opened_by_seat": [bool(state.opened[s]) for s in seats],
        "plays_by_seat": [int(state.plays[s]) for s in seats],  # turns this round each laid pieces on
        "pool_size": len(state.pool),
        "passes": state.passes,
        "round": state.round,
        "rounds": state.game.episode_rounds,
        "totals": [float(state.totals[s]) for s in seats],
        "phase": state.phase,
    }
