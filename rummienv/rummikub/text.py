"""The Rummikub editions' text render of one seat's knowledge (``render_mode="ansi"``), built from the
state's ``view``.

It reads ``view(seat)`` and nothing else, so it can show no more than the observation holds: other racks
appear only as sizes, the pool only as a count. Seats are listed in turn order from the viewer, as in the
observation.
"""

from __future__ import annotations

from typing import Any

from rummienv.core import Game
from rummienv.rules import title
from rummienv.rummikub.sets import set_numbers
from rummienv.seat_table import seat_label, text_table
from rummienv.tiles import JOKER, tile_name


def _tiles(indices: list[int]) -> str:
    return " ".join(tile_name(t) for t in indices) or "-"


def _set_text(kind: str, pieces: tuple[int, ...]) -> str:
    """A table set, with the number each joker stands for (K5 makes it stick in the card edition)."""
    numbers = set_numbers(pieces, kind)
    names = [f"J={n}" if t == JOKER else tile_name(t) for t, n in zip(pieces, numbers, strict=True)]
    return f"{kind:<5}  {' '.join(names)}"


def heading(view: dict[str, Any], game: Game) -> str:
    """The edition and the round of how many: a whole game has one round per player (T11/K10)."""
    return f"{title(game.rules.game)}, round {view['round'] + 1} of {view['rounds']}"


def rummikub_text(view: dict[str, Any], game: Game) -> str:
    """The heading, the seat's rack and what it has staged, the table's sets, every seat's counts and totals,
    the pool."""
    me, to_move = view["player"], view["current_player"]
    status = "over" if to_move < 0 else f"seat {to_move} to move ({view['phase']})"
    lines = [f"{heading(view, game)}: {status}",
             f"Rack of seat {me} ({len(view['rack'])}): {_tiles(view['rack'])}"]
    if view["staged"]:
        lines.append(f"Staged: {_tiles(view['staged'])}")
    lines.append(f"Table ({len(view['table_sets'])} sets):")
    lines += [f"  {_set_text(kind, pieces)}" for kind, pieces in view["table_sets"]] or ["  -"]
    rows = [(seat_label(s, me, to_move), n, "yes" if o else "no", f"{t:g}")
            for s, n, o, t in zip(view["seats"], view["rack_sizes"], view["opened_by_seat"], view["totals"],
                                  strict=True)]
    lines += text_table(("seat", "pieces", "opened", "total"), rows)
    lines.append(f"Pool: {view['pool_size']}   passes in a row: {view['passes']}")
    return "\n".join(lines)
