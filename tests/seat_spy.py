"""Players that remember the seats they moved at (``module:Class`` specs ``seat_spy:First``, ``seat_spy:Second``,
``seat_spy:Third``), so that a test can see where a table of opponents sat."""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.rummikub_bots import MaxTilesAgent


class First(MaxTilesAgent):
    """``max_tiles``, noting its seat at every turn it plans."""

    seats: list[int] = []

    def plan_turn(self, view: dict[str, Any]) -> np.ndarray | None:
        type(self).seats.append(int(view["player"]))
        return super().plan_turn(view)


class Second(First):
    seats: list[int] = []


class Third(First):
    seats: list[int] = []
