"""Messages count in words a person reads without stumbling: "1 tile", "2 tiles", "seat 0", "seats 0,1"."""

from __future__ import annotations

import os
import sys

import pytest

from rummienv import play_text
from rummienv.errors import PositionError
from rummienv.rummikub import load_state as load_rummikub
from rummienv.rummikub.sets import describe_invalid
from rummienv.rummy500 import load_state as load_rummy500
from rummienv.tiles import parse_tiles
from rummienv.wording import counted

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_rummy500_rules import position  # noqa: E402

NAMES = ["you", "bot"]


def test_counted_says_one_without_an_s_and_others_with_one():
    assert [counted(n, "tile") for n in (0, 1, 2)] == ["0 tiles", "1 tile", "2 tiles"]


def test_a_one_piece_set_is_one_piece():
    assert "has 1 piece;" in describe_invalid(parse_tiles("k1"))


def test_a_rummikub_seat_with_one_tile_left():
    state = load_rummikub({"game": "rummikub", "racks": [["r5", "b7", "k9"], ["o2"]], "opened": [True, True]})
    assert "seat 1 (bot): 1 tile, opened" in play_text.render(state, 0, NAMES)


def test_a_rummy500_meld_of_one_seat_and_a_hand_of_one_card():
    melds = [("group", "2S 2H 2D", [0, 0, 0]), ("run", "8S 9S TS JS", [0, 0, 0, 1])]
    state = load_rummy500(position(["5C 6C 7C", "9H"], melds=melds))
    text = play_text.render(state, 0, NAMES)
    assert "(group; seat 0)" in text and "(run; seats 0,1)" in text and "seat 1 (bot): 1 card" in text


def test_a_piece_given_once_too_often_appears_one_time():
    with pytest.raises(PositionError, match="appears 1 time in"):
        load_rummikub({"game": "rummikub", "racks": [["J"], ["r1"]], "rules": {"jokers": 0}})
