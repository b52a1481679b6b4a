"""How people see and type Rummy 500: the terminal game's text and moves, the replay page's pieces.

A person types a move in a plain form (``take 9S``, ``meld 5D 6D 7D``); it becomes one
action of the fixed action space, so a person is held to exactly the same mask as a
bot. ``rummienv.play_text`` hands each game's questions to its module like this one
(the registry's ``display``, giving what ``rummienv.display_protocol.Display`` names).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from rummienv.cards import CARD_STRINGS, card_rank, card_suit, parse_card
from rummienv.errors import IllegalActionError, NotationError
from rummienv.inks import card_ink, hex_ink
from rummienv.rummy500 import actions as FA
from rummienv.rummy500.explain import why_illegal
from rummienv.wording import counted

HELP = ("moves: draw | take <card> | meld <cards> | layoff <card> [run|group] | discard <card> | "
        "end (stock empty) | hint | auto | quit;  cards like 9S TD AH")
HINT = "value"  # the bot whose move ``hint`` suggests
NO_CLOCK = "Rummy 500 has no turn clock (F13)"
DRAWS = frozenset({FA.DRAW_STOCK})  # the stock's card is unseen until drawn: what follows depends on it


def _cards(names: list[str]) -> str:
    """Cards sorted by suit, then rank, as a person holds them."""
    order = sorted((CARD_STRINGS.index(n) for n in names), key=lambda c: (card_suit(c), card_rank(c)))
    return " ".join(CARD_STRINGS[c] for c in order) or "-"


def deal_number(view: dict[str, Any]) -> int:
    return view["hand_number"]


def totals(state: Any) -> list:
    return list(state.view(0)["scores"])


def table_sets(state: Any) -> None:
    """Nothing to mark as new: melds only grow, and each says who laid it."""
    return None


def render(state: Any, me: int, names: list[str], seen: list | None = None) -> str:
    """The position as seat ``me`` sees it."""
    view = state.view(me)
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
    lines.append("scores: " + ", ".join(f"seat {s} ({names[s]}) {points}" for s, points in enumerate(view["scores"])))
    lines.append(f"your hand ({len(view['hand'])}): {_cards(view['hand'])}")
    if view["must_use"]:
        lines.append(f"you must still use {view['must_use']} this turn (F6)")
    return "\n".join(lines)


def who_starts(state: Any, first: str) -> str:
    return f"{first}: the seat after the dealer (seat {state.dealer}) plays first (F2)"


def parse_move(verb: str, args: list[str], text: str, state: Any) -> list[int]:
    if verb in ("draw", "end") and not args:
        return [FA.DRAW_STOCK if verb == "draw" else FA.END_HAND]
    if verb in ("take", "discard") and len(args) == 1:
        return [(FA.TAKE if verb == "take" else FA.DISCARD) + parse_card(args[0])]
    if verb == "meld" and args:
        cards = [parse_card(a) for a in args]  # a token that is no card is not understood
        try:
            return [FA.string_to_action("MELD " + " ".join(args))]
        except NotationError:  # cards, but no group or run: understood, and not legal
            raise IllegalActionError(f"{' '.join(CARD_STRINGS[c] for c in cards)} is not a group or run (F5)"
                                     ) from None
    if verb == "layoff" and len(args) in (1, 2):
        card = parse_card(args[0])
        if len(args) == 2:
            return [FA.string_to_action(f"LAYOFF {args[0]} {args[1]}")]
        mask = state.legal_action_mask()
        fits = [a for a in (FA.LAYOFF_GROUP + card, FA.LAYOFF_RUN + card) if mask[a]]
        if len(fits) == 2:
            raise NotationError(f"{args[0]} fits a group and a run: say 'layoff {args[0]} run' or '... group'")
        return [fits[0] if fits else FA.LAYOFF_RUN + card]  # refused by the state, which says why
    raise NotationError(f"unknown move {text!r}; {HELP}")


# The state's reasons name actions as the action table does; a person typed other words.
TYPED_WORDS = {"DRAW_STOCK or TAKE a card": "draw, or take a card from the pile", "END_HAND": "end",
               "the player has already drawn": "you have already drawn"}


def why_not(state: Any, action: int, error: IllegalActionError) -> str:
    """The rule broken, in the words a person types: the state's own message lists internal action names."""
    if state.is_terminal():
        return str(error)
    reason = why_illegal(state.board, action)
    held = f"seat {state.current_player} does not hold "
    if reason.startswith(held):
        missing = reason.removeprefix(held)
        return f"{missing} {'is' if ' ' not in missing else 'are'} not in your hand"
    for internal, typed in TYPED_WORDS.items():
        reason = reason.replace(internal, typed)
    return reason


def gained(before: dict[str, Any], after: dict[str, Any]) -> str:
    """The cards that came into a seat's hand between two of its views."""
    return _cards(list((Counter(after["hand"]) - Counter(before["hand"])).elements()))


def _words(action: int) -> str:
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


def describe_turn(actions: list[int]) -> str:
    """One line for what a seat did in its turn (the person reads the bots' moves here)."""
    return "; ".join(_words(a) for a in actions)


def as_command(actions: list[int]) -> str:
    """The move a person would type for ``actions`` (used by ``hint``): the verb as typed, the cards as
    written (5C, not 5c)."""
    verb, *rest = FA.action_to_string(actions[0]).split()
    verb = {"DRAW_STOCK": "draw", "END_HAND": "end"}.get(verb, verb.lower())
    return " ".join([verb, *(w.lower() if w in ("GROUP", "RUN") else w for w in rest)])


def whole_turns(state: Any) -> list[list[int]]:
    """None to offer: a turn is one decision at a time here (draw or take, meld, lay off, discard), and each is
    listed as a move of its own."""
    return []


def rules_brief(game: Any) -> str:
    """The rules a player needs to choose moves, in a paragraph (docs/RULES.md holds them in full)."""
    rules = game.rules
    dealt = rules.hand_size_two_players if game.num_players == 2 else rules.hand_size
    return (f"You play Rummy 500, {game.num_players} players, {dealt} cards each from one 52-card pack. Cards are "
            "rank then suit: A 2-9 T J Q K and S H D C (TD is the ten of diamonds). Melds are groups (3-4 cards of "
            "one rank) and runs (3+ cards of one suit in sequence, the ace low A-2-3 or high Q-K-A, no wrap). A "
            "turn: first draw the stock's top card, or take any card of the face-up discard pile together with "
            "every card above it, and then you must use that card in a meld or lay-off this same turn; then lay "
            "melds and lay cards off on any meld on the table as you like; then discard one card (not the one you "
            "had to use). The hand ends when a seat has no cards left. Each seat scores what it has on the table "
            "minus what is left in its hand (2-10 their number, J Q K 10, an ace 15 but 1 at the low end of a run). "
            + (f"Hands are dealt until a total reaches {rules.target_score}; the highest total wins."
               if rules.whole_game else "This game is one hand: aim for the highest score in it."))


def _page_card(card: str) -> list[str]:
    return [card, hex_ink(card_ink(card))]


def page_parts(views: list[dict[str, Any]]) -> tuple[list, list, str, list[str]]:
    """The replay page's table, hands, pile line and totals, from every seat's view."""
    first = views[0]
    table = [{"label": f"{m['kind']} by {','.join(map(str, sorted(set(m['owners']))))}",
              "pieces": [_page_card(c) for c in m["cards"]]} for m in first["melds"]]
    hands = [[_page_card(c) for c in v["hand"]] for v in views]
    pile = f"stock {first['stock_size']}; discard pile: {' '.join(first['discard']) or '-'}"
    return table, hands, pile, [str(x) for x in first["scores"]]
