"""The examples of the README and its reference pages run as printed: a reader copies them first."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def section(page: str, title: str) -> str:
    text = (ROOT / page).read_text()
    start = text.index(f"{title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end]


def test_the_solver_example_prints_what_the_page_shows() -> None:
    block = re.search(r"```bash\n(python -m rummienv\.solve .*)\n(\{.*\})\n```",
                      section("docs/solver.md", "## From the command line and from Python"))
    assert block, "the solver section's example"
    command, shown = block.groups()
    done = subprocess.run(command, shell=True, cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == shown


def test_the_adding_a_game_snippet_runs_from_the_root_as_it_says() -> None:
    snippet = re.search(r"```python\n(.*?)```", section("docs/adding_a_game.md", "# Adding a game"), re.S).group(1)
    check = snippet + "import gymnasium as gym\nenv = gym.make('rummienv_toy/HighCard-v0')\nenv.reset(seed=0)\n"
    done = subprocess.run([sys.executable, "-c", check], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": "tests"})
    assert done.returncode == 0, done.stderr[-2000:]


def test_the_text_interface_example_runs_as_printed() -> None:
    snippet = re.search(r"```python\n(.*?)```", section("docs/language_models.md", "## The text interface"), re.S)
    done = subprocess.run([sys.executable, "-c", snippet.group(1)], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Rack of seat" in done.stdout and "['draw']" in done.stdout


def test_the_readme_stays_a_short_guide_whose_links_all_lead_somewhere() -> None:
    """A first-run guide of at most 16 KB with at most 12 figures; every relative link of it and of the
    reference pages names a file that exists."""
    readme = (ROOT / "README.md").read_text()
    assert len(readme.encode()) <= 16 * 1024
    figures = section("README.md", "## Current figures")
    assert sum(1 for line in figures.splitlines() if line.startswith("| ")) - 1 <= 12  # less the header row
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", page.read_text()):
            assert (page.parent / target).exists(), f"{page.name} links to {target}"
