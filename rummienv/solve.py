"""``python -m rummienv.solve``: the best play of a Rummikub position, as JSON.

For people checking a position by hand and for scripts comparing solvers. The
table may be written flat (``"r1 r2 r3 k7 b7 o7"``) or as sets separated by ``|``
(``"r1 r2 r3 | k7 J o7"``); in the card edition a table joker keeps the number its
place stands for (K5), so there the sets must be given when jokers lie on the table.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import numpy as np

from rummienv.errors import PositionError
from rummienv.rules import RummikubRules, make_rules, played_with
from rummienv.rummikub import solver
from rummienv.rummikub.sets import describe_invalid, set_kind, set_numbers
from rummienv.tiles import JOKER, NUMBERS, counts_of, parse_tiles, tile_name, tiles_of
from rummienv.wording import counted

# What the answer's points mean, said in --help and docs/solver.md: a joker is worth no number of its own.
POINTS = ("points_played adds the numbers of the pieces played, a joker counting what it costs left on a rack: 30 "
          "in rummikub (T9), 25 in rummikub_cards (K7); --objective points maximises that sum")


def read_table(text: str, jokers_keep_number: bool) -> tuple[np.ndarray, np.ndarray, list[list[int]]]:
    """Table counts (index 52: free jokers), jokers fixed per number, and the sets as laid."""
    fixed = np.zeros(NUMBERS + 1, dtype=np.int64)
    if "|" not in text and not jokers_keep_number:
        counts = counts_of(parse_tiles(text))
        layout = solver.arrange(counts) if counts.any() else solver.Layout()
        if layout is None:
            raise PositionError("the table cannot be laid out as valid sets")
        return counts, fixed, layout.sets
    counts = np.zeros(53, dtype=np.int64)
    sets = []
    for i, chunk in enumerate(c for c in text.split("|") if c.strip()):
        pieces = parse_tiles(chunk)
        kind = set_kind(pieces)
        if kind is None and "|" not in text:  # the card edition reads sets, not a heap (K5)
            raise PositionError(f"the table as one set: {describe_invalid(pieces)}; in the card edition write it "
                                f"as sets separated by '|' (\"r1 r2 r3 | k7 b7 o7\"), so each joker keeps its number")
        if kind is None:
            raise PositionError(f"table set {i}: {describe_invalid(pieces)}")
        sets.append(pieces)
        counts += counts_of(pieces)
        if jokers_keep_number:
            for piece, number in zip(pieces, set_numbers(pieces, kind), strict=True):
                if piece == JOKER:
                    fixed[number] += 1
    if jokers_keep_number:
        counts[JOKER] = 0
    return counts.astype(np.int8), fixed, sets


def solve(game: str, table: str, rack: str, opening: bool = False, objective: str = "tiles") -> dict[str, Any]:
    """The JSON answer; raises ValueError subclasses naming what is wrong with the input."""
    rules = make_rules(game)
    rack_counts = counts_of(parse_tiles(rack))
    total = counts_of(parse_tiles(table.replace("|", " "))).astype(np.int64) + rack_counts  # before any layout
    for t in range(53):
        limit = rules.jokers if t == JOKER else 2
        if total[t] > limit:
            raise PositionError(f"tile {tile_name(t)} appears {counted(int(total[t]), 'time')} on the table and rack; "
                                f"only {limit} exist in {game}")
    table_counts, fixed, table_sets = read_table(table, rules.jokers_keep_number)
    sol = solver.best_play(table_counts, rack_counts, fixed=fixed, opened=not opening,
                           threshold=rules.opening_threshold, objective=objective,
                           joker_penalty=rules.joker_penalty)
    if sol is None:
        play, sets = [], table_sets
    else:
        play = tiles_of(sol.play)
        # T4: an opening forms new sets beside the untouched table
        sets = table_sets + sol.layout.sets if opening else sol.layout.sets
    return {
        "tiles_played": len(play),
        "points_played": sum(rules.joker_penalty if t == JOKER else t % NUMBERS + 1 for t in play),
        "play": [tile_name(t) for t in play],
        "table": [[tile_name(t) for t in s] for s in sets],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rummienv.solve", description=__doc__.splitlines()[0],
                                     epilog=POINTS)
    parser.add_argument("--game", default="rummikub", choices=played_with(RummikubRules))
    parser.add_argument("--table", default="", help="table tiles, flat or as sets separated by '|'")
    parser.add_argument("--rack", required=True, help="rack tiles, e.g. 'r4 r5 J k1'")
    parser.add_argument("--opening", action="store_true", help="the player has not opened (T4/K3 apply)")
    parser.add_argument("--objective", default="tiles", choices=["tiles", "points"])
    args = parser.parse_args(argv)
    try:
        result = solve(args.game, args.table, args.rack, args.opening, args.objective)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
