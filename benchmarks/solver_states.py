"""What the solver's exact pass stores on big racks, and how much of it could go without changing an answer.

    python benchmarks/solver_states.py --positions FILE [--every K] [--bounds] [--json out.json]

The positions are those ``big_racks.py --write-positions`` logs (racks of 20-55 pieces from the strong agents'
games). For each one whose whole rack cannot go down and that has a joker, the most-pieces question comes to
the exact pass (jokers free to stand in, ``passes.best_layout``'s last). This script runs that pass with the
floor the solver gives it where the pass asking for every piece finds no layout (the best play with no joker
standing in), then looks at what it stored:

* **live states**: those from which some stored path reaches a finished layout. A dead state can be left out
  without changing any answer, as no live state is reached through it, none is first stored from it (that
  would make it live) and none is covered by it (what covers a live state is live); the share that is live
  is the most that recognising dead states could save. ``ends`` counts the dead states by the number (1-13)
  at whose colour steps their lineage stops, which says whether a look-ahead of a few numbers could see it,
  and ``no_successor_stored`` how a lineage stops: no move was legal, or other states covered every
  successor (``passes._prune``), which a cover found a step earlier would have caught;
* **the best floor**: the pass again with the optimum itself as its floor, its time beside the solver's own
  floor's, which bounds what any floor (the last turn's play, say) could save. Floors do change which of two
  equal plays is returned, as the states they cut are stored before others.
* **bounds** (``--bounds``): what a state's bound on its best completion would cut. A pass drops a state whose
  value, plus every piece still to come at its weight (and the jokers' bonus), stays below its floor. The exact
  bound is the most any completion of the state's key adds, found by the programme run over every key with no
  state left out (no cover, no floor) and then backwards from the finished layouts. The script counts the
  stored states each pair of (bound, floor) would keep, today's bound against the exact one and the pass's own
  floor against the optimum, and the states with no completion at all (feasibility alone would cut those). A
  third bound, coarser than the exact one and the best a bound blind to where the runs stand could do, is the
  most any key of the same sub-step adds that differs from the state's only in its open runs and its groups'
  pieces (``COARSE``): the state's own jokers, room and opening value kept. It checks on the way that today's bound is
  never below the exact one, and that every live state can finish. Positions whose unpruned programme would
  exceed ``--bounds-cap`` keys are left out of these counts.

Prints one JSON line. ``--every K`` takes every K-th position of the file.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from big_racks import MAKE_POSITIONS, read_positions
from json_lines import emit
from numba import njit, types
from numba.typed import Dict

from rummienv.rummikub.solver import _TILE_WEIGHT, _Problem, _problem, _some_layout, passes, programme, workspace
from rummienv.rummikub.solver.store import _F_GS, NO_FLOOR, SUBSTEPS, YES, ZERO, joker_room, jokers_placed

# the key's fields the coarse bound keeps: all but the four colours' open runs (bits 0-15) and GS, GM
COARSE = ~np.int64(0xFFFF) & ~(np.int64(63) << _F_GS)


@njit(cache=True)
def live_states(q, weight, jcap, floor, bonus, store, ends, ended):
    """Which states of the pass just run over ``q`` with these bounds are live (by store slot); adds each
    dead state to ``ends`` at the number where its lineage's last stored state stands, and each state with no
    stored successor to ``ended``: [none could be made, every one made was covered by another state]."""
    ctx = programme._contexts(q, weight, jcap, bonus, np.uint64(0), floor, programme.colour_order(q.lo, q.hi), YES)
    starts, skipped, keys = store.layer_start, store.skipped, store.key
    steps = [s for s in range(SUBSTEPS) if not skipped[s + 1]]
    n = len(steps)
    begin = np.zeros(n + 1, dtype=np.int64)  # layer k (after k of the steps run): begin[k]:begin[k + 1]
    for k in range(n):
        begin[k + 1] = starts[steps[k] + 1]
    end = np.append(begin[1:], starts[SUBSTEPS + 1])
    top = starts[SUBSTEPS + 1]
    live = np.zeros(top, dtype=np.bool_)
    last = np.zeros(top, dtype=np.int64)  # the layer of the deepest stored descendant
    for i in range(begin[n], end[n]):
        live[i] = programme._accepts(keys[i], q.jlo, q.threshold)
        last[i] = n
    moves = np.empty((programme.MOVES_CAP, 4), dtype=np.int64)
    for k in range(n - 1, -1, -1):
        index = Dict.empty(types.int64, types.int64)
        for j in range(begin[k + 1], end[k + 1]):
            index[keys[j]] = j
        c = programme._step_constants(ctx, steps[k])
        for i in range(begin[k], end[k]):
            last[i] = k
            count = programme._moves(c, steps[k], keys[i], store.value[i], store.bits[i], moves)
            for m in range(count):
                key = moves[m, 0]
                if key in index:
                    j = index[key]
                    last[i] = max(last[i], last[j])
                    live[i] = live[i] or live[j]
            if last[i] == k:  # no successor stored: none could be made, or others covered every one
                ended[0 if count == 0 else 1] += 1
    for i in range(top):
        if not live[i]:
            ends[steps[max(last[i] - 1, 0)] // 5] += 1
    return live


@njit(cache=True)
def completions(q, weight, jcap, bonus, joker_weight, cap):
    """The programme over every key with no state left out: for each sub-step count (0-65), each key reached
    and the most its best completion adds to the objective (``NO_FLOOR``: none finishes). Also whether it
    stayed within ``cap`` keys in all (else the tables are empty)."""
    ctx = programme._contexts(q, weight, jcap, bonus, np.uint64(0), NO_FLOOR, programme.colour_order(q.lo, q.hi), YES)
    moves = np.empty((programme.MOVES_CAP, 4), dtype=np.int64)
    layers = [np.zeros(1, dtype=np.int64)]
    total = 1
    for step in range(SUBSTEPS):
        c = programme._step_constants(ctx, step)
        reached = Dict.empty(types.int64, types.int64)
        for key in layers[step]:
            for m in range(programme._moves(c, step, key, 0, np.uint64(0), moves)):
                reached[moves[m, 0]] = 0
        total += len(reached)
        if total > cap:
            return [Dict.empty(types.int64, types.int64)], False
        layer = np.empty(len(reached), dtype=np.int64)
        for j, key in enumerate(reached.keys()):
            layer[j] = key
        layers.append(layer)
    best = [Dict.empty(types.int64, types.int64) for _ in range(SUBSTEPS + 1)]
    for key in layers[SUBSTEPS]:
        jokers = joker_room(key) if joker_weight >= 0 else max(jokers_placed(key), q.jlo)
        best[SUBSTEPS][key] = joker_weight * jokers if programme._accepts(key, q.jlo, q.threshold) else NO_FLOOR
    for step in range(SUBSTEPS - 1, -1, -1):
        c = programme._step_constants(ctx, step)
        for key in layers[step]:
            most = NO_FLOOR
            for m in range(programme._moves(c, step, key, 0, np.uint64(0), moves)):
                after = best[step + 1][moves[m, 0]]
                if after > NO_FLOOR:  # the move's own value (from 0) and the rest's best
                    most = max(most, moves[m, 1] + after)
            best[step][key] = most
    return best, True


@njit(cache=True)
def bound_counts(q, weight, bonus, floor, optimum, live, best, store, counts):
    """Adds to ``counts`` for the states of the pass just run: [stored, kept by today's bound at the floor, by
    the exact bound at the floor, by today's bound at the optimum, by the exact bound at the optimum, with no
    completion, kept by the coarse bound at the floor, at the optimum]; raises where today's bound is below the
    exact one or a live state cannot finish."""
    # today's bound after each sub-step count: the pass's own pieces to come (after a colour step's type), plus it
    ctx = programme._contexts(q, weight, q.jhi, bonus, np.uint64(0), NO_FLOOR, programme.colour_order(q.lo, q.hi), YES)
    rest = np.zeros(SUBSTEPS + 1, dtype=np.int64)
    rest[SUBSTEPS] = bonus
    for s in range(SUBSTEPS - 1, -1, -1):
        step = programme._step_constants(ctx, s)
        rest[s] = step.to_come + step.weight * step.hi if s % 5 < 4 else rest[s + 1]
    starts, skipped = store.layer_start, store.skipped
    s = 0  # a layer: the states after s sub-steps, up to the next sub-step that was not skipped
    while s <= SUBSTEPS:
        following = s + 1
        while following <= SUBSTEPS and skipped[following]:
            following += 1
        coarse = Dict.empty(types.int64, types.int64)
        for key, after in best[s].items():
            coarse[key & COARSE] = max(after, coarse.get(key & COARSE, NO_FLOOR))
        for i in range(starts[s], starts[min(following, SUBSTEPS + 1)]):
            value = store.value[i]
            after = best[s].get(store.key[i], NO_FLOOR)
            loose = value + coarse.get(store.key[i] & COARSE, NO_FLOOR)
            exact = value + after if after > NO_FLOOR else NO_FLOOR
            today = value + rest[s]
            if exact > today:
                raise AssertionError("today's bound is below the exact one")
            if live[i] and after == NO_FLOOR:
                raise AssertionError("a live state has no completion")
            counts[0] += 1
            counts[1] += today >= floor
            finishes = after > NO_FLOOR  # a state with no completion is cut by either bound, whatever the floor
            counts[2] += finishes and exact >= floor
            counts[3] += today >= optimum
            counts[4] += finishes and exact >= optimum
            counts[5] += not finishes
            counts[6] += finishes and loose >= floor
            counts[7] += finishes and loose >= optimum
        s = following
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", required=True, metavar="FILE", help=f"logged positions ({MAKE_POSITIONS})")
    parser.add_argument("--every", type=int, default=1, help="take every K-th position (default: all)")
    parser.add_argument("--bounds", action="store_true",
                        help="also count what an exact bound on each state's completion would cut (slower)")
    parser.add_argument("--bounds-cap", type=int, default=4_000_000, metavar="KEYS",
                        help="leave out of --bounds a position whose unpruned programme reaches more keys")
    parser.add_argument("--json", type=Path, help="also write the JSON line here")
    args = parser.parse_args(argv)
    if args.every < 1:
        parser.error(f"--every must be at least 1, got {args.every}")
    if args.bounds_cap < 1:
        parser.error(f"--bounds-cap must be at least 1, got {args.bounds_cap}")
    try:
        positions = read_positions(args.positions, None)[::args.every]
    except (OSError, ValueError) as e:
        parser.error(f"--positions {args.positions}: {getattr(e, 'strerror', None) or e}; {MAKE_POSITIONS}")
    store = workspace()
    ends = np.zeros(13, dtype=np.int64)
    ended = np.zeros(2, dtype=np.int64)
    counts = np.zeros(8, dtype=np.int64)
    too_big = 0
    live = stored = passes_run = 0
    shares: list[float] = []
    own_floor = best_floor = 0.0
    for table, rack, staged, solver_args in positions:
        p = _problem(table, rack, staged, solver_args.get("fixed"), solver_args["opened"],
                     solver_args.get("threshold", 30))
        if p.jhi == 0 or _some_layout(_Problem(p.hi, p.hi, p.jhi, p.jhi, p.fixed, p.threshold, p.base)):
            continue  # no exact pass: no joker, or the search that stops at the first layout answers
        bonus = p.jhi
        _, floor = passes.one_pass(p.question, _TILE_WEIGHT, 1, ZERO, NO_FLOOR, bonus, store)
        started = time.perf_counter()
        _, optimum = passes.one_pass(p.question, _TILE_WEIGHT, 1, p.jhi, floor, bonus, store)
        own_floor += time.perf_counter() - started
        question = programme.Question(*p.question)
        live_slots = live_states(question, _TILE_WEIGHT, p.jhi, floor, bonus, store, ends, ended)
        alive, total = int(live_slots.sum()), len(live_slots)
        if args.bounds:
            best, within = completions(question, _TILE_WEIGHT, p.jhi, bonus, 1, args.bounds_cap)
            if within:
                bound_counts(question, _TILE_WEIGHT, bonus, floor, optimum, live_slots, best, store, counts)
            else:
                too_big += 1
        started = time.perf_counter()
        _, again = passes.one_pass(p.question, _TILE_WEIGHT, 1, p.jhi, optimum, bonus, store)
        best_floor += time.perf_counter() - started
        if again != optimum:
            raise AssertionError(f"the optimum as floor gave {again}, not {optimum}")
        live, stored, passes_run = live + int(alive), stored + int(total), passes_run + 1
        shares.append(int(alive) / int(total))
    if not passes_run:
        parser.error(f"--positions {args.positions}: no position comes to the exact pass")
    result = {"benchmark": "solver_states", "positions": len(positions), "exact_passes": passes_run,
              "states": stored, "live": live, "live_share": round(live / stored, 3),
              "live_share_median": round(float(np.median(shares)), 3),
              "dead_ends_by_number": {str(n + 1): int(ends[n]) for n in range(13)},
              "no_successor_stored": {"none_made": int(ended[0]), "all_covered": int(ended[1])},
              "own_floor_s": round(own_floor, 2), "best_floor_s": round(best_floor, 2),
              "best_floor_speed_up": round(own_floor / best_floor, 2)}
    if args.bounds:
        result["bounds"] = {"states": int(counts[0]), "left_out": too_big, "no_completion": int(counts[5]),
                            "kept": {"today_bound_own_floor": int(counts[1]), "exact_bound_own_floor": int(counts[2]),
                                     "today_bound_optimum": int(counts[3]), "exact_bound_optimum": int(counts[4]),
                                     "coarse_bound_own_floor": int(counts[6]), "coarse_bound_optimum": int(counts[7])}}
    print(f"{passes_run} exact passes: {live:,} of {stored:,} stored states live ({live / stored:.3f}, median "
          f"{np.median(shares):.3f} a pass); the optimum as floor {own_floor:.2f} -> {best_floor:.2f} s "
          f"({own_floor / best_floor:.2f}x)", file=sys.stderr)
    emit(result, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
