"""The README's examples run as printed: a reader copies them first."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def section(title: str) -> str:
    start = README.index(f"## {title}\n")
    end = README.find("\n## ", start + 1)
    return README[start:end]


def test_the_solver_example_prints_what_the_readme_shows() -> None:
    block = re.search(r"```bash\n(python -m rummienv\.solve .*)\n(\{.*\})\n```", section("The solver"))
    assert block, "the solver section's example"
    command, shown = block.groups()
    done = subprocess.run(command, shell=True, cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == shown


def test_the_adding_a_game_snippet_runs_from_the_root_as_it_says() -> None:
    snippet = re.search(r"```python\n(.*?)```", section("Adding a game"), re.S).group(1)
    check = snippet + "import gymnasium as gym\nenv = gym.make('rummienv_toy/HighCard-v0')\nenv.reset(seed=0)\n"
    done = subprocess.run([sys.executable, "-c", check], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": "tests"})
    assert done.returncode == 0, done.stderr[-2000:]
