"""A layout rebuilt as sets from the choices of one path through the programme (Python, run once an answer).

``rebuild`` replays the options of a path (one a sub-step) and adds the spare jokers where there is room.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rummienv.tiles import JOKER, NUMBERS

from .programme import NEW_RUNS, colour_order
from .store import joker_room, jokers_placed


@dataclass
class Layout:
    """Sets as lists of type indices (runs low to high; a joker's place says what it stands for).

    ``kinds[i]`` says whether set i is a run or a group: a set with one numbered
    piece could be read either way, and the jokers' numbers (K5) depend on it.
    """

    sets: list[list[int]] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)


_NEW_RUNS = [tuple(int(v) for v in row) for row in NEW_RUNS]


def _number(piece: int, place: int, run: list[int]) -> int:
    """The number the piece at ``place`` of ``run`` stands for."""
    first = next(i for i, t in enumerate(run) if t != JOKER)
    return run[first] % NUMBERS + 1 + place - first


def rebuild(key: int, opts: list[int], jlo: int, joker_weight: int, lo: np.ndarray, hi: np.ndarray,
             fixed: np.ndarray) -> Layout:
    """Replay the programme's choices (``opts``, one per sub-step), then add the spare jokers where there is
    room."""
    reach = joker_room(key)
    done: list[list[int]] = []
    groups: list[list[int]] = []
    runs: list[list[list[int]]] = [[] for _ in range(4)]
    pend1: list[list[int]] = []  # joker-only runs of one joker, and of two or more
    pend2: list[list[int]] = []
    placed = 0
    step = 0
    order = colour_order(lo, hi).tolist()
    for n in range(1, NUMBERS + 1):
        group_pieces: list[int] = []
        for c in order[n - 1]:
            opt = opts[step]
            step += 1
            if opt == 0 and not runs[c]:
                continue
            cont, y, w, g = opt & 3, (opt >> 2) & 3, (opt >> 4) & 15, (opt >> 8) & 3
            u1, u2 = (opt >> 16) & 3, (opt >> 18) & 3
            t = c * NUMBERS + n - 1
            nxt = _continue_runs(runs[c], cont, y, t, done)
            m, k1, k2 = _NEW_RUNS[w]
            for lead in (k1, k2)[:m]:
                nxt.append([JOKER] * lead + [t])
            nxt += [pend1.pop() + [t] for _ in range(u1)] + [pend2.pop() + [t] for _ in range(u2)]
            placed += y + (k1 + k2 if m == 2 else k1 if m == 1 else 0)
            runs[c] = nxt
            group_pieces += [t] * g
        jg = (opts[step] & 7) + ((opts[step - 1] >> 13) & 7)  # the last colour's step may place the group jokers
        knew = (opts[step] >> 3) & 7
        step += 1
        placed += jg + len(pend1) + len(pend2) + knew
        pend2 = [r + [JOKER] for r in pend1 + pend2]
        pend1 = [[JOKER] for _ in range(knew)]
        groups += _groups(group_pieces, jg)
    for c in range(4):
        done += runs[c]
    placed -= int(fixed.sum())  # the jokers fixed to a number were placed too; the state counts the others
    assert placed == jokers_placed(key)
    spare = reach - placed if joker_weight >= 0 else max(0, jlo - placed)
    for _ in range(spare):
        for run in done:
            if len(run) < NUMBERS:
                if _number(run[-1], len(run) - 1, run) < NUMBERS:
                    run.append(JOKER)
                else:
                    run.insert(0, JOKER)
                break
        else:
            grp = next(grp for grp in groups if len(grp) < 4)
            grp.append(JOKER)
    return Layout(sets=groups + done, kinds=["group"] * len(groups) + ["run"] * len(done))


def _continue_runs(open_runs: list[list[int]], cont: int, jokers: int, tile: int,
                   done: list[list[int]]) -> list[list[int]]:
    """Apply one colour step's choice to its open runs (longest first, as the kernel orders them).

    Bit i of ``cont`` continues run i, the first ``jokers`` of those with a joker;
    a run not continued is finished and goes to ``done``.
    """
    still_open = []
    for i, run in enumerate(sorted(open_runs, key=lambda r: -min(len(r), 3))):
        if cont >> i & 1:
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
    for grp in groups:
        while len(grp) < 3:
            grp.append(JOKER)
            jokers -= 1
    for grp in groups:
        while jokers and len(grp) < 4:
            grp.append(JOKER)
            jokers -= 1
    return groups
