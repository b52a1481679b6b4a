"""The peer for ``solver.py --peer-results``: the public ``rummikub-solver`` package's best play on a positions file.

Runs in a virtual environment of its own, never the project's (the package brings cvxpy and its solvers),
on a file that ``solver.py`` wrote, so that both time the very same positions:

    python benchmarks/solver.py --write-positions positions.jsonl
    python -m venv peers && peers/bin/pip install rummikub-solver
    peers/bin/python benchmarks/peer_rummikub_solver.py positions.jsonl > peer.json
    python benchmarks/solver.py --positions positions.jsonl --peer-results peer.json

Run the last two one after the other: the machines are shared, so only a ratio from one stretch of time
means anything. Every position of the file is timed (``solver.py`` times the first ``--count``, 500 unless
told), on the question ``solver.py`` times as "best play": the most pieces the rack can add to the table,
the player having opened (the package's ``SolverMode.TILE_COUNT`` on a state whose ``initial`` is false).
The first solve, which builds the package's integer programme, is not timed, as ``solver.py`` does not time
its compilation. Median, p90 and p99 ms go to stderr, and last on stdout one JSON line (``median_ms``,
``p90_ms``, ``p99_ms``, ``max_ms``, ``positions``, ``tiles_played``), the line ``--peer-results`` reads.

The package does not take jokers exactly: of the sets with a joker it knows those of three pieces and the
runs of four or five whose jokers lie inside, but no group of four and no run with a joker at an end beyond
three pieces. With jokers its answer is so a lower bound on the best play, and ``tiles_played`` may fall
short of ``solver.py``'s; without jokers the two should be equal. It knows only the tile game's two free
jokers, so positions written with ``--jokers 4`` (the card edition, whose table jokers keep their number,
K5) are refused.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

from rummikub_solver import Colour, GameState, Joker, Number, RuleSet, SolverMode, Tile

# The project's notation: colour letter and number (r7, k13), J the joker
LETTERS = {Colour.BLACK: "k", Colour.BLUE: "b", Colour.ORANGE: "o", Colour.RED: "r"}
JOKERS = 2


def tile_names(rules: RuleSet) -> dict[str, Tile]:
    """The package's tile for each of the project's piece names."""
    names: dict[str, Tile] = {}
    for tile in rules.tiles:
        if isinstance(tile, Joker):
            names["J"] = tile
        elif isinstance(tile, Number):
            names[f"{LETTERS[tile.colour]}{tile.value}"] = tile
    return names


def read_states(path: str, rules: RuleSet) -> list[GameState]:
    """Each position of the file as an opened player's state; ValueError naming the line that is not one."""
    names = tile_names(rules)
    with open(path) as f:
        try:
            lines = f.readlines()
        except UnicodeDecodeError:
            raise ValueError(f"{path} is not a text file") from None
    states = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            position = json.loads(line)
            table = [names[t] for tokens in position["table"] for t in tokens]
            rack = [names[t] for t in position["rack"]]
        except json.JSONDecodeError as e:
            raise ValueError(f"{path} line {number}: not JSON ({e.msg} at column {e.colno})") from None
        except (KeyError, TypeError):
            raise ValueError(f'{path} line {number}: not a position {{"table": [[set], ...], "rack": [...]}} '
                             "of pieces k1-r13 and J") from None
        state = rules.new_game()
        state.add_table(*table)
        state.add_rack(*rack)
        state.initial = False
        if not rules.game_state_valid(state):
            raise ValueError(f"{path} line {number}: more than {JOKERS} jokers or 2 of a piece; "
                             "the peer plays the tile game only")
        states.append(state)
    if not states:
        raise ValueError(f"{path} holds no positions")
    return states


def summary(times: list[float]) -> dict[str, float]:
    """Percentiles taken as ``solver.py`` takes them, so that the two sets of figures compare."""
    times = sorted(times)

    def at(fraction: float) -> float:
        return times[min(len(times) - 1, int(fraction * len(times)))]

    return {"median_ms": round(statistics.median(times), 3), "p90_ms": round(at(0.9), 3),
            "p99_ms": round(at(0.99), 3), "max_ms": round(times[-1], 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("positions", help="a positions file (python benchmarks/solver.py --write-positions FILE)")
    args = parser.parse_args()
    rules = RuleSet(jokers=JOKERS)
    try:
        states = read_states(args.positions, rules)
    except OSError as e:
        parser.error(f"{args.positions}: {e.strerror}; make one with: "
                     "python benchmarks/solver.py --write-positions positions.jsonl")
    except ValueError as e:
        parser.error(str(e))

    rules.solve(states[0], SolverMode.TILE_COUNT)  # builds the programme, untimed
    times, played = [], 0
    for state in states:
        start = time.perf_counter()
        play = rules.solve(state, SolverMode.TILE_COUNT)
        times.append((time.perf_counter() - start) * 1000)
        played += 0 if play is None else len(play.tiles)

    result = {**summary(times), "positions": len(states), "tiles_played": played}
    print(f"rummikub-solver best play, {len(states)} positions: median {result['median_ms']:.3f} ms  "
          f"p90 {result['p90_ms']:.3f}  p99 {result['p99_ms']:.3f}  max {result['max_ms']:.3f}", file=sys.stderr)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
