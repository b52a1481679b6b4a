"""How fast the Rummikub Gymnasium env would run if its move masks cost nothing, and what a mask may cost for
the env to reach a given rate.

``env_throughput``'s Gymnasium loop (learner and opponents uniformly random) is timed live, then again over
the same steps with every mask the seats' turn memories answer (``TurnMemory.masks``, the solver's part of a
mask) replayed from a recording of the live run. The second is the env with the solver taken out: its rate
is a ceiling no faster mask can pass. Their difference per mask answer is the mean mask cost, and for a
target rate (``--target`` steps/s, or ``--ratio`` times the peer's with ``--peer``) the mean mask cost that
would reach it is (1 / target - replayed seconds per step) / mask answers per step; below zero, the rest of
the env alone is too slow for the target.

    python benchmarks/mask_floor.py --games rummikub rummikub_cards --players 2 4 --steps 20000 --target 15000
    python benchmarks/mask_floor.py --peer "peers/bin/python benchmarks/peer_rlcard_gin.py 10" --ratio 1.0
"""

from __future__ import annotations

import argparse
import json

from env_throughput import check_peer, gym_run, peer_rate, seconds

from rummienv.rules import RummikubRules, played_with
from rummienv.rummikub import turn_memory

GAMES = played_with(RummikubRules)  # the games the solver plays


def measure(game: str, players: int, steps: int, seed: int) -> dict:
    """Live and replayed seconds per step and mask answers per step, best of two runs each."""
    run = gym_run(game, players, seed, [])
    run(min(steps, 200))  # loads the compiled kernels
    live_masks = turn_memory.TurnMemory.masks
    tape: list = []

    def record(self, *args, **kwargs):
        answer = live_masks(self, *args, **kwargs)
        tape.append(answer)
        return answer

    turn_memory.TurnMemory.masks = record
    try:
        run(steps)
        answers = len(tape)
        cursor = iter(())

        def replay(self, *args, **kwargs):
            return next(cursor)

        live = replayed = float("inf")
        for _ in range(2):  # alternated, so that load from other processes falls on both alike
            turn_memory.TurnMemory.masks = live_masks
            live = min(live, seconds(run, steps))
            turn_memory.TurnMemory.masks = replay
            cursor = iter(tape)
            replayed = min(replayed, seconds(run, steps))
    finally:
        turn_memory.TurnMemory.masks = live_masks
    return {"game": game, "players": players, "steps": steps, "live_steps_per_s": steps / live,
            "replayed_steps_per_s": steps / replayed, "masks_per_step": answers / steps,
            "mask_us": (live - replayed) / answers * 1e6, "rest_us_per_step": replayed / steps * 1e6}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="+", choices=GAMES, default=list(GAMES))
    parser.add_argument("--players", nargs="+", type=int, choices=(2, 3, 4), default=[2])
    parser.add_argument("--steps", type=int, default=20000, help="Gymnasium steps per timed run")
    parser.add_argument("--seed", type=int, default=0)
    target = parser.add_mutually_exclusive_group()
    target.add_argument("--target", type=float, help="a steps/s target to price the masks against")
    target.add_argument("--peer", help="command of a peer's throughput script, printing {\"steps_per_s\": ...} last")
    parser.add_argument("--ratio", type=float, default=1.0, help="with --peer: the target as a ratio to the peer")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON instead of a table")
    args = parser.parse_args()
    if args.steps < 1:
        parser.error(f"--steps must be at least 1, got {args.steps}")
    if args.peer:
        check_peer(parser, args.peer)
    before = peer_rate(args.peer) if args.peer else None
    rows = [measure(g, p, args.steps, args.seed) for g in args.games for p in args.players]
    goal = args.target
    if args.peer:
        peer = (before + peer_rate(args.peer)) / 2
        goal = peer * args.ratio
        for row in rows:
            row["peer_steps_per_s"] = peer
            row["live_over_peer"] = row["live_steps_per_s"] / peer
            row["replayed_over_peer"] = row["replayed_steps_per_s"] / peer
    for row in rows:
        if goal:
            row["target_steps_per_s"] = goal
            row["mask_us_for_target"] = (1e6 / goal - row["rest_us_per_step"]) / row["masks_per_step"]
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    keys = [("live steps/s", "live_steps_per_s", ",.0f"), ("replayed", "replayed_steps_per_s", ",.0f"),
            ("live/peer", "live_over_peer", ".2f"), ("replayed/peer", "replayed_over_peer", ".2f"),
            ("masks/step", "masks_per_step", ".2f"), ("mask us", "mask_us", ".1f"),
            ("us for target", "mask_us_for_target", ".1f")]
    keys = [k for k in keys if k[1] in rows[0]]
    print(f"{'game':<15}{'P':>2}" + "".join(f"{h:>15}" for h, _, _ in keys))
    for r in rows:
        print(f"{r['game']:<15}{r['players']:>2}" + "".join(f"{format(r[k], f):>15}" for _, k, f in keys))
    if goal:
        print(f"target: {goal:,.0f} steps/s" + (f" ({args.ratio} x the peer's {rows[0]['peer_steps_per_s']:,.0f})"
                                                  if args.peer else ""))


if __name__ == "__main__":
    main()
