"""The JSON lines the benchmarks read (positions, recorded games) and print: one value a line, and an error that
names the file and the line where one is not JSON, since these files are made by hand or by another tool."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def json_lines(path: str) -> Iterator[tuple[int, Any]]:
    """Each non-blank line's number and value; OSError where the file cannot be read, ValueError naming the
    line that is not JSON or a file that is not text."""
    with open(path) as f:
        try:
            lines = f.readlines()
        except UnicodeDecodeError:
            raise ValueError(f"{path} is not a text file") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as e:
            raise ValueError(f"{path} line {number}: not JSON ({e.msg} at column {e.colno})") from None
        yield number, value


def emit(result: dict[str, Any], path: Path | None) -> None:
    """Print a benchmark's result as one JSON line, and write it to ``path`` too where one is given."""
    line = json.dumps(result)
    print(line)
    if path:
        path.write_text(line + "\n")
