"""Slow, plain reference solver for Rummikub positions: the test oracle.

The real solver is clever and fast; this module is deliberately neither, so that
a disagreement between the two points at the real solver (or at a rule reading
both share, which the self-check in ``test_bruteforce_selfcheck.py`` pins down
on hand-made cases). It imports nothing from ``rummienv`` on purpose.

Rules implemented (see docs/RULES.md): C2 groups, C3 runs (1 only low, 13 only
high), C4 jokers (a set holds at least one numbered piece), C5 set values,
C6/C7 (after opening the whole table plus the play must be re-partitioned into
valid sets, freely), T4/K3 opening (the play alone forms new sets worth at least
the threshold, jokers counted as what they stand for) and K5 fixed jokers.

Encoding (shared with the real solver):

* A count vector has length 53. Index ``c * 13 + (n - 1)`` is the numbered
  piece of colour ``c = "kbor".index(letter)`` and number ``n``; index 52 is the
  number of *free* jokers (jokers that may stand for anything).
* ``fixed`` has length 14; ``fixed[n]`` is how many table jokers are fixed to
  number ``n`` (K5). These jokers are *not* included in index 52 of the table's
  count vector. A fixed joker of number ``n`` may stand only for a piece of
  number ``n``: in a group of ``n`` or at position ``n`` of a run of any colour.
  Jokers from the rack are always free.

Method: the lowest-index numbered piece still unplaced must belong to some set;
try every valid set that contains it (with every way jokers can fill it),
recurse on the rest, and memoise on the remaining multiset. A remainder of
jokers only is a failure (C4), unless it is empty. Legal plays are found by
enumerating every sub-multiset of the rack, which is why positions must be small.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache

import numpy as np

COLOURS = "kbor"
NUMBERS = 13
JOKER = 52
NUM_TYPES = 53
NUM_REAL = 52

# The internal state is a tuple of 66 ints: 52 numbered counts, the free jokers
# (slot 52), then fixed jokers of number n in slot 52 + n for n = 1..13.
_FREE = 52
_STATE_LEN = 66

Piece = tuple[int, int, int]
"""(state slot, colour it stands for, number it stands for) of one piece in a set."""


# --------------------------------------------------------------------------------------
# notation helpers (independent of rummienv.tiles so the oracle stands alone)
# --------------------------------------------------------------------------------------


def tile_index(token: str) -> int:
    """``"r7"`` -> 3*13+6, ``"J"`` -> 52."""
    token = token.strip()
    if token in ("J", "j"):
        return JOKER
    colour = COLOURS.index(token[0])
    number = int(token[1:])
    if not 1 <= number <= NUMBERS:
        raise ValueError(f"bad tile {token!r}")
    return colour * NUMBERS + number - 1


def tile_name(index: int) -> str:
    if index == JOKER:
        return "J"
    return f"{COLOURS[index // NUMBERS]}{index % NUMBERS + 1}"


def counts(text: str | Iterable[str] = "") -> np.ndarray:
    """Count vector (int64, length 53) of a space-separated tile list like ``"r1 r2 J"``."""
    tokens = text.split() if isinstance(text, str) else list(text)
    out = np.zeros(NUM_TYPES, dtype=np.int64)
    for tok in tokens:
        out[tile_index(tok)] += 1
    return out


def fixed_of(numbers: Iterable[int] = ()) -> np.ndarray:
    """``fixed`` array (length 14) with one fixed joker per listed number."""
    out = np.zeros(14, dtype=np.int64)
    for n in numbers:
        out[n] += 1
    return out


def names(vec: Sequence[int] | np.ndarray) -> str:
    """Readable form of a count vector, e.g. ``"r1 r2 J"``."""
    return " ".join(tile_name(i) for i in range(NUM_TYPES) for _ in range(int(vec[i])))


# --------------------------------------------------------------------------------------
# the partition search
# --------------------------------------------------------------------------------------


def _state(cnt: Sequence[int] | np.ndarray, fixed: Sequence[int] | np.ndarray | None) -> tuple:
    """Pack a count vector and a fixed array into the hashable internal state."""
    cnt = [int(x) for x in cnt]
    if len(cnt) != NUM_TYPES:
        raise ValueError(f"count vector must have length {NUM_TYPES}, got {len(cnt)}")
    if min(cnt) < 0:
        raise ValueError("negative count")
    fx = [0] * 14 if fixed is None else [int(x) for x in fixed]
    if len(fx) != 14 or min(fx) < 0 or fx[0] != 0:
        raise ValueError("fixed must have length 14, non-negative, fixed[0] == 0")
    return tuple(cnt[:NUM_REAL]) + (cnt[JOKER],) + tuple(fx[1:])


def _candidate_sets(state: tuple, t: int) -> list[tuple[tuple[int, ...], int, tuple[Piece, ...]]]:
    """Every valid set that contains numbered piece ``t`` and fits in ``state``.

    Returns ``(removal, value, pieces)``: ``removal`` is the sorted tuple of state
    slots the set uses (one entry per piece, repeated slots for several free
    jokers), ``value`` the set's C5 value and ``pieces`` what each piece stands for.
    Different joker placements are all listed, because they may differ in value
    (r5 r6 J is 4-5-6 or 5-6-7); callers deduplicate as they need.
    """
    c, n = divmod(t, NUMBERS)
    n += 1
    free = state[_FREE]
    out: list[tuple[tuple[int, ...], int, tuple[Piece, ...]]] = []

    # Groups (C2, C4): t plus 2 or 3 other colours, each a real piece or a joker
    # standing for that colour. A fixed joker qualifies only if fixed to n (K5).
    fixed_n = state[_FREE + n]
    options = []  # per other colour: left out, its piece, a free joker, a joker fixed to n
    for d in range(4):
        if d != c:
            idx = d * NUMBERS + n - 1
            options.append([None] + [piece for piece, have in (((idx, d, n), state[idx]), ((_FREE, d, n), free),
                                                               ((_FREE + n, d, n), fixed_n)) if have])
    for choice in itertools.product(*options):
        pieces = ((t, c, n), *(piece for piece in choice if piece is not None))
        slots = [piece[0] for piece in pieces]
        if len(pieces) >= 3 and slots.count(_FREE) <= free and slots.count(_FREE + n) <= fixed_n:
            out.append((tuple(sorted(slots)), n * len(pieces), pieces))

    # Runs (C3, C4): colour c, positions s..e with s <= n <= e, length >= 3.
    # Each position other than n holds the real piece (c, p), a free joker, or a
    # joker fixed to p. Extend left from n first, then right.
    def options(p: int, free_used: int) -> list[tuple[Piece, int]]:
        opts: list[tuple[Piece, int]] = []
        idx = c * NUMBERS + p - 1
        if state[idx] >= 1:
            opts.append(((idx, c, p), 0))
        if free_used < free:
            opts.append(((_FREE, c, p), 1))
        if state[_FREE + p] >= 1:  # a run uses position p once, so one fixed-p joker at most
            opts.append(((_FREE + p, c, p), 0))
        return opts

    def right(p: int, s: int, pieces: list[Piece], free_used: int) -> None:
        e = p - 1
        if e - s + 1 >= 3:
            value = (s + e) * (e - s + 1) // 2
            out.append((tuple(sorted(q[0] for q in pieces)), value, tuple(pieces)))
        if p <= NUMBERS:
            for piece, df in options(p, free_used):
                right(p + 1, s, pieces + [piece], free_used + df)

    def left(p: int, pieces: list[Piece], free_used: int) -> None:
        right(n + 1, p + 1, pieces, free_used)
        if p >= 1:
            for piece, df in options(p, free_used):
                left(p - 1, [piece] + pieces, free_used + df)

    left(n - 1, [(t, c, n)], 0)
    return out


def _lowest_real(state: tuple) -> int:
    for i in range(NUM_REAL):
        if state[i]:
            return i
    return -1


def _remove(state: tuple, removal: tuple[int, ...]) -> tuple:
    rest = list(state)
    for slot in removal:
        rest[slot] -= 1
    return tuple(rest)


@lru_cache(maxsize=1 << 18)
def _best(state: tuple) -> int | None:
    """Greatest total value of a partition of ``state`` into valid sets, or None."""
    t = _lowest_real(state)
    if t < 0:
        # Only jokers left (or nothing): a set needs a numbered piece (C4).
        return 0 if not any(state[_FREE:]) else None
    moves: dict[tuple[int, ...], int] = {}
    for removal, value, _ in _candidate_sets(state, t):
        if moves.get(removal, -1) < value:
            moves[removal] = value
    best: int | None = None
    for removal, value in moves.items():
        rest = _best(_remove(state, removal))
        if rest is not None and (best is None or rest + value > best):
            best = rest + value
    return best


def max_partition_value(
    counts: Sequence[int] | np.ndarray, fixed: Sequence[int] | np.ndarray | None = None
) -> int | None:
    """Greatest C5 value over all partitions into valid sets (jokers valued at what
    they stand for); ``None`` if the multiset cannot be partitioned. Empty -> 0.

    ``counts[52]`` are free jokers; ``fixed[n]`` jokers fixed to number n come on top.
    """
    return _best(_state(counts, fixed))


@lru_cache(maxsize=1 << 18)
def _splits(state: tuple) -> bool:
    """Whether ``state`` splits into valid sets: ``_best`` without the values, stopping at the first split."""
    t = _lowest_real(state)
    if t < 0:
        return not any(state[_FREE:])
    removals = {removal for removal, _, _ in _candidate_sets(state, t)}
    return any(_splits(_remove(state, removal)) for removal in removals)


def partitionable(
    counts: Sequence[int] | np.ndarray, fixed: Sequence[int] | np.ndarray | None = None
) -> bool:
    """Whether the pieces (plus the fixed jokers) split exactly into valid sets (C6)."""
    return _splits(_state(counts, fixed))


def _describe_piece(piece: Piece) -> str:
    slot, c, n = piece
    stands = f"{COLOURS[c]}{n}"
    if slot < NUM_REAL:
        return stands
    if slot == _FREE:
        return f"J={stands}"
    return f"J{slot - _FREE}={stands}"


def partitions(
    counts: Sequence[int] | np.ndarray, fixed: Sequence[int] | np.ndarray | None = None
) -> Iterator[list[tuple[str, ...]]]:
    """Yield every partition into valid sets, for inspection and small tests.

    Each partition is a list of sets; a set is a tuple of pieces as strings:
    ``"r5"`` a numbered piece, ``"J=r6"`` a free joker standing for r6,
    ``"J7=k7"`` a joker fixed to 7 standing for k7. Partitions are listed up to
    the order of sets; sets that use the same pieces for the same value (a group
    whose joker could take either missing colour, shown with one of them) are
    listed once. Exponential:
    use on small multisets only. Uses the memoised check to prune dead branches.
    """
    start = _state(counts, fixed)

    def rec(state: tuple) -> Iterator[list[tuple[str, ...]]]:
        t = _lowest_real(state)
        if t < 0:
            if not any(state[_FREE:]):
                yield []
            return
        seen: set[tuple] = set()
        for removal, value, pieces in _candidate_sets(state, t):
            is_run = len({p[2] for p in pieces}) > 1  # a group's pieces share one number
            key = (removal, value, is_run)
            if key in seen:
                continue
            seen.add(key)
            rest = _remove(state, removal)
            if not _splits(rest):
                continue
            this = tuple(_describe_piece(p) for p in pieces)
            for tail in rec(rest):
                yield [this] + tail

    yield from rec(start)


# --------------------------------------------------------------------------------------
# plays
# --------------------------------------------------------------------------------------


def _vec(x: Sequence[int] | np.ndarray | None) -> list[int]:
    if x is None:
        return [0] * NUM_TYPES
    v = [int(a) for a in x]
    if len(v) != NUM_TYPES:
        raise ValueError(f"count vector must have length {NUM_TYPES}")
    return v


def _play_is_legal(
    table: list[int], play: Sequence[int], fixed: np.ndarray | Sequence[int] | None, opened: bool, threshold: int
) -> bool:
    """The legality test shared by every public play function (play <= rack assumed)."""
    if sum(play) == 0:
        return False  # T3: a PLAY puts at least one piece on the table
    if opened:
        # C6/C7: the whole table may be rearranged; fixed jokers stay fixed (K5);
        # the table's free jokers and the play's jokers are free.
        return partitionable([a + b for a, b in zip(table, play, strict=True)], fixed)
    # T4/K3: new sets from the rack only, table untouched, worth >= threshold.
    value = max_partition_value(list(play), None)
    return value is not None and value >= threshold


def is_legal_play(
    table: Sequence[int] | np.ndarray,
    rack: Sequence[int] | np.ndarray,
    play: Sequence[int] | np.ndarray,
    fixed: Sequence[int] | np.ndarray | None = None,
    opened: bool = True,
    threshold: int = 30,
) -> bool:
    """Whether putting ``play`` (a count vector) from ``rack`` on ``table`` is a legal PLAY."""
    table_v, rack_v, play_v = _vec(table), _vec(rack), _vec(play)
    if any(p < 0 or p > r for p, r in zip(play_v, rack_v, strict=True)):
        return False
    return _play_is_legal(table_v, play_v, fixed, opened, threshold)


def legal_plays(
    table: Sequence[int] | np.ndarray,
    rack: Sequence[int] | np.ndarray,
    staged: Sequence[int] | np.ndarray | None = None,
    fixed: Sequence[int] | np.ndarray | None = None,
    opened: bool = True,
    threshold: int = 30,
) -> list[tuple[int, ...]]:
    """Every legal play P (tuple of 53 counts) with ``staged <= P <= rack``, P non-empty.

    Sorted ascending as tuples. Enumerates all sub-multisets of the rack that
    contain ``staged``: exponential in the rack size, by design.
    """
    table_v, rack_v, staged_v = _vec(table), _vec(rack), _vec(staged)
    if any(s > r for s, r in zip(staged_v, rack_v, strict=True)):
        raise ValueError("staged must be a sub-multiset of rack")
    if any(x < 0 for x in rack_v + staged_v + table_v):
        raise ValueError("negative count")
    slots = [i for i in range(NUM_TYPES) if rack_v[i] > staged_v[i]]
    ranges = [range(staged_v[i], rack_v[i] + 1) for i in slots]
    plays: list[tuple[int, ...]] = []
    for choice in itertools.product(*ranges):
        play = list(staged_v)
        for i, k in zip(slots, choice, strict=True):
            play[i] = k
        if _play_is_legal(table_v, play, fixed, opened, threshold):
            plays.append(tuple(play))
    plays.sort()
    return plays


def play_score(play: Sequence[int], objective: str = "tiles", joker_penalty: int = 30) -> int:
    """``"tiles"``: pieces in the play; ``"points"``: numbers of its numbered pieces
    plus ``joker_penalty`` per joker (what the rack no longer risks, T9/K7)."""
    if objective == "tiles":
        return int(sum(play))
    if objective == "points":
        return int(sum(int(play[i]) * (i % NUMBERS + 1) for i in range(NUM_REAL)) + joker_penalty * int(play[JOKER]))
    raise ValueError(f"unknown objective {objective!r}; expected 'tiles' or 'points'")


def best_play(
    table: Sequence[int] | np.ndarray,
    rack: Sequence[int] | np.ndarray,
    staged: Sequence[int] | np.ndarray | None = None,
    fixed: Sequence[int] | np.ndarray | None = None,
    opened: bool = True,
    threshold: int = 30,
    objective: str = "tiles",
    joker_penalty: int = 30,
) -> tuple[int, tuple[int, ...] | None]:
    """``(value, P)`` of a legal play maximising ``objective``; ``(0, None)`` if none.

    Several plays may reach the value: P is the lexicographically smallest of them
    (as a tuple of counts). Tests should compare values and check the real
    solver's P with ``is_legal_play`` and ``play_score`` rather than compare P.
    """
    best_value, best_p = 0, None
    for play in legal_plays(table, rack, staged, fixed, opened, threshold):
        value = play_score(play, objective, joker_penalty)
        if best_p is None or value > best_value:
            best_value, best_p = value, play
    return best_value, best_p


def legal_mask(
    table: Sequence[int] | np.ndarray,
    rack: Sequence[int] | np.ndarray,
    staged: Sequence[int] | np.ndarray | None = None,
    fixed: Sequence[int] | np.ndarray | None = None,
    opened: bool = True,
    threshold: int = 30,
) -> np.ndarray:
    """Bool mask of 53: ``mask[t]`` iff staging one more ``t`` still leads to a legal play.

    That is, some legal play P has ``P >= staged``, ``P[t] >= staged[t] + 1`` and
    ``P <= rack``. Tiles the rack has no more spare copies of are never marked.
    """
    staged_v = _vec(staged)
    mask = np.zeros(NUM_TYPES, dtype=bool)
    for play in legal_plays(table, rack, staged, fixed, opened, threshold):
        for i in range(NUM_TYPES):
            if play[i] > staged_v[i]:
                mask[i] = True
    return mask


def clear_cache() -> None:
    """Drop the memos (they are bounded anyway); useful before timing."""
    _best.cache_clear()
    _splits.cache_clear()
