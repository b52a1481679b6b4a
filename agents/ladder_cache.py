"""The ladder's store of finished games, so that a ladder run again plays only what is new.

A unit of work (a table of agents, single rounds or whole games, one deal) keeps its games' records in a
file under a folder named by a hash of everything that decides them: the rules, the seats, the seed,
rounds or whole games, and each agent's identity. An agent is identified by its spec, the source file of
its class and, for a network, the checkpoint's content, so a retrained file or an edited bot plays again,
while adding an agent leaves every other table's files valid. Each unit is its own file, written whole
(temporary file, then rename), so a run stopped halfway keeps what it finished.
"""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import rummienv
from agents.registry import checkpoint_file, make_agent
from rummienv.rules import Rules


def file_hash(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def identity(spec: str, rules: Rules, players: int) -> dict[str, str]:
    """What decides how ``spec`` plays: its class and that class's source file, and a checkpoint's content.

    It builds the agent once, so a spec that is no agent is refused here (``make_agent``'s ValueError).
    """
    cls = type(make_agent(spec, rules, players, seed=0))
    found = {"spec": spec, "class": f"{cls.__module__}.{cls.__qualname__}"}
    source = inspect.getsourcefile(cls)
    if source:
        found["source"] = file_hash(Path(source))
    checkpoint = checkpoint_file(spec, rules, players)
    if checkpoint is not None:
        found["checkpoint"] = file_hash(checkpoint)
    return found


class Cache:
    """Finished units under ``root``, one folder per (table, rounds or whole games) and one file per deal."""

    def __init__(self, root: Path, rules: Rules, players: int, seed: int) -> None:
        self.root = Path(root)
        self.context = {"format": 1, "rummienv": rummienv.__version__, "rules": dataclasses.asdict(rules),
                        "players": players, "seed": seed}
        if players > 2:  # tables of more seats play every seating order, not one order rotated: games differ
            self.context["seatings"] = "every order"

    def folder(self, table: Sequence[dict[str, str]], whole_game: bool) -> Path:
        """The folder of a table's units (``table``: the seats' identities), with the key it was named from."""
        key = {**self.context, "whole_game": whole_game, "table": list(table)}
        text = json.dumps(key, sort_keys=True)
        folder = self.root / hashlib.sha256(text.encode()).hexdigest()[:24]
        if not (folder / "key.json").is_file():
            write(folder / "key.json", text)
        return folder

    @staticmethod
    def load(folder: Path, deal: int) -> list[dict[str, Any]] | None:
        path = folder / f"deal{deal:05d}.json"
        return json.loads(path.read_text()) if path.is_file() else None

    @staticmethod
    def store(folder: Path, deal: int, records: list[dict[str, Any]]) -> None:
        write(folder / f"deal{deal:05d}.json", json.dumps(records))


def write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
