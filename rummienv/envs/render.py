"""Text renders of one seat's knowledge, built from the state's ``view``.

They read ``view(seat)`` and nothing else, so a render can show no more than the
observation holds: other racks and hands appear only as sizes, the pool and the
stock only as counts. Seats are listed in turn order from the viewer, as in the
observation.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from rummienv import games
from rummienv.core import Game
from rummienv.rummikub.sets import set_numbers
from rummienv.tiles import JOKER, tile_name


def _seat_label(seat: int, viewer: int, to_move: int) -> str:
    marks = (" you" if seat == viewer else "") + (" *" if seat == to_move else "")
    return f"{seat}{marks}"


def _table(header: tuple[str, ...], rows: list[tuple[Any, ...]]) -> list[str]:
    cells = [tuple(str(c) for c in row) for row in [header, *rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    return ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells]


def _tiles(indices: list[int]) -> str:
    return " ".join(tile_name(t) for t in indices) or "-"


def _set_text(kind: str, pieces: tuple[int, ...]) -> str:
    """A table set, with the number each joker stands for (K5 makes it stick in the card edition)."""
    numbers = set_numbers(pieces, kind)
    names = [f"J={n}" if t == JOKER else tile_name(t) for t, n in zip(pieces, numbers, strict=True)]
    return f"{kind:<5}  {' '.join(names)}"


def staged_marks(rack: list[int], staged: list[int]) -> list[bool]:
    """Which of the rack's pieces are staged, for the renders that mark them in the rack rather than list them
    apart (the pictures, the replay page): a piece held twice and staged once is marked once."""
    unmarked, marks = Counter(staged), []
    for t in rack:
        marks.append(unmarked[t] > 0)
        unmarked[t] -= 1
    return marks


def rummikub_heading(view: dict[str, Any], game: Game) -> str:
    """The edition and the round of how many: a whole game has one round per player (T11/K10)."""
    return f"{games.of(game).title}, round {view['round'] + 1} of {view['rounds']}"


def rummikub_text(view: dict[str, Any], game: Game) -> str:
    me, to_move = view["player"], view["current_player"]
    status = "over" if to_move < 0 else f"seat {to_move} to move ({view['phase']})"
    lines = [f"{rummikub_heading(view, game)}: {status}",
             f"Rack of seat {me} ({len(view['rack'])}): {_tiles(view['rack'])}"]
    if view["staged"]:
        lines.append(f"Staged: {_tiles(view['staged'])}")
    lines.append(f"Table ({len(view['table_sets'])} sets):")
    lines += [f"  {_set_text(kind, pieces)}" for kind, pieces in view["table_sets"]] or ["  -"]
    rows = [(_seat_label(s, me, to_move), n, "yes" if o else "no", f"{t:g}")
            for s, n, o, t in zip(view["seats"], view["rack_sizes"], view["opened_by_seat"], view["totals"],
                                  strict=True)]
    lines += _table(("seat", "pieces", "opened", "total"), rows)
    lines.append(f"Pool: {view['pool_size']}   passes in a row: {view['passes']}")
    return "\n".join(lines)


def rummy500_text(view: dict[str, Any], game: Game) -> str:
    me, to_move, players = view["player"], view["current_player"], view["num_players"]
    status = "over" if to_move < 0 else f"seat {to_move} to move ({view['phase']})"
    hand = view["hand"]  # in pack order: suit, then rank
    lines = [f"Rummy 500, hand {view['hand_number'] + 1}: {status}; dealer seat {view['dealer']}",
             f"Hand of seat {me} ({len(hand)}): {' '.join(hand) or '-'}"]
    if view["must_use"] is not None:
        lines.append(f"Owed to the table this turn: {view['must_use']}")
    lines.append(f"Discard pile, bottom to top: {' '.join(view['discard']) or '-'}")
    lines.append(f"Melds ({len(view['melds'])}):")
    lines += [f"  {m['kind']:<5}  {' '.join(m['cards'])}   laid by {' '.join(map(str, m['owners']))}"
              for m in view["melds"]] or ["  -"]
    seats = [(me + i) % players for i in range(players)]
    rows = [(_seat_label(s, me, to_move), view["hand_sizes"][s], view["scores"][s],
             " ".join(view["known"][s]) or "-") for s in seats]
    lines += _table(("seat", "cards", "total", "taken from the pile"), rows)
    lines.append(f"Stock: {view['stock_size']}")
    return "\n".join(lines)

