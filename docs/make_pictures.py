"""The pictures of docs/environments.md and docs/agents.md, made with the tests' own tools: an env frame
(``render_mode="rgb_array"``) and a screenshot of a replay page in headless Chromium (tests/browser.py).

    python docs/make_pictures.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import gymnasium as gym
import numpy as np
from PIL import Image

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from browser import CHROMIUM, screenshot  # noqa: E402

import rummienv  # noqa: E402, F401  (registers the ids)
from agents.evaluate import evaluate  # noqa: E402
from rummienv import replay  # noqa: E402
from rummienv.replay_page import write_page  # noqa: E402


def env_frame(path: Path) -> None:
    """Rummikub at two players, the learner random against max_tiles, some way into the round."""
    env = gym.make("rummienv/Rummikub-v0", opponents=["max_tiles"], render_mode="rgb_array")
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(3)
    for _ in range(90):
        obs, _, terminated, _, _ = env.step(rng.choice(np.flatnonzero(obs["action_mask"])))
        if terminated:
            obs, _ = env.reset()
    Image.fromarray(env.render()).save(path)


def page_screenshot(path: Path) -> None:
    """The replay page of a hold_back against max_tiles game, two thirds of the way through."""
    if CHROMIUM is None:
        raise SystemExit("needs Chromium (apt-get install chromium)")
    with tempfile.TemporaryDirectory() as work:
        evaluate("rummikub", ["hold_back", "max_tiles"], 2, 1, seed=5, progress=False, replays=Path(work))
        record = replay.read(Path(work) / "deal00000-lineup00.json")
        page = write_page(record, replay.states(record), Path(work) / "game.html")
        screenshot(f"{page.as_uri()}#step={2 * len(record['moves']) // 3}", path)


if __name__ == "__main__":
    env_frame(HERE / "images" / "env_frame.png")
    page_screenshot(HERE / "images" / "replay_page.png")
    print(f"wrote {HERE / 'images'}: env_frame.png, replay_page.png")
