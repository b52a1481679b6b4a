"""Pictures of one seat's knowledge (``render_mode="rgb_array"``), drawn from the state's ``view``.

Like the text renders they read ``view(seat)`` and nothing else, so a frame can show no more than the
observation holds: other racks and hands appear only as counts. Every frame of a game has the same size
(``FRAME_SHAPE``), as video recorders need, whatever the table holds; a row of pieces wraps, and pieces
that would run past the bottom of their area are summed up as "+N more".
"""

from __future__ import annotations

from functools import cache, lru_cache
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from rummienv.core import Game
from rummienv.envs.render import rummikub_heading, staged_marks
from rummienv.inks import JOKER_INK, SUIT_INK, TILE_INK
from rummienv.rummikub.sets import set_numbers
from rummienv.tiles import JOKER, NUMBERS

FRAME_SHAPE = (600, 800, 3)  # height, width, RGB
_HEIGHT, _WIDTH = FRAME_SHAPE[:2]
_PANEL = 600  # x where the seats' panel begins
_FELT, _PANEL_FILL, _INK, _FAINT = (28, 92, 60), (20, 64, 44), (240, 240, 230), (170, 200, 180)
_FACE, _EDGE, _STAGED = (250, 246, 228), (60, 60, 60), (255, 200, 0)


@cache
def _font(size: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    return ImageFont.load_default(size=size)


def _pixels(image: Image.Image) -> np.ndarray:
    return np.asarray(image, dtype=np.uint8)


@cache
def _background() -> np.ndarray:
    """The empty frame: felt, and the seats' panel at the right."""
    image = Image.new("RGB", (_WIDTH, _HEIGHT), _FELT)
    ImageDraw.Draw(image).rectangle((_PANEL, 0, _WIDTH, _HEIGHT), fill=_PANEL_FILL)
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


class _Canvas:
    """A frame being composed: text, and rows of pieces that wrap within an area."""

    def __init__(self) -> None:
        self.pixels = _background().copy()

    def paste(self, sprite: np.ndarray, x: int, y: int) -> None:
        """``sprite`` with its top left at (x, y), cut at the frame's edges."""
        height, width = min(sprite.shape[0], _HEIGHT - y), min(sprite.shape[1], _WIDTH - x)
        if height > 0 and width > 0:
            self.pixels[y:y + height, x:x + width] = sprite[:height, :width]

    def text(self, x: int, y: int, words: str, size: int = 14, fill: tuple = _INK) -> None:
        self.paste(_words(words, size, fill, _PANEL_FILL if x >= _PANEL else _FELT), x, y)

    def pieces(self, faces: list[tuple[str, tuple, str, bool]], x: int, y: int, right: int, bottom: int,
               size: tuple[int, int], gap: int = 3) -> tuple[int, int]:
        """Draw pieces left to right from (x, y), wrapping at ``right``; each face is (label, ink, corner
        note, marked). Returns where the next piece would go; what does not fit above ``bottom`` is counted."""
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
        columns = [_PANEL + 10, _PANEL + 70, _PANEL + 120, _PANEL + 160]
        for column, word in zip(columns, header, strict=False):
            self.text(column, y, word, 12, _FAINT)
        for row in rows:
            y += 20
            for column, word in zip(columns, row, strict=False):
                self.text(column, y, word, 13)
        return y + 28

    def array(self) -> np.ndarray:
        return self.pixels


def _tile_face(t: int, stands_for: int | None = None, marked: bool = False) -> tuple[str, tuple, str, bool]:
    if t == JOKER:
        return "J", JOKER_INK, "" if stands_for is None else str(stands_for), marked
    return str(t % NUMBERS + 1), TILE_INK[t // NUMBERS], "", marked


def _seat_word(seat: int, you: int | None, to_move: int) -> str:
    return f"{seat}{' you' if seat == you else ''}{' *' if seat == to_move else ''}"


def rummikub_frame(view: dict[str, Any], game: Game, you: int | None = None) -> np.ndarray:
    """The table's sets, the seat's rack (staged pieces outlined), every seat's piece count, whether it has
    opened and its total, the pool and whose turn it is. Only ``you``, the seat a person played, is called
    "you": the seat whose view it is may be a bot's."""
    canvas = _Canvas()
    me, to_move = view["player"], view["current_player"]
    status = "game over" if to_move < 0 else f"seat {to_move} to move ({view['phase']})"
    canvas.text(12, 10, f"{rummikub_heading(view, game)}: {status}", 16)
    canvas.text(12, 40, f"Table: {len(view['table_sets'])} sets", 13, _FAINT)
    x, y = 12, 60
    for kind, pieces in view["table_sets"]:
        faces = [_tile_face(t, n if t == JOKER else None)
                 for t, n in zip(pieces, set_numbers(pieces, kind), strict=True)]
        if x + len(faces) * 25 > _PANEL - 10 and x > 12:  # a set starts a new line rather than split
            x, y = 12, y + 36
        x, y = canvas.pieces(faces, x, y, _PANEL - 10, 400, (22, 32))
        x += 14
    staged = view["staged"]  # a part of the rack, laid out this turn and not yet committed
    canvas.text(12, 412, f"Rack of seat {me}: {len(view['rack'])} pieces"
                + (f", {len(staged)} staged (outlined)" if staged else ""), 13, _FAINT)
    rack = [_tile_face(t, marked=marked) for t, marked in zip(view["rack"], staged_marks(view["rack"], staged),
                                                              strict=True)]
    canvas.pieces(rack, 12, 432, _PANEL - 10, _HEIGHT - 8, (22, 32))
    rows = [(_seat_word(s, you, to_move), str(n), "yes" if o else "no", f"{t:g}")
            for s, n, o, t in zip(view["seats"], view["rack_sizes"], view["opened_by_seat"], view["totals"],
                                  strict=True)]
    y = canvas.seats(("seat", "pieces", "open", "total"), rows, 40)
    canvas.text(_PANEL + 10, y, f"pool: {view['pool_size']}", 14)
    canvas.text(_PANEL + 10, y + 22, f"passes in a row: {view['passes']}", 12, _FAINT)
    return canvas.array()


def _card_face(card: str) -> tuple[str, tuple, str, bool]:
    """A card in the project's notation (``TD``: ten of diamonds), red or black by its suit."""
    return card, SUIT_INK[card[-1]], "", False


def rummy500_frame(view: dict[str, Any], game: Game, you: int | None = None) -> np.ndarray:
    """The melds and who laid them, the discard pile, the seat's hand, every seat's card count, score and
    the cards it took from the pile, the stock and whose turn it is; only ``you`` is called "you", as above."""
    canvas = _Canvas()
    me, to_move, players = view["player"], view["current_player"], view["num_players"]
    status = "hand over" if to_move < 0 else f"seat {to_move} to move ({view['phase']})"
    canvas.text(12, 10, f"Rummy 500, hand {view['hand_number'] + 1}: {status}; dealer seat {view['dealer']}", 16)
    canvas.text(12, 40, f"Melds: {len(view['melds'])}, each after the seats that laid its cards", 13, _FAINT)
    x, y = 12, 60
    for meld in view["melds"]:
        faces = [_card_face(c) for c in meld["cards"]]
        if x + len(faces) * 33 + 30 > _PANEL - 10 and x > 12:
            x, y = 12, y + 44
        canvas.text(x, y + 12, ",".join(map(str, sorted(set(meld["owners"])))), 11, _FAINT)  # who laid it
        x, y = canvas.pieces(faces, x + 24, y, _PANEL - 10, 300, (30, 40))
        x += 12
    canvas.text(12, 306, f"Discard pile, bottom to top: {len(view['discard'])} cards"
                + (f"; owed to the table: {view['must_use']}" if view["must_use"] is not None else ""), 13, _FAINT)
    canvas.pieces([_card_face(c) for c in view["discard"]], 12, 326, _PANEL - 10, 420, (30, 40))
    canvas.text(12, 432, f"Hand of seat {me}: {len(view['hand'])} cards", 13, _FAINT)
    canvas.pieces([_card_face(c) for c in view["hand"]], 12, 452, _PANEL - 10, _HEIGHT - 8, (30, 40))
    seats = [(me + i) % players for i in range(players)]
    rows = [(_seat_word(s, you, to_move), str(view["hand_sizes"][s]), str(view["scores"][s])) for s in seats]
    y = canvas.seats(("seat", "cards", "total"), rows, 40)
    canvas.text(_PANEL + 10, y, f"stock: {view['stock_size']}", 14)
    y += 30
    for s in seats:
        if view["known"][s]:
            canvas.text(_PANEL + 10, y, f"seat {s} took from the pile:", 11, _FAINT)
            canvas.pieces([_card_face(c) for c in view["known"][s]], _PANEL + 10, y + 16, _WIDTH - 6, _HEIGHT - 8,
                          (30, 40))
            y += 64
    return canvas.array()
