"""Gymnasium envs of Rummikub with tiles (``rummienv/Rummikub-v0``) and its card edition
(``rummienv/RummikubCards-v0``): one engine, two rules presets."""

from __future__ import annotations

from rummienv.envs.base import RummyEnv


class RummikubEnv(RummyEnv):
    """Rummikub with tiles (docs/RULES.md C and T), one seat learning, the others played inside ``step``.

    ## Description
    2-4 players race to empty their racks onto a shared table of sets (groups and
    runs). A turn's real decision is *which* pieces go down; the arrangement of the
    table is computed by an exact solver. So a turn is built one piece at a time
    and closed with COMMIT, or ended with DRAW (PASS once the pool is empty and
    nothing can be played). The mask is exact and never leads into a dead end: a
    piece is offered only if some legal play contains everything staged plus it.

    ## Action Space
    ``Discrete(108)``; indices mean the same in both editions, so one network
    serves both (actions a preset lacks are always masked).

    | index  | action         | legal when                                                   |
    |--------|----------------|--------------------------------------------------------------|
    | 0-51   | PLACE tile     | some legal play holds the staged pieces plus this tile       |
    | 52     | PLACE joker    | as above                                                     |
    | 53     | COMMIT         | the staged pieces are a legal play now (T3-T6)               |
    | 54     | DRAW           | the pool is not empty (staged pieces go back to the rack)    |
    | 55     | PASS           | pool empty and nothing else legal (T7)                       |
    | 56-107 | SWAP_JOKER t   | card edition only (K6); always masked here                   |

    Tile index ``t = colour * 13 + number - 1`` with colours black, blue, orange,
    red (``k b o r``); the joker is 52.

    ## Observation Space
    ``Dict(observation=Box(float32, (176 + 3P,)), action_mask=Box(int8, 0-1, (108,)))``
    with P players: 182, 185, 188 floats. The vector is the learner's view: "me"
    first, then the others in turn order; other racks and the pool's order never
    enter it, only their sizes. The slices are ``env.unwrapped.observation_layout``.

    | part         | size | meaning                                                      | scale          |
    |--------------|------|--------------------------------------------------------------|----------------|
    | rack         | 53   | my pieces per type                                           | 0.5 a copy, joker 0.25 |
    | staged       | 53   | pieces I have staged this turn                               | as rack        |
    | table        | 53   | pieces on the table per type (jokers: all of them)           | as rack        |
    | table_jokers | 13   | table jokers fixed to each number (card edition, K5)         | 0.25 each      |
    | rack_sizes   | P    | pieces in each rack, me first                                | / 30           |
    | opened       | P    | whether each seat has opened (T4)                            | 0/1            |
    | totals       | P    | running totals of earlier rounds, me first                   | / 200          |
    | pool         | 1    | pieces left in the pool                                      | / 106          |
    | passes       | 1    | passes in a row with the pool empty                          | / P            |
    | phase        | 2    | one-hot: turn start, staging                                 | 0/1            |

    ## Starting State
    A fresh deal from a seed drawn from ``np_random`` (T1, 14 pieces each); the
    highest drawn tile starts (T2). The other seats play until the learner is to
    move; a deal they finish before that is dealt again.

    ## Rewards
    0 until the episode ends. Then, with ``reward="score"``, the learner's points
    (T9/T10: minus its rack, or plus the others' racks for the winner) / 200; with
    ``reward="margin"``, its points less the others' mean / 200 (the points add up
    to zero, so this is the score times n / (n - 1) at n seats); with
    ``reward="win"``, +1 for winning alone, 0 for a shared win, -1 otherwise. With
    ``whole_game=True`` the points are the game's totals (T11).

    ## Episode End
    Terminates when the round ends: a rack is empty (T8) or every player in turn
    passed with the pool empty (T7). Never truncates. An illegal action raises
    ``IllegalActionError`` (the action, the phase and why); wrap the env in
    ``rummienv.envs.IllegalActionPenalty`` to end the episode with a penalty instead.
    ``info`` holds ``action_mask``, and at the end ``scores`` (points per seat) and
    ``winners``.

    ## Arguments
    - ``num_players``: 2, 3 or 4.
    - ``opponents``: one entry per other seat, in turn order from the learner's
      left (or one entry for all): ``"random"`` (uniform over legal actions, from
      the env's ``np_random``), a baseline's name, ``"ppo"`` or a checkpoint path
      (made by the registered agent factory, ``rummienv.envs.opponents``), or an
      object with ``act(observation, action_mask)``, given that seat's flat
      observation and mask (and ``observe(view)`` first if it sets ``reads_view``).
    - ``seat``: the learner's seat, or ``"random"`` to draw it at each reset.
    - ``rules``: overrides of the preset, a dict or a YAML path (``make_rules``).
    - ``reward``: ``"score"``, ``"margin"`` or ``"win"``.
    - ``whole_game``: play every round of a game (T11) as one episode.
    - ``render_mode``: ``"ansi"`` (returns the learner's view as text) or ``"human"`` (prints it).
    - ``whole_turns``: the whole-turn action mode (``rummienv.rummikub.whole_turns``):
      ``Discrete(110)``, whose actions 108 and 109 complete the staged pieces to the
      play with the most pieces, or the most without spending the rack's jokers, and
      commit it; the observation appends what each would lay down (``2 * 57`` floats).

    ## Version History
    - v0: initial version.
    """

    game_name = "rummikub"


class RummikubCardsEnv(RummikubEnv):
    """The Rummikub card edition (docs/RULES.md C and K), one seat learning, the others played inside ``step``.

    ## Description
    Rummikub with 108 cards: four jokers, a 40-point opening (K3), jokers that keep
    the number they stood for once on the table (K5), and SWAP_JOKER: an opened
    player may take a table joker by putting the card it stands for in its place,
    and must play the joker again that turn (K6). A turn is built as in
    ``Rummikub-v0``: PLACE pieces, then COMMIT, or DRAW.

    ## Action Space
    ``Discrete(108)``, the same table as ``Rummikub-v0``:

    | index  | action         | legal when                                                   |
    |--------|----------------|--------------------------------------------------------------|
    | 0-51   | PLACE card     | some legal play holds the staged cards plus this card        |
    | 52     | PLACE joker    | as above                                                     |
    | 53     | COMMIT         | the staged cards are a legal play now                        |
    | 54     | DRAW           | the stock is not empty (staged cards go back to the hand)    |
    | 55     | PASS           | stock empty and nothing else legal (K9)                      |
    | 56-107 | SWAP_JOKER t   | opened, a table joker stands for t's number, and a legal play follows (K6) |

    ## Observation Space
    ``Dict(observation=Box(float32, (176 + 3P,)), action_mask=Box(int8, 0-1, (108,)))``,
    the same layout as ``Rummikub-v0`` (``env.unwrapped.observation_layout``):

    | part         | size | meaning                                                      | scale          |
    |--------------|------|--------------------------------------------------------------|----------------|
    | rack         | 53   | my cards per type                                            | 0.5 a copy, joker 0.25 |
    | staged       | 53   | cards I have staged this turn (a swap stages the joker too)  | as rack        |
    | table        | 53   | cards on the table per type (jokers: all of them)            | as rack        |
    | table_jokers | 13   | table jokers fixed to each number (K5)                       | 0.25 each      |
    | rack_sizes   | P    | cards in each hand, me first                                 | / 30           |
    | opened       | P    | whether each seat has opened (K3)                            | 0/1            |
    | totals       | P    | running totals of earlier rounds, me first                   | / 200          |
    | pool         | 1    | cards left in the stock                                      | / 106          |
    | passes       | 1    | passes in a row with the stock empty                         | / P            |
    | phase        | 2    | one-hot: turn start, staging                                 | 0/1            |

    ## Starting State
    A fresh deal from a seed drawn from ``np_random`` (K1, 14 cards each); the
    starter is drawn by lot (K2). The other seats play until the learner is to
    move; a deal they finish before that is dealt again.

    ## Rewards
    As ``Rummikub-v0`` (K7: a joker left in hand costs 25): the learner's points
    / 200 with ``reward="score"``, less the others' mean with ``reward="margin"``;
    +1 / 0 / -1 for a win / shared win / loss with ``reward="win"``.

    ## Episode End
    As ``Rummikub-v0``: the round ends when a hand is empty or every player in
    turn passed with the stock empty (K9); never truncates; illegal actions raise.

    ## Arguments
    As ``Rummikub-v0``: ``num_players``, ``opponents``, ``seat``, ``rules``
    (overrides of the ``rummikub_cards`` preset), ``reward``, ``whole_game`` (K10),
    ``render_mode``, ``whole_turns``.

    ## Version History
    - v0: initial version.
    """

    game_name = "rummikub_cards"
