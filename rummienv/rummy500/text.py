"""Rummy 500's text render of one seat's knowledge (``render_mode="ansi"``), built from the state's ``view``.

It reads ``view(seat)`` and nothing else, so it can show no more than the observation holds: other hands
appear only as sizes (and the cards their seats took from the pile, which every seat saw), the stock only as
a count. Seats are listed in turn order from the viewer, as in the observation.
"""

from __future__ import annotations

from typing import Any

from rummienv.core import Game
from rummienv.seat_table import seat_label, text_table


def rummy500_text(view: dict[str, Any], game: Game) -> str:
    """The heading, the seat's hand, what it owes the table, the discard pile, the melds and who laid them,
    every seat's counts, totals and known cards, the stock."""
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
    rows = [(seat_label(s, me, to_move), view["hand_sizes"][s], view["scores"][s],
             " ".join(view["known"][s]) or "-") for s in seats]
    lines += text_table(("seat", "cards", "total", "taken from the pile"), rows)
    lines.append(f"Stock: {view['stock_size']}")
    return "\n".join(lines)
