"""``expert`` for Rummikub and its card edition: a look-ahead over what the seat cannot see.

``hoard`` wins by never looking at its opponent: it draws until its whole rack goes out. Whether to lay
pieces now or keep drawing depends on how close the others are to going out, which a seat cannot see. This
player decides by perfect-information Monte Carlo: it deals the unseen pieces at random to the other racks
and the pool in ``samples`` ways that agree with its view (``rummienv.rummikub.determinize``), plays each
candidate out to the end of the round in every sample, and takes the one worth most on average by the
rules' measure (``worth``): the round's score when the game is one round (T9/T10), the chance to win the
game when it has several (T11/K10). The same samples serve every candidate (common random numbers), so the
comparison is not drowned by the luck of the draw.

Candidates at the start of a turn: draw, the play with the most pieces, the one that keeps the rack's
jokers, and the one that sheds the most points; a play that goes out is taken at once (it ends the round
in the player's favour), and with no play there is nothing to choose. The games are played out with every
seat following ``hoard``'s rule, except the seats seen laying pieces after their opening, which lay the most
they can each turn (``layers``); the rules are written on the state directly (``hoard_playout``): a play-out
asks the solver one question a turn, where the agent itself would build a view and plan.
"""

from __future__ import annotations

import numpy as np

from agents.base import View, budget
from agents.rummikub_bots import PlanningAgent, Position, end_turn, position_of
from rummienv.rules import RummikubRules
from rummienv.rummikub import actions as A
from rummienv.rummikub import solver, whole_turns
from rummienv.rummikub.determinize import sample_state
from rummienv.rummikub.state import RummikubGame, RummikubState

SAMPLES = 8  # deals of the unseen pieces per decision, and per batch of more where it is close: the budget
BATCHES = 4  # batches of ``samples`` a close decision may take (``max_samples``'s default)
TRIES = 8  # deals tried per sample for one in which no opponent could have gone out (``ExpertAgent.deal``)
# Standard errors by which an option must beat hoard's choice (``ExpertAgent.pick``). Against hoard, 40 deals
# (seed 20261202), score a round: card edition 1.5 / 2.5 / 3.5 gave +8.1 / +17.9 / +9.4 (rounds won 0.30 / 0.46 /
# 0.44); tiles 1.5 / 2.5 gave +14.1 / +24.5. At 1.5 it left hoarding early for small plays and then kept laying.
# More opponents need more: the round a hoarder wins pays it three racks, a rarer and bigger outcome that a
# few samples miss, and a look-ahead that saw no such win in them sheds pieces with false confidence. Four
# seats (hoard, max_tiles, ppo; 50 deals, every seating order, seed 20261210): 2.5 / 4 scored +9.6 / +16.9 a
# round against hoard's +10.6 / +8.0. Three seats take the four-seat margin (not measured apart).
MARGIN = {2: 2.5, 3: 4.0, 4: 4.0}
# Points by which one round's margin between two seats is as likely to be smaller as larger (the median
# absolute margin): 47-67 for tiles and 31-56 for cards between expert, hoard and ppo in the 2-seat ladders.
SPREAD = 50


def worth(scores: list, view: View) -> float:
    """What a round ending with ``scores`` (by seat) is worth to the viewing seat, in the game it is playing.

    A single round is won by points, so it is worth its score. A game of several rounds is won by the highest
    total (T11/K10), so a round is worth the chance to finish first: certain or lost after the last round (a
    tie counts half), and before it a round's margins are heavy-tailed (a hoarded rack costs hundreds), so
    the rounds left are taken as a Cauchy margin of ``SPREAD`` a round, the chance against each other seat
    multiplied. Points matter as far as they change that chance: trimming a loss from 300 to 150 is worth
    little, from 60 to 10 much."""
    me = int(view["player"])
    if view["rounds"] == 1:
        return float(scores[me])
    total = {int(s): float(t) + float(scores[s]) for s, t in zip(view["seats"], view["totals"], strict=True)}
    ahead = np.array([total[me] - total[int(s)] for s in view["seats"][1:]])
    left = int(view["rounds"]) - int(view["round"]) - 1
    if left == 0:
        return float(np.prod(np.where(ahead > 0, 1.0, np.where(ahead == 0, 0.5, 0.0))))
    return float(np.prod(0.5 + np.arctan(ahead / (SPREAD * left)) / np.pi))


def hoard_playout(state: RummikubState, layers: frozenset[int] = frozenset()) -> np.ndarray:
    """Play ``state`` to its end with every seat following ``hoard``: open with the most pieces as soon as
    possible, then draw until the whole rack goes out at once, or lay the most pieces once the pool is empty;
    the seats in ``layers`` lay the most pieces every turn they can, as ``max_tiles``. The final scores.
    Once the pool is empty a seat that can play must (T7/K9), and in the card edition the only play may need
    a joker exchanged first."""
    while not state.is_terminal():
        p = state.current_player
        rack = state.racks[p]
        if state.opened[p] and state.pool and p not in layers:
            if solver.goes_out(state.table, rack, state.fixed):
                state.apply_play(rack.astype(np.int64))
            else:
                state.apply_action(A.DRAW)
            continue
        found = solver.best_play(state.table, rack, state.staged, **state.solver_args())
        if found is not None:
            state.apply_play(found.play.astype(np.int64))
        elif state.pool:
            state.apply_action(A.DRAW)
        else:  # pass, or (K6) exchange a table joker when only the freed joker makes a play, as hoard does
            state.apply_action(end_turn(state.legal_action_mask()))
    return state.scores()


class ExpertAgent(PlanningAgent):
    """Chooses each turn's play by playing the candidates out in ``samples`` deals of the unseen pieces."""

    values_whole_turns = True  # ``values`` judges the whole-turn mode's actions (``agents.dagger``)

    def __init__(self, rules: RummikubRules, seed: int | None = None, *, samples: int = SAMPLES,
                 max_samples: int | None = None, margin: float | None = None, condition: bool = True) -> None:
        budget("samples", samples, 2)
        max_samples = BATCHES * samples if max_samples is None else max_samples
        budget("max_samples", max_samples, samples)
        if margin is not None and (isinstance(margin, bool) or not isinstance(margin, (int, float)) or not margin >= 0):
            raise ValueError(f"margin must be a number of at least 0 (standard errors) or None (by the table's "
                             f"seats: {MARGIN}), got {margin!r}")
        super().__init__(rules, seed)
        self.samples = int(samples)
        self.max_samples = int(max_samples)
        self.margin = None if margin is None else float(margin)
        self.condition = bool(condition)
        self._games: dict[int, RummikubGame] = {}

    def values(self, view: View, actions: np.ndarray) -> np.ndarray:
        """values[k, n]: what ``actions[k]``, an action of the whole-turn mode, is worth to the seat (``worth``) in
        the n-th of ``samples`` deals of the unseen pieces; NaN for an action that is no whole turn.

        The expert plans a turn whole: it draws or lays one of the mode's plays (``whole_turns.PLAYS``), so those
        are what its play-outs can judge. A piece staged, a swap or a commit is a step inside a turn, which it
        never takes. Actions that lay the same play share one column of play-outs."""
        pos = position_of(view, self.rules)
        found = whole_turns.whole_plays(pos.table, pos.rack, pos.staged, pos.solver_args, self.rules.joker_penalty)
        options: list[np.ndarray | None] = []
        column = np.full(len(actions), -1)
        for k, action in enumerate(int(a) for a in actions):
            if action == A.DRAW:
                option = None
            elif 0 <= action - A.NUM_ACTIONS < len(found) and found[action - A.NUM_ACTIONS] is not None:
                option = found[action - A.NUM_ACTIONS]
            else:
                continue
            same = [j for j, seen in enumerate(options)
                    if (seen is None) == (option is None) and (option is None or np.array_equal(seen, option))]
            column[k] = same[0] if same else len(options)
            if not same:
                options.append(option)
        out = np.full((len(actions), self.samples), np.nan)
        if options:
            outcomes = self.outcomes(options, view)
            judged = column >= 0
            out[judged] = outcomes[:, column[judged]].T
        return out

    def candidates(self, pos: Position, view: View) -> list[np.ndarray | None]:
        """The plays worth comparing (None: draw), ``hoard``'s choice first; a single one where there is no
        choice."""
        most, kept = whole_turns.plays(pos.table, pos.rack, pos.staged, pos.solver_args)
        if most is None or most.sum() == pos.rack.sum():
            return [most]  # nothing to lay, or the play that goes out
        shed = whole_turns.most_points(pos.table, pos.rack, pos.staged, pos.solver_args, self.rules.joker_penalty,
                                       most)
        draw = [None] if view["pool_size"] > 0 else []
        found: list[np.ndarray | None] = draw + [most] if view["opened"] else [most] + draw
        for play in (kept, shed):
            if play is not None and not any(f is not None and np.array_equal(f, play) for f in found):
                found.append(play)
        return found

    def choose(self, pos: Position, view: View) -> np.ndarray | None:
        """The option ``pick`` takes, sampling on in batches of ``samples`` deals (up to ``max_samples``) while an
        option looks better than ``hoard``'s choice but not yet surely so: most turns are clear at once, and the
        budget goes to the close ones."""
        options = self.candidates(pos, view)
        if len(options) == 1:
            return options[0]
        margin = MARGIN[len(view["seats"])] if self.margin is None else self.margin
        outcomes = self.outcomes(options, view)
        while len(outcomes) < self.max_samples:
            mean, sure = self.gains(outcomes, margin)
            if sure.max() > 0 or mean.max() <= 0:
                break
            outcomes = np.vstack([outcomes, self.outcomes(options, view)])
        return options[self.pick(outcomes, margin)]

    @staticmethod
    def gains(outcomes: np.ndarray, margin: float) -> tuple[np.ndarray, np.ndarray]:
        """Each option's mean paired gain over the first (``hoard``'s choice), and that less ``margin`` standard
        errors."""
        gains = outcomes[:, 1:] - outcomes[:, :1]
        mean = gains.mean(axis=0)
        return mean, mean - margin * gains.std(axis=0, ddof=1) / np.sqrt(len(gains))

    def pick(self, outcomes: np.ndarray, margin: float) -> int:
        """The option whose gain over the first (``hoard``'s choice) is largest and surely positive (``gains``:
        at least ``margin`` standard errors above 0); else the first.

        Taken on the mean alone, a one-turn look-ahead picks among options that differ little by the luck of
        the samples, and such choices add up: laying a few pieces now and then feeds the opponent's table
        turn after turn, which no single look-ahead sees."""
        sure = self.gains(outcomes, margin)[1]
        best = int(np.argmax(sure))
        return best + 1 if sure[best] > 0 else 0

    def deal(self, view: View, game: RummikubGame) -> RummikubState:
        """A deal of the unseen pieces in which no opened opponent could have gone out at its last turn.

        Whoever can go out does (it ends the round in their favour), so an opponent who drew instead held a
        rack that did not go out: its rack less the piece it drew, with the table as it is. Dealt uniformly,
        the others' big racks would go out far more often than they do, and the look-ahead would shed pieces
        for fear of an end that is not coming. Deals that break this are dealt again, up to ``TRIES`` times.
        """
        me = int(view["player"])
        for _ in range(TRIES if self.condition else 1):
            state = sample_state(view, game, self.rng)
            if not view["pool_size"] or all(self.could_not_go_out(state, seat) for seat in range(game.num_players)
                                            if seat != me and state.opened[seat]):
                break
        return state

    def could_not_go_out(self, state: RummikubState, seat: int) -> bool:
        """Whether ``seat``'s rack, less a piece drawn at random from it, fails to go out on the table."""
        rack = state.racks[seat].copy()
        drawn = np.searchsorted(np.cumsum(rack), self.rng.integers(rack.sum()), side="right")
        rack[drawn] -= 1
        return not rack.any() or not solver.goes_out(state.table, rack, state.fixed)

    def layers(self, view: View) -> frozenset[int]:
        """The other seats that have laid pieces on a turn after their opening (``plays_by_seat``): a hoarder
        never does while the pool lasts, so they are played out laying what they can, not hoarding.

        A table of hoarders grows only by openings; one with layers grows every turn, and a hoarder goes out
        far sooner on it. Played out as hoarders, the layers of a four-seat table made the expert's own
        hoarding look hopeless: over the same 50 deals in every seating order with ``hoard``, ``max_tiles``
        and ``ppo`` it scored -2.9 a round against hoard's +10.3, and +8.1 against +7.5 with the layers
        told apart by rack size."""
        me = int(view["player"])
        return frozenset(int(s) for s, n in zip(view["seats"], view["plays_by_seat"], strict=True) if s != me and n > 1)

    def outcomes(self, options: list[np.ndarray | None], view: View) -> np.ndarray:
        """What each option (columns) is worth to the seat (``worth``) in each of ``samples`` deals of the unseen
        pieces (rows)."""
        game = self._games.get(len(view["seats"]))
        if game is None:
            game = self._games[len(view["seats"])] = RummikubGame(self.rules, len(view["seats"]))
        scores = np.zeros((self.samples, len(options)))
        layers = self.layers(view)
        for s in range(self.samples):
            dealt = self.deal(view, game)
            for k, play in enumerate(options):
                state = dealt.clone()
                if play is None:
                    state.apply_action(A.DRAW)
                else:
                    state.apply_play(play)
                scores[s, k] = worth(hoard_playout(state, layers), view)
        return scores
