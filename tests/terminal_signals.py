"""Child processes that meet Ctrl-C as a person's terminal delivers it.

A command started in the background by a non-interactive shell (``nohup pytest ... &``, some CI runners)
inherits SIGINT ignored, and a Python program that starts with SIGINT ignored keeps ignoring it, which is
right for the program but would make every Ctrl-C test hang there. The tests that send Ctrl-C start their
child with SIGINT at its default, as in a terminal.
"""

from __future__ import annotations

import signal


def ctrl_c_as_in_a_terminal() -> None:
    """``preexec_fn`` for Popen: SIGINT at its default in the child, whatever this process inherited."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
