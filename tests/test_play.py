"""The terminal game driven by a script: whole games, refused moves, the turn clock."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

# Seat 1 (the bot) goes out with r1 r2 r3 on its first turn; seat 0 (the person) moves first.
POSITION = {
    "game": "rummikub",
    "racks": [["k10", "k11", "k12", "o2", "o5", "b7", "b9", "r4", "r8", "k6", "o13", "b1", "r13", "k4"],
              ["r1", "r2", "r3"]],
    "table": [["o7", "o8", "o9"]],
    "opened": [False, True],
    "current_player": 0,
}


def start(args):
    cmd = [sys.executable, "-m", "rummienv.play", *args]
    return subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.fixture
def position(tmp_path):
    path = tmp_path / "position.json"
    path.write_text(json.dumps(POSITION))
    return str(path)


def test_rummy500_whole_hand_from_a_script_with_refused_moves():
    moves = ["bogus", "discard AS", "meld 2S 3S", "hint"] + ["auto"] * 400
    run = subprocess.run([sys.executable, "-m", "rummienv.play", "--game", "rummy500", "--opponents", "value",
                          "--seed", "3"], input="\n".join(moves) + "\n", capture_output=True, text=True, timeout=240)
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "moves first: the seat after the dealer" in out and "plays first (F2)" in out
    assert "not understood: unknown move 'bogus'" in out
    assert "not legal: 'discard AS'" in out and "the turn starts with a draw" in out
    assert "not legal: 'meld 2S 3S': 2S 3S is not a group or run (F5)" in out
    assert "hint: draw" in out or "hint: take" in out
    assert "seat 1 (value):" in out and "your hand (13):" in out
    assert "game over. scores:" in out and "winner:" in out


def test_rummikub_refused_moves_then_time_out_then_the_bot_goes_out(position):
    """The input stays open and silent after two refused moves, as a person who stops typing."""
    proc = start(["--position", position, "--opponents", "max_tiles", "--clock", "1"])
    try:
        proc.stdin.write("place b13\nplay k10 k11\n")
        proc.stdin.flush()
        proc.wait(timeout=240)
        out, err = proc.stdout.read(), proc.stderr.read()
    finally:
        proc.kill()
        proc.stdin.close()
    assert proc.returncode == 0, err
    assert "b13 is not in your rack" in out
    assert "do not make a legal play yet" in out and "worth 30 or more" in out
    assert "time is up (1 s, T12): you drew 3:" in out
    assert "seat 1 (max_tiles): played r1 r2 r3" in out
    assert "seat 0 (you): -" in out and "winner: max_tiles" in out


def test_rummikub_play_command_and_hint(position):
    run = subprocess.run([sys.executable, "-m", "rummienv.play", "--position", position, "--opponents", "greedy",
                          "--clock", "off"], input="hint\nplay k10 k11 k12\n", capture_output=True, text=True,
                         timeout=240)
    assert run.returncode == 0, run.stderr
    assert "seat 0 (you) moves first, as the position says" in run.stdout
    assert "hint: play k10 k11 k12" in run.stdout
    assert "you: played k10 k11 k12" in run.stdout
    assert "game over" in run.stdout


def test_rummikub_a_play_placed_piece_by_piece_is_logged_whole_and_staged_pieces_show_once(position):
    run = subprocess.run([sys.executable, "-m", "rummienv.play", "--position", position, "--opponents", "greedy",
                          "--clock", "off"], input="place k10\nplace k11\nplace k12\ncommit\n",
                         capture_output=True, text=True, timeout=240)
    assert run.returncode == 0, run.stderr
    assert "you: played k10 k11 k12" in run.stdout
    after_k10 = run.stdout.split("staged: k10\n")[0].rsplit("your rack", 1)[1]
    assert after_k10.startswith(" (13):") and "k10" not in after_k10


def test_end_of_input_quits_and_bad_options_are_refused(position):
    run = subprocess.run([sys.executable, "-m", "rummienv.play", "--game", "rummy500", "--seed", "1"],
                         input="", capture_output=True, text=True, timeout=240)
    assert run.returncode == 0 and "you quit" in run.stdout
    run = subprocess.run([sys.executable, "-m", "rummienv.play", "--game", "rummy500", "--clock", "5"],
                         input="", capture_output=True, text=True, timeout=240)
    assert run.returncode == 2 and "F13" in run.stderr
    run = subprocess.run([sys.executable, "-m", "rummienv.play", "--position", position, "--opponents", "a", "b"],
                         input="", capture_output=True, text=True, timeout=240)
    assert run.returncode == 2 and "name 1 opponents" in run.stderr


def test_rummy500_hints_type_back_as_the_same_move_with_cards_as_written():
    from rummienv import play_text
    from rummienv.rummy500 import NUM_ACTIONS, Rummy500Game, string_to_action

    state = Rummy500Game().new_initial_state(0)
    for action in range(NUM_ACTIONS):
        assert play_text.parse_move("rummy500", play_text.as_command("rummy500", [action]), state) == [action]
    assert play_text.as_command("rummy500", [string_to_action("MELD JH QH KH AH")]) == "meld JH QH KH AH"


def test_rummy500_cards_that_make_no_meld_are_not_legal_and_a_bad_card_is_not_understood():
    from rummienv import play_text
    from rummienv.errors import IllegalActionError, NotationError
    from rummienv.rummy500 import Rummy500Game

    state = Rummy500Game().new_initial_state(0)
    with pytest.raises(IllegalActionError, match="5D 6D 8D is not a group or run"):
        play_text.parse_move("rummy500", "meld 5d 6D 8D", state)
    with pytest.raises(NotationError):
        play_text.parse_move("rummy500", "meld 5D 6D 8X", state)


def test_what_was_typed_but_not_entered_when_the_time_ran_out_is_dropped():
    import os

    from rummienv.play import LineReader

    read_end, write_end = os.pipe()
    try:
        reader = LineReader(read_end)
        os.write(write_end, b"dra")
        assert reader.readline(0.05) is None  # the time ran out with "dra" unfinished
        os.write(write_end, b"w\ncommit\n")
        assert reader.readline(1.0) == "w" and reader.readline(1.0) == "commit"
    finally:
        os.close(read_end)
        os.close(write_end)


def test_rummikub_sets_new_since_the_persons_turn_are_marked():
    from rummienv import play_text
    from rummienv.rummikub import load_state
    from rummienv.tiles import parse_tiles

    state = load_state({"game": "rummikub", "racks": [["k1", "k2"], ["b9"]], "opened": [True, True],
                        "table": [["r1", "r2", "r3"], ["k7", "b7", "o7"]]})
    seen = [("run", tuple(parse_tiles("r1 r2 r3")))]
    text = play_text.render(state, 0, ["you", "bot"], seen)
    assert "table (* new since your turn):\n  [k7 b7 o7]  *\n  [r1 r2 r3]\n" in text
    assert "*" not in play_text.render(state, 0, ["you", "bot"])


def test_the_turn_clock_says_when_its_reminders_are_reached():
    import os
    import time

    from rummienv.play import LineReader

    read_end, write_end = os.pipe()
    try:
        reader, told = LineReader(read_end), []
        start = time.monotonic()
        assert reader.readline(0.4, (30.0, 0.25, 0.1), told.append) is None
        assert told == [0.25, 0.1] and time.monotonic() - start >= 0.4  # none beyond the time given
        os.write(write_end, b"draw\n")
        assert reader.readline(0.4, (0.3,), told.append) == "draw" and told == [0.25, 0.1]
    finally:
        os.close(read_end)
        os.close(write_end)


def test_rummy500_refusals_speak_the_players_words_and_scores_are_per_seat():
    """Not the action table's names and phases (``DISCARD TS is not legal ... in phase 'discard'``)."""
    from rummienv.cards import CARD_STRINGS
    from rummienv.errors import IllegalActionError
    from rummienv.rummy500 import Rummy500Game, display, string_to_action

    state = Rummy500Game().new_initial_state(0)
    state.apply_action(string_to_action("DRAW_STOCK"))
    seat = state.current_player
    held = set(state.view(seat)["hand"])
    missing = next(card for card in CARD_STRINGS if card not in held and card not in state.view(seat)["discard"])
    action = string_to_action(f"DISCARD {missing}")
    with pytest.raises(IllegalActionError) as refused:
        state.clone().apply_action(action)
    assert display.why_not(state, action, refused.value) == f"{missing} is not in your hand"
    draw = string_to_action("DRAW_STOCK")
    with pytest.raises(IllegalActionError) as again:
        state.clone().apply_action(draw)
    assert display.why_not(state, draw, again.value).startswith("you have already drawn")
    assert "scores: seat 0 (you) 0, seat 1 (value) 0" in display.render(state, 0, ["you", "value"])
