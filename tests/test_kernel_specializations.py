"""The solver's compiled functions are compiled once each, whatever constants their callers pass.

numba compiles a function afresh for each literal Python constant another compiled function passes it; the
searches and the pass are the costly ones to compile, and such copies made a fresh install's first move
wait about five minutes instead of one. Play that reaches every question (masks along turns with jokers,
COMMIT checks, best plays, openings) is played here, then the signatures numba compiled each function for
(in this process or any before it since the source last changed) are counted.
"""

from __future__ import annotations

import numpy as np
import pytest

from agents import decide, make_agent
from rummienv.rummikub import RummikubGame
from rummienv.rummikub.solver import masks, passes, search

# each is called with one set of argument types; a second signature can only come from a literal constant
SEARCH_AND_PASS = ((search, "exists"), (search, "_layout_exists"), (search, "_search"), (search, "_lone_search"),
                   (passes, "forward"), (passes, "_one_pass"), (passes, "one_pass"),
                   (masks, "_mask_passes"), (masks, "_legal_layout"), (masks, "legal_layout"), (masks, "turn_mask"),
                   (passes, "best_layout"), (search, "play_path"), (passes, "_prune"))


@pytest.mark.parametrize("game_name", ["rummikub", "rummikub_cards"])
def test_searches_and_pass_are_compiled_once(game_name):
    game = RummikubGame(game_name, 2)
    rng = np.random.default_rng(0)
    for seed, bot in enumerate(("hold_back", "max_tiles")):  # seat 0 plays at random: masks along its turns
        opponent = make_agent(bot, game_name, 2, seed)
        state = game.new_initial_state(seed)
        for _ in range(150):
            if state.is_terminal():
                break
            mask = state.legal_action_mask()
            if state.current_player == 0:
                state.apply_action(int(rng.choice(np.flatnonzero(mask))))
            else:
                state.apply_action(decide(opponent, state))
    for module, name in SEARCH_AND_PASS:
        signatures = _compiled(getattr(module, name))
        where = f"{module.__name__}.{name}"
        assert len(signatures) == 1, f"{where} compiled {len(signatures)} times (once expected): {signatures}"


def _compiled(function) -> set:
    """The signatures numba compiled ``function`` for, read from its cache index: a caller loaded from the
    cache links its callees without listing them among their own signatures."""
    index = function._cache._cache_file._load_index()
    if not index:
        pytest.skip("numba keeps no cache of the solver here")
    return {key[0] for key in index}
