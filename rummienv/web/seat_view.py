"""What one seat's page is sent: the position as that seat may know it, made from ``state.view(seat)`` alone.

Every message the server sends a page about the game is built here or holds only words said of moves in
public, so that no other seat's rack or hand can reach the browser: the table, the seat's own pieces, the pile
line and totals come from the game's display module's ``page_parts`` (as the replay page draws them) fed with
this one view, and the text is ``text_interface.seat_text``, the env's own render of the view. The legal moves
are the seat's own, as move strings (``text_interface.action_text``), so that the exact mask drives what the
page offers.

Three things the display modules do not give yet are read off the view's fields here: each piece's name in the
move language (the page sends ``play r7 r8 r9``, and the replay page's faces show only ``7``), how many pieces
each seat holds, and what is staged. Every game's view holds them under one of two names (the Rummikub
editions' racks, Rummy 500's hands).
"""

from __future__ import annotations

from typing import Any

from rummienv import text_interface
from rummienv.core import State
from rummienv.play_text import display
from rummienv.tiles import tile_name


def piece_names(view: dict[str, Any]) -> list[str]:
    """The move-language name of each of the seat's own pieces, in the order ``page_parts`` lists its hand."""
    if "rack" in view:
        return [tile_name(t) for t in view["rack"]]
    return [str(card) for card in view["hand"]]


def piece_counts(view: dict[str, Any], num_players: int) -> list[int]:
    """How many pieces each seat holds, by seat number: all a seat may know of the others' racks or hands."""
    if "rack_sizes" in view:  # listed in turn order from the viewer, each with its seat number
        counts = [0] * num_players
        for seat, size in zip(view["seats"], view["rack_sizes"], strict=True):
            counts[seat] = int(size)
        return counts
    return [int(size) for size in view["hand_sizes"]]


def has_staged(view: dict[str, Any]) -> bool:
    """Whether the seat has pieces staged (or a joker swapped) that its turn could still take back: only a game
    that stages pieces before laying them has any, and they are not on the table until the turn commits."""
    return bool(view.get("staged")) or bool(view.get("swapped"))


def legal_moves(state: State, seat: int) -> list[str]:
    """The seat's legal single moves as the strings a person types, one per legal action; none out of turn."""
    if state.is_terminal() or state.current_player != seat:
        return []
    moves = [text_interface.action_text(state, action) for action in state.legal_actions()]
    return list(dict.fromkeys(moves))


def seat_message(state: State, seat: int) -> dict[str, Any]:
    """The position for ``seat``'s page: table, own hand (each piece its text, colour, staged mark and name), pile
    line, totals, every seat's piece count, whose turn, the legal moves, the seat's text, scores at the end."""
    view = state.view(seat)
    table, hands, pile, totals = display(state).page_parts([view])
    hand = [[*piece[:2], bool(piece[2]) if len(piece) > 2 else False, name]
            for piece, name in zip(hands[0], piece_names(view), strict=True)]
    over = state.is_terminal()
    return {"table": table, "hand": hand, "pile": pile, "totals": totals,
            "counts": piece_counts(view, state.num_players), "to_move": -1 if over else int(state.current_player),
            "moves": legal_moves(state, seat), "staged": has_staged(view),
            "text": text_interface.seat_text(state, seat), "over": over,
            "scores": [f"{float(x):+g}" for x in state.scores()] if over else None,
            "winners": [int(s) for s in state.winners()] if over else None}
