"""The terminal game as a new user meets it: the game record kept however the game stops, options and files
refused by name before the game starts, and refusals in the player's words and the game's own nouns."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time

import pytest
from terminal_signals import ctrl_c_as_in_a_terminal

from rummienv import games, play, play_text, replay
from rummienv.errors import IllegalActionError, NotationError
from rummienv.rummikub import actions as RA
from rummienv.tiles import tile_index, tile_name


def play_command(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rummienv.play", *args], input=stdin, capture_output=True,
                          text=True, timeout=60)


def read_until(proc: subprocess.Popen, wanted: bytes, count: int, timeout: float = 30.0) -> bytes:
    """What the program printed until ``wanted`` appeared ``count`` times (its prompt, before it waits for input)."""
    out, deadline = b"", time.monotonic() + timeout
    while out.count(wanted) < count and time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], 0.2)
        if ready:
            out += os.read(proc.stdout.fileno(), 65536)
    return out


def test_ctrl_c_keeps_the_game_record(tmp_path):
    path = tmp_path / "new" / "game.json"
    proc = subprocess.Popen([sys.executable, "-m", "rummienv.play", "--game", "rummy500", "--seed", "4",
                             "--replay", str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, preexec_fn=ctrl_c_as_in_a_terminal)
    try:
        proc.stdin.write(b"draw\n")
        proc.stdin.flush()
        shown = read_until(proc, b"seat 0> ", 2)  # the draw was played, and the next move is asked for
        assert shown.count(b"seat 0> ") == 2, shown.decode()
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)  # stdin stays open: only the signal can end the game
        out, err = shown + proc.stdout.read(), proc.stderr.read()
    finally:
        proc.kill()
    assert proc.returncode == play.INTERRUPTED, (out + err).decode()
    assert b"interrupted; the game was not finished" in out and f"replay written to {path}".encode() in out
    record = replay.read(path)
    assert record["moves"] and record["agents"] == [replay.PERSON, "greedy"] and b"you got:" in shown


def test_an_error_in_the_game_keeps_the_game_record(tmp_path, monkeypatch, capsys):
    def crash(session: play.Session) -> bool:
        session.state.apply_action(session.state.legal_actions()[0])
        raise RuntimeError("a bug")

    read_end, write_end = os.pipe()
    monkeypatch.setattr(play.Session, "run", crash)
    monkeypatch.setattr(sys, "stdin", os.fdopen(read_end))
    path = tmp_path / "game.json"
    try:
        with pytest.raises(RuntimeError, match="a bug"):
            play.main(["--game", "rummy500", "--seed", "2", "--replay", str(path)])
    finally:
        os.close(write_end)
    assert len(replay.read(path)["moves"]) == 1
    assert f"replay written to {path}" in capsys.readouterr().out


@pytest.mark.parametrize(("where", "message"), [
    (".", "is a folder, not a file: name a file in a folder that exists or can be made"),
    ("afile/game.json", "cannot be made: '{tmp}/afile' is a file, not a folder"),
])
def test_a_replay_path_that_cannot_be_written_is_refused_before_the_game(tmp_path, where, message):
    (tmp_path / "afile").write_text("")
    path = tmp_path / where
    run = play_command("--replay", str(path), stdin="draw\n")
    assert run.returncode == 2 and run.stdout == ""  # refused before the deal, not after the game
    assert run.stderr == f"error: --replay {str(path)!r} {message.format(tmp=tmp_path)}\n"


def test_a_negative_seed_is_refused_naming_the_option():
    run = play_command("--seed", "-1")
    assert run.returncode == 2
    assert run.stderr.splitlines()[-1].endswith("error: argument --seed: must be a whole number from 0, got -1")


@pytest.mark.parametrize(("content", "message"), [
    ("{broken", "Expecting property name"),
    (json.dumps({"game": "chess"}), "position 'game' must be"),
])
def test_a_broken_position_file_is_named(tmp_path, content, message):
    path = tmp_path / "mine.json"
    path.write_text(content)
    run = play_command("--position", str(path))
    assert run.returncode == 2
    assert run.stderr.startswith(f"error: position file {str(path)!r}: ") and message in run.stderr


def test_a_missing_position_file_is_named(tmp_path):
    path = tmp_path / "none.json"
    run = play_command("--position", str(path))
    assert run.returncode == 2 and run.stderr == f"error: cannot read position file {str(path)!r}: " \
                                                 "No such file or directory\n"


@pytest.mark.parametrize(("line", "message"), [
    ("play", "play needs tiles: play r1 r2 r3"),
    ("place", "place needs tiles: place r1 r2 r3"),
    ("swap", "swap needs one tile, the one a table joker stands for: swap k5"),
    ("commit now", "commit takes nothing after it: type just 'commit'"),
])
def test_a_move_typed_without_its_pieces_says_what_it_needs(line, message):
    state = games.make_game("rummikub").new_initial_state(0)
    with pytest.raises(NotationError, match=f"^{message}$"):
        play_text.parse_move("rummikub", line, state)


def test_the_card_edition_says_cards_and_stock():
    state = games.make_game("rummikub_cards").new_initial_state(0)
    seat, names = state.current_player, ["you", "greedy"]
    shown = play_text.render(state, seat, names)
    assert "14 cards" in shown and "stock 80" in shown and "tile" not in shown and "pool" not in shown
    with pytest.raises(NotationError, match="play needs cards: play r1 r2 r3"):
        play_text.parse_move("rummikub_cards", "play", state)
    trial = state.clone()
    with pytest.raises(IllegalActionError) as refused:
        trial.apply_action(RA.COMMIT)
    assert play_text.why_not(trial, RA.COMMIT, refused.value) == "nothing is staged: place cards first, or draw"
    assert play_text.describe_turn("rummikub_cards", [RA.DRAW]) == "drew"


def refusal(state, action: int) -> str:
    """What the person is told when ``action`` is refused in ``state``."""
    with pytest.raises(IllegalActionError) as refused:
        state.clone().apply_action(action)
    return play_text.why_not(state, action, refused.value)


def test_what_is_staged_is_said_in_words():
    state = games.make_game("rummikub").new_initial_state(1)  # seat 1 moves first and can lay down r3 (and more)
    rack = state.view(state.current_player)["rack"]
    stuck = next(t for t in rack if not state.legal_action_mask()[RA.PLACE + t])
    assert refusal(state, RA.PLACE + stuck).startswith(f"no legal play holds {tile_name(stuck)} with nothing staged")
    state.apply_action(RA.PLACE + tile_index("r3"))
    stuck = next(t for t in rack if not state.legal_action_mask()[RA.PLACE + t])
    assert refusal(state, RA.PLACE + stuck).startswith(f"no legal play holds {tile_name(stuck)} with r3 staged")
