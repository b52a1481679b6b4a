"""The positions a seat's view allows: its unseen pieces dealt at random to the other racks and the pool.

A player who looks ahead over hidden information (``agents.rummikub_expert``) plays the game out in
positions that agree with everything it may know (perfect-information Monte Carlo). In Rummikub a piece
never leaves the round, so what a seat has not seen is exactly the other racks and the pool, and nothing it
has seen tells one unseen piece from another: the others' racks are drawn uniformly from the unseen pieces
at their public sizes. The sample is built from the view alone, so it cannot carry what the seat may not know.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from rummienv.rummikub.state import RummikubGame, RummikubState, full_set
from rummienv.tiles import JOKER, NUM_TYPES, counts_of, number_of


def unseen_pieces(view: dict[str, Any], game: RummikubGame) -> np.ndarray:
    """Counts of the pieces the viewing seat cannot see: the full set less its rack and the table."""
    unseen = full_set(game.rules).astype(np.int64) - counts_of(view["rack"]) - np.asarray(view["table"], np.int64)
    if (unseen < 0).any():
        raise ValueError("the view holds more of some piece than the game has: it is not this game's view")
    return unseen


def sample_state(view: dict[str, Any], game: RummikubGame, rng: np.random.Generator) -> RummikubState:
    """A state of ``game`` that shows ``view`` to its seat, the unseen pieces dealt by ``rng``.

    ``game`` decides what ends the state: a one-round game ends when the view's round does. A turn begun
    with joker swaps (K6) goes on from them: each frees its joker from the table, as the state did.
    """
    p, me = game.num_players, int(view["player"])
    seats = [int(s) for s in view["seats"]]
    unseen = unseen_pieces(view, game)
    sizes = [int(n) for n in view["rack_sizes"]]
    if int(unseen.sum()) != sum(sizes[1:]) + int(view["pool_size"]):
        raise ValueError(f"the view's other racks ({sum(sizes[1:])} pieces) and pool ({view['pool_size']}) do not "
                         f"hold its {int(unseen.sum())} unseen pieces")
    pieces = rng.permutation(np.repeat(np.arange(NUM_TYPES), unseen))
    state = RummikubState(game)
    state.racks[me] = counts_of(view["rack"])
    start = 0
    for i in range(1, p):
        np.add.at(state.racks[seats[i]], pieces[start:start + sizes[i]], 1)
        start += sizes[i]
    state.pool = pieces[start:].tolist()
    table = np.asarray(view["table"], dtype=np.int64).copy()
    table[JOKER] -= int(np.asarray(view["fixed_jokers"]).sum())
    state.table = table.astype(np.int8)
    state.opened = np.array([view["opened_by_seat"][seats.index(s)] for s in range(p)], dtype=bool)
    state.plays = np.array([view["plays_by_seat"][seats.index(s)] for s in range(p)], dtype=np.int64)
    state.restore(list(view["table_sets"]), int(view["current_player"]), over=False)
    if view["current_player"] == me:
        state.staged = counts_of(view["staged"])
        state.swapped = [int(t) for t in view.get("swapped", [])]
        for tile in state.swapped:
            state.fixed[number_of(tile)] -= 1
    state.passes = int(view["passes"])
    state.round = int(view["round"])
    state.totals = [Fraction(view["totals"][seats.index(s)]).limit_denominator(1000) for s in range(p)]
    return state
