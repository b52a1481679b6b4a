"""The replay page: what it holds, and in a real headless browser, that it loads without a console message,
stepping forward changes the table as the game did, and the last step shows the final scores. CI installs
Chromium (.ci/run); where there is none, the browser's tests say so and skip."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from browser import CHROMIUM, open_page, texts_by_id

from agents.evaluate import evaluate
from rummienv import replay
from rummienv.envs.games import make_adapter
from rummienv.replay_page import page, snapshots, write_page
from rummienv.rummikub import actions as RA
from rummienv.tiles import tile_index

needs_browser = pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium (apt-get install chromium; .ci/run does)")


@pytest.fixture
def staged_record(tmp_path):
    """Seat 1 moves first in deal 1 and stages r3 and k3 of its rack; recorded with 0 as the seed given."""
    state = make_adapter("rummikub", 2).new_state(1)
    for piece in ("r3", "k3"):
        state.apply_action(RA.PLACE + tile_index(piece))
    return replay.read(replay.write(tmp_path / "staged.json", state, ["greedy", "max_tiles"], given_seed=0))


def test_the_page_marks_staged_pieces_and_shows_the_seed_given(staged_record):
    hands = snapshots(staged_record, replay.states(staged_record))[-1]["hands"]
    assert sorted(text for text, _, staged in hands[1] if staged) == ["3", "3"]
    assert not any(staged for *_, staged in hands[0])
    title = "<title>rummikub replay: greedy vs max_tiles (seed 0)</title>"
    assert title in page(staged_record, replay.states(staged_record))


@needs_browser
def test_the_browser_outlines_staged_pieces(tmp_path, staged_record):
    written = write_page(staged_record, replay.states(staged_record), tmp_path / "staged.html")
    dom, console = open_page(written.as_uri() + "#step=2")
    assert console == [] and dom.count('class="piece staged"') == 2


def _table_text(step: dict) -> str:
    return "".join(s["label"] + "".join(text for text, _ in s["pieces"]) for s in step["table"]) or "(empty)"


@needs_browser
@pytest.mark.parametrize("game", ["rummikub", "rummy500"])
def test_the_page_steps_through_the_game(tmp_path, game):
    agents = ["hold_back", "max_tiles"] if game == "rummikub" else ["value", "greedy"]
    evaluate(game, agents, 2, 1, seed=5, progress=False, replays=tmp_path)
    record = replay.read(tmp_path / "deal00000-lineup00.json")
    page = write_page(record, replay.states(record), tmp_path / "game.html")
    steps = snapshots(record, replay.states(record))
    changed = next(k for k, step in enumerate(steps) if step["table"] != steps[0]["table"])
    last = len(steps) - 1
    shown = {}
    for k in (0, changed, last):
        dom, console = open_page(f"{page.as_uri()}#step={k}")
        assert console == [], f"the page logged to its console at step {k}: {console}"
        shown[k] = texts_by_id(dom)
        assert shown[k]["where"] == f"step {k} of {last}"
        assert shown[k]["table"] == _table_text(steps[k])
        assert shown[k]["move"] == steps[k]["move"]
    assert shown[changed]["table"] != shown[0]["table"]
    assert "scores" not in shown[0] and "scores" not in shown[changed]
    finals = [f"{name} {score:+g}" for name, score in zip(record["agents"], record["scores"], strict=True)]
    assert shown[last]["scores"] == "final scores: " + ", ".join(finals)


@needs_browser
def test_the_browser_reports_a_page_whose_script_fails(tmp_path):
    broken = tmp_path / "broken.html"
    broken.write_text("<html><body><script>notAFunction();</script></body></html>")
    _, console = open_page(broken.as_uri())
    assert any("notAFunction" in line for line in console)
