"""How people see and type the Rummikub games: the terminal game's text and moves, the replay page's pieces.

A person types a move in a plain form (``play r7 r8 r9``, ``swap k5``); it becomes
actions of the fixed action space, so a person is held to exactly the same mask as
a bot. ``rummienv.play_text`` hands each game's questions to its module like this one
(the registry's ``display``), which answers them all for both editions.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from rummienv.errors import IllegalActionError, NotationError
from rummienv.inks import JOKER_INK, TILE_INK, hex_ink
from rummienv.rummikub import actions as RA
from rummienv.rummikub.sets import set_numbers
from rummienv.tiles import JOKER, NUMBERS, parse_tiles, sort_key, tile_name, tiles_of
from rummienv.wording import counted

HELP = ("moves: play <tiles> (stage them, then commit) | place <tiles> | commit | draw | pass | "
        "swap <tile> (card edition) | hint | auto | quit;  tiles like r7 k13 J")
HINT = "max_tiles"  # the bot whose move ``hint`` suggests: the strongest that plays turn by turn
NO_CLOCK = None  # both editions run a turn clock (T12, K8)


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
    view = state.view(me)
    lines = [f"round {view['round'] + 1}, pool {view['pool_size']}, turn: seat {state.current_player} "
             f"({names[state.current_player]})", "table:" if seen is None else "table (* new since your turn):"]
    lines += [f"  {_tile_list(pieces)}" + ("  *" if seen is not None and (kind, pieces) not in seen else "")
              for kind, pieces in view["table_sets"]] or ["  (empty)"]
    for seat, size, opened in zip(view["seats"][1:], view["rack_sizes"][1:], view["opened_by_seat"][1:],
                                  strict=True):
        lines.append(f"seat {seat} ({names[seat]}): {counted(size, 'tile')}, "
                     f"{'opened' if opened else 'not opened'}")
    free = list((Counter(view["rack"]) - Counter(view["staged"])).elements())  # staged pieces show once
    lines.append(f"your rack ({len(free)}): {_tiles(free)}" + ("" if view["opened"] else "  (not opened yet)"))
    if view["staged"]:
        lines.append(f"staged: {_tiles(view['staged'])}")
    return "\n".join(lines)


def who_starts(state: Any, first: str) -> str:
    if state.rules.start == "highest_tile":
        return f"{first}: it drew the highest tile (T2)"
    return f"{first}, chosen by lot (K2)"


def parse_move(verb: str, args: list[str], text: str, state: Any) -> list[int]:
    simple = {"commit": RA.COMMIT, "draw": RA.DRAW, "pass": RA.PASS}
    if verb in simple and not args:
        return [simple[verb]]
    if verb in ("play", "place") and args:
        return [RA.PLACE + t for t in parse_tiles(args)] + ([RA.COMMIT] if verb == "play" else [])
    if verb == "swap" and len(args) == 1:
        return [RA.string_to_action(f"SWAP_JOKER {args[0]}")]
    raise NotationError(f"unknown move {text!r}; {HELP}")


def why_not(state: Any, action: int, error: IllegalActionError) -> str:
    """A person's reason for a refused action, in terms of the rack and what is staged."""
    if state.is_terminal():
        return str(error)
    me = state.current_player
    free = state.racks[me] - state.staged
    opening = "" if state.opened[me] else (f" (an opening uses new sets from your rack only, worth "
                                            f"{state.rules.opening_threshold} or more)")
    if action <= JOKER:
        if free[action] <= 0:
            beyond = " (beyond what is staged)" if state.staged[action] else ""
            return f"{tile_name(action)} is not in your rack{beyond}"
        staged = _tiles(tiles_of(state.staged))
        return f"no legal play holds {tile_name(action)} with what is staged ({staged}){opening}"
    if action == RA.COMMIT:
        if not state.staged.any():
            return "nothing is staged: place tiles first, or draw"
        return f"the staged tiles ({_tiles(tiles_of(state.staged))}) do not make a legal play yet{opening}"
    if action == RA.DRAW:
        return "the pool is empty: play if you can, else pass (T7)"
    if action == RA.PASS:
        return "passing is only for a player who cannot play with the pool empty (T7); draw instead"
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
        return "drew a tile"
    if actions and actions[-1] == RA.PASS:
        return "passed"
    return " ".join(RA.action_to_string(a) for a in actions)


def as_command(actions: list[int]) -> str:
    """The move a person would type for ``actions`` (used by ``hint``)."""
    if actions[-1] == RA.COMMIT:
        return "play " + " ".join(tile_name(a) for a in actions[:-1]) if len(actions) > 1 else "commit"
    return RA.action_to_string(actions[0]).lower()


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
        change = f"{counted(before - after, 'valid tile')} stayed on the table"
    return f"time is up ({clock:g} s, {rule}): {change}"


def _page_tile(t: int, stands_for: int | None = None) -> list[str]:
    """(text, colour) of a tile, coloured as in the env's pictures; a joker on the table says the number it
    stands for (K5)."""
    if t == JOKER:
        return [f"J{stands_for}" if stands_for else "J", hex_ink(JOKER_INK)]
    return [tile_name(t)[1:], hex_ink(TILE_INK[t // NUMBERS])]


def page_parts(views: list[dict[str, Any]]) -> tuple[list, list, str, list[str]]:
    """The replay page's table, hands, pile line and totals, from every seat's view."""
    first = views[0]
    table = [{"label": kind, "pieces": [_page_tile(t, n if t == JOKER else None)
                                        for t, n in zip(pieces, set_numbers(pieces, kind), strict=True)]}
             for kind, pieces in first["table_sets"]]
    hands = [[_page_tile(t) for t in v["rack"]] for v in views]
    return table, hands, f"pool {first['pool_size']}", [f"{x:g}" for x in first["totals"]]
