"""High card: a toy game added the way docs/adding_a_game.md says, to keep that page honest.

Each seat is dealt ``hand_size`` cards of nine (values 1-9) and in turn lays one face up; when every card is
down, the highest total wins. Small as it is, it has what the real games have for the layers above: hidden
hands, a mask, a seed that fixes the deal, positions and a replay record.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from rummienv.core import Game, RulesArg, State
from rummienv.errors import IllegalActionError, PositionError
from rummienv.games import GameInfo

CARDS = 9


@dataclass(frozen=True)
class HighCardRules:
    game: str = "high_card"
    hand_size: int = 3


class HighCardGame(Game):
    num_actions = CARDS
    rules_type = HighCardRules
    default_rules = "high_card"

    def __init__(self, rules: RulesArg = None, num_players: int = 2, whole_game: bool = False) -> None:
        super().__init__(rules, num_players, whole_game)
        if self.num_players * self.rules.hand_size > CARDS:
            raise ValueError(f"{self.num_players} hands of {self.rules.hand_size} need more than {CARDS} cards")

    @property
    def observation_layout(self) -> dict[str, slice]:
        p = self.num_players
        return {"hand": slice(0, CARDS), "laid": slice(CARDS, CARDS + CARDS * p),
                "to_move": slice(CARDS + CARDS * p, CARDS + CARDS * p + p)}

    @property
    def score_scale(self) -> float:
        return float(CARDS * self.rules.hand_size)

    def new_initial_state(self, seed: int | None = None) -> HighCardState:
        seed = self.deal_seed(seed)
        deck = np.random.default_rng(seed).permutation(CARDS)
        n = self.rules.hand_size
        hands = [sorted(int(c) for c in deck[s * n:(s + 1) * n]) for s in range(self.num_players)]
        return HighCardState(self, hands, [[] for _ in hands], seed)


class HighCardState(State):
    num_actions = CARDS

    def __init__(self, game: HighCardGame, hands: list[list[int]], laid: list[list[int]], seed: int,
                 history: list[int] | None = None) -> None:
        self.game, self.rules, self.num_players = game, game.rules, game.num_players
        self.hands, self.laid, self.seed = hands, laid, seed
        self.history = list(history or [])

    @property
    def current_player(self) -> int:
        return -1 if self.is_terminal() else len(self.history) % self.num_players

    def legal_action_mask(self) -> np.ndarray:
        mask = np.zeros(CARDS, dtype=np.int8)
        if not self.is_terminal():
            mask[self.hands[self.current_player]] = 1
        return mask

    def apply_action(self, action: int) -> None:
        self.check_legal(action)
        seat = self.current_player
        self.hands[seat].remove(int(action))
        self.laid[seat].append(int(action))
        self.history.append(int(action))

    def is_terminal(self) -> bool:
        return not any(self.hands)

    def scores(self) -> np.ndarray:
        return np.array([float(sum(cards) + len(cards)) for cards in self.laid])

    def action_to_string(self, action: int) -> str:
        return f"LAY {int(action) + 1}"

    def string_to_action(self, text: str) -> int:
        try:
            return int(text.split()[-1]) - 1
        except ValueError:
            raise IllegalActionError(f"unknown action {text!r}; allowed: 'LAY 1' .. 'LAY {CARDS}'") from None

    def clone(self) -> HighCardState:
        return HighCardState(self.game, [list(h) for h in self.hands], [list(c) for c in self.laid], self.seed,
                             self.history)

    def to_dict(self) -> dict[str, Any]:
        changed = {k: v for k, v in dataclasses.asdict(self.rules).items() if k != "game"}
        return {"game": "high_card", "rules": changed, "hands": self.hands, "laid": self.laid, "seed": self.seed,
                "history": self.history}

    def view(self, player: int) -> dict[str, Any]:
        return {"game": "high_card", "player": player, "current_player": self.current_player,
                "hand": list(self.hands[player]), "laid": [list(c) for c in self.laid]}

    def observation(self, player: int) -> np.ndarray:
        p = self.num_players
        out = np.zeros(self.game.observation_size, dtype=np.float32)
        out[self.hands[player]] = 1.0
        for k in range(p):
            out[CARDS * (1 + k) + np.array(self.laid[(player + k) % p], dtype=np.int64)] = 1.0
        if not self.is_terminal():
            out[CARDS * (1 + p) + (self.current_player - player) % p] = 1.0
        return out


def load_state(position: dict[str, Any]) -> HighCardState:
    if position.get("game") != "high_card":
        raise PositionError(f"position is for game {position.get('game')!r}, not 'high_card'")
    game = HighCardGame(position.get("rules") or None, len(position["hands"]))
    return HighCardState(game, [list(h) for h in position["hands"]], [list(c) for c in position["laid"]],
                         int(position["seed"]), position["history"])


def render(view: dict[str, Any], game: HighCardGame) -> str:
    return f"seat {view['player']}: hand {view['hand']}, laid {view['laid']}, to move {view['current_player']}"


INFO = GameInfo(name="high_card", title="High card", rules=HighCardRules(), game="toy_game:HighCardGame",
                load_state="toy_game:load_state", text="toy_game:render", env_id="rummienv_toy/HighCard-v0")
