"""How a finished game becomes results: winners, shared wins and rewards, each defined once.

The envs' rewards, self-play's record of the learner against each opponent and the evaluator's win rates
all read these, so that a shared win counts the same everywhere and a positive score is never taken for a
win (in Rummy 500 every seat can score points in a hand it loses).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from rummienv.core import Game, State

REWARDS = ("score", "margin", "win")


def top_seats(scores: Sequence[float] | np.ndarray) -> list[int]:
    """The seats with the top score: the winners, unless a game's rules break such ties (``State.winners``)."""
    scores = np.asarray(scores)
    return np.flatnonzero(scores == scores.max()).tolist()


def shares(winners: Sequence[int], num_players: int) -> np.ndarray:
    """Each seat's share of the win: 1/k to each of k winners, 0 to the others."""
    out = np.zeros(num_players)
    out[list(winners)] = 1.0 / len(winners)
    return out


def win_shares(state: State) -> np.ndarray:
    """Each seat's share of a finished game's win (``shares`` of ``State.winners``)."""
    return shares(state.winners(), state.num_players)


def margins(state: State) -> np.ndarray:
    """Each seat's points less the mean of the others' points."""
    scores = np.asarray(state.scores(), dtype=np.float64)
    return scores - (scores.sum() - scores) / (len(scores) - 1)


def score_shares(game: Game, state: State) -> np.ndarray:
    """Each seat's result by score, in [0, 1]: 0.5 when its points equal the others' mean, moving by a
    quarter per ``game.score_scale`` of margin, clipped. A round won by 10 points and one won by 200 differ
    here, as they do in the game's total (T11, K10, F12); a win share cannot tell them apart."""
    return np.clip(0.5 + margins(state) / (4.0 * game.score_scale), 0.0, 1.0)


def results(game: Game, state: State, mode: str) -> np.ndarray:
    """Every seat's result in [0, 1] by the measure a reward ``mode`` trains for: ``score_shares`` under
    ``"score"`` and ``"margin"``, ``win_shares`` under ``"win"``. Self-play's pool weighs its opponents by
    these."""
    return win_shares(state) if mode == "win" else score_shares(game, state)


def rewards(game: Game, state: State, mode: str) -> np.ndarray:
    """Every seat's reward for a finished game: its points / ``game.score_scale`` (``"score"``), its points
    less the others' mean / ``game.score_scale`` (``"margin"``), or +1 for winning alone, 0 for a shared win
    and -1 otherwise (``"win"``).

    In Rummikub the points of a round add up to zero, so the margin is the score times n / (n - 1) at n
    seats; in Rummy 500 every seat scores, and only the margin counts the points an opponent makes: the game
    to 500 (F12) goes to the larger total, not to the larger own score."""
    if mode == "score":
        return state.scores() / game.score_scale
    if mode == "margin":
        return margins(state) / game.score_scale
    won = win_shares(state)
    return np.where(won == 1.0, 1.0, np.where(won > 0.0, 0.0, -1.0))
