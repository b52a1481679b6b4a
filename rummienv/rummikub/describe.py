"""A Rummikub state as plain data: the position ``RummikubState.to_dict`` writes and ``position.load_state``
reads back. Apart from the reader, so that the state, which writes its own position, does not import the
module that builds states from one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rummienv.rules import PRESETS, rules_fields
from rummienv.rummikub.sets import set_kind
from rummienv.tiles import tile_names, tiles_of

if TYPE_CHECKING:
    from rummienv.rummikub.state import RummikubState


def _set_to_json(kind: str, pieces: tuple[int, ...]) -> list[str] | dict[str, list[str]]:
    """A set is a plain list where its kind is the default reading, else ``{"run": [...]}``."""
    return tile_names(pieces) if set_kind(pieces) == kind else {kind: tile_names(pieces)}


def state_to_dict(state: RummikubState) -> dict[str, Any]:
    """The position of ``state``: its rules as overrides of the preset, its pieces by name, every count."""
    preset = PRESETS[state.rules.game]
    rules = {k: v for k, v in rules_fields(state.rules).items() if getattr(preset, k) != v}
    return {
        "game": state.rules.game,
        "racks": [tile_names(tiles_of(r)) for r in state.racks],
        "table": [_set_to_json(k, s) for k, s in state.table_sets],
        "pool": tile_names(reversed(state.pool)),
        "opened": [bool(o) for o in state.opened],
        "plays": [int(n) for n in state.plays],
        "current_player": state.turn_seat,
        "staged": tile_names(tiles_of(state.staged)),
        "swapped": tile_names(state.swapped),
        "passes": state.passes,
        "round": state.round,
        "totals": [str(t) for t in state.totals],
        "rounds_won": list(state.rounds_won),
        "rules": rules,
        "whole_game": state.game.whole_game,
        "seed": state.seed,
        "over": state.is_terminal(),
        "round_scores": None if state.round_scores is None else [str(x) for x in state.round_scores],
    }
