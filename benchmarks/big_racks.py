"""Times the solver's questions about big racks, at positions logged from games of the strong agents.

    python benchmarks/big_racks.py --write-positions FILE [--agents hoard ppo] [--games 300] [--seed 0]
                                   [--game rummikub|rummikub_cards]
    python benchmarks/big_racks.py --positions FILE [--count N] [--against REV] [--json out.json]

The strong agents (``hoard``, ``ppo``, ``expert``) hoard: they keep drawing until their whole rack can go
out, so most of their decisions are asked about racks of 20 to 55 pieces, and every one asks the solver for
the play with the most pieces; a whole-turn player (``ppo``) asks again with the rack's jokers kept back
(``rummienv.rummikub.whole_turns.plays``), and a hoarder only wants to know whether its whole rack can go
out. ``--write-positions`` plays ``--games`` two-seat games of ``--agents`` in ``--game`` (the tile game or
the card edition, whose table jokers keep their numbers; seats swapped every other game, deal seeds from
``--seed``) and writes, one JSON object a line, the solver's inputs at every decision whose
rack holds 20 to 55 pieces: table, rack and staged pieces in notation, the seat's solver arguments, who was
deciding and in which deal. ``big_racks_answers.jsonl`` beside this script holds 50 such positions with the
answers of the solver's passes alone, with no shortcut or floor (``tests/test_big_racks.py`` checks them).

Timing mode asks four questions at each position and prints median and p99 milliseconds of each:

* ``most``: the play with the most pieces (``solver.best_play``);
* ``keep_jokers``: the same with the rack's jokers kept back, where the rack holds one;
* ``most_points``: the play that sheds the most points, a joker at ``--game``'s penalty (T9/K7), where the
  play with the most pieces leaves some in the rack, with that play as its floor where the build's solver
  takes one (``known``), as ``whole_turns.most_points`` asks it (a whole-turn network of three plays asks it
  at every decision);
* ``go_out``: whether a legal play lays every rack piece, the search that stops at the first layout
  (``solver.is_legal_play`` of the whole rack), which a hoarder asks where it used to find its best play
  and compare its size with the rack's; every answer is checked against that size.

It also prints a SHA-256 digest of every answer (each play's pieces and table layout, each yes or no), so
that two builds can be shown to give the same answers. ``--against REV`` loads the solver of the git
revision REV beside the working tree's and asks it every question too, alternating the two position by
position so that the machine's load falls on both alike: it prints both builds' times, their ratios and
digests, counts the positions where the answers differ and exits non-zero if there is any. The first call
of each build compiles or loads its compiled code and is not timed.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import importlib.util
import inspect
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
from json_lines import json_lines

from agents.base import make_move
from agents.evaluate import new_game
from agents.registry import make_agent
from agents.rummikub_bots import position_of
from rummienv.rules import make_rules
from rummienv.rummikub import solver
from rummienv.tiles import JOKER, counts_of, parse_tiles, tile_name, tiles_of

ROOT = Path(__file__).resolve().parents[1]
SMALLEST, LARGEST = 20, 55  # the racks logged, in pieces
QUESTIONS = ("most", "keep_jokers", "most_points", "go_out")
MAKE_POSITIONS = "make one with: python benchmarks/big_racks.py --write-positions positions.jsonl"


def notation(counts: np.ndarray) -> str:
    return " ".join(tile_name(t) for t in tiles_of(np.asarray(counts)))


def record_games(game: str, agents: list[str], games: int, seed: int) -> list[dict]:
    """The big-rack decisions of ``games`` two-seat games of ``game`` between ``agents``, in play order."""
    rules = make_rules(game)
    engine = new_game(rules, 2)
    out: list[dict] = []
    for g in range(games):
        names = agents if g % 2 == 0 else agents[::-1]
        seats = [make_agent(name, rules, 2, seed=seed + g) for name in names]
        state = engine.new_initial_state(seed + g)
        seen: set[bytes] = set()
        while not state.is_terminal():
            player = state.current_player
            pos = position_of(state.view(player), rules)
            key = pos.table.tobytes() + pos.rack.tobytes() + pos.staged.tobytes()
            if SMALLEST <= pos.rack.sum() <= LARGEST and key not in seen:
                seen.add(key)
                entry = {"agent": names[player], "deal": seed + g, "table": notation(pos.table),
                         "rack": notation(pos.rack), "staged": notation(pos.staged)}
                args = pos.solver_args
                entry.update({"opened": True, "fixed": args["fixed"].tolist()} if args["opened"] else
                             {"opened": False, "threshold": args["threshold"]})
                out.append(entry)
            make_move(seats[player], state)
    return out


def question_inputs(entry: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
    """Table, rack and staged counts and the solver's keyword arguments of a logged position."""
    table, rack, staged = (counts_of(parse_tiles(entry[k])).astype(np.int64) for k in ("table", "rack", "staged"))
    if entry["opened"]:
        args: dict[str, Any] = {"opened": True, "fixed": np.asarray(entry["fixed"], dtype=np.int64)}
    else:
        args = {"opened": False, "threshold": int(entry["threshold"])}
    return table, rack, staged, args


def read_positions(path: str, count: int | None) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, dict]]:
    """The first ``count`` positions of a file (all: None); OSError, or ValueError naming the line at fault."""
    positions = []
    for number, entry in json_lines(path):
        if count is not None and len(positions) == count:
            break
        try:
            positions.append(question_inputs(entry))
        except (KeyError, TypeError, ValueError) as e:  # NotationError is a ValueError
            raise ValueError(f"{path} line {number}: not a logged position ({type(e).__name__}: {e})") from None
    if not positions:
        raise ValueError(f"{path} holds no positions")
    return positions


def baseline_solver(rev: str) -> ModuleType:
    """The solver of git revision ``rev``: its files written to a folder named by the commit (so numba's
    compiled copy of them is kept for the next run) and imported apart from the working tree's. A revision
    before the solver became a package has two files, ``solver.py`` and its ``kernel.py``; a later one the
    package ``rummienv/rummikub/solver/``, whose modules import one another relatively."""
    commit = subprocess.run(["git", "rev-parse", "--verify", f"{rev}^{{commit}}"], cwd=ROOT, capture_output=True,
                            text=True, check=True).stdout.strip()
    package = Path(tempfile.gettempdir()) / f"big_racks_{commit[:12]}" / "baseline_rummikub"
    package.mkdir(parents=True, exist_ok=True)
    listed = subprocess.run(["git", "ls-tree", "--name-only", commit, "rummienv/rummikub/solver/"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout.split()
    if listed:
        names = {f"solver/{Path(name).name}": name for name in listed if name.endswith(".py")}
    else:
        names = {f"{name}.py": f"rummienv/rummikub/{name}.py" for name in ("kernel", "solver")}
    for target, source in names.items():
        text = subprocess.run(["git", "show", f"{commit}:{source}"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout
        text = text.replace("from rummienv.rummikub import kernel", "from baseline_rummikub import kernel")
        path = package / target
        path.parent.mkdir(exist_ok=True)
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
    (package / "__init__.py").touch()
    sys.path.insert(0, str(package.parent))
    try:
        return importlib.import_module("baseline_rummikub.solver")
    finally:
        sys.path.remove(str(package.parent))


def answers(module: ModuleType, table: np.ndarray, rack: np.ndarray, staged: np.ndarray, args: dict,
            joker_penalty: int, spent: dict[str, list[float]]) -> list[Any]:
    """The answers of one position from a solver module, each question's time added to ``spent``."""
    out: list[Any] = []
    kept = rack.copy()
    kept[JOKER] = staged[JOKER]
    for question in QUESTIONS:
        if (question == "keep_jokers" and rack[JOKER] <= staged[JOKER]) or (
                question == "most_points" and (out[0] is None or int(out[0].play.sum()) == int(rack.sum()))):
            out.append(None)
            continue
        start = time.perf_counter()
        if question == "go_out":
            answer: Any = module.is_legal_play(table, rack, **args)
        elif question == "most_points":
            floor = {"known": out[0].play} if "known" in inspect.signature(module.best_play).parameters else {}
            answer = module.best_play(table, rack, staged, objective="points", joker_penalty=joker_penalty, **floor,
                                      **args)
        else:
            answer = module.best_play(table, kept if question == "keep_jokers" else rack, staged, **args)
        spent[question].append((time.perf_counter() - start) * 1000)
        out.append(answer)
    most, go_out = out[0], out[-1]
    if go_out != (most is not None and int(most.play.sum()) == int(rack.sum())):
        raise AssertionError(f"the whole rack goes out: {go_out}, but the best play lays "
                             f"{0 if most is None else int(most.play.sum())} of {int(rack.sum())} pieces")
    return out


def answer_bytes(answer: Any) -> bytes:
    """One answer as the digest reads it: a play's pieces and its table's sets (in order), or a yes or no."""
    if answer is None or isinstance(answer, bool):
        return repr(answer).encode()
    sets = answer.layout
    return answer.play.astype(np.int8).tobytes() + json.dumps([sets.sets, sets.kinds]).encode()


def summary(times: list[float]) -> dict[str, float]:
    """Count, median, p99, most and total of a question's times; the count alone for a question never asked."""
    times = sorted(times)
    if not times:
        return {"count": 0}
    return {"count": len(times), "median_ms": round(statistics.median(times), 3),
            "p99_ms": round(times[min(len(times) - 1, int(0.99 * len(times)))], 3), "max_ms": round(times[-1], 3),
            "total_s": round(sum(times) / 1000, 2)}


def pieces(sizes: list[int]) -> dict[str, float]:
    """How many pieces the racks (or tables) held: the least, median and most."""
    return {"min": min(sizes), "median": statistics.median(sizes), "max": max(sizes)}


def warm_up(module: ModuleType, positions: list, joker_penalty: int) -> None:
    """Compile (or load) every entry point timed, on the first position: the first call is not a solve's cost."""
    table, rack, staged, args = positions[0]
    answers(module, table, rack, staged, args, joker_penalty, {q: [] for q in QUESTIONS})


def time_builds(positions: list, builds: dict[str, ModuleType], joker_penalty: int) -> tuple[dict, dict, int]:
    """Every position's answers from every build, the builds taking turns; (times by build and question,
    digests by build, positions whose answers differ between the builds)."""
    spent = {name: {q: [] for q in QUESTIONS} for name in builds}
    digests = {name: hashlib.sha256() for name in builds}
    differ = 0
    for module in builds.values():
        warm_up(module, positions, joker_penalty)
    # the games' imports (the networks' library among them) leave a heap that a full collection walks for a tenth
    # of a second, inside whichever call it interrupts: kept out of the collector, it times the solver alone
    gc.freeze()
    for i, (table, rack, staged, args) in enumerate(positions):
        names = list(builds) if i % 2 == 0 else list(builds)[::-1]
        found = {name: [answer_bytes(a) for a in answers(builds[name], table, rack, staged, args, joker_penalty,
                                                                  spent[name])]
                 for name in names}
        for name in builds:
            for data in found[name]:
                digests[name].update(data)
        differ += len({tuple(v) for v in found.values()}) > 1
    return spent, {name: d.hexdigest() for name, d in digests.items()}, differ


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    source = ap.add_mutually_exclusive_group(required=True)
    source.add_argument("--positions", metavar="FILE", help="JSON lines file of logged positions to time")
    source.add_argument("--write-positions", metavar="FILE", help="play games, log their big-rack positions here")
    ap.add_argument("--game", choices=("rummikub", "rummikub_cards"), default="rummikub",
                    help="the game --write-positions plays; when timing, the game the positions are of (its joker "
                         "penalty prices the most-points play)")
    ap.add_argument("--agents", nargs=2, default=["hoard", "ppo"], metavar="NAME", help="the two seats' agents")
    ap.add_argument("--games", type=int, default=300, help="games to play for --write-positions")
    ap.add_argument("--seed", type=int, default=0, help="the first game's deal seed")
    ap.add_argument("--count", type=int, help="time only the first COUNT positions")
    ap.add_argument("--against", metavar="REV", help="also time, and compare with, the solver of this git revision")
    ap.add_argument("--json", metavar="FILE", help="write the results here too")
    args = ap.parse_args()

    if args.write_positions:
        if args.games < 1:
            ap.error(f"--games must be at least 1, got {args.games}")
        started = time.perf_counter()
        logged = record_games(args.game, args.agents, args.games, args.seed)
        try:
            with open(args.write_positions, "w") as f:
                f.writelines(json.dumps(entry) + "\n" for entry in logged)
        except OSError as e:
            ap.error(f"--write-positions {args.write_positions}: {e.strerror}")
        by_agent = Counter(entry["agent"] for entry in logged)
        print(f"wrote {len(logged)} positions ({dict(by_agent)}) of {args.games} games of {args.game}, "
              f"{' v '.join(args.agents)} (seeds {args.seed}..{args.seed + args.games - 1}) in "
              f"{time.perf_counter() - started:.0f} s to {args.write_positions}")
        return 0
    if args.count is not None and args.count < 1:
        ap.error(f"--count must be at least 1, got {args.count}")
    try:
        positions = read_positions(args.positions, args.count)
    except OSError as e:
        ap.error(f"--positions {args.positions}: {e.strerror}; {MAKE_POSITIONS}")
    except ValueError as e:
        ap.error(f"--positions {e}; {MAKE_POSITIONS}")
    builds = {"new": solver}
    if args.against:
        try:
            builds["old"] = baseline_solver(args.against)
        except subprocess.CalledProcessError as e:
            ap.error(f"--against {args.against}: {e.stderr.strip()}")
    spent, digests, differ = time_builds(positions, builds, make_rules(args.game).joker_penalty)

    result: dict[str, Any] = {"positions": len(positions), "source": args.positions,
                              "rack_pieces": pieces([int(p[1].sum()) for p in positions]),
                              "table_pieces": pieces([int(p[0].sum()) for p in positions])}
    for name in builds:
        result[name] = {q: summary(spent[name][q]) for q in QUESTIONS} | {"sha256": digests[name]}
    print(f"{len(positions)} positions from {args.positions}; racks of {result['rack_pieces']['median']} pieces at "
          f"the median, tables of {result['table_pieces']['median']}")
    for name in builds:
        for q in QUESTIONS:
            s = result[name][q]
            if not s["count"]:
                print(f"{name:4s} {q:12s}      0 asked")
                continue
            print(f"{name:4s} {q:12s} {s['count']:6d} asked  median {s['median_ms']:8.3f} ms  p99 {s['p99_ms']:9.3f}"
                  f"  max {s['max_ms']:9.3f}  total {s['total_s']:8.2f} s")
        print(f"{name:4s} answers sha256 {digests[name]}")
    if args.against:
        result["speedup"] = {q: {k: round(result["old"][q][k] / max(result["new"][q][k], 1e-9), 2)
                                 for k in ("median_ms", "p99_ms", "total_s")} for q in QUESTIONS
                             if result["new"][q]["count"]}
        result["differ"] = differ
        for q in result["speedup"]:
            r = result["speedup"][q]
            print(f"old/new {q:12s} median {r['median_ms']:6.2f}x  p99 {r['p99_ms']:6.2f}x  total {r['total_s']:6.2f}x")
        print(f"positions whose answers differ: {differ}")
    print(json.dumps(result))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
