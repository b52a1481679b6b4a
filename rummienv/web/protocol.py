"""The messages a page sends over its game's websocket, read and checked before anything is done with them.

A page sends JSON objects: ``{"type": "move", "move": "play r7 r8 r9", "version": 12}`` (or ``"actions": [7,
8, 53]`` in place of ``"move"``), ``{"type": "undo", "version": 12}`` and ``{"type": "hint", "version": 12}``.
``version`` is the position the message answers (every position the server sends carries one), so that a
message sent twice, or sent before the bots' turns it did not see, is refused rather than played on a position
its sender never saw. ``seat``, where given, must be the page's own; ``id``, any short number or string, is
echoed back in the answer so that a page can match them. Anything else is refused in one line that says what a
message may be; nothing is changed by a message refused here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

KINDS = ("move", "undo", "hint")
MAX_LENGTH = 10_000  # characters: a whole turn's move string is a few hundred
SHAPE = ('a message is a JSON object like {"type": "move", "move": "draw", "version": 3}; '
         f"types: {', '.join(KINDS)}")


class BadMessage(ValueError):
    """A message that cannot be acted on, in one line."""


@dataclass(frozen=True)
class Request:
    """A checked message: what to do (``kind``), the move (a string or action list; None for undo and hint), the
    position it answers and the id to echo."""

    kind: str
    move: str | list[Any] | None
    version: int
    answers: int | str | None


def read_request(raw: Any, seat: int) -> Request:
    """The request in ``raw`` (the websocket's text) from the page of ``seat``, or BadMessage saying what is wrong."""
    if not isinstance(raw, str):
        raise BadMessage(f"send text, not bytes; {SHAPE}")
    if len(raw) > MAX_LENGTH:
        raise BadMessage(f"message of {len(raw)} characters, more than {MAX_LENGTH}; {SHAPE}")
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise BadMessage(f"not JSON ({exc}); {SHAPE}") from None
    if not isinstance(data, dict):
        raise BadMessage(f"got a JSON {type(data).__name__}; {SHAPE}")
    answers = data.get("id")
    if isinstance(answers, bool) or not isinstance(answers, (int, str)) or isinstance(answers, str) and \
            len(answers) > 64:
        answers = None
    kind = data.get("type")
    if kind not in KINDS:
        raise BadMessage(f"unknown message type {_short(kind)}; {SHAPE}")
    version = data.get("version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise BadMessage(f"'version' must be the number of the position the message answers, got {_short(version)}")
    if "seat" in data and data["seat"] != seat:
        raise BadMessage(f"this page plays seat {seat}, not seat {_short(data['seat'])}: a page moves for its own "
                         "seat only")
    move = None
    if kind == "move":
        given = [key for key in ("move", "actions") if key in data]
        if len(given) != 1:
            raise BadMessage("a move message holds either 'move' (a move string like \"draw\") or 'actions' (a list "
                             "of action indices), not " + ("both" if given else "neither"))
        move = data[given[0]]
        if given[0] == "move" and not isinstance(move, str):
            raise BadMessage(f"'move' must be a move string like \"draw\", got {_short(move)}")
        if given[0] == "actions" and not isinstance(move, list):
            raise BadMessage(f"'actions' must be a list of action indices, got {_short(move)}")
    return Request(kind, move, version, answers)


def _short(value: Any, limit: int = 60) -> str:
    """A value as a refusal quotes it: one line, cut short."""
    shown = " ".join(repr(value).split())
    return shown if len(shown) <= limit else shown[:limit] + "..."
