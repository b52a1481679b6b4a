"""A layout's sets, rebuilt from the choices along its path through the programme.

The programme keeps no sets, only states; a path's options (one per sub-step, ``moves.py`` says how they
are packed) replay the choices that led to a finished layout: which open runs each piece continued, which
runs it started, and how many pieces went into each number's groups. The jokers no set needed were never
placed (a state counts them in its reach), so they go last, wherever a set has room.
"""

from __future__ import annotations

import numpy as np

from rummienv.rummikub.solver import keys
from rummienv.rummikub.solver.moves import (
    NEW_RUNS,
    OPTION_CONTINUED,
    OPTION_GROUP_JOKERS,
    OPTION_GROUPED,
    OPTION_HEADED_ONE,
    OPTION_HEADED_TWO,
    OPTION_JOKERS,
    OPTION_NEW_RUNS,
    OPTION_STEP_GROUP_JOKERS,
    OPTION_STEP_NEW_JOKER_RUNS,
    colour_order,
)
from rummienv.tiles import JOKER, NUMBERS

_NEW_RUNS = [tuple(int(v) for v in row) for row in NEW_RUNS]


def _number(place: int, run: list[int]) -> int:
    """The number the piece at ``place`` of ``run`` stands for."""
    first = next(i for i, t in enumerate(run) if t != JOKER)
    return run[first] % NUMBERS + 1 + place - first


def sets_of_path(key: int, options: list[int], jokers_lo: int, joker_weight: int, lo: np.ndarray,
                 hi: np.ndarray, fixed: np.ndarray) -> tuple[list[list[int]], list[list[int]]]:
    """Replay the programme's choices (``options``, one per sub-step, into the state ``key``), then add the
    spare jokers where there is room: (groups, runs)."""
    done: list[list[int]] = []
    groups: list[list[int]] = []
    runs: list[list[list[int]]] = [[] for _ in range(4)]
    heads_one: list[list[int]] = []  # joker-only runs of one joker, and of two or more
    heads_two: list[list[int]] = []
    placed = 0
    step = 0
    order = colour_order(lo, hi).tolist()
    for n in range(1, NUMBERS + 1):
        group_pieces: list[int] = []
        for c in order[n - 1]:
            option = options[step]
            step += 1
            if option == 0 and not runs[c]:
                continue
            jokers = (option >> OPTION_JOKERS) & 3
            t = c * NUMBERS + n - 1
            still_open = _continue_runs(runs[c], (option >> OPTION_CONTINUED) & 3, jokers, t, done)
            started, lead_one, lead_two = _NEW_RUNS[(option >> OPTION_NEW_RUNS) & 15]
            for lead in (lead_one, lead_two)[:started]:
                still_open.append([JOKER] * lead + [t])
                placed += lead
            # lists that would stay empty are not made: this runs for every colour step of every layout rebuilt,
            # and making them cost arrange() a tenth of its time
            if option >> OPTION_HEADED_ONE:  # joker-only runs given a piece (the option's top fields)
                still_open += [heads_one.pop() + [t] for _ in range((option >> OPTION_HEADED_ONE) & 3)]
                still_open += [heads_two.pop() + [t] for _ in range((option >> OPTION_HEADED_TWO) & 3)]
            placed += jokers
            runs[c] = still_open
            if (option >> OPTION_GROUPED) & 3:
                group_pieces += [t] * ((option >> OPTION_GROUPED) & 3)
        # the last colour's step may place the group jokers
        grouped_jokers = ((options[step] >> OPTION_STEP_GROUP_JOKERS) & 7) + (
            (options[step - 1] >> OPTION_GROUP_JOKERS) & 7)
        new_heads = (options[step] >> OPTION_STEP_NEW_JOKER_RUNS) & 7
        step += 1
        placed += grouped_jokers + len(heads_one) + len(heads_two) + new_heads
        heads_two = [r + [JOKER] for r in heads_one + heads_two]
        heads_one = [[JOKER] for _ in range(new_heads)]
        groups += _groups(group_pieces, grouped_jokers)
    for c in range(4):
        done += runs[c]
    placed -= int(fixed.sum())  # the jokers fixed to a number were placed too; the state counts the others
    assert placed == keys.jokers_placed(key)
    spare = keys.reach(key) - placed if joker_weight >= 0 else max(0, jokers_lo - placed)
    for _ in range(spare):
        _add_spare(groups, done)
    return groups, done


def _add_spare(groups: list[list[int]], runs: list[list[int]]) -> None:
    """Put a joker no set needed where there is room: at an end of a run that does not span 1..13, or into a
    group of three."""
    for run in runs:
        if len(run) < NUMBERS:
            if _number(len(run) - 1, run) < NUMBERS:
                run.append(JOKER)
            else:
                run.insert(0, JOKER)
            return
    next(group for group in groups if len(group) < 4).append(JOKER)


def _continue_runs(open_runs: list[list[int]], continued: int, jokers: int, tile: int,
                   done: list[list[int]]) -> list[list[int]]:
    """Apply one colour step's choice to its open runs (longest first, as the programme orders them).

    Bit i of ``continued`` continues run i, the first ``jokers`` of those with a joker;
    a run not continued is finished and goes to ``done``.
    """
    still_open = []
    for i, run in enumerate(sorted(open_runs, key=lambda r: -min(len(r), 3))):
        if continued >> i & 1:
            run.append(JOKER if jokers else tile)
            jokers -= 1 if jokers else 0
            still_open.append(run)
        else:
            done.append(run)
    return still_open


def _groups(pieces: list[int], jokers: int) -> list[list[int]]:
    """Deal one number's group pieces round-robin into as many groups as they allow (which leaves the most
    room for spare jokers) and top them up with jokers."""
    if not pieces:
        return []
    pieces = sorted(pieces)
    most = max(pieces.count(t) for t in set(pieces))
    total = len(pieces) + jokers
    fits = [g for g in range(max(most, 1), len(pieces) + 1) if 3 * g <= total <= 4 * g]
    count = fits[-1]
    groups: list[list[int]] = [[] for _ in range(count)]
    for i, t in enumerate(pieces):
        groups[i % count].append(t)
    for group in groups:
        while len(group) < 3:
            group.append(JOKER)
            jokers -= 1
    for group in groups:
        while jokers and len(group) < 4:
            group.append(JOKER)
            jokers -= 1
    return groups
