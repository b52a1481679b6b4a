"""An auditor of positions and games, written from the text of docs/RULES.md alone.

Why it stands apart from the engine: the engine's set logic (``rummikub/sets.py``, the solver, Rummy 500's compiled
melds) both makes the moves and checks them, so a mistake there would pass its own checks. This module reads
only what a position shows (``State.to_dict``: racks or hands, table sets or melds, pool or stock, the discard
pile, scores) and the numbers of the rules presets (``rummienv.rules``: jokers, thresholds, penalties), and
re-derives every rule it checks from the book's words, with its own notation reader; it imports no game
engine. A problem is one line that starts with the id of the rule broken (``"C3: table set 2 ..."``).

Checks of one position (``audit_position``):

- T1/K1/F1: every piece of the box is in exactly one place (a rack or hand, a table set or meld, the pool or
  stock, the discard pile); staged pieces are still counted in the mover's rack (T3) and a joker freed by an
  exchange (K6) is counted in its set and in the rack, as positions write them;
- C2-C4, F5: every table set is a group or a run; C5 gives a set's value;
- T8: a round goes on only while every rack holds a piece; T7/K9, F9/F10: a round or hand ends only when
  someone is out or the pool or stock is empty;
- T9/T10 (jokers as T9, or 25 by K7), F4/F11: the scores of a finished round or hand; F12: a finished whole
  game has a single top total at the target;
- F3, F6: cards known to all (taken from the pile) and the card owed to the table are in the right hand.

Checks of one move, from the positions before and after it (``audit_step``):

- C6: a piece that reached the table stays there for the round; F7: a meld keeps its kind, its cards and
  who laid each;
- T4/K3: an opening leaves the table's sets as they were and adds sets of the mover's staged pieces worth the
  threshold (C5);
- K5: in the card edition a table joker keeps the number it stands for, unless it was exchanged (K6);
- T9/T10/T11, F11: the running totals move by the round's (hand's) scores, whole games included (a whole
  Rummy 500 game deals the next hand inside the move that ends one, so only its last hand is scored here).

Validate a recorded game with ``python -m rummienv.audit game.json`` (a replay file).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Any

from rummienv import games
from rummienv.rules import RummikubRules, Rummy500Rules, make_rules

Position = dict[str, Any]

# ---------------------------------------------------------------------------------------- Rummikub (C, T, K)
COLOURS = "kbor"  # C1: black, blue, orange, red
TOP = 13  # C1: numbered 1 to 13
JOKER = "J"
BoardSet = tuple[str, tuple[str, ...]]  # (kind, pieces as written, in order)


class Broken(ValueError):
    """A set that breaks a rule: the message starts with the rule's id."""


def _number(piece: str) -> int:
    return int(piece[1:])


def set_numbers(kind: str, pieces: Sequence[str]) -> list[int]:
    """The number each piece stands for in a group or run (C2-C4); ``Broken`` says which rule it breaks."""
    return list(_set_numbers(kind, tuple(pieces)))


@lru_cache(maxsize=1 << 16)
def _set_numbers(kind: str, pieces: tuple[str, ...]) -> tuple[int, ...]:
    """Kept per set: a table's sets stay as they are over most moves, and a soak audits every move."""
    numbered = [p for p in pieces if p != JOKER]
    written = " ".join(pieces)
    if len(pieces) < 3:
        raise Broken(f"C2/C3: [{written}] has {len(pieces)} pieces; a set needs at least 3")
    if not numbered:
        raise Broken(f"C4: [{written}] is jokers alone; a set needs a numbered piece")
    if kind == "group":
        colours = {p[0] for p in numbered}
        if len(pieces) > 4 or len({_number(p) for p in numbered}) != 1 or len(colours) != len(numbered):
            raise Broken(f"C2: [{written}] is not a group: 3 or 4 pieces of one number, no colour twice")
        return (_number(numbered[0]),) * len(pieces)
    if kind != "run":
        raise Broken(f"C2/C3: a set is a group or a run, not {kind!r}")
    if len({p[0] for p in numbered}) != 1:
        raise Broken(f"C3: [{written}] is not a run: its pieces are of more than one colour")
    at = next(i for i, p in enumerate(pieces) if p != JOKER)
    start = _number(pieces[at]) - at
    numbers = tuple(range(start, start + len(pieces)))
    if any(p != JOKER and _number(p) != n for p, n in zip(pieces, numbers, strict=True)):
        raise Broken(f"C3: [{written}] is not a run: its numbers are not consecutive from low to high")
    if start < 1 or numbers[-1] > TOP:
        raise Broken(f"C3/C4: [{written}] would reach below 1 or above 13: runs do not wrap round")
    return numbers


def read_set(raw: Any) -> BoardSet:
    """A table set as a position writes it: ``{"run"|"group": [...]}``, or a list read as a group where it can be
    one, else as a run."""
    if isinstance(raw, dict):
        ((kind, pieces),) = raw.items()
        return kind, tuple(pieces)
    try:
        set_numbers("group", raw)
        return "group", tuple(raw)
    except Broken:
        return "run", tuple(raw)


def set_value(kind: str, pieces: Sequence[str]) -> int:
    """C5: the numbers the pieces show, a joker counting the one it stands for."""
    return sum(set_numbers(kind, pieces))


@lru_cache
def _box(jokers: int) -> Counter:
    """C1, T1/K1: two of every colour and number, and the preset's jokers. Kept, not changed: asked every move."""
    return Counter({**{f"{c}{n}": 2 for c in COLOURS for n in range(1, TOP + 1)}, JOKER: jokers})


def rack_points(rack: Iterable[str], joker_penalty: int) -> int:
    """T9/K7: a rack's minus points, a joker at the preset's penalty (30 tiles, 25 cards)."""
    return sum(joker_penalty if p == JOKER else _number(p) for p in rack)


def round_scores(racks: Sequence[Sequence[str]], joker_penalty: int) -> list[Fraction]:
    """T9 when a rack is empty (its seat takes what the others hold), else T10 (the lowest racks share the
    differences)."""
    values = [rack_points(r, joker_penalty) for r in racks]
    low = min(values)
    winners = [s for s, v in enumerate(values) if v == low]
    plus = Fraction(sum(v - low for v in values), len(winners))
    return [plus if s in winners else Fraction(low - v) for s, v in enumerate(values)]


def _rummikub_sets(position: Position, problems: list[str]) -> list[BoardSet]:
    sets = []
    for i, raw in enumerate(position["table"]):
        kind, pieces = read_set(raw)
        try:
            set_numbers(kind, pieces)
        except Broken as exc:
            problems.append(f"{exc} (table set {i})")
        sets.append((kind, pieces))
    return sets


def _audit_rummikub(position: Position, rules: RummikubRules) -> list[str]:
    problems: list[str] = []
    sets = _rummikub_sets(position, problems)
    racks, mover = position["racks"], position["current_player"]
    placed = Counter(position["pool"])
    for pieces in [*racks, *(p for _, p in sets)]:
        placed.update(pieces)
    placed[JOKER] -= len(position["swapped"])  # K6: a freed joker is written in its set and in the rack
    box = _box(rules.jokers)
    for piece in sorted(set(box) | set(placed)):
        if placed[piece] != box[piece]:
            problems.append(f"T1/K1: {piece} is in {placed[piece]} places (racks, table, pool); the box has "
                            f"{box[piece]}")
    if Counter(position["staged"]) - Counter(racks[mover]):
        problems.append(f"T3: staged pieces {position['staged']} are not all in the rack of seat {mover}")
    if Counter(position["swapped"]) - Counter(position["staged"]):
        problems.append(f"K6: exchanged pieces {position['swapped']} are not all staged")
    totals = [Fraction(t) for t in position["totals"]]
    if sum(totals) != 0:
        problems.append(f"T9/T10: the totals {position['totals']} do not add up to zero")
    if not position["over"]:
        problems += [f"T8: seat {s}'s rack is empty, yet the round goes on" for s, r in enumerate(racks) if not r]
        return problems
    out = [s for s, r in enumerate(racks) if not r]
    if not out and position["pool"]:
        problems.append(f"T7/K9: the round ended with nobody out and {len(position['pool'])} pieces in the pool")
    if len(out) > 1:
        problems.append(f"T8: seats {out} are all out")
    expected = round_scores(racks, rules.joker_penalty)
    given = [Fraction(x) for x in position["round_scores"] or []]
    if given != expected:
        problems.append(f"{'T9' if out else 'T10'}/K7: round scores {[str(x) for x in given]}, the racks give "
                        f"{[str(x) for x in expected]}")
    if not position["whole_game"] and totals != given:
        problems.append(f"T11: a one-round game's totals {position['totals']} are not its round's scores")
    return problems


def _joker_numbers(position: Position) -> Counter:
    """K5: the numbers the table's jokers stand for."""
    numbers: Counter = Counter()
    for raw in position["table"]:
        kind, pieces = read_set(raw)
        try:
            numbers.update(n for p, n in zip(pieces, set_numbers(kind, pieces), strict=True) if p == JOKER)
        except Broken:
            continue  # reported by the position's own audit
    return numbers


def _step_rummikub(before: Position, after: Position, rules: RummikubRules) -> list[str]:
    problems: list[str] = []
    if before["over"]:
        return problems
    if after["over"] or after["round"] != before["round"]:  # the move ended the round: score it from before
        mover = before["current_player"]
        racks = [list(r) for r in before["racks"]]
        racks[mover] = list((Counter(racks[mover]) - Counter(before["staged"])).elements())
        expected = round_scores(racks, rules.joker_penalty)
        moved = [Fraction(a) - Fraction(b) for a, b in zip(after["totals"], before["totals"], strict=True)]
        if moved != expected:
            problems.append(f"T9/T10/T11: the totals moved by {[str(x) for x in moved]} as the round ended; its "
                            f"racks give {[str(x) for x in expected]}")
        return problems
    old = [read_set(s) for s in before["table"]]
    new = [read_set(s) for s in after["table"]]
    lost = _pieces(old) - _pieces(new)
    if lost:
        problems.append(f"C6: {sorted(lost.elements())} left the table")
    for seat, (was, now) in enumerate(zip(before["opened"], after["opened"], strict=True)):
        if now and not was:
            problems += _audit_opening(old, new, before, seat, rules.opening_threshold)
    if rules.jokers_keep_number:
        freed = Counter(_number(p) for p in before["swapped"])
        changed = (_joker_numbers(before) - freed) - _joker_numbers(after)
        if changed:
            problems.append(f"K5: table jokers that stood for {sorted(changed.elements())} no longer do")
    return problems


def _pieces(sets: Iterable[BoardSet]) -> Counter:
    """Every piece of the sets (a Counter of sets gives each set as often as it counts)."""
    return Counter(p for _, pieces in sets for p in pieces)


def _audit_opening(old: list[BoardSet], new: list[BoardSet], before: Position, seat: int, threshold: int
                   ) -> list[str]:
    """T4/K3: the opening adds new sets of the opener's own pieces, worth the threshold, and touches no other."""
    added = Counter(new) - Counter(old)
    if Counter(old) - Counter(new):
        return [f"T4/K3: seat {seat}'s opening changed the table's sets {sorted(Counter(old) - Counter(new))}"]
    problems = []
    if _pieces(added.elements()) != Counter(before["staged"]):
        problems.append(f"T4/K3: seat {seat} opened with {sorted(_pieces(added.elements()).elements())}, "
                        f"not its staged {sorted(before['staged'])}")
    try:
        worth = sum(set_value(kind, pieces) for kind, pieces in added.elements())
    except Broken:
        return problems  # reported by the position's own audit
    if worth < threshold:
        problems.append(f"T4/K3: seat {seat}'s opening is worth {worth}, under {threshold}")
    return problems


# ------------------------------------------------------------------------------------------- Rummy 500 (F)
RANKS = "A23456789TJQK"  # F1
SUITS = "SHDC"


def _rank(card: str) -> int:
    return RANKS.index(card[0]) + 1


def meld_ranks(kind: str, cards: Sequence[str]) -> list[int]:
    """The place of each card in a meld (F5): its rank, an ace 1 at the low end of a run and 14 at the high end;
    ``Broken`` says why it is no meld."""
    written = " ".join(cards)
    if len(cards) < 3:
        raise Broken(f"F5: [{written}] has {len(cards)} cards; a meld needs at least 3")
    if kind == "group":
        if len(cards) > 4 or len({c[0] for c in cards}) != 1 or len(set(cards)) != len(cards):
            raise Broken(f"F5: [{written}] is not a group: 3 or 4 cards of one rank")
        return [_rank(c) for c in cards]
    if kind != "run" or len({c[1] for c in cards}) != 1:
        raise Broken(f"F5: [{written}] is not a run: a run is of one suit")
    ranks = [_rank(c) for c in cards]
    if ranks[-1] == 1 and len(cards) > 1:
        ranks[-1] = 14  # Q-K-A: the ace high
    if 1 in ranks[1:] or ranks != list(range(ranks[0], ranks[0] + len(ranks))):
        raise Broken(f"F5: [{written}] is not a run: ranks in sequence, an ace low (A-2-3) or high (Q-K-A) "
                     "only, never round the corner (K-A-2)")
    return ranks


def card_value(card: str, place: int = 0) -> int:
    """F4: 2-10 their number, J Q K 10, an ace 15, or 1 at the low end of a run (``place`` 1)."""
    rank = _rank(card)
    if rank == 1:
        return 1 if place == 1 else 15
    return min(rank, 10)


def hand_scores(position: Position) -> list[int]:
    """F11: each seat's cards on the table (melds and lay-offs it laid) minus the cards in its hand."""
    scores = [-sum(card_value(c) for c in hand) for hand in position["hands"]]
    for meld in position["melds"]:
        try:
            places = meld_ranks(meld["kind"], meld["cards"])
        except Broken:
            continue  # reported by the position's own audit
        for card, owner, place in zip(meld["cards"], meld["owners"], places, strict=True):
            scores[owner] += card_value(card, place if meld["kind"] == "run" else 0)
    return scores


def _audit_rummy500(position: Position, rules: Rummy500Rules) -> list[str]:
    problems: list[str] = []
    hands, players = position["hands"], len(position["hands"])
    places = Counter(position["discard"]) + Counter(position["stock"])
    for hand in hands:
        places.update(hand)
    for i, meld in enumerate(position["melds"]):
        places.update(meld["cards"])
        try:
            meld_ranks(meld["kind"], meld["cards"])
        except Broken as exc:
            problems.append(f"{exc} (meld {i})")
        if len(meld["owners"]) != len(meld["cards"]) or not all(0 <= o < players for o in meld["owners"]):
            problems.append(f"F7: meld {i}'s owners {meld['owners']} do not name a seat for each card")
    pack = Counter(r + s for s in SUITS for r in RANKS)
    for card in sorted(set(pack) | set(places)):
        if places[card] != pack[card]:
            problems.append(f"F1: {card} is in {places[card]} places (hands, melds, discard pile, stock); "
                            f"the pack has {pack[card]}")
    for seat, cards in enumerate(position["known"]):
        if set(cards) - set(hands[seat]):
            problems.append(f"F3: cards {sorted(set(cards) - set(hands[seat]))} known in seat {seat}'s hand are "
                            "not there")
    owed, mover = position["must_use"], position["current_player"]
    if owed is not None and (mover < 0 or owed not in hands[mover]):
        problems.append(f"F6: the card owed to the table, {owed}, is not in the hand of the seat to move")
    if position["phase"] != "over":
        return problems
    if all(hands) and position["stock"]:
        problems.append("F9/F10: the hand ended with nobody out and cards in the stock")
    scores = position["scores"]
    if not rules.whole_game and scores != hand_scores(position):
        problems.append(f"F11: the hand scores {scores}, its table and hands give {hand_scores(position)}")
    top = max(scores)
    if rules.whole_game and (top < rules.target_score or scores.count(top) > 1):
        problems.append(f"F12: the game ended with totals {scores}: no single total at {rules.target_score}")
    return problems


def _step_rummy500(before: Position, after: Position) -> list[str]:
    problems: list[str] = []
    if before["phase"] == "over" or after["hand_number"] != before["hand_number"]:
        return problems  # a new hand: its scores were added within the move, unseen (module docstring)
    if after["phase"] == "over":
        moved = [a - b for a, b in zip(after["scores"], before["scores"], strict=True)]
        if moved != hand_scores(after):
            problems.append(f"F11: the totals moved by {moved} as the hand ended; its table and hands give "
                            f"{hand_scores(after)}")
    row_of = {c: row for row, m in enumerate(after["melds"]) for c in m["cards"]}
    owner_of = {c: o for m in after["melds"] for c, o in zip(m["cards"], m["owners"], strict=True)}
    for meld in before["melds"]:
        rows = {row_of.get(c) for c in meld["cards"]}
        row = rows.pop() if len(rows) == 1 else None
        if row is None or after["melds"][row]["kind"] != meld["kind"]:
            problems.append(f"F7: the {meld['kind']} {meld['cards']} was rearranged or left the table")
        elif [owner_of[c] for c in meld["cards"]] != meld["owners"]:
            problems.append(f"F7: cards of {meld['cards']} changed owner: {meld['owners']} became "
                            f"{[owner_of[c] for c in meld['cards']]}")
    return problems


# -------------------------------------------------------------------------------------------------- entry
def _rules(position: Position) -> RummikubRules | Rummy500Rules:
    return make_rules(position["game"], position.get("rules") or None)


def audit_position(position: Position) -> list[str]:
    """What is wrong with one position (``State.to_dict``): one line per broken rule, each starting with its id."""
    rules = _rules(position)
    if isinstance(rules, RummikubRules):
        return _audit_rummikub(position, rules)
    if isinstance(rules, Rummy500Rules):
        return _audit_rummy500(position, rules)
    raise ValueError(f"no audit of {games.of(rules).title}'s rules")


def audit_step(before: Position, after: Position) -> list[str]:
    """What is wrong with the move from ``before`` to ``after`` (positions of one game, one move apart) that
    neither position shows alone."""
    rules = _rules(after)
    if isinstance(rules, RummikubRules):
        return _step_rummikub(before, after, rules)
    return _step_rummy500(before, after)


def audit_game(positions: Iterable[Position]) -> list[str]:
    """Every problem of a game given as its positions in order (the deal, then one per move), each prefixed
    with the index of the position it was found at."""
    problems, before = [], None
    for k, position in enumerate(positions):
        found = audit_position(position) + ([] if before is None else audit_step(before, position))
        problems += [f"position {k}: {p}" for p in found]
        before = position
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    """Audit replay files; the exit status is 1 where a rule is broken, so that scripts can gate on it."""
    from rummienv.replay import read, states

    parser = argparse.ArgumentParser(prog="python -m rummienv.audit",
                                     description="Check every position of recorded games against the rule book.")
    parser.add_argument("replays", nargs="+", help="replay files (JSON), as the evaluator, play or soak write")
    args = parser.parse_args(argv)
    broken = 0
    for path in args.replays:
        problems = audit_game(state.to_dict() for state in states(read(path)))
        broken += bool(problems)
        print(f"{path}: {len(problems)} problems", *problems[:20], sep="\n  ")
    return int(broken > 0)


if __name__ == "__main__":
    sys.exit(main())
