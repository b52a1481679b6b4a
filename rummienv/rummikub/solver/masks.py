"""The masks and a play's legality: the searches first, the passes for what they leave.

``mask`` asks every question afresh; ``turn_mask`` answers from a seat's memory of the turn first;
``legal_layout`` says whether a play (or any play holding the staged pieces) is legal.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .joker_need import jokers_cannot_serve
from .passes import _one_pass, forward, path, summarise
from .programme import Question, _accepts, colour_order
from .search import FOUND, LEGAL_BUDGET, MASK_BUDGET, NO_EXTRA, UNKNOWN, DeadStates, _lone_search, _orders, _search
from .store import MEMO_BITS, NO, NO_FLOOR, ONE, SUBSTEPS, YES, ZERO, _fresh_stamp
from .witnesses import _could_fit, _extend, _witness_holds, _witness_row


@njit(cache=True)
def _record_witnesses(best, q, doubt, covered, order, store, wit, nwit):
    """Keep finished layouts of the last pass as witnesses: rows of ``wit`` holding the pieces of each
    numbered type the layout uses (table and staged ones included), its jokers placed and its room R.

    The best layout is kept, and any other that used a type in ``doubt`` no witness holds yet. A later
    question whose bounds a witness meets is answered by it without a pass. Returns (witnesses, types held).
    """
    s_key = store.key
    s_bits = store.bits
    lo = q.lo
    for i in range(store.layer_start[SUBSTEPS], store.layer_start[SUBSTEPS + 1]):
        if nwit >= wit.shape[0]:
            break
        if (i != best and (s_bits[i] & doubt & ~covered) == 0) or not _accepts(s_key[i], q.jlo, q.threshold):
            continue
        if path(i, store) != SUBSTEPS:
            continue
        _witness_row(store.path, order, s_key[i], wit[nwit])
        for t in range(52):
            if wit[nwit, t] > lo[t]:
                covered |= np.uint64(1) << np.uint64(t)
        nwit += 1
    return nwit, covered


@njit(cache=True)
def _mask_passes(q, doubt, joker_doubt, weight, store, wit, nwit):
    """Which types of ``doubt`` fit in some legal layout of question ``q``, and (if ``joker_doubt``) whether a
    joker more fits; whether the store sufficed; and the witnesses kept (``_record_witnesses``, until ``wit``
    is full).

    A first pass with no joker standing in for a piece is small and often shows every type in ``doubt`` to
    fit; then one with at most one joker standing in, still far smaller than the exact pass that follows if
    types remain in doubt. Each pass compares states only on the types still in doubt. An opening
    (``valued``) carries its value laid in the state, and only layouts reaching ``threshold`` count.
    """
    bits = np.uint64(0)
    joker_more = False
    jcap = ZERO
    order = colour_order(q.lo, q.hi)
    covered = np.uint64(0)
    while True:
        top = forward(q, weight, YES, jcap, NO_FLOOR, ZERO, bits | ~doubt, store)
        if top < 0:
            return bits, joker_more, False, nwit
        best, more_bits, more_joker = summarise(q.jlo, ONE, q.threshold, store)
        bits |= more_bits & doubt
        joker_more = joker_more or more_joker
        if best >= 0 and nwit < wit.shape[0]:
            nwit, covered = _record_witnesses(best, q, doubt, covered, order, store, wit, nwit)
        if jcap >= q.jhi or (doubt & ~bits == 0 and (joker_more or not joker_doubt)):
            break
        jcap = 1 if jcap == 0 else q.jhi
    return bits, joker_more, True, nwit


@njit(cache=True)
def _bounds(table, rack, staged):
    """lo, hi, jlo, jhi of a position, and the types in doubt (one more than staged is in the rack)."""
    lo = np.empty(52, dtype=np.int64)
    hi = np.empty(52, dtype=np.int64)
    doubt = np.uint64(0)
    for t in range(52):
        lo[t] = table[t] + staged[t]
        hi[t] = table[t] + rack[t]
        if rack[t] > staged[t]:
            doubt |= np.uint64(1) << np.uint64(t)
    return lo, hi, table[52] + staged[52], table[52] + rack[52], doubt


@njit(cache=True)
def mask(position, weight, store):
    """The whole mask of a position in one compiled call, asking every question afresh: of an opened player
    (the table given), or of an opening (``valued``, an empty table: the rack alone, in valid sets, worth
    ``threshold`` or more, T4/K3). ``position``: the tuple (table, rack, staged, fixed, valued, threshold).

    Returns the 53 mask bools and whether the store sufficed.
    """
    table, rack, staged, fixed, valued, threshold = position
    lo, hi, jlo, jhi, doubt = _bounds(table, rack, staged)
    out = np.zeros(53, dtype=np.bool_)
    bits, joker_more, ok, _ = _mask_passes(Question(lo, hi, jlo, jhi, fixed, valued, threshold), doubt, jhi > jlo,
                                           weight, store, np.zeros((0, 54), dtype=np.int64), ZERO)
    for t in range(52):
        out[t] = (bits >> np.uint64(t)) & np.uint64(1)
    out[52] = joker_more
    return out, ok


@njit(cache=True)
def turn_mask(position, last_mask, same_rack, last_staged, wit, nwit, turn_memo, store):
    """The mask of a position (``mask``'s tuple) given what the turn has learnt so far; returns (53 bools,
    store sufficed, witnesses kept, whether the staged pieces are a legal play now): the whole of a move mask
    but the joker swaps, in one call.

    ``last_mask`` (53 bools), the mask asked before with ``last_staged`` staged, is a superset of the answer
    when the table and rack are the same (``same_rack``) and no staged piece went back, since a play that holds
    one more staged piece holds everything staged before. ``wit[:nwit]`` are legal layouts of this table and
    rack found earlier in the turn; one that holds everything staged plus a piece proves that piece without
    a search (``_from_witnesses``). Each type left is searched depth first (``_search_doubts``). Only the types
    left unknown when the searches' budget runs out go to the passes, which compare states on those types
    alone and add the layouts they find to the witnesses.
    """
    table, rack, staged, fixed, valued, threshold = position
    lo, hi, jlo, jhi, _ = _bounds(table, rack, staged)
    q = Question(lo, hi, jlo, jhi, fixed, valued, threshold)
    candidates = np.ones(53, dtype=np.bool_)
    if same_rack and np.all(staged >= last_staged):
        candidates = last_mask
    else:
        turn_memo[0] = 0  # the dead states kept answer for no other table, rack or fewer pieces staged
    legal, legal_ok = False, True
    if staged.sum() > 0:  # are the staged pieces a legal play now (COMMIT)?
        legal, legal_ok = _legal_layout(Question(lo, lo, jlo, jlo, fixed, valued and threshold > 0, threshold), store)
    kept = _mend_witnesses(q, wit, nwit)
    out = np.zeros(53, dtype=np.bool_)
    doubt, kept = _from_witnesses(q, candidates, rack, staged, wit, kept, out)
    joker_doubt = candidates[52] and rack[52] > staged[52] and not out[52]
    doubt, joker_doubt, kept = _search_doubts(q, doubt, joker_doubt, turn_memo, wit, kept, out, store)
    if doubt == 0 and not joker_doubt:
        return out, legal_ok, kept, legal
    # each stored state keeps its path with the most pieces: the witnesses hold as many types as they can
    weight = np.ones(52, dtype=np.int64)
    bits, joker_more, ok, kept = _mask_passes(q, doubt, joker_doubt, weight, store, wit, kept)
    for t in range(52):
        if (bits >> np.uint64(t)) & np.uint64(1):
            out[t] = True
    if joker_doubt:
        out[52] = joker_more
    return out, ok and legal_ok, kept, legal


@njit(cache=True)
def _mend_witnesses(q, wit, nwit):
    """Keep the witnesses of ``wit[:nwit]`` that hold everything staged (``q.lo``), mending one short of a
    staged piece with a new set of the pieces it leaves over (``_extend``) and dropping one that cannot be;
    returns how many are kept, first in ``wit``."""
    # the arrays read once here: numba counts a reference each time one is read from the tuple
    lo, hi = q.lo, q.hi
    kept = ZERO
    for k in range(nwit):
        if _witness_holds(wit[k], lo, q.jlo, NO_EXTRA) or _extend(wit[k], lo, hi, q.jlo, q.jhi, NO_EXTRA, wit[k]):
            wit[kept] = wit[k]
            kept += 1
    return kept


@njit(cache=True)
def _from_witnesses(q, candidates, rack, staged, wit, kept, out):
    """Mark in ``out`` each candidate type a witness holds one more of, or can be extended to (a new witness,
    while ``wit`` has room); rule out types no set could hold (``_could_fit``). Returns the numbered types
    still in doubt and the witnesses kept."""
    # the arrays read once here: numba counts a reference each time one is read from the tuple
    lo, hi = q.lo, q.hi
    has_fixed = q.fixed[1:].sum() > 0
    mended = np.empty(54, dtype=np.int64)
    doubt = np.uint64(0)
    for t in range(53):
        if not candidates[t] or rack[t] <= staged[t]:
            continue
        for k in range(kept):
            if _witness_holds(wit[k], lo, q.jlo, t):
                out[t] = True
                break
        if out[t] or t == 52:
            continue
        if not has_fixed and not _could_fit(t, hi, q.jhi):
            continue
        for k in range(kept):
            if _extend(wit[k], lo, hi, q.jlo, q.jhi, t, mended):
                out[t] = True
                if kept < wit.shape[0]:
                    wit[kept] = mended
                    kept += 1
                break
        if not out[t]:
            doubt |= np.uint64(1) << np.uint64(t)
    return doubt, kept


@njit(cache=True)
def _search_doubts(q, doubt, joker_doubt, turn_memo, wit, kept, out, store):
    """Search depth first (``_search``) for each type in ``doubt`` (and a joker more, if ``joker_doubt``), within
    a budget the mask's searches share: the layout found is a witness, and proves every other type it holds
    too. The searches keep the states that led nowhere in the store's memo for the rest of the turn
    (``turn_memo``: their stamp and the colour orders they were taken in): with more pieces staged, or one
    more asked for, such a state still leads nowhere (``search._memo``). Returns what is still in doubt when
    the budget runs out, and the witnesses kept."""
    # the arrays read once here: numba counts a reference each time one is read from the tuple
    lo, hi, fixed = q.lo, q.hi, q.fixed
    found = np.empty(54, dtype=np.int64)
    budget = MASK_BUDGET
    orders = turn_memo[1:].reshape((2, 13, 4))
    for t in range(53):  # a short search for each type left, whose layout is a witness for others too
        if not (joker_doubt if t == 52 else (doubt >> np.uint64(t)) & np.uint64(1)):
            continue
        if turn_memo[0] == 0:
            orders[:] = _orders(lo, hi)
            turn_memo[0] = _fresh_stamp(store.memo, store.memo_stamp)
        if t < 52:
            lo[t] += 1
        asked = Question(lo, hi, q.jlo + (t == 52), q.jhi, fixed, q.valued, q.threshold)
        dead = DeadStates(store.memo, MEMO_BITS, turn_memo[0])
        answer, spent = _search(asked, budget, orders, dead, t, store, store.path, found)
        if t < 52:
            lo[t] -= 1
        budget -= spent
        if answer == UNKNOWN:
            break  # the passes answer the rest at once
        if answer == FOUND:
            for u in range(52):
                if (doubt >> np.uint64(u)) & np.uint64(1) and _witness_holds(found, lo, q.jlo, u):
                    out[u] = True
                    doubt &= ~(np.uint64(1) << np.uint64(u))
            if joker_doubt and _witness_holds(found, lo, q.jlo, 52):
                out[52] = True
                joker_doubt = False
            if kept < wit.shape[0]:
                wit[kept] = found
                kept += 1
        if t == 52:
            joker_doubt = False
        else:
            doubt &= ~(np.uint64(1) << np.uint64(t))
    return doubt, joker_doubt, kept


@njit(cache=True)
def _legal_layout(q, store):
    """Whether some layout in valid sets holds at least ``q.lo`` and at most ``q.hi`` (``jlo``..``jhi`` jokers,
    and the ``fixed`` ones), worth ``threshold`` for an opening (``valued``): with ``lo == hi`` the legality of
    a play, otherwise whether any legal play holds the staged pieces; and whether the store sufficed.

    Most plays asked about are far from legal, and three necessary conditions say so without a pass: an
    opening needs the value, every piece needs enough neighbours for some set (``_could_fit``), and the jokers
    must serve every piece no set without a joker can take (``joker_need``). A legal
    play asked about is mostly found at once by a depth-first search (``exists``); only when its budget runs
    out do the passes try no joker standing in for a piece, at most one, and all, the first two being far
    smaller.
    """
    # the arrays read once here: numba counts a reference each time one is read from the tuple
    lo, hi, fixed = q.lo, q.hi, q.fixed
    total = q.jhi
    value = 13 * q.jhi
    for t in range(52):
        total += hi[t]
        value += (t % 13 + 1) * hi[t]
    fixed_jokers = fixed[1:].sum()
    if (total < 3 and fixed_jokers == 0) or (q.valued and value < q.threshold):
        return False, True
    if fixed_jokers == 0:
        for t in range(52):
            if lo[t] > 0 and not _could_fit(t, hi, q.jhi):
                return False, True
    if jokers_cannot_serve(lo, hi, q.jhi + fixed_jokers):
        return False, True
    answer, _ = _lone_search(q, LEGAL_BUDGET, store, np.empty(SUBSTEPS, dtype=np.int64), np.empty(54, dtype=np.int64))
    if answer != UNKNOWN:
        return answer == FOUND, True
    if q.valued:  # T4/K3: the most valuable layout, searched with the threshold as a floor
        weight = np.empty(52, dtype=np.int64)
        for t in range(52):
            weight[t] = t % 13 + 1
        best, got = _one_pass(Question(lo, hi, q.jlo, q.jhi, fixed, YES, ZERO), weight, ZERO, q.jhi, q.threshold,
                              13 * q.jhi, store)
        return best >= 0 and got >= q.threshold, best != -2
    weight = np.ones(52, dtype=np.int64)
    jcap = ZERO
    while True:
        best, _ = _one_pass(Question(lo, hi, q.jlo, q.jhi, fixed, NO, ZERO), weight, ONE, jcap, NO_FLOOR, ZERO, store)
        if best == -2:
            return False, False
        if best >= 0 or jcap >= q.jhi:
            return best >= 0, True
        jcap = 1 if jcap == 0 else q.jhi


@njit(cache=True)
def whole_rack(table, rack, fixed, store):
    """``_legal_layout`` of an opened seat's whole ``rack`` laid with the ``table`` (count vectors of one integer
    type, jokers last; ``fixed`` jokers, K5), its bounds made here (``_bounds``, everything staged): a hoarder
    asks it every turn, and the question's arrays made in Python cost a sixth of what answering it does."""
    lo, hi, jlo, jhi, _ = _bounds(table, rack, rack)
    return _legal_layout(Question(lo, hi, np.int64(jlo), np.int64(jhi), fixed, NO, ZERO), store)


@njit(cache=True)
def legal_layout(question, store):
    """``_legal_layout`` of a question given as a plain tuple (``programme.Question``'s fields), from Python."""
    return _legal_layout(Question(*question), store)
