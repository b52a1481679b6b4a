"""Confidence intervals and ratings for match results.

Duplicate deals make the games of one deal depend on each other (same pieces,
seats rotated), so the bootstrap resamples deals, not games. Ratings: a
Bradley-Terry maximum-likelihood fit on the pairwise results (exact, and free of
the order of the games), and openskill's Plackett-Luce model where it is installed.
"""

from __future__ import annotations

import importlib.util
import math
from collections.abc import Sequence

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
    rng = np.random.default_rng(seed)
    means = values[rng.integers(len(values), size=(resamples, len(values)))].mean(axis=1)
    tail = (1.0 - level) / 2
    lo, hi = np.quantile(means, [tail, 1.0 - tail])
    return (float(lo), float(hi))


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


def ratings(games: Sequence[Seats], labels: Sequence[str], seed: int = 0) -> dict:
    """Every agent's Bradley-Terry Elo (order-free), and openskill's rating where it is installed."""
    elo = bradley_terry(games, labels)
    agents = {lab: {"elo": elo[lab]} for lab in labels}
    method = "elo: Bradley-Terry MLE on pairwise results"
    if importlib.util.find_spec("openskill") is not None:
        for lab, rated in openskill_ratings(games, labels, seed).items():
            agents[lab].update(rated)
        method += "; mu, sigma, ordinal (mu - 3 sigma): openskill Plackett-Luce"
    return {"method": method, "agents": agents}
