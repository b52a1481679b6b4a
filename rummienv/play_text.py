"""What the terminal game prints and how it reads a person's moves.

A person types a move in a plain form (``play r7 r8 r9``, ``take 9S``); it
becomes one or more actions of the fixed action space, so a person is held to
exactly the same mask as a bot. Every refusal says what was wrong in words.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from rummienv.cards import CARD_STRINGS, card_rank, card_suit, parse_card
from rummienv.errors import IllegalActionError, NotationError
from rummienv.rummikub import actions as RA
from rummienv.rummy500 import actions as FA
from rummienv.tiles import JOKER, parse_tiles, sort_key, tile_name, tiles_of
from rummienv.wording import counted

RUMMIKUB_HELP = ("moves: play <tiles> (stage them, then commit) | place <tiles> | commit | draw | pass | "
                 "swap <tile> (card edition) | hint | auto | quit;  tiles like r7 k13 J")
RUMMY500_HELP = ("moves: draw | take <card> | meld <cards> | layoff <card> [run|group] | discard <card> | "
                 "end (stock empty) | hint | auto | quit;  cards like 9S TD AH")
RULES_NOTE = "rule ids in messages, like (T7) or (F6), are explained in docs/RULES.md"


def help_text(game: str) -> str:
    return RUMMY500_HELP if game == "rummy500" else RUMMIKUB_HELP


def _tiles(indices) -> str:
    return " ".join(tile_name(t) for t in sorted(indices, key=sort_key)) or "-"


def _cards(names: list[str]) -> str:
    """Cards sorted by suit, then rank, as a person holds them."""
    order = sorted((CARD_STRINGS.index(n) for n in names), key=lambda c: (card_suit(c), card_rank(c)))
    return " ".join(CARD_STRINGS[c] for c in order) or "-"


def render(state: Any, me: int, names: list[str], seen: list | None = None) -> str:
    """The position as seat ``me`` sees it; Rummikub table sets not among ``seen`` (the sets shown at the
    seat's last turn) are marked, since a rearrangement can change the table anywhere."""
    view = state.view(me)
    if view["game"] == "rummy500":
        return _render_rummy500(view, names)
    lines = [f"round {view['round'] + 1}, pool {view['pool_size']}, turn: seat {state.current_player} "
             f"({names[state.current_player]})", "table:" if seen is None else "table (* new since your turn):"]
    lines += [f"  {tile_name_list(pieces)}" + ("  *" if seen is not None and (kind, pieces) not in seen else "")
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


def who_starts(state: Any, names: list[str], from_position: bool) -> str:
    """Why the seat to move first does: a person who sees the bots play before their first prompt asks."""
    seat = state.current_player
    first = f"seat {seat} ({names[seat]}) moves first"
    if from_position:
        return f"{first}, as the position says"
    if state.rules.game == "rummy500":
        return f"{first}: the seat after the dealer (seat {state.dealer}) plays first (F2)"
    if state.rules.start == "highest_tile":
        return f"{first}: it drew the highest tile (T2)"
    return f"{first}, chosen by lot (K2)"


def tile_name_list(pieces) -> str:
    return "[" + " ".join(tile_name(t) for t in pieces) + "]"


def _render_rummy500(view: dict[str, Any], names: list[str]) -> str:
    me = view["player"]
    lines = [f"hand {view['hand_number'] + 1}, stock {view['stock_size']}, turn: seat {view['current_player']} "
             f"({names[view['current_player']]}), phase {view['phase']}", "table:"]
    for meld in view["melds"]:
        owners = sorted(set(meld["owners"]))
        seats = ("seat " if len(owners) == 1 else "seats ") + ",".join(map(str, owners))
        lines.append(f"  {' '.join(meld['cards'])}  ({meld['kind']}; {seats})")
    if not view["melds"]:
        lines.append("  (no melds)")
    lines.append(f"discard pile (bottom to top): {' '.join(view['discard']) or '-'}")
    for seat in range(view["num_players"]):
        if seat != me:
            known = f", known: {' '.join(view['known'][seat])}" if view["known"][seat] else ""
            lines.append(f"seat {seat} ({names[seat]}): {counted(view['hand_sizes'][seat], 'card')}{known}")
    lines.append(f"scores: {view['scores']}")
    lines.append(f"your hand ({len(view['hand'])}): {_cards(view['hand'])}")
    if view["must_use"]:
        lines.append(f"you must still use {view['must_use']} this turn (F6)")
    return "\n".join(lines)


def parse_move(game: str, text: str, state: Any) -> list[int]:
    """The actions a typed move stands for; NotationError names the problem."""
    words = text.split()
    if not words:
        raise NotationError(f"empty move; {help_text(game)}")
    verb, args = words[0].lower(), words[1:]
    if game == "rummy500":
        return [_rummy500_action(verb, args, state)]
    simple = {"commit": RA.COMMIT, "draw": RA.DRAW, "pass": RA.PASS}
    if verb in simple and not args:
        return [simple[verb]]
    if verb in ("play", "place") and args:
        return [RA.PLACE + t for t in parse_tiles(args)] + ([RA.COMMIT] if verb == "play" else [])
    if verb == "swap" and len(args) == 1:
        return [RA.string_to_action(f"SWAP_JOKER {args[0]}")]
    raise NotationError(f"unknown move {text!r}; {RUMMIKUB_HELP}")


def _rummy500_action(verb: str, args: list[str], state: Any) -> int:
    if verb in ("draw", "end") and not args:
        return FA.DRAW_STOCK if verb == "draw" else FA.END_HAND
    if verb in ("take", "discard") and len(args) == 1:
        return (FA.TAKE if verb == "take" else FA.DISCARD) + parse_card(args[0])
    if verb == "meld" and args:
        cards = [parse_card(a) for a in args]  # a token that is no card is not understood
        try:
            return FA.string_to_action("MELD " + " ".join(args))
        except NotationError:  # cards, but no group or run: understood, and not legal
            raise IllegalActionError(f"{' '.join(CARD_STRINGS[c] for c in cards)} is not a group or run (F5)"
                                     ) from None
    if verb == "layoff" and len(args) in (1, 2):
        card = parse_card(args[0])
        if len(args) == 2:
            return FA.string_to_action(f"LAYOFF {args[0]} {args[1]}")
        mask = state.legal_action_mask()
        fits = [a for a in (FA.LAYOFF_GROUP + card, FA.LAYOFF_RUN + card) if mask[a]]
        if len(fits) == 2:
            raise NotationError(f"{args[0]} fits a group and a run: say 'layoff {args[0]} run' or '... group'")
        return fits[0] if fits else FA.LAYOFF_RUN + card  # refused by the state, which says why
    raise NotationError(f"unknown move {' '.join([verb, *args])!r}; {RUMMY500_HELP}")


def why_not(state: Any, action: int, error: IllegalActionError) -> str:
    """A person's reason for a refused Rummikub action; Rummy 500 states give theirs already."""
    if state.rules.game == "rummy500" or state.is_terminal():
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
    """The pieces or cards that came into a seat's hand between two of its views."""
    key = "hand" if "hand" in before else "rack"
    new = Counter(after[key]) - Counter(before[key])
    if key == "hand":
        return _cards(list(new.elements()))
    return _tiles(new.elements())


def describe_turn(game: str, actions: list[int]) -> str:
    """One line for what a seat did in its turn (the person reads the bots' moves here)."""
    if game == "rummy500":
        return "; ".join(_rummy500_words(a) for a in actions)
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


def _rummy500_words(action: int) -> str:
    kind, arg = FA.decode(action)
    if kind == "DRAW_STOCK":
        return "drew from the stock"
    if kind == "END_HAND":
        return "ended the hand (empty stock)"
    if kind == "TAKE":
        return f"took {CARD_STRINGS[arg]} from the pile"
    if kind == "MELD":
        return "melded " + " ".join(CARD_STRINGS[c] for c in FA.MELD_CARDS[arg])
    if kind == "DISCARD":
        return f"discarded {CARD_STRINGS[arg]}"
    return f"laid off {CARD_STRINGS[arg]} on a {'run' if kind == 'LAYOFF_RUN' else 'group'}"


def as_command(game: str, actions: list[int]) -> str:
    """The move a person would type for ``actions`` (used by ``hint``)."""
    if game == "rummy500":  # the verb as typed, the cards as written (5C, not 5c)
        verb, *rest = FA.action_to_string(actions[0]).split()
        verb = {"DRAW_STOCK": "draw", "END_HAND": "end"}.get(verb, verb.lower())
        return " ".join([verb, *(w.lower() if w in ("GROUP", "RUN") else w for w in rest)])
    if actions[-1] == RA.COMMIT:
        return "play " + " ".join(tile_name(a) for a in actions[:-1]) if len(actions) > 1 else "commit"
    return RA.action_to_string(actions[0]).lower()
