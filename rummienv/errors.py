"""Exceptions shared by every layer.

All of them subclass ValueError so that callers who only care that *their input*
was wrong can catch one type; the subclasses let tests and front ends tell an
illegal move from a malformed position or notation. A message that refuses
something under a rule cites the rule's id in parentheses, e.g. ``(T7)``;
docs/RULES.md defines every id.
"""

import signal

# The exit status of a command that Ctrl-C stopped, as shells report it, so that a script sees it did not finish.
INTERRUPTED = 128 + signal.SIGINT


class NotationError(ValueError):
    """A tile or card token that is not in the game's notation."""


class PositionError(ValueError):
    """A position (JSON state) that cannot occur under the rules."""


class IllegalActionError(ValueError):
    """An action that the current state's mask forbids."""


class RulesError(ValueError):
    """A rules override naming an unknown field or holding a bad value."""


class ReplayError(ValueError):
    """A replay file that is not one, or whose moves do not replay under its rules."""
