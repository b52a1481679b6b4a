"""How ``hoard`` wins: the pieces it goes out with, and the table they join, against another agent.

    python docs/hoard_racks.py --game rummikub --against max_tiles --deals 200 --seed 0

Plays ``hoard`` against the other agent on seeded deals (each deal from both seats) and prints, over the
rounds ``hoard`` ends by going out (T8), the distribution of its rack when it does and of the table it lays
it into, and the other seat's rack at that moment; then how the other rounds ended.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from agents.registry import make_agent
from rummienv.envs.opponents import make_move
from rummienv.games import make_game


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=("rummikub", "rummikub_cards"), default="rummikub")
    parser.add_argument("--against", default="max_tiles")
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    game = make_game(args.game, 2)
    out, other_won, stalled = [], 0, 0
    for deal in range(args.deals):
        for hoard_seat in (0, 1):
            specs = ["hoard", args.against] if hoard_seat == 0 else [args.against, "hoard"]
            agents = [make_agent(spec, game.rules, 2, seed=args.seed + 2 * deal + seat)
                      for seat, spec in enumerate(specs)]
            state = game.new_initial_state(args.seed + deal)
            rack = table = other = 0
            while not state.is_terminal():
                p = state.current_player
                before = int(state.racks[p].sum())
                on_table = int(state.table.sum())
                make_move(agents[p], state)
                if p == hoard_seat:
                    rack, table, other = before, on_table, int(state.racks[1 - p].sum())
            if not state.racks[hoard_seat].any():
                out.append((rack, table, other))
            elif not all(state.racks[s].any() for s in (0, 1)):
                other_won += 1
            else:
                stalled += 1
    rounds = 2 * args.deals
    print(f"{args.game}, hoard against {args.against}, {args.deals} deals from both seats (seed {args.seed}): "
          f"hoard went out in {len(out)} of {rounds} rounds, {args.against} in {other_won}, nobody in {stalled}")
    if out:
        racks, tables, others = np.array(out).T
        for name, values in (("hoard's rack as it went out", racks), ("the table it went out onto", tables),
                             (f"{args.against}'s rack then", others)):
            q = np.percentile(values, [10, 50, 90])
            print(f"  {name}: mean {values.mean():.1f}, median {q[1]:.0f}, 10-90% {q[0]:.0f}-{q[2]:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
