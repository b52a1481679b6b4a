"""The fixed action space of both Rummikub games.

A turn's real decision is *which* pieces go down; where they go on the table is
computed by the solver. So a turn is composed one piece at a time (``PLACE t``)
and closed with ``COMMIT``, or ended with ``DRAW``/``PASS``. The card edition adds
``SWAP_JOKER t`` (K6). Indices never change meaning between presets, so one
network serves both games; actions a preset does not have are always masked.

| index   | action          |
|---------|-----------------|
| 0-51    | PLACE <tile>    |
| 52      | PLACE J         |
| 53      | COMMIT          |
| 54      | DRAW            |
| 55      | PASS            |
| 56-107  | SWAP_JOKER <tile> |
"""

from __future__ import annotations

from rummienv.errors import IllegalActionError
from rummienv.tiles import JOKER, tile_index, tile_name

PLACE = 0
COMMIT = 53
DRAW = 54
PASS = 55
SWAP = 56
NUM_ACTIONS = SWAP + JOKER
_FORMS = "'PLACE <tile>', 'COMMIT', 'DRAW', 'PASS', 'SWAP_JOKER <tile>'"


def action_to_string(action: int) -> str:
    if PLACE <= action <= JOKER:
        return f"PLACE {tile_name(action)}"
    if action == COMMIT:
        return "COMMIT"
    if action == DRAW:
        return "DRAW"
    if action == PASS:
        return "PASS"
    if SWAP <= action < NUM_ACTIONS:
        return f"SWAP_JOKER {tile_name(action - SWAP)}"
    raise IllegalActionError(f"action {action!r} is not an action index (allowed: 0..{NUM_ACTIONS - 1})")


def string_to_action(text: str) -> int:
    if not isinstance(text, str):
        raise IllegalActionError(f"action {text!r} is not a string; allowed: {_FORMS}")
    words = text.split()
    if len(words) == 1 and words[0].upper() in ("COMMIT", "DRAW", "PASS"):
        return {"COMMIT": COMMIT, "DRAW": DRAW, "PASS": PASS}[words[0].upper()]
    if len(words) == 2 and words[0].upper() == "PLACE":
        return PLACE + tile_index(words[1])
    if len(words) == 2 and words[0].upper() == "SWAP_JOKER":
        tile = tile_index(words[1])
        if tile == JOKER:
            raise IllegalActionError("SWAP_JOKER takes the numbered tile that replaces the joker, not J")
        return SWAP + tile
    raise IllegalActionError(f"unknown action {text!r}; allowed: {_FORMS}")
