"""JSON positions of the Rummikub games read back, with full checks (``describe`` writes them).

A position is how people, tests and the solver CLI talk about a game: it must
round-trip exactly, and a position that cannot occur under the rules is refused
with a message that says what is wrong rather than played on.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

import numpy as np

from rummienv.errors import PositionError
from rummienv.position_fields import true_or_false, whole_number
from rummienv.rules import RummikubRules, make_rules, played_with
from rummienv.rummikub.sets import describe_invalid, set_kind, set_numbers
from rummienv.rummikub.state import RummikubGame, RummikubState, full_set
from rummienv.tiles import JOKER, NUM_TYPES, number_of, parse_tiles, tile_name, tiles_of
from rummienv.wording import counted

_MOST_TURNS = 10**6  # of a round, far above any game's: a count the state's 64-bit numbers hold
_KEYS = {"game", "racks", "table", "pool", "opened", "plays", "current_player", "staged", "passes", "round",
         "totals", "rounds_won", "rules", "whole_game", "seed", "swapped",
         "over", "round_scores"}


def load_state(position: dict[str, Any]) -> RummikubState:
    """Build a state from a position.

    The pool may be left out: it is then every piece not in a rack or on the
    table, in sorted order. Where it is given, pieces found nowhere are out of
    the round (scripted positions need not list all 106).
    """
    if not isinstance(position, dict):
        raise PositionError(f"a position is a JSON object, got {type(position).__name__}")
    unknown = set(position) - _KEYS
    if unknown:
        raise PositionError(f"unknown position keys {sorted(unknown, key=str)}; allowed: {sorted(_KEYS)}")
    game_name = position.get("game")
    editions = played_with(RummikubRules)
    if game_name not in editions:
        raise PositionError(f"position game must be {' or '.join(map(repr, editions))}, got {game_name!r}")
    overrides = position.get("rules") or {}
    if not isinstance(overrides, dict):
        raise PositionError(f"position 'rules' must map rule fields to values, got {overrides!r}")
    rules: RummikubRules = make_rules(game_name, overrides or None)
    racks_in = position.get("racks")
    if not isinstance(racks_in, list) or not 2 <= len(racks_in) <= 4:
        raise PositionError("position 'racks' must be a list of 2 to 4 racks (lists of tiles)")
    game = RummikubGame(rules, len(racks_in), whole_game=true_or_false(position.get("whole_game", False),
                                                                         "position 'whole_game'"))
    state = RummikubState(game)
    state.seed = whole_number(position.get("seed", 0), "position 'seed'", 0, 2**128)
    p = len(racks_in)
    racks = np.array([_count(_tiles(rack, f"'racks'[{seat}]")) for seat, rack in enumerate(racks_in)])
    table_in = position.get("table", [])
    if not isinstance(table_in, list):
        raise PositionError(f"position 'table' must be a list of sets, got {table_in!r}")
    sets = [_read_set(s, i) for i, s in enumerate(table_in)]
    table = _count([tile for _, pieces in sets for tile in pieces])
    swapped = _tiles(position.get("swapped", []), "'swapped'")
    placed = racks.sum(axis=0) + table
    placed[JOKER] -= len(swapped)  # a freed joker is in a set and in the rack
    if "pool" in position:  # pieces in no rack, set or pool are out of this round
        pool = _tiles(position["pool"], "'pool'")
        _check_counts(placed + _count(pool), rules)
    else:
        _check_counts(placed, rules)
        pool = tiles_of(full_set(rules) - placed)
    state.racks[:] = racks
    state.table = table.astype(np.int8)
    state.pool = list(reversed(pool))
    state.opened = _read_bools(position.get("opened", [False] * p), p)
    state.plays = _read_plays(position.get("plays", [int(o) for o in state.opened]), state.opened)
    current = position.get("current_player", 0)
    if isinstance(current, bool) or not isinstance(current, int) or not 0 <= current < p:
        raise PositionError(f"current_player must be a seat 0..{p - 1}, got {current!r}")
    over = true_or_false(position.get("over", False), "position 'over'")
    state.restore(sets, current, over=over)
    staged = _count(_tiles(position.get("staged", []), "'staged'"))
    if np.any(staged > racks[current]):
        raise PositionError("staged tiles must all be in the current player's rack")
    state.staged = staged.astype(np.int8)
    state.swapped = swapped
    for tile in state.swapped:  # K6: the joker that stood for it is freed, staged, and no longer on the table
        if tile == JOKER or staged[tile] == 0 or state.fixed[number_of(tile)] == 0:
            raise PositionError(f"'swapped' tile {tile_name(tile)} must be staged and a table joker must "
                                "stand for its number")
        state.fixed[number_of(tile)] -= 1
    if len(state.swapped) > staged[JOKER]:
        raise PositionError("each swapped tile frees a joker, which must be among the staged tiles")
    state.passes = whole_number(position.get("passes", 0), "position 'passes'", 0, p if over else p - 1)
    state.round = whole_number(position.get("round", 0), "position 'round'", 0, game.episode_rounds - 1)
    state.totals = _fractions(position.get("totals", [0] * p), p, "'totals'")
    state.rounds_won = [whole_number(w, "position 'rounds_won'", 0, game.num_rounds)
                        for w in _per_seat(position.get("rounds_won", [0] * p), p, "'rounds_won'")]
    if position.get("round_scores") is not None:
        state.round_scores = _fractions(position["round_scores"], p, "'round_scores'")
    if state.is_terminal() and state.round_scores is None:
        raise PositionError("a position that is over must give its 'round_scores'")
    _check_reachable(state)
    return state


def _check_reachable(state: RummikubState) -> None:
    """Refuse what play cannot reach: a round goes on only while every rack holds a piece (T8), and sets
    reach the table only through a seat's opening (T4/K3)."""
    if state.is_terminal():
        return
    empty = [seat for seat in range(state.num_players) if not state.racks[seat].any()]
    if empty:
        raise PositionError(f"rack of seat {empty[0]} is empty, so the round is over (T8): give 'over' and "
                            "'round_scores', or a piece to that rack")
    if state.table_counts().any() and not state.opened.any():
        raise PositionError("the table holds sets but no seat has opened (T4/K3): mark in 'opened' the seats "
                            "that laid them")


def _read_set(raw: Any, index: int) -> tuple[str, tuple[int, ...]]:
    where = f"table set {index}"
    if isinstance(raw, dict):
        if len(raw) != 1 or next(iter(raw)) not in ("run", "group"):
            raise PositionError(f"{where}: write a set as a list of tiles or {{'run'|'group': [tiles]}}")
        kind, tokens = next(iter(raw.items()))
        pieces = tuple(_tiles(tokens, where))
        if set_numbers(pieces, kind) is None:
            raise PositionError(f"{where}: {describe_invalid(pieces)}")
        return kind, pieces
    pieces = tuple(_tiles(raw, where))
    kind = set_kind(pieces)
    if kind is None:
        raise PositionError(f"{where}: {describe_invalid(pieces)}")
    return kind, pieces


def _tiles(raw: Any, where: str) -> list[int]:
    """The tiles of a list of tokens (a NotationError names a bad token)."""
    if not isinstance(raw, list):
        raise PositionError(f"{where} must be a list of tiles (r7, k13, J), got {raw!r}")
    return parse_tiles(raw)


def _count(tiles: list[int]) -> np.ndarray:
    """Tiles as 64-bit counts: a long list must be refused as too many copies, not wrap around in the state's
    8-bit counts."""
    return np.bincount(np.array(tiles, dtype=np.int64), minlength=NUM_TYPES)


def _per_seat(raw: Any, players: int, where: str) -> list[Any]:
    if not isinstance(raw, list) or len(raw) != players:
        raise PositionError(f"position {where} must list one value per seat ({players}), got {raw!r}")
    return raw


_FRACTION = re.compile(r"-?[0-9]{1,40}(?:/([0-9]{1,40}))?")


def _fractions(raw: Any, players: int, where: str) -> list[Fraction]:
    """Points per seat as ``to_dict`` writes them: whole numbers, or fractions such as "7/2". A whole number, what
    nearly every position holds, is made from its digits, which costs a tenth of parsing the text as a fraction."""
    points = []
    for value in _per_seat(raw, players, where):
        text = str(value) if isinstance(value, int) and not isinstance(value, bool) else value
        match = _FRACTION.fullmatch(text) if isinstance(text, str) else None
        if match is None or int(match.group(1) or 1) == 0:
            raise PositionError(f"position {where} must hold whole numbers or fractions such as '7/2' (up to 40 "
                                f"digits each), got {value!r}")
        points.append(Fraction(text) if match.group(1) else Fraction(int(text)))
    return points


def _check_counts(total: np.ndarray, rules: RummikubRules) -> None:
    full = full_set(rules).astype(np.int64)
    too_many = np.flatnonzero(total > full)
    if too_many.size:
        t = int(too_many[0])
        raise PositionError(
            f"tile {tile_name(t)} appears {counted(int(total[t]), 'time')} in racks, table and pool; "
            f"only {int(full[t])} exist in {rules.game}"
        )


def _read_plays(raw: Any, opened: np.ndarray) -> np.ndarray:
    """Turns this round on which each seat laid pieces: none before its opening, at least the opening after;
    left out, the fewest that agree with 'opened'."""
    if not isinstance(raw, list) or len(raw) != len(opened) or not all(
            isinstance(n, int) and not isinstance(n, bool) and (1 <= n <= _MOST_TURNS if o else n == 0)
            for n, o in zip(raw, opened, strict=True)):
        raise PositionError(f"'plays' must list {len(opened)} counts of turns with a play: 0 for a seat that has not "
                            f"opened, at least 1 for one that has (at most {_MOST_TURNS}; opened: "
                            f"{[bool(o) for o in opened]}), got {raw!r}")
    return np.array(raw, dtype=np.int64)


def _read_bools(raw: Any, players: int) -> np.ndarray:
    if not isinstance(raw, list) or len(raw) != players or not all(isinstance(b, bool) for b in raw):
        raise PositionError(f"'opened' must be a list of {players} true/false values")
    return np.array(raw, dtype=bool)
