"""Confidence intervals and ratings for match results.

Duplicate deals make the games of one deal depend on each other (same pieces,
every seating order), so the bootstrap resamples deals, not games. The rules decide a
game by points added up over rounds (T11, K10, F12), so the ratings use that
measure: a margin rating in points per round (how much an agent gains on the
others, not only whether it finished first), and, on whole games, a
Bradley-Terry maximum-likelihood fit (exact, and free of the order of the games)
and openskill's Plackett-Luce model where it is installed.
"""

from __future__ import annotations

import importlib.util
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

Z95 = 1.959963984540054
Seats = Sequence[tuple[str, float]]  # one game: (agent label, score) per seat


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion; sound at 0 or n successes, where the normal one is not."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (max(0.0, centre - half), min(1.0, centre + half))


def bootstrap_mean(values: Sequence[float], seed: int, resamples: int = 2000,
                   level: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of ``values`` (one value per deal)."""
    values = np.asarray(values, dtype=np.float64)
    if len(values) == 0:
        return (math.nan, math.nan)
    means = values[resample(len(values), seed, resamples)].mean(axis=1)
    lo, hi = np.quantile(means, tails(level))
    return (float(lo), float(hi))


def resample(n: int, seed: int, resamples: int) -> np.ndarray:
    """``resamples`` rows of ``n`` indices drawn with replacement: the bootstrap's draws, one seed for all of them."""
    return np.random.default_rng(seed).integers(n, size=(resamples, n))


def tails(level: float) -> list[float]:
    """The quantiles that bound a central interval of ``level``."""
    tail = (1.0 - level) / 2
    return [tail, 1.0 - tail]


def margin_ratings(games: Sequence[Seats], deals: Sequence[int], labels: Sequence[str], seed: int = 0,
                   resamples: int = 2000, level: float = 0.95) -> dict[str, dict[str, Any]]:
    """Each agent's expected lead in points per round over an agent rated 0, with a bootstrap interval over deals.

    A least-squares fit of ``r[a] - r[b]`` to a's lead over b (score difference) for every two seats at a
    table, centred so that the agents' mean is 0. Why this and not the order of finish: a round's points
    carry into the game's total, so winning small and losing big loses games that a count of rounds won
    would credit. With two agents in a zero-sum game ``r`` is each one's mean score. Exact and free of the
    games' order.
    """
    index = {label: i for i, label in enumerate(labels)}
    k = len(labels)
    deal_index = {deal: i for i, deal in enumerate(sorted(set(deals)))}
    laplacian = np.zeros((len(deal_index), k, k))  # per deal: how often each two agents met
    lead = np.zeros((len(deal_index), k))  # per deal: each agent's summed score difference over its opponents
    for seats, deal in zip(games, deals, strict=True):
        d = deal_index[deal]
        for a, (la, sa) in enumerate(seats):
            for lb, sb in seats[a + 1:]:
                i, j = index[la], index[lb]
                if i != j:
                    laplacian[d, [i, j], [i, j]] += 1
                    laplacian[d, [i, j], [j, i]] -= 1
                    lead[d, i] += sa - sb
                    lead[d, j] += sb - sa

    def fit(weights: np.ndarray) -> np.ndarray:  # weights: (fits, deals), how often each deal is counted
        system = np.einsum("md,dij->mij", weights, laplacian) + 1.0 / k  # + 1/k: the ratings sum to 0
        return np.einsum("mij,mj->mi", np.linalg.pinv(system), weights @ lead)

    point = fit(np.ones((1, len(deal_index))))[0]
    draws = resample(len(deal_index), seed, resamples)
    counts = np.stack([np.bincount(row, minlength=len(deal_index)) for row in draws]).astype(np.float64)
    low, high = np.quantile(fit(counts), tails(level), axis=0)
    return {label: {"margin": float(point[i]), "margin_ci": [float(low[i]), float(high[i])]}
            for label, i in index.items()}


def bradley_terry(games: Sequence[Seats], labels: Sequence[str], iterations: int = 10000,
                  tol: float = 1e-10) -> dict[str, float]:
    """Elo-scale strengths by maximum likelihood on every pair of seats in every game.

    A tie is half a win each. One win and one loss against a virtual player of
    strength 1 (Elo 0) keep an unbeaten agent's strength finite.
    """
    index = {label: i for i, label in enumerate(labels)}
    k = len(labels)
    wins = np.ones(k)
    meets = np.zeros((k, k))
    for seats in games:
        for a, (la, sa) in enumerate(seats):
            for lb, sb in seats[a + 1:]:
                i, j = index[la], index[lb]
                if i == j:
                    continue
                meets[i, j] += 1
                meets[j, i] += 1
                wins[i] += 1.0 if sa > sb else 0.5 if sa == sb else 0.0
                wins[j] += 1.0 if sb > sa else 0.5 if sa == sb else 0.0
    gamma = np.ones(k)
    for _ in range(iterations):
        denom = (meets / (gamma[:, None] + gamma[None, :])).sum(axis=1) + 2.0 / (gamma + 1.0)
        new = wins / denom
        if np.max(np.abs(np.log(new) - np.log(gamma))) < tol:
            gamma = new
            break
        gamma = new
    return {label: float(400.0 * np.log10(gamma[index[label]])) for label in labels}


def openskill_ratings(games: Sequence[Seats], labels: Sequence[str], seed: int = 0) -> dict[str, dict[str, float]]:
    """openskill Plackett-Luce, one update per game; an agent in two seats gets the mean.

    A fixed agent's skill does not drift, so there is no per-game drift (``tau=0``);
    with openskill's default drift the last few hundred games decided the order,
    which then disagreed with the head-to-head results. Updates still depend a
    little on the order of the games, and the evaluator's order is systematic
    (lineup after lineup), so the games go in a seeded random order.
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce(tau=0.0)
    ratings = {label: model.rating(name=label) for label in labels}
    for g in np.random.default_rng(seed).permutation(len(games)):
        seats = games[g]
        teams = [[model.rating(mu=ratings[lab].mu, sigma=ratings[lab].sigma)] for lab, _ in seats]
        updated = model.rate(teams, scores=[float(s) for _, s in seats])
        for lab in {lab for lab, _ in seats}:
            mine = [team[0] for team, (other, _) in zip(updated, seats, strict=True) if other == lab]
            ratings[lab] = model.rating(mu=float(np.mean([r.mu for r in mine])),
                                        sigma=float(np.mean([r.sigma for r in mine])), name=lab)
    return {lab: {"mu": r.mu, "sigma": r.sigma, "ordinal": r.mu - 3 * r.sigma} for lab, r in ratings.items()}


MARGIN_METHOD = ("margin: expected lead in points per round over an agent rated 0 (least squares: r[a] - r[b] "
                 "fits a's lead over b in the rounds both played; agents' mean 0; 95% bootstrap over deals)")


def ratings(rounds: Sequence[Seats], deals: Sequence[int], matches: Sequence[Seats], labels: Sequence[str],
            seed: int = 0, resamples: int = 2000) -> dict[str, Any]:
    """Each agent's margin rating from the rounds' scores; where whole games were played (``matches``: each
    seat's place, higher is better), a Bradley-Terry Elo on them, and openskill's rating where it is installed.

    ``method`` says in words which measure each figure uses, for every table that shows them.
    """
    agents = margin_ratings(rounds, deals, labels, seed, resamples)
    method = MARGIN_METHOD
    if matches:
        for lab, elo in bradley_terry(matches, labels).items():
            agents[lab]["elo"] = elo
        method += "; elo: Bradley-Terry MLE on whole games (the rules' winner first, then by total)"
        if importlib.util.find_spec("openskill") is not None:
            for lab, rated in openskill_ratings(matches, labels, seed).items():
                agents[lab].update(rated)
            method += "; mu, sigma, ordinal (mu - 3 sigma): openskill Plackett-Luce on the same whole games"
    return {"method": method, "agents": agents}
