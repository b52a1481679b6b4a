"""Reading a position (the JSON of ``to_dict``) back into a state, refusing impossible ones.

A hand-written position is the usual way to set up a test or a puzzle, so every
check names the field and what is wrong with it rather than failing later in the
middle of a game. Checks: each of the 52 cards in exactly one place; melds that
are groups or runs (F5) some player could have started (three cards of one owner,
contiguous in a run); phase consistent with the owed card; the owed card usable
(F6); no empty hand before the hand is over (F9); a finished whole game has a
winner (F12).

Keys: game and hands; the others have defaults, as a Rummikub position's do: melds
(default none), discard (bottom first; default empty), stock (next draw first;
default every card in no hand, meld or discard, in pack order), current_player
(-1 when over; default 0), dealer (default the seat before current_player, F2),
phase (draw|meld|discard|over; default draw), scores (running totals, default 0),
must_use (the card taken this turn and still owed; needed in phase meld), known
(per seat, cards taken from the pile and still held), hand_number, rules
(overrides of the rummy500 preset), seed and actions (the replay record), rng (bit
generator state, to continue a whole game exactly; without it the next deals come
from ``default_rng(seed or 0)``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rummienv.cards import ACE_LOW_VALUE, CARD_STRINGS, CARD_VALUES, NUM_CARDS, card_rank, card_suit, parse_card
from rummienv.errors import NotationError, PositionError
from rummienv.position_fields import whole_number
from rummienv.rules import Rummy500Rules, make_rules, played_with
from rummienv.rummy500 import board as bd
from rummienv.rummy500.actions import ACE_HIGH_POS, GROUP, KIND_NAMES, NUM_ACTIONS, RUN
from rummienv.rummy500.kernels import usable
from rummienv.rummy500.state import Rummy500State

_REQUIRED = ("game", "hands")
_OPTIONAL = ("melds", "stock", "discard", "current_player", "dealer", "phase", "scores", "must_use", "known",
             "hand_number", "rules", "seed", "actions", "rng")
_STEPS = {"draw": bd.DRAW_STEP, "meld": bd.PLAY_STEP, "discard": bd.PLAY_STEP, "over": bd.OVER_STEP}


class _Cards:
    """Tracks where each card was seen, to name both places of a duplicate."""

    def __init__(self) -> None:
        self.place: dict[int, str] = {}

    def take(self, tokens: Any, where: str) -> list[int]:
        if not isinstance(tokens, list):
            raise PositionError(f"{where} must be a list of cards, got {tokens!r}")
        cards = []
        for i, token in enumerate(tokens):
            try:
                card = parse_card(token)
            except NotationError as exc:
                raise PositionError(f"{where}[{i}]: {exc}") from exc
            if card in self.place:
                raise PositionError(f"card {CARD_STRINGS[card]} is in two places: {self.place[card]} and {where}")
            self.place[card] = where
            cards.append(card)
        return cards


def _run_positions(cards: list[int], where: str) -> list[int]:
    """Run positions 1..14 of cards written low to high; an ace is low first, high last."""
    if len({card_suit(c) for c in cards}) != 1:
        raise PositionError(f"{where} is not a run: cards of different suits (F5)")
    positions = []
    for i, card in enumerate(cards):
        rank = card_rank(card)
        positions.append((1 if i == 0 else ACE_HIGH_POS) if rank == 1 else rank)
    if any(b != a + 1 for a, b in zip(positions, positions[1:], strict=False)):
        raise PositionError(f"{where} is not a run written low to high, ace low (A-2-3) or high (Q-K-A) (F5)")
    return positions


def _check_started(owners: list[int], kind: str, where: str) -> None:
    """Someone melded the first three cards; everyone else only laid off (F7)."""
    if kind == "group":
        started = any(owners.count(seat) >= 3 for seat in set(owners))
    else:
        started = any(owners[i] == owners[i + 1] == owners[i + 2] for i in range(len(owners) - 2))
    if not started:
        raise PositionError(f"{where}: no player owns three (adjacent) cards of it, so nobody melded it")


def _load_meld(board: np.ndarray, row: int, meld: Any, cards_seen: _Cards) -> None:
    where = f"melds[{row}]"
    if not isinstance(meld, dict) or set(meld) != {"kind", "cards", "owners"}:
        raise PositionError(f"{where} must be a mapping with keys kind, cards, owners; got {meld!r}")
    kind = meld["kind"]
    if kind not in KIND_NAMES:
        raise PositionError(f"{where}.kind must be 'group' or 'run', got {kind!r}")
    cards = cards_seen.take(meld["cards"], f"{where}.cards")
    owners = meld["owners"]
    if not isinstance(owners, list) or len(owners) != len(cards):
        raise PositionError(f"{where}.owners must list one seat per card ({len(cards)}), got {owners!r}")
    owners = [whole_number(o, f"{where}.owners", 0, bd.num_players(board) - 1) for o in owners]
    if len(cards) < 3:
        raise PositionError(f"{where} has {len(cards)} cards; a meld has at least 3 (F5)")
    if kind == "group":
        if len(cards) > 4 or len({card_rank(c) for c in cards}) != 1:
            raise PositionError(f"{where} is not a group: 3 or 4 cards of one rank (F5)")
        bd.melds(board)[row] = (GROUP, card_rank(cards[0]), 0, 0, len(cards))
    else:
        positions = _run_positions(cards, where)
        bd.melds(board)[row] = (RUN, card_suit(cards[0]), positions[0], positions[-1], len(cards))
    _check_started(owners, kind, where)
    for i, (card, owner) in enumerate(zip(cards, owners, strict=True)):
        board[bd.OWNER + card] = owner
        board[bd.MELD_OF + card] = row
        low_ace = kind == "run" and i == 0 and positions[0] == 1
        board[bd.VALUE + card] = ACE_LOW_VALUE if low_ace else CARD_VALUES[card]


def load_state(position: dict[str, Any]) -> Rummy500State:
    """The state of a position dict; PositionError naming the first thing wrong with it."""
    if not isinstance(position, dict):
        raise PositionError(f"a position must be a mapping, got {type(position).__name__}")
    missing = [k for k in _REQUIRED if k not in position]
    unknown = sorted(set(position) - set(_REQUIRED) - set(_OPTIONAL))
    if missing or unknown:
        raise PositionError(
            f"position keys: missing {missing}, unknown {unknown}; allowed: {list(_REQUIRED + _OPTIONAL)}"
        )
    game_name, own = position["game"], played_with(Rummy500Rules)
    if game_name not in own:
        raise PositionError(f"position is for game {game_name!r}, not {' or '.join(map(repr, own))}")
    overrides = position.get("rules", {})
    if not isinstance(overrides, dict):
        raise PositionError(f"rules must map rule fields to values, got {overrides!r}")
    rules = make_rules(game_name, overrides)
    hands = position["hands"]
    if not isinstance(hands, list) or not 2 <= len(hands) <= 4:
        raise PositionError(f"hands must list the hands of 2-4 players (F1), got {hands!r}")
    players = len(hands)
    board = bd.new_board(players)
    seen = _Cards()
    for seat, hand in enumerate(hands):
        bd.hands(board)[seat, seen.take(hand, f"hands[{seat}]")] = 1
    melds = position.get("melds", [])
    if not isinstance(melds, list):
        raise PositionError(f"melds must be a list, got {melds!r}")
    for row, meld in enumerate(melds):
        _load_meld(board, row, meld, seen)
    board[bd.N_MELDS] = len(melds)
    pile = seen.take(position.get("discard", []), "discard")
    board[bd.PILE_N] = len(pile)
    board[bd.PILE : bd.PILE + len(pile)] = pile
    if "stock" in position:
        stock = seen.take(position["stock"], "stock")
    else:  # the cards no hand, meld or the pile holds, in pack order
        stock = seen.take([CARD_STRINGS[c] for c in range(NUM_CARDS) if c not in seen.place], "stock")
    board[bd.STOCK_N] = len(stock)
    board[bd.STOCK : bd.STOCK + len(stock)] = stock[::-1]
    if len(seen.place) != NUM_CARDS:
        absent = " ".join(CARD_STRINGS[c] for c in range(NUM_CARDS) if c not in seen.place)
        raise PositionError(f"position holds {len(seen.place)} cards, a pack has 52 (F1); missing: {absent}")

    phase = position.get("phase", "draw")
    if not isinstance(phase, str) or phase not in _STEPS:
        raise PositionError(f"phase must be one of {list(_STEPS)}, got {phase!r}")
    board[bd.STEP] = _STEPS[phase]
    over = phase == "over"
    seat_range = (-1, -1) if over else (0, players - 1)
    current = whole_number(position.get("current_player", -1 if over else 0), "current_player", *seat_range)
    board[bd.CURRENT] = current
    dealer = whole_number(position.get("dealer", (max(current, 0) - 1) % players), "dealer", 0, players - 1)
    hand_number = whole_number(position.get("hand_number", 0), "hand_number", 0, 10**9)
    scores = position.get("scores", [0] * players)
    if not isinstance(scores, list) or len(scores) != players:
        raise PositionError(f"scores must list {players} running totals, got {scores!r}")
    totals = [whole_number(s, "scores", -(10**9), 10**9) for s in scores]
    _load_known(board, position.get("known", [[] for _ in range(players)]), seen)
    _load_must_use(board, position.get("must_use"), phase)
    state = Rummy500State(rules, players)
    state.restore(board, dealer=dealer, hand_number=hand_number, totals=totals)
    if not over:
        empty = [seat for seat in range(players) if not bd.hands(board)[seat].any()]
        if empty:
            raise PositionError(f"hand of seat {empty[0]} is empty, so the hand is over (F9); phase is {phase!r}")
    elif rules.whole_game and state.game_winner() < 0:
        raise PositionError(
            f"phase 'over' in a whole game needs one leader at or above {rules.target_score} (F12); scores {scores}"
        )
    _load_record(state, position)
    return state


def _load_known(board: np.ndarray, known: Any, seen: _Cards) -> None:
    if not isinstance(known, list) or len(known) != bd.num_players(board):
        raise PositionError(f"known must list, per seat, the cards it took from the pile; got {known!r}")
    for seat, cards in enumerate(known):
        where = f"known[{seat}]"
        for card in _Cards().take(cards, where):
            if not bd.hands(board)[seat, card]:
                raise PositionError(f"{where}: {CARD_STRINGS[card]} is not in hands[{seat}] ({seen.place[card]})")
            bd.known(board)[seat, card] = 1


def _load_must_use(board: np.ndarray, token: Any, phase: str) -> None:
    if phase != "meld":
        if token is not None:
            raise PositionError(f"must_use is {token!r} but phase {phase!r} owes no card; that is phase 'meld'")
        return
    if token is None:
        raise PositionError("phase 'meld' means a card taken from the pile is owed (F6): give it in must_use")
    (card,) = _Cards().take([token], "must_use")
    seat = int(board[bd.CURRENT])
    if not bd.hands(board)[seat, card]:
        raise PositionError(f"must_use {CARD_STRINGS[card]} is not in the hand of seat {seat}, who is to move")
    if not usable(board, seat, card):
        raise PositionError(f"must_use {CARD_STRINGS[card]} cannot be melded or laid off this turn (F6)")
    board[bd.MUST_USE] = card
    bd.known(board)[seat, card] = 1


def _load_record(state: Rummy500State, position: dict[str, Any]) -> None:
    seed = position.get("seed")
    if seed is not None:
        seed = whole_number(seed, "seed", 0, 2**128)
    actions = position.get("actions", [])
    if not isinstance(actions, list):
        raise PositionError(f"actions must be a list of action numbers, got {actions!r}")
    if not all(type(a) is int and 0 <= a < NUM_ACTIONS for a in actions):
        bad = next(a for a in actions if type(a) is not int or not 0 <= a < NUM_ACTIONS)
        raise PositionError(f"actions must be action numbers 0..{NUM_ACTIONS - 1}, got {bad!r}")
    rng = np.random.default_rng(seed or 0)
    if "rng" in position:
        try:
            rng.bit_generator.state = position["rng"]
        except (TypeError, ValueError, KeyError, OverflowError) as exc:  # numbers out of a uint64's range too
            raise PositionError(f"rng is not a PCG64 bit generator state: {exc}") from exc
    state.restore_record(seed, actions, rng)
