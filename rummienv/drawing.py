"""What every game's pictures (``render_mode="rgb_array"``) are drawn with: one frame size, the felt and
the seats' panel, fonts, and a canvas that lays out text and rows of pieces.

Each game draws its own frame from its view (``rummienv.rummikub.picture``, ``rummienv.rummy500.picture``)
on this canvas, so every game's frames have the same size, as video recorders need, and look alike. A row
of pieces wraps, and pieces that would run past the bottom of their area are summed up as "+N more".
"""

from __future__ import annotations

from functools import cache, lru_cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from rummienv.inks import Ink

FRAME_SHAPE = (600, 800, 3)  # height, width, RGB
HEIGHT, WIDTH = FRAME_SHAPE[:2]
PANEL = 600  # x where the seats' panel begins
FAINT: Ink = (170, 200, 180)  # the ink of captions, beside the plain ink of what they caption
_FELT, _PANEL_FILL, _INK = (28, 92, 60), (20, 64, 44), (240, 240, 230)
_FACE, _EDGE, _STAGED = (250, 246, 228), (60, 60, 60), (255, 200, 0)

Face = tuple[str, Ink, str, bool]  # a piece as drawn: its label, ink, corner note, and whether it is outlined


@cache
def _font(size: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    return ImageFont.load_default(size=size)


def _pixels(image: Image.Image) -> np.ndarray:
    return np.asarray(image, dtype=np.uint8)


@cache
def _background() -> np.ndarray:
    """The empty frame: felt, and the seats' panel at the right."""
    image = Image.new("RGB", (WIDTH, HEIGHT), _FELT)
    ImageDraw.Draw(image).rectangle((PANEL, 0, WIDTH, HEIGHT), fill=_PANEL_FILL)
    return _pixels(image)


@lru_cache(maxsize=4096)
def _words(words: str, size: int, fill: tuple, ground: tuple) -> np.ndarray:
    """A line of text on its background, drawn once: a frame is composed from such pieces in numpy, since
    drawing text and turning a whole picture into an array each cost more than the rest of a frame."""
    font = _font(size)
    right, bottom = ImageDraw.Draw(Image.new("RGB", (1, 1))).textbbox((0, 0), words, font=font)[2:]
    image = Image.new("RGB", (max(1, int(right)), max(1, int(bottom))), ground)
    ImageDraw.Draw(image).text((0, 0), words, font=font, fill=fill)
    return _pixels(image)


@cache
def _piece(label: str, ink: tuple, note: str, marked: bool, size: tuple[int, int]) -> np.ndarray:
    """One piece's face, drawn once and pasted wherever it lies."""
    width, height = size
    face = Image.new("RGB", (width + 1, height + 1), _FELT)
    draw = ImageDraw.Draw(face)
    draw.rounded_rectangle((0, 0, width, height), radius=3, fill=_FACE, outline=_STAGED if marked else _EDGE,
                           width=3 if marked else 1)
    draw.text((width / 2, height / 2 - 2), label, font=_font(14), fill=ink, anchor="mm")
    if note:
        draw.text((width - 2, height - 1), note, font=_font(9), fill=ink, anchor="rd")
    return _pixels(face)


class Canvas:
    """A frame being composed: text, and rows of pieces that wrap within an area."""

    def __init__(self) -> None:
        self.pixels = _background().copy()

    def paste(self, sprite: np.ndarray, x: int, y: int) -> None:
        """``sprite`` with its top left at (x, y), cut at the frame's edges."""
        height, width = min(sprite.shape[0], HEIGHT - y), min(sprite.shape[1], WIDTH - x)
        if height > 0 and width > 0:
            self.pixels[y:y + height, x:x + width] = sprite[:height, :width]

    def text(self, x: int, y: int, words: str, size: int = 14, fill: tuple = _INK) -> None:
        self.paste(_words(words, size, fill, _PANEL_FILL if x >= PANEL else _FELT), x, y)

    def pieces(self, faces: list[Face], x: int, y: int, right: int, bottom: int, size: tuple[int, int],
               gap: int = 3) -> tuple[int, int]:
        """Draw pieces left to right from (x, y), wrapping at ``right``. Returns where the next piece would go;
        what does not fit above ``bottom`` is counted."""
        width, height = size
        left = x
        for k, (label, ink, note, marked) in enumerate(faces):
            if x + width > right:
                x, y = left, y + height + gap
            if y + height > bottom:
                self.text(max(left, x - 4), y - height - gap, f"+{len(faces) - k} more", 11)
                return x, y
            self.paste(_piece(label, ink, note, marked, size), x, y)
            x += width + gap
        return x, y

    def seats(self, header: tuple[str, ...], rows: list[tuple[str, ...]], y: int) -> int:
        """The seats' panel: a small table at the right."""
        columns = [PANEL + 10, PANEL + 70, PANEL + 120, PANEL + 160]
        for column, word in zip(columns, header, strict=False):
            self.text(column, y, word, 12, FAINT)
        for row in rows:
            y += 20
            for column, word in zip(columns, row, strict=False):
                self.text(column, y, word, 13)
        return y + 28

    def array(self) -> np.ndarray:
        return self.pixels
