"""Replays: a game kept as what recreates it (game, table size, rules, deal seed, every move, the agents'
names), written as JSON and read back (``rummienv.replay_record``, whose names are here too), played again
state by state, and drawn as frames.

A deal is fixed by its seed and the moves by the record, so the replay reaches the very states the game
went through; every move is checked by the state machine again on the way, and a record whose moves do
not fit its deal is refused, naming the move. The state after every move is available, so a replay can
be drawn from any seat's view (``frames``) or saved as an animated picture or a folder of frames:

    python -m rummienv.replay game.json --gif game.gif [--seat 0] [--fps 4]
    python -m rummienv.replay game.json --frames frames/
    python -m rummienv.replay game.json --html game.html

``--html`` writes the replay page (``rummienv.replay_page``): one self-contained file that steps through the
game with every seat's pieces shown.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from rummienv import games
from rummienv.core import TIMEOUT, State
from rummienv.envs.games import GameAdapter, make_adapter
from rummienv.errors import ReplayError
from rummienv.replay_page import write_page
from rummienv.replay_record import FORMAT, PERSON, given_seed, person_seat, read, record, write

__all__ = ["FORMAT", "OUTPUTS", "PERSON", "adapter_of", "check_output", "draw", "frames", "given_seed", "main",
           "person_seat", "read", "record", "states", "write"]  # the record's names too, where users find them


def check_output(path: Path, what: str, folder: bool = False) -> None:
    """Refuse an output path before the work that fills it is done, so that a long game or a long drawing is not
    lost to a typo: a ValueError naming ``what`` (the option), the path and what it may be. Missing folders
    are made when writing, so a path is writable when the nearest folder that exists is."""
    kind = "folder" if folder else "file"
    if path.exists():
        if path.is_dir() != folder:
            raise ValueError(f"{what} {str(path)!r} is a {'file' if folder else 'folder'}, not a {kind}: name a "
                             f"{kind} in a folder that exists or can be made")
        there = path
    else:
        there = next(p for p in path.parents if p.exists())
        if not there.is_dir():
            raise ValueError(f"{what} {str(path)!r} cannot be made: {str(there)!r} is a file, not a folder")
    if not os.access(there, os.W_OK):
        raise ValueError(f"{what} {str(path)!r} cannot be written: no permission in {str(there)!r}; "
                         f"choose a {kind} where you can write")


def adapter_of(replay: dict[str, Any]) -> GameAdapter:
    """The game a replay was played in: its table size, rules and rounds."""
    return make_adapter(replay["game"], replay["num_players"], replay["rules"] or None, replay["whole_game"])


def states(replay: dict[str, Any], adapter: GameAdapter | None = None) -> Iterator[State]:
    """The deal, then the state after each move: one state object, advanced in place between yields."""
    try:
        state = (adapter or adapter_of(replay)).new_state(replay["seed"])
    except ValueError as exc:  # rules that make a game yet no deal at this table (too many cards dealt)
        raise ReplayError(f"the replay's deal cannot be made: {exc}") from None
    yield state
    for k, move in enumerate(replay["moves"]):
        try:
            if move == TIMEOUT and hasattr(state, "apply_timeout"):  # only a game with a turn clock has one
                state.apply_timeout()
            else:
                state.apply_action(move)
        except ValueError as exc:
            raise ReplayError(f"move {k} of the replay does not fit its deal: {exc}") from None
        yield state


def frames(replay: dict[str, Any], seat: int | None = None) -> Iterator[np.ndarray]:
    """A picture per state (the game's ``picture``, ``GameInfo``), from ``seat``'s view, or from the view of the seat
    to move (the last mover's once the game is over)."""
    if seat is not None and not 0 <= seat < replay["num_players"]:
        raise ValueError(f"seat must be 0..{replay['num_players'] - 1}, got {seat}")
    adapter = adapter_of(replay)
    if adapter.info.picture is None:
        raise ValueError(f"{adapter.info.title} has no pictures: its replays can be drawn only with --html")
    picture = partial(games.load(adapter.info.picture), game=adapter.game, you=person_seat(replay))
    viewer = 0
    for state in states(replay, adapter):
        viewer = seat if seat is not None else state.current_player if state.current_player >= 0 else viewer
        yield picture(state.view(viewer))


OUTPUTS = (("gif", False), ("frames", True), ("html", False))  # each output option, and whether it names a folder


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rummienv.replay",
                                     description="Draw a replay as an animated picture or a folder of frames.")
    parser.add_argument("replay", help="a replay file (JSON), as the evaluator, play or RecordReplays write")
    parser.add_argument("--gif", type=Path, help="write an animated GIF here")
    parser.add_argument("--frames", type=Path, help="write one PNG per state into this folder")
    parser.add_argument("--seat", type=int, help="draw this seat's view throughout (default: the seat to move)")
    parser.add_argument("--html", type=Path, help="write the replay page (one self-contained HTML file) here")
    parser.add_argument("--fps", type=float, default=4.0, help="frames per second of the GIF (default 4)")
    args = parser.parse_args(argv)
    if not args.gif and not args.frames and not args.html:
        parser.error("say where to draw: --gif FILE, --frames FOLDER, --html FILE, or several")
    if args.fps <= 0:
        parser.error(f"--fps must be above 0, got {args.fps}")
    try:
        for option, folder in OUTPUTS:
            if getattr(args, option):
                check_output(getattr(args, option), f"--{option}", folder)
        draw(read(args.replay), args)
    except ValueError as exc:
        parser.exit(2, f"error: {exc}\n")
    except OSError as exc:  # checked above, yet lost meanwhile (a full disk, a folder removed)
        parser.exit(2, f"error: cannot write {str(exc.filename)!r}: {exc.strerror}; choose another path\n")
    return 0


def draw(record: dict[str, Any], args: argparse.Namespace) -> None:
    """Write every output asked for, and say what was written."""
    from PIL import Image

    if args.html:
        write_page(record, states(record), args.html)
    pictures = [Image.fromarray(frame) for frame in frames(record, args.seat)] if args.gif or args.frames else []
    if args.frames:
        args.frames.mkdir(parents=True, exist_ok=True)
        for k, picture in enumerate(pictures):
            picture.save(args.frames / f"{k:05d}.png")
    if args.gif:
        args.gif.parent.mkdir(parents=True, exist_ok=True)
        pictures[0].save(args.gif, format="GIF", save_all=True, append_images=pictures[1:],
                         duration=int(1000 / args.fps), loop=0)
    print(f"{len(record['moves']) + 1} states: {', '.join(str(p) for p in (args.gif, args.frames, args.html) if p)}")


if __name__ == "__main__":
    sys.exit(main())
