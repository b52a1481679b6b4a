"""Steps per second of the envs under a uniformly random legal policy, in one process.

For each game and player count it times three loops:

- ``raw``: the state machine alone (mask, the mover's observation, apply): the
  floor that the env layers stand on;
- ``gym``: the Gymnasium env, learner and opponents random. One step is one
  learner action plus the opponents' moves up to its next turn, so both env
  steps and game actions (every seat's) per second are shown;
- ``aec``: the PettingZoo AEC env through ``last``/``step``; one step is one
  seat's action.

Each loop replays the same play from ``--seed`` several times and keeps its best
time, so that load from other processes disturbs it as little as possible. The
raw and AEC loops play the very same games and actions, so ``aec/raw`` (the AEC
env's cost per action over the raw loop's) compares equal work even where the
cost of an action depends on the position, as in Rummikub, whose solver makes
late positions far dearer than early ones: its rates describe the stretch of
play that ``--seconds`` covers.

Random play is not what training meets, so two more rows can be asked for, each
naming its play in the table's ``play`` column:

- ``--opponents NAME ...`` adds a ``gym`` row (``vs ...``) with those baselines in
  the other seats (in turn order, repeated as needed: at two players only the
  first plays) and the learner still random legal, as at the start of training.
  The raw and AEC loops are skipped on that row (``-``): they would time the
  random row's play again;
- ``--bots NAME ...`` adds a row (``bots ...``) of whole games with a baseline
  in every seat, played on the state machine as the evaluator plays them
  (``agents.base.make_move``: a planning bot lays its whole play in one
  transition): game actions and games per second.

With ``--peer``, a peer's own throughput script (run in its own virtual
environment, printing ``{"steps_per_s": ...}`` as its last line) is timed just
before and just after the project's loops, and the rates are also given as
ratios to the peer's mean: on a shared machine the ratio is the number to read.
The peer counts every decision of either player as a step, as the AEC env does,
so ``aec/peer`` sets decision against decision; ``gym/peer`` sets a Gymnasium
step (a learner action and the opponents' moves up to its next turn: about one
decision per seat) against one peer decision. A bots row gives its game actions
per second over the peer's steps (``act/peer``).

    python benchmarks/env_throughput.py --seconds 5 --games rummy500 --players 2 4 --json
    python benchmarks/env_throughput.py --peer "peers/bin/python benchmarks/peer_rlcard_gin.py 10"
    python benchmarks/env_throughput.py --games rummikub rummikub_cards --opponents max_tiles hold_back \\
        --bots max_tiles hold_back --peer "peers/bin/python benchmarks/peer_rlcard_gin.py 10"
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import time
from collections.abc import Callable, Sequence

import gymnasium as gym
import numpy as np
from gymnasium.utils import seeding

import rummienv
from agents.base import Agent, make_move
from agents.registry import baseline_names, make_agent
from rummienv import games
from rummienv.core import State
from rummienv.envs.games import make_adapter

REPEATS = 3


Run = Callable[[int], None]  # plays n steps from the seed


def pick(mask: np.ndarray, rng: np.random.Generator) -> int:
    """A uniformly random legal action, drawn as ``State.play_uniform`` draws it (one ``rng.random()``)."""
    legal = mask.nonzero()[0]
    return int(legal[int(rng.random() * len(legal))])


def around_table(names: Sequence[str], seats: int) -> list[str]:
    """``names`` repeated in turn until each of ``seats`` seats has one."""
    return [names[s % len(names)] for s in range(seats)]


def baseline_seats(names: Sequence[str], game: str, players: int, seed: int) -> list[Agent]:
    """Every seat's baseline (``names`` around the table), each seeded from (seed, seat) as the evaluator does."""
    return [make_agent(name, game, players, seed=int(np.random.default_rng([seed, s]).integers(2**62)))
            for s, name in enumerate(around_table(names, players))]


def play_out(state: State, seats: Sequence[Agent | None], rng: np.random.Generator) -> None:
    """Play to the end: an agent moves as in the evaluator (``make_move``), ``None`` picks at random from ``rng``."""
    while not state.is_terminal():
        agent = seats[state.current_player]
        if agent is None:
            state.apply_action(pick(state.legal_action_mask(), rng))
        else:
            make_move(agent, state)


def raw_run(game: str, players: int, seed: int) -> Run:
    adapter = make_adapter(game, players)

    def run(n: int) -> None:
        deals, _ = seeding.np_random(seed)  # the AEC env's deals from reset(seed=seed)
        choices = np.random.default_rng(seed)
        state = adapter.new_state(int(deals.integers(2**63)))
        for _ in range(n):
            if state.is_terminal():
                state = adapter.new_state(int(deals.integers(2**63)))
            mask = state.legal_action_mask()
            state.observation(state.current_player)
            state.apply_action(pick(mask, choices))

    return run


def aec_run(game: str, players: int, seed: int) -> Run:
    env = rummienv.aec_env(game, num_players=players)

    def run(n: int) -> None:
        choices = np.random.default_rng(seed)
        env.reset(seed=seed)
        done = 0
        while done < n:
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                if not env.agents:
                    env.reset()
                continue
            env.step(pick(obs["action_mask"], choices))
            done += 1

    return run


def gym_run(game: str, players: int, seed: int, actions: list[int], opponents: list[str] | None = None) -> Run:
    """Also records in ``actions`` how many game actions (all seats) the last run played.

    ``opponents`` (one name per other seat) go to ``gym.make`` as they are; None is the env's random play.
    """
    env = gym.make(games.info(game).env_id, num_players=players, opponents=opponents).unwrapped

    def run(n: int) -> None:
        choices = np.random.default_rng(seed)
        _, info = env.reset(seed=seed)
        played = 0
        for _ in range(n):
            _, _, terminated, _, info = env.step(pick(info["action_mask"], choices))
            if terminated:
                played += len(env.state.history)
                _, info = env.reset()
        actions[:] = [played + len(env.state.history)]

    return run


def bots_run(game: str, players: int, seed: int, names: list[str], actions: list[int]) -> Run:
    """Plays n whole games with a baseline in every seat; records in ``actions`` the last run's game actions."""
    adapter = make_adapter(game, players)

    def run(n: int) -> None:
        deals = np.random.default_rng(seed)
        seats = baseline_seats(names, game, players, seed)  # fresh agents: every run plays the same games
        played = 0
        for _ in range(n):
            state = adapter.new_state(int(deals.integers(2**63)))
            play_out(state, seats, deals)  # no seat is random, so no draw is taken from deals
            played += len(state.history)
        actions[:] = [played]

    return run


def seconds(run: Run, n: int) -> float:
    """Wall seconds ``run`` takes for ``n`` steps."""
    start = time.perf_counter()
    run(n)
    return time.perf_counter() - start


def _calibrate(run: Run, budget: float) -> int:
    """Steps that take about ``budget`` seconds; the trial runs also warm the compiled kernels and caches up."""
    run(16)  # the first call loads the compiled kernels
    n = 16
    while (elapsed := seconds(run, n)) < budget / 2:
        n = int(n * min(4.0, budget / max(elapsed, 1e-6)))
    return n


def _best_seconds(runs: dict[str, Run], steps: dict[str, int]) -> dict[str, float]:
    """Each run's best time over ``REPEATS`` rounds, the runs interleaved so that load falls on all alike."""
    best = dict.fromkeys(runs, np.inf)
    for _ in range(REPEATS):
        for name, run in runs.items():
            best[name] = min(best[name], seconds(run, steps[name]))
    return best


def _alone(run: Run, seconds: float) -> tuple[int, float]:
    """A loop timed on its own: the steps calibrated to ``seconds`` in all and its best time for them."""
    steps = _calibrate(run, seconds / REPEATS)
    return steps, _best_seconds({"run": run}, {"run": steps})["run"]


def measure(game: str, players: int, seconds: float, seed: int) -> dict[str, float | int | str]:
    """Every loop under uniformly random legal play."""
    per_run = seconds / REPEATS
    gym_actions: list[int] = [0]
    runs = {"raw": raw_run(game, players, seed), "aec": aec_run(game, players, seed),
            "gym": gym_run(game, players, seed, gym_actions)}
    steps = {"raw": _calibrate(runs["raw"], per_run), "gym": _calibrate(runs["gym"], per_run)}
    steps["aec"] = steps["raw"]  # the same actions as the raw loop
    best = _best_seconds(runs, steps)
    rate = {name: steps[name] / best[name] for name in runs}
    return {"game": game, "players": players, "play": "random", "raw_actions_per_s": rate["raw"],
            "gym_steps_per_s": rate["gym"], "gym_actions_per_s": gym_actions[0] / best["gym"],
            "aec_steps_per_s": rate["aec"], "aec_over_raw": best["aec"] / best["raw"], "actions_timed": steps["raw"]}


def measure_opponents(game: str, players: int, seconds: float, seed: int, names: list[str]) -> dict:
    """The Gymnasium loop alone, the learner random legal and the other seats played by ``names`` in turn."""
    opponents = around_table(names, players - 1)
    actions: list[int] = [0]
    steps, best = _alone(gym_run(game, players, seed, actions, opponents), seconds)
    return {"game": game, "players": players, "play": "vs " + ",".join(opponents),
            "gym_steps_per_s": steps / best, "gym_actions_per_s": actions[0] / best}


def measure_bots(game: str, players: int, seconds: float, seed: int, names: list[str]) -> dict:
    """Whole games with a baseline in every seat, on the state machine as the evaluator plays them."""
    actions: list[int] = [0]
    games, best = _alone(bots_run(game, players, seed, names, actions), seconds)
    return {"game": game, "players": players, "play": "bots " + ",".join(around_table(names, players)),
            "bot_actions_per_s": actions[0] / best, "bot_games_per_s": games / best}


MAKE_PEER = "make the peer's environment with: python -m venv peers && peers/bin/pip install rlcard==1.2.0"


def check_peer(parser: argparse.ArgumentParser, command: str) -> None:
    """Refuse before timing anything a peer command whose program is not there to run.

    A peer that runs and fails says why in its own output (``peer_rate``); one that cannot start would
    otherwise end the run only after the project's loops, or in a traceback.
    """
    try:
        words = shlex.split(command)
    except ValueError as e:
        parser.error(f"--peer {command!r}: {e}")
    if not words:
        parser.error("--peer: the command is empty")
    program = words[0]
    found = os.path.isfile(program) and os.access(program, os.X_OK) if os.sep in program else shutil.which(program)
    if not found:
        parser.error(f"--peer: {program} does not exist or is not executable; {MAKE_PEER}")


def peer_rate(command: str) -> float:
    """Steps per second that the peer's script reports (the last line of its output, JSON)."""
    done = subprocess.run(shlex.split(command), capture_output=True, text=True, check=False)
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        raise SystemExit(f"the peer command {command!r} failed (exit {done.returncode}): {done.stderr.strip()[-500:]}")
    try:
        return float(json.loads(lines[-1])["steps_per_s"])
    except (ValueError, KeyError, TypeError):
        raise SystemExit(f"the peer command's last line is not JSON with steps_per_s: {lines[-1]!r}") from None


Column = tuple[str, str, str]  # header, row key, format

GYM_COLUMNS: tuple[Column, ...] = (
    ("raw act/s", "raw_actions_per_s", ",.0f"), ("gym steps/s", "gym_steps_per_s", ",.0f"),
    ("gym act/s", "gym_actions_per_s", ",.0f"), ("aec steps/s", "aec_steps_per_s", ",.0f"),
    ("aec/raw", "aec_over_raw", ".2f"), ("gym/peer", "gym_over_peer", ".2f"), ("aec/peer", "aec_over_peer", ".2f"))
BOT_COLUMNS: tuple[Column, ...] = (
    ("bot act/s", "bot_actions_per_s", ",.0f"), ("games/s", "bot_games_per_s", ",.1f"),
    ("act/peer", "actions_over_peer", ".2f"))
# What each kind of row sets beside the peer: env steps, and the bots' game actions (the peer counts every decision)
PEER_RATIOS = {"gym_steps_per_s": "gym_over_peer", "aec_steps_per_s": "aec_over_peer",
               "bot_actions_per_s": "actions_over_peer"}


def _table(rows: list[dict], columns: tuple[Column, ...]) -> str:
    """One table: the columns some row has, "-" where a row did not measure that loop."""
    columns = tuple(c for c in columns if any(c[1] in r for r in rows))
    width = max(len("play"), *(len(r["play"]) for r in rows)) + 2
    lines = [f"{'game':<15}{'P':>2}  {'play':<{width}}" + "".join(f"{h:>13}" for h, _, _ in columns)]
    for r in rows:
        cells = (format(r[key], fmt) if key in r else "-" for _, key, fmt in columns)
        lines.append(f"{r['game']:<15}{r['players']:>2}  {r['play']:<{width}}" + "".join(f"{c:>13}" for c in cells))
    return "\n".join(lines)


def table(rows: list[dict]) -> str:
    """The env loops' table, then the bots' table, then the peer's rate."""
    env_rows = [r for r in rows if "gym_steps_per_s" in r]
    bot_rows = [r for r in rows if "bot_actions_per_s" in r]
    text = "\n\n".join(_table(part, columns) for part, columns in ((env_rows, GYM_COLUMNS), (bot_rows, BOT_COLUMNS))
                       if part)
    if "peer_steps_per_s" in rows[0]:
        text += f"\npeer: {rows[0]['peer_steps_per_s']:,.0f} steps/s (mean of a run before and one after)"
    return text


def _check_baselines(parser: argparse.ArgumentParser, names: list[str] | None, games: list[str]) -> None:
    """Refuse before timing anything a name that is not a baseline of every game asked for."""
    for game in games:
        unknown = [n for n in names or () if n not in baseline_names(game)]
        if unknown:
            parser.error(f"{', '.join(unknown)}: not baselines of {game} (its baselines: "
                         f"{', '.join(baseline_names(game))})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds of timed play per loop and cell")
    parser.add_argument("--games", nargs="+", choices=games.names(), default=list(games.names()))
    parser.add_argument("--players", nargs="+", type=int, choices=(2, 3, 4), default=[2, 3, 4])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--opponents", nargs="+", metavar="NAME",
                        help="also time the Gymnasium env with these baselines in the other seats, in turn")
    parser.add_argument("--bots", nargs="+", metavar="NAME",
                        help="also time whole games with these baselines in every seat, in turn")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON instead of a table")
    parser.add_argument("--peer", help="command of a peer's throughput script, printing {\"steps_per_s\": ...} last")
    args = parser.parse_args()
    _check_baselines(parser, args.opponents, args.games)
    _check_baselines(parser, args.bots, args.games)
    if args.peer:
        check_peer(parser, args.peer)
    before = peer_rate(args.peer) if args.peer else None
    rows = []
    for g in args.games:
        for p in args.players:
            rows.append(measure(g, p, args.seconds, args.seed))
            if args.opponents:
                rows.append(measure_opponents(g, p, args.seconds, args.seed, args.opponents))
            if args.bots:
                rows.append(measure_bots(g, p, args.seconds, args.seed, args.bots))
    if args.peer:
        peer = (before + peer_rate(args.peer)) / 2
        for row in rows:
            row["peer_steps_per_s"] = peer
            for rate, ratio in PEER_RATIOS.items():
                if rate in row:
                    row[ratio] = row[rate] / peer
    print(json.dumps(rows, indent=2) if args.json else table(rows))


if __name__ == "__main__":
    main()
