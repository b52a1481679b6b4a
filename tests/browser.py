"""A headless Chromium, driven from the command line: a page's DOM after its scripts ran, what its console
said, and a screenshot. The replay page's tests use it, and so does docs/make_pictures.py."""

from __future__ import annotations

import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

CHROMIUM = next((path for name in ("chromium", "chromium-browser", "google-chrome")
                 if (path := shutil.which(name))), None)
_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--virtual-time-budget=5000"]


def open_page(url: str) -> tuple[str, list[str]]:
    """The page's DOM once its scripts have run, and every console message it logged (errors included)."""
    run = subprocess.run([CHROMIUM, *_FLAGS, "--enable-logging=stderr", "--v=0", "--dump-dom", url],
                         capture_output=True, text=True, timeout=180, check=True)
    return run.stdout, [line for line in run.stderr.splitlines() if ":CONSOLE" in line]


def screenshot(url: str, path: Path, size: tuple[int, int] = (1000, 760)) -> None:
    subprocess.run([CHROMIUM, *_FLAGS, f"--window-size={size[0]},{size[1]}", f"--screenshot={path}", url],
                   capture_output=True, text=True, timeout=180, check=True)


class _Texts(HTMLParser):
    """The text inside each element that has an id."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: dict[str, str] = {}
        self._open: list[str | None] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag not in ("input", "meta", "br"):
            self._open.append(dict(attrs).get("id"))

    def handle_endtag(self, tag: str) -> None:
        if tag not in ("input", "meta", "br") and self._open:
            self._open.pop()

    def handle_data(self, data: str) -> None:
        for name in self._open:
            if name:
                self.texts[name] = self.texts.get(name, "") + data


def texts_by_id(dom: str) -> dict[str, str]:
    parser = _Texts()
    parser.feed(dom)
    return parser.texts
