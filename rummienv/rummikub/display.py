"""How people see and type the Rummikub games: the terminal game's text and moves, the replay page's pieces.

A person types a move in a plain form (``play r7 r8 r9``, ``swap k5``); it becomes
actions of the fixed action space, so a person is held to exactly the same mask as
a bot. ``rummienv.play_text`` hands each game's questions to its module like this one
(the registry's ``display``, giving what ``rummienv.display_protocol.ClockedDisplay`` names),
which answers them all for both editions.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, NamedTuple

from rummienv.errors import IllegalActionError, NotationError
from rummienv.inks import hex_ink
from rummienv.rummikub import actions as RA
from rummienv.rummikub import whole_turns as WT
from rummienv.rummikub.faces import TileFace, set_faces, staged_marks, tile_face
from rummienv.tiles import JOKER, parse_tiles, sort_key, tile_name, tiles_of
from rummienv.wording import counted

HELP = ("moves: play r7 r8 r9 (stage them, then commit) | place r7 | commit | draw | pass | "
        "swap k5 (card edition) | hint | auto | quit;  written as colour k b o r and number (r7, k13), J a joker")
HINT = "max_tiles"  # the bot whose move ``hint`` suggests: the strongest that plays turn by turn
NO_CLOCK = None  # both editions run a turn clock (T12, K8)
DRAWS = frozenset({RA.DRAW})  # a draw brings a piece the seat has not seen, and ends its turn


class Words(NamedTuple):
    """An edition's words for its pieces and for where the undealt ones wait."""

    piece: str
    pool: str


TILE_WORDS = Words("tile", "pool")
EDITION_WORDS = {"rummikub_cards": Words("card", "stock")}  # RULES.md K: "card" for "tile", "stock" for "pool"


def words(game: str) -> Words:
    """The words of the edition named ``game``."""
    return EDITION_WORDS.get(game, TILE_WORDS)


def _tiles(indices) -> str:
    return " ".join(tile_name(t) for t in sorted(indices, key=sort_key)) or "-"


def _tile_list(pieces) -> str:
    return "[" + " ".join(tile_name(t) for t in pieces) + "]"


def deal_number(view: dict[str, Any]) -> int:
    return view["round"]


def totals(state: Any) -> list:
    return list(state.totals)


def table_sets(state: Any) -> list:
    """The table's sets as the person last saw them: a rearrangement can change the table anywhere."""
    return list(state.table_sets)


def render(state: Any, me: int, names: list[str], seen: list | None = None) -> str:
    """The position as seat ``me`` sees it; table sets not among ``seen`` (the sets shown at the seat's last
    turn) are marked."""
    view, said = state.view(me), words(state.rules.game)
    lines = [f"round {view['round'] + 1}, {said.pool} {view['pool_size']}, turn: seat {state.current_player} "
             f"({names[state.current_player]})", "table:" if seen is None else "table (* new since your turn):"]
    lines += [f"  {_tile_list(pieces)}" + ("  *" if seen is not None and (kind, pieces) not in seen else "")
              for kind, pieces in view["table_sets"]] or ["  (empty)"]
    for seat, size, opened in zip(view["seats"][1:], view["rack_sizes"][1:], view["opened_by_seat"][1:],
                                  strict=True):
        lines.append(f"seat {seat} ({names[seat]}): {counted(size, said.piece)}, "
                     f"{'opened' if opened else 'not opened'}")
    free = list((Counter(view["rack"]) - Counter(view["staged"])).elements())  # staged pieces show once
    lines.append(f"your rack ({len(free)}): {_tiles(free)}" + ("" if view["opened"] else "  (not opened yet)"))
    if view["staged"]:
        lines.append(f"staged: {_tiles(view['staged'])}")
    return "\n".join(lines)


def who_starts(state: Any, first: str) -> str:
    if state.rules.start == "highest_tile":
        return f"{first}: it drew the highest {words(state.rules.game).piece} (T2)"
    return f"{first}, chosen by lot (K2)"


SIMPLE = {"commit": RA.COMMIT, "draw": RA.DRAW, "pass": RA.PASS}


def parse_move(verb: str, args: list[str], text: str, state: Any) -> list[int]:
    if verb in SIMPLE and not args:
        return [SIMPLE[verb]]
    if verb in ("play", "place") and args:
        return [RA.PLACE + t for t in parse_tiles(args)] + ([RA.COMMIT] if verb == "play" else [])
    if verb == "swap" and len(args) == 1:
        return [RA.string_to_action(f"SWAP_JOKER {args[0]}")]
    raise NotationError(_misused(verb, text, words(state.rules.game).piece))


def _misused(verb: str, text: str, piece: str) -> str:
    """What a known verb needs when it was typed without it (or with too much), else that the move is unknown."""
    if verb in SIMPLE:
        return f"{verb} takes nothing after it: type just '{verb}'"
    if verb in ("play", "place"):
        return f"{verb} needs {piece}s: {verb} r1 r2 r3"
    if verb == "swap":
        return f"swap needs one {piece}, the one a table joker stands for: swap k5"
    return f"unknown move {text!r}; {HELP}"


def why_not(state: Any, action: int, error: IllegalActionError) -> str:
    """A person's reason for a refused action, in terms of the rack and what is staged."""
    if state.is_terminal():
        return str(error)
    me, said = state.current_player, words(state.rules.game)
    free = state.racks[me] - state.staged
    opening = "" if state.opened[me] else (f" (an opening uses new sets from your rack only, worth "
                                            f"{state.rules.opening_threshold} or more)")
    if action <= JOKER:
        if free[action] <= 0:
            beyond = " (beyond what is staged)" if state.staged[action] else ""
            return f"{tile_name(action)} is not in your rack{beyond}"
        staged = f"with {_tiles(tiles_of(state.staged))} staged" if state.staged.any() else "with nothing staged"
        return f"no legal play holds {tile_name(action)} {staged}{opening}"
    if action == RA.COMMIT:
        if not state.staged.any():
            return f"nothing is staged: place {said.piece}s first, or draw"
        return f"the staged {said.piece}s ({_tiles(tiles_of(state.staged))}) do not make a legal play yet{opening}"
    if action == RA.DRAW:
        return f"the {said.pool} is empty: play if you can, else pass (T7)"
    if action == RA.PASS:
        return f"passing is only for a player who cannot play with the {said.pool} empty (T7); draw instead"
    tile = tile_name(action - RA.SWAP)
    if not state.rules.joker_swap_action:
        return "this edition has no joker swap; free a joker by rearranging the table in a play (T6)"
    if not state.opened[me]:
        return "a joker may be swapped only after opening (K6)"
    return f"no table joker stands for {tile} with a play after it that uses the joker again (K6)"


def gained(before: dict[str, Any], after: dict[str, Any]) -> str:
    """The pieces that came into a seat's rack between two of its views."""
    return _tiles((Counter(after["rack"]) - Counter(before["rack"])).elements())


def describe_turn(actions: list[int]) -> str:
    """One line for what a seat did in its turn (the person reads the bots' moves here)."""
    if actions and actions[-1] == RA.COMMIT:
        placed = [a for a in actions if a <= JOKER]
        swaps = [a - RA.SWAP for a in actions if a >= RA.SWAP]
        text = f"played {_tiles(placed)}"
        return text + (f" (swapped {_tiles(swaps)} for jokers)" if swaps else "")
    if actions and actions[-1] == RA.DRAW:
        return "drew"  # a tile or a card: the actions do not say which edition, and the person sees what came
    if actions and actions[-1] == RA.PASS:
        return "passed"
    return " ".join(RA.action_to_string(a) for a in actions)


def as_command(actions: list[int]) -> str:
    """The move a person would type for ``actions`` (used by ``hint``); for one action, a string that
    ``parse_move`` reads back as that action."""
    if actions[-1] == RA.COMMIT:
        return "play " + " ".join(tile_name(a) for a in actions[:-1]) if len(actions) > 1 else "commit"
    if len(actions) == 1 and RA.SWAP <= actions[0] < RA.NUM_ACTIONS:
        return f"swap {tile_name(actions[0] - RA.SWAP)}"
    if len(actions) == 1 and actions[0] in WT.NAMES:
        return WT.NAMES[actions[0]].lower()
    if len(actions) == 1 and actions[0] <= JOKER:
        return f"place {tile_name(actions[0])}"
    return RA.action_to_string(actions[0]).lower()


def whole_turns(state: Any) -> list[list[int]]:
    """The plays worth offering as whole moves: the most pieces, the most without the rack's jokers and the most
    points (the solver's exact answers completing what is staged), each once, as its pieces and COMMIT; none
    when no play exists.

    A program that reads moves as text should not have to find a legal play piece by piece.
    """
    mask = state.legal_action_mask()
    if state.is_terminal() or not mask[RA.COMMIT] and not mask[RA.PLACE:RA.COMMIT].any():
        return []
    me = state.current_player
    found = WT.whole_plays(state.table, state.racks[me], state.staged, state.solver_args(),
                           state.rules.joker_penalty, mask[:RA.NUM_ACTIONS])
    turns: list[list[int]] = []
    for play in found:
        if play is None:
            continue
        pieces = [RA.PLACE + t for t in tiles_of(play - state.staged)]
        turn = [*pieces, RA.COMMIT]
        if turn not in turns:
            turns.append(turn)
    return turns


def rules_brief(game: Any) -> str:
    """The rules a player needs to choose moves, in a paragraph (docs/RULES.md holds them in full)."""
    rules = game.rules
    said = words(rules.game)
    edition = "the card edition of Rummikub" if rules.game == "rummikub_cards" else "Rummikub with tiles"
    swap = (f" Once opened you may exchange a table joker for a {said.piece} of the number it stands for "
            "('swap k5'), and the freed joker must go back on the table in the same turn (K6)."
            if rules.joker_swap_action else "")
    return (f"You play {edition}, {game.num_players} players. {said.piece.capitalize()}s are coloured k (black), "
            f"b (blue), o (orange), r (red), numbered 1-13, two of each, and J is a joker. Sets are groups (3-4 of "
            "one number, all colours different) and runs (3+ consecutive numbers of one colour, 1 to 13, no wrap); "
            f"a joker stands for any one {said.piece}. On your turn either lay {said.piece}s from your rack so that "
            f"every {said.piece} on the table is in a valid set, or draw one from the {said.pool}, which ends your "
            f"turn. Your first play (the opening) uses only your own {said.piece}s in new sets worth "
            f"{rules.opening_threshold} or more; after it you may add to and rearrange every set on the table, and "
            f"the engine finds how the table divides into sets: you only choose which {said.piece}s to lay.{swap} "
            f"With the {said.pool} empty a seat that cannot play passes. The round ends when a seat empties its rack: "
            f"the others score minus what their racks are worth (a joker {rules.joker_penalty}) and the winner "
            "scores the sum; if nobody can go out, the lowest rack wins. "
            + ("The game's rounds' scores add up, and the highest total wins." if game.whole_game
               else "This game is one round: aim for the highest score in it."))


def time_out(state: Any, seat: int, clock: float) -> str:
    """Run out ``seat``'s turn clock (T12/K8) and say what it cost."""
    before = int(state.racks[seat].sum())
    view = state.view(seat)
    state.apply_timeout()
    after = int(state.racks[seat].sum())
    rule = "K8" if state.rules.timeout_rule == "keep_valid" else "T12"
    if after >= before:
        change = f"you drew {after - before}: {gained(view, state.view(seat))}"
    else:
        change = f"{counted(before - after, 'valid ' + words(state.rules.game).piece)} stayed on the table"
    return f"time is up ({clock:g} s, {rule}): {change}"


def _page_piece(face: TileFace) -> list[str]:
    """(text, colour) of a piece as the page's script draws it: a table joker's number follows its J."""
    return [face.label + face.note, hex_ink(face.ink)]


def page_parts(views: list[dict[str, Any]]) -> tuple[list, list, str, list[str]]:
    """The replay page's table, hands, pile line and totals, from every seat's view; a piece of a hand is (text,
    colour, staged), so that the page outlines what is staged as the pictures do."""
    first = views[0]
    table = [{"label": kind, "pieces": [_page_piece(face) for face in set_faces(kind, pieces)]}
             for kind, pieces in first["table_sets"]]
    hands = [[[*_page_piece(tile_face(t)), marked]
              for t, marked in zip(v["rack"], staged_marks(v["rack"], v["staged"]), strict=True)] for v in views]
    return table, hands, f"{words(first['game']).pool} {first['pool_size']}", [f"{x:g}" for x in first["totals"]]
