"""Gymnasium env of Rummy 500 (``rummienv/Rummy500-v0``)."""

from __future__ import annotations

from rummienv.envs.base import RummyEnv


class Rummy500Env(RummyEnv):
    """Rummy 500 (docs/RULES.md F), one seat learning, the others played inside ``step``.

    ## Description
    2-4 players draw (from the stock, or any card of the spread discard pile,
    taking every card above it, if that card is used at once: F6), meld groups and
    runs, lay off on anyone's melds, and discard. Points are what a player has on
    the table minus what is left in hand (F11). Every concrete decision has its
    own index, and the mask enforces the phases and the F6 rule exactly.

    ## Action Space
    ``Discrete(579)``; card index ``c = suit * 13 + rank - 1`` with suits S H D C
    and ranks A=1 .. K=13.

    | index   | action         | legal when                                                                           |
    |---------|----------------|--------------------------------------------------------------------------------------|
    | 0       | DRAW_STOCK     | phase draw, stock not empty                                                          |
    | 1-52    | TAKE c         | phase draw, c in the pile and usable this turn (F6)                                  |
    | 53-421  | MELD m         | after the draw, meld m in hand (65 groups, then 304 runs); an owed card stays usable |
    | 422-473 | LAYOFF c GROUP | after the draw, c fits the group of its rank on the table                            |
    | 474-525 | LAYOFF c RUN   | after the draw, c extends a run of its suit on the table                             |
    | 526-577 | DISCARD c      | phase discard, c in hand (ends the turn)                                             |
    | 578     | END_HAND       | phase draw, stock empty (F10)                                                        |

    ## Observation Space
    ``Dict(observation=Box(float32, (107 (P + 1),)), action_mask=Box(int8, 0-1, (579,)))``
    with P players: 321, 428, 535 floats. The vector is the learner's view: "me"
    first, then the others in turn order ("rel" below). The stock order and other
    hands never enter it, except cards a seat took from the pile in view of all.
    The slices are ``env.unwrapped.observation_layout``.

    | part       | size       | meaning                                                    | scale            |
    |------------|------------|------------------------------------------------------------|------------------|
    | hand       | 52         | 1 if I hold card c                                         | 0/1              |
    | table      | 52 P       | block rel, card c: seat rel laid c (meld or lay-off)       | 0/1              |
    | discard    | 52         | card in the pile, by depth                                 | 1 - depth/52 (top 1.0) |
    | must_use   | 52         | the card taken this turn and still owed to the table       | 0/1              |
    | known      | 52 (P-1)   | block rel-1: cards seat rel took from the pile and holds   | 0/1              |
    | hand_sizes | P-1        | the other seats' hand sizes                                | / 52             |
    | stock      | 1          | stock size                                                 | / 52             |
    | scores     | P          | running totals, me first                                   | / target_score   |
    | phase      | 3          | one-hot: draw, meld (a card is owed), discard; 0 when over | 0/1              |
    | to_move    | P          | one-hot seat to move, relative; 0 when over                | 0/1              |

    ## Starting State
    A fresh deal from a seed drawn from ``np_random``: 7 cards each (13 with two
    players), one card up, a random first dealer (F2). The other seats play until
    the learner is to move; a hand they finish before that is dealt again.

    ## Rewards
    0 until the episode ends. Then, with ``reward="score"``, the learner's hand
    points (F11) / 100, or with ``whole_game=True`` its F12 payout / target_score;
    with ``reward="margin"``, the same less the others' mean (every seat scores in
    a hand, and the game goes to the larger total, F12); with ``reward="win"``, +1
    for the highest score alone, 0 if shared, -1 otherwise.

    ## Episode End
    Terminates when the hand ends: a player goes out (F9) or the stock is empty and
    a player ends the hand instead of drawing (F10); with ``whole_game=True``, when
    a total reaches the target (F12). Never truncates. An illegal action raises
    ``IllegalActionError`` naming the action, the phase and the broken rule; wrap
    the env in ``rummienv.envs.IllegalActionPenalty`` to end the episode with a
    penalty instead. ``info`` holds ``action_mask``, and at the end ``scores``
    (points per seat) and ``winners``.

    ## Arguments
    - ``num_players``: 2, 3 or 4.
    - ``opponents``: one entry per other seat, in turn order from the learner's
      left (or one entry for all): ``"random"`` (uniform over legal actions, from
      the env's ``np_random``), a baseline's name, ``"ppo"`` or a checkpoint path
      (made by the registered agent factory, ``rummienv.envs.opponents``), or an
      object with ``act(observation, action_mask)``, given that seat's flat
      observation and mask (and ``observe(view)`` first if it sets ``reads_view``).
    - ``seat``: the learner's seat, or ``"random"`` to draw it at each reset.
    - ``rules``: overrides of the ``rummy500`` preset, a dict or a YAML path.
    - ``reward``: ``"score"``, ``"margin"`` or ``"win"``.
    - ``whole_game``: play hands until a total reaches the target (F12), as one episode.
    - ``render_mode``: ``"ansi"`` (returns the learner's view as text) or ``"human"`` (prints it).

    ## Version History
    - v0: initial version.
    """

    game_name = "rummy500"
