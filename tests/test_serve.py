"""The browser game's server without a browser (Starlette's TestClient, websockets included): whole games played
through the websocket with every message checked against the other seats' views, games apart and rejoined by
their id, the person's clock and its time-out, undo, hints, the replay of a finished game, every kind of bad input
over the wire and on the command line refused in one line with nothing changed."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import time
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from rummienv import games, replay, serve, text_interface
from rummienv.tiles import tile_name
from rummienv.web import protocol
from rummienv.web.seat_view import piece_counts, piece_names
from rummienv.web.sessions import GameSession, Refused
from rummienv.web.settings import Settings, deal, read_settings

pytest.importorskip("starlette", reason="the browser game needs the serve extra: pip install 'rummienv[serve]'")
pytest.importorskip("uvicorn", reason="the browser game needs the serve extra: pip install 'rummienv[serve]'")
pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx (the dev extra)")

from starlette.testclient import TestClient  # noqa: E402
from starlette.websockets import WebSocket  # noqa: E402

from rummienv.web.server import create_app  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SMALL = {"rummikub": {"hand_size": 7}, "rummikub_cards": {"hand_size": 7}, "rummy500": {"hand_size_two_players": 7}}


@pytest.fixture
def client():
    with TestClient(create_app()) as test_client:
        yield test_client


def new_game(client: TestClient, **settings: Any) -> str:
    answer = client.post("/api/games", json={"clock": "off", **settings})
    assert answer.status_code == 201, answer.text
    return answer.json()["id"]


def read_until(ws, done, most: int = 2000) -> dict:
    """Messages from the websocket until one that ``done`` accepts; a game that stopped fails the test."""
    for _ in range(most):
        message = ws.receive_json()
        assert message.get("failure") is None, message["failure"]
        if done(message):
            return message
    raise AssertionError(f"no awaited message among {most}")


def my_turn_or_over(message: dict) -> bool:
    return message["type"] == "state" and (message["over"] or message["to_move"] == message["seat"])


def send(ws, kind: str, version: int, **fields: Any) -> None:
    ws.send_text(json.dumps({"type": kind, "version": version, **fields}))


def play_to_the_end(ws, message: dict) -> dict:
    """Play the hint bot's move at every turn of the person from ``message`` (the person's turn) until the game is
    over; the last position."""
    while not message["over"]:
        send(ws, "hint", message["version"])
        hint = read_until(ws, lambda m: m["type"] in ("hint", "error"))
        assert hint["type"] == "hint", hint
        version = message["version"]
        send(ws, "move", version, move=hint["move"])
        message = read_until(ws, lambda m, v=version: m["type"] == "error" or my_turn_or_over(m) and m["version"] > v)
        assert message["type"] == "state", message
    return message


# ---------------------------------------------------------------------- nothing of another seat's reaches a page
def _pieces(view: dict[str, Any]) -> list[str]:
    """What a seat holds, by name (staged pieces are in the rack too)."""
    return piece_names(view)


def _public(view: dict[str, Any]) -> set[str]:
    """What lies open to every seat in a view: the table, the discard pile, the cards known to be in hands."""
    if "rack" in view:
        return {tile_name(t) for _, pieces in view["table_sets"] for t in pieces}
    return {*view["discard"], *(c for meld in view["melds"] for c in meld["cards"]), *sum(view["known"], [])}


class LeakCheck:
    """Checks every message the server sends, as it is sent, against the game's state at that moment: the page's
    own hand is exactly its seat's, and no piece that only another seat holds (neither the page's own nor ever
    open on the table or pile) is named anywhere in it."""

    def __init__(self, app) -> None:
        self.app = app
        self.public: dict[str, set[str]] = {}
        self.checked: Counter[str] = Counter()
        self.problems: list[str] = []

    def __call__(self, game_id: str, message: dict[str, Any]) -> None:
        """Check ``message``; a failure is kept for the test to report (raised here, it would stop the server's
        sending, not the test)."""
        live = self.app.state.games.get(game_id)
        if live is not None:
            try:
                self._check(live.session, game_id, message)
            except AssertionError as exc:
                self.problems.append(str(exc))

    def _check(self, session: GameSession, game_id: str, message: dict[str, Any]) -> None:
        state, me = session.state, session.seat
        views = [state.view(seat) for seat in range(state.num_players)]
        public = self.public.setdefault(game_id, set())
        public |= _public(views[me])
        if message["type"] == "state":
            assert Counter(name for *_, name in message["hand"]) == Counter(_pieces(views[me]))
            assert message["counts"] == piece_counts(views[me], state.num_players)
            assert message["help"] == text_interface.move_help(state.rules.game)
        shown = {key: value for key, value in message.items() if key not in ("id", "help")}
        text = json.dumps(shown)
        for other in range(state.num_players):
            if other != me:
                assert f"Rack of seat {other}" not in text and f"Hand of seat {other}" not in text
        hidden = set().union(*(_pieces(views[o]) for o in range(state.num_players) if o != me))
        hidden -= set(_pieces(views[me])) | public | {"J"}
        named = set(re.findall(r"[A-Za-z0-9]+", text)) & hidden
        assert not named, f"a message to seat {me} names {named}: {text[:400]}"
        self.checked[message["type"]] += 1


@pytest.mark.parametrize(("game", "opponents", "rules"), [
    ("rummikub", ["hoard"], {"hand_size": 7}), ("rummikub_cards", ["hoard", "max_tiles"], {"hand_size": 7}),
    ("rummy500", ["value"], {"hand_size_two_players": 7}), ("rummy500", ["value", "greedy"], {"hand_size": 5}),
])
def test_no_message_holds_another_seats_pieces(game, opponents, rules, monkeypatch, tmp_path):
    app = create_app()
    check = LeakCheck(app)
    original = WebSocket.send_json

    async def checked_send(self, data, mode="text"):
        check(self.path_params["game_id"], data)
        await original(self, data, mode)

    monkeypatch.setattr(WebSocket, "send_json", checked_send)
    with TestClient(app) as client:
        for seed in (1, 2):
            game_id = new_game(client, game=game, players=len(opponents) + 1, seat=1, opponents=opponents, seed=seed,
                               rules=rules)
            with client.websocket_connect(f"/ws/{game_id}") as ws:
                first = read_until(ws, my_turn_or_over)
                send(ws, "move", first["version"], move="end" if game == "rummy500" else "pass")  # refused
                assert read_until(ws, lambda m: m["type"] == "error")["message"].startswith("not legal: ")
                last = play_to_the_end(ws, first)
            record = client.get(f"/api/games/{game_id}/replay")
            assert record.status_code == 200 and "attachment" in record.headers["content-disposition"]
            written = tmp_path / f"{game_id}.json"
            written.write_text(record.text)
            *_, final = replay.states(replay.read(written))
            assert [f"{x:+g}" for x in final.scores()] == last["scores"]
            assert replay.read(written)["agents"] == [opponents[0], "you", *opponents[1:]]
    assert check.problems == []
    assert check.checked["state"] > 20 and check.checked["hint"] > 5 and check.checked["error"] >= 2


# ---------------------------------------------------------------------- games apart, rejoined by id
def test_games_are_apart_and_a_page_comes_back_to_its_game(client):
    one = new_game(client, game="rummikub", opponents=["hoard"], seed=13, rules={"hand_size": 10})
    two = new_game(client, game="rummy500", opponents=["value"], seed=43, rules={"hand_size_two_players": 7})
    assert one != two
    with client.websocket_connect(f"/ws/{one}") as ws:
        position = read_until(ws, my_turn_or_over)
        send(ws, "move", position["version"], move="draw")
        moved = read_until(ws, lambda m: my_turn_or_over(m) and m["version"] > position["version"])
    with client.websocket_connect(f"/ws/{two}") as ws:
        other = read_until(ws, my_turn_or_over)
        assert other["game"] == "rummy500" and other["id"] == two
    with client.websocket_connect(f"/ws/{one}") as ws:  # the tab closed and opened again
        again = ws.receive_json()
        assert again["version"] == moved["version"] and again["hand"] == moved["hand"]
        assert again["log"] == moved["log"]
    assert client.get(f"/game/{one}").status_code == 200 and client.get("/game/nothing").status_code == 404


# ---------------------------------------------------------------------- bad input over the wire
@pytest.mark.parametrize(("raw", "said"), [
    ("{not json", "not JSON"),
    ("[1, 2]", "got a JSON list"),
    ('{"type": "fly", "version": 0}', "unknown message type 'fly'"),
    ('{"type": "move", "move": "draw"}', "'version' must be the number of the position"),
    ('{"type": "move", "move": "draw", "version": true}', "'version' must be"),
    ('{"type": "move", "version": 0}', "either 'move'"),
    ('{"type": "move", "move": "draw", "actions": [54], "version": 0}', "not both"),
    ('{"type": "move", "move": 7, "version": 0}', "'move' must be a move string"),
    ('{"type": "move", "actions": "draw", "version": 0}', "'actions' must be a list"),
    ('{"type": "move", "move": "draw", "version": 0, "seat": 1}', "this page plays seat 0, not seat 1"),
    ("x" * (protocol.MAX_LENGTH + 1), "more than"),
])
def test_a_bad_message_is_one_line_and_changes_nothing(client, raw, said):
    game_id = new_game(client, game="rummikub", opponents=["hoard"], seed=2)
    with client.websocket_connect(f"/ws/{game_id}") as ws:
        before = read_until(ws, my_turn_or_over)
        ws.send_text(raw)
        error = ws.receive_json()
        assert error["type"] == "error" and said in error["message"] and "\n" not in error["message"]
        send(ws, "undo", before["version"])  # the next answer: still the position before (nothing to undo)
        assert "nothing to take back" in ws.receive_json()["message"]


@pytest.mark.parametrize(("move", "said"), [
    ({"move": "fly away"}, "not understood: 'fly away': unknown move"),
    ({"move": "play r77"}, "not understood: 'play r77': "),
    ({"move": "play b1 o8"}, "not legal: 'play b1 o8': the staged tiles (b1 o8) do not make a legal play yet"),
    ({"move": "pass"}, "passing is only for a player who cannot play"),
    ({"actions": [999]}, "action 999 is not an action index"),
    ({"actions": [True]}, "'actions' must be a list of action indices"),
    ({"actions": [54, 54]}, "step 2 ('draw'): your turn ended at the step before"),
])
def test_a_refused_move_says_why_and_changes_nothing(client, move, said):
    game_id = new_game(client, game="rummikub", opponents=["hoard"], seed=2)  # seat 0 moves first, holds b1 o8
    with client.websocket_connect(f"/ws/{game_id}") as ws:
        before = read_until(ws, my_turn_or_over)
        send(ws, "move", before["version"], **move)
        error = ws.receive_json()
        assert error["type"] == "error" and said in error["message"] and "\n" not in error["message"]
        send(ws, "move", before["version"], actions=[54])  # DRAW, as an action list, on the same position
        after = read_until(ws, lambda m: m["type"] == "state")
        assert after["version"] == before["version"] + 1 and "you: drew" in after["log"]


def test_an_old_message_sent_again_is_refused(client):
    game_id = new_game(client, game="rummikub", opponents=["hoard"], seed=2)
    with client.websocket_connect(f"/ws/{game_id}") as ws:
        before = read_until(ws, my_turn_or_over)
        send(ws, "move", before["version"], move="place b1")
        staged = read_until(ws, lambda m: m["type"] == "state")
        send(ws, "move", before["version"], move="place b1")  # the same message again
        error = ws.receive_json()
        assert error["type"] == "error" and f"answers position {before['version']}" in error["message"]
        send(ws, "undo", staged["version"])
        back = ws.receive_json()
        assert back["hand"] == before["hand"] and not back["staged"] and staged["staged"]


class Gate:
    """An agent that waits until the test lets it move, then draws or plays its first legal action."""

    def __init__(self) -> None:
        self.open = threading.Event()

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        assert self.open.wait(30)
        return int(np.flatnonzero(action_mask)[-1])


def test_a_move_out_of_turn_is_refused(client):
    state = games.make_game("rummikub", 2).new_initial_state(2)
    seat = 1 - state.current_player  # the bot moves first
    gate = Gate()
    settings = Settings("rummikub", 2, seat, ("gate",), None, 2, None, False)
    names = ["gate", "you"] if seat == 1 else ["you", "gate"]
    session = GameSession("gated", settings, state, {1 - seat: gate}, names, time.monotonic())

    async def hold() -> None:
        client.app.state.games.add(session)

    client.portal.call(hold)
    with client.websocket_connect("/ws/gated") as ws:
        waiting = ws.receive_json()
        assert waiting["to_move"] == 1 - seat and waiting["moves"] == []
        send(ws, "move", waiting["version"], move="draw")
        error = ws.receive_json()
        assert error["message"] == f"not your turn: seat {1 - seat} (gate) is to move"
        gate.open.set()
        assert read_until(ws, my_turn_or_over)["version"] == waiting["version"] + 1


class Broken:
    """An agent that fails at its first move."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        raise RuntimeError("no move in me")


def read_until_stopped(ws, most: int = 100) -> dict:
    """Messages until the position that says the game stopped."""
    for _ in range(most):
        message = ws.receive_json()
        if message["type"] == "state" and message["failure"]:
            return message
    raise AssertionError("the game did not stop")


def test_a_bot_that_fails_stops_its_game_and_the_page_says_why(client):
    state = games.make_game("rummy500", 2).new_initial_state(5)
    seat = 1 - state.current_player
    settings = Settings("rummy500", 2, seat, ("broken",), None, 5, None, False)
    names = ["broken", "you"] if seat == 1 else ["you", "broken"]
    session = GameSession("broken", settings, state, {1 - seat: Broken()}, names, time.monotonic())

    async def hold() -> None:
        client.app.state.games.add(session)

    client.portal.call(hold)
    with client.websocket_connect("/ws/broken") as ws:
        stopped = read_until_stopped(ws)
        assert stopped["failure"] == f"seat {1 - seat} (broken) failed: RuntimeError: no move in me"
        send(ws, "move", stopped["version"], move="draw")
        assert ws.receive_json()["message"].startswith("the game stopped: seat")


def test_past_its_limit_the_server_drops_the_game_longest_without_a_page():
    with TestClient(create_app(limit=2)) as client:
        first, second = (new_game(client, game="rummy500", opponents=["value"], seed=s) for s in (1, 2))
        with client.websocket_connect(f"/ws/{second}") as ws:
            ws.receive_json()
            third = new_game(client, game="rummy500", opponents=["value"], seed=3)  # the first one goes
            with client.websocket_connect(f"/ws/{third}") as again:
                again.receive_json()
                refused = client.post("/api/games", json={"game": "rummy500"})
        assert refused.status_code == 503 and "each with a page open" in refused.json()["error"]
        assert client.get(f"/game/{first}").status_code == 404 and client.get(f"/game/{second}").status_code == 200


def test_a_game_of_several_rounds_goes_on_to_the_next(client):
    game_id = new_game(client, game="rummikub", opponents=["hoard"], seed=4, rules={"hand_size": 5}, whole_game=True)
    with client.websocket_connect(f"/ws/{game_id}") as ws:
        last = play_to_the_end(ws, read_until(ws, my_turn_or_over))
    assert any(line.startswith("--- next round; totals so far: you ") for line in last["log"])


def test_unknown_game_over_the_websocket(client):
    with client.websocket_connect("/ws/nothing") as ws:
        error = ws.receive_json()
        assert error["type"] == "error" and error["message"].startswith("unknown game 'nothing'")
        assert ws.receive()["code"] == 4404


# ---------------------------------------------------------------------- new games: settings, checked
@pytest.mark.parametrize(("settings", "said"), [
    ({"game": "chess"}, "unknown game 'chess'; allowed: 'rummikub', 'rummikub_cards' or 'rummy500'"),
    ({"game": "rummikub", "players": 5}, "'players' must be 2..4, got 5"),
    ({"game": "rummikub", "seat": 2}, "'seat' must be 0..1, got 2"),
    ({"game": "rummikub", "opponents": ["hoard", "hoard"]}, "'opponents' must name 1 agents"),
    ({"game": "rummikub", "opponents": ["nobody"]}, "unknown agent 'nobody' for rummikub"),
    ({"game": "rummy500", "opponents": ["hoard"]}, "unknown agent 'hoard' for rummy500"),
    ({"game": "rummikub", "rules": {"hand_size": 99}}, "'rules': rules field 'hand_size' of rummikub must be in"),
    ({"game": "rummikub", "rules": [1]}, "'rules' must be a mapping"),
    ({"game": "rummikub", "clock": "soon"}, "'clock' takes seconds or 'off', got 'soon'"),
    ({"game": "rummikub", "clock": -3}, "'clock' must be positive seconds or 'off'"),
    ({"game": "rummy500", "clock": 30}, "Rummy 500 has no turn clock (F13)"),
    ({"game": "rummikub", "seed": -1}, "'seed' must be a whole number from 0"),
    ({"game": "rummikub", "whole_game": "yes"}, "'whole_game' must be true or false"),
    ({"game": "rummikub", "colour": "red"}, "unknown field 'colour'"),
    ([1, 2], "a new game is a JSON object"),
])
def test_bad_settings_are_one_line(client, settings, said):
    answer = client.post("/api/games", json=settings)
    assert answer.status_code == 400
    assert said in answer.json()["error"] and "\n" not in answer.json()["error"]


def test_settings_that_are_not_json_or_from_another_site(client):
    assert client.post("/api/games", content=b"{", headers={"content-type": "application/json"}).status_code == 400
    assert client.post("/api/games", content=b"game=rummikub").status_code == 415
    elsewhere = client.post("/api/games", json={"game": "rummikub"}, headers={"origin": "http://evil.example"})
    assert elsewhere.status_code == 403


def test_the_servers_clock_is_for_games_that_have_one():
    assert read_settings({"game": "rummy500"}, default_clock="30").clock is None
    assert read_settings({"game": "rummikub_cards"}, default_clock="30").clock == 30.0
    assert read_settings({"game": "rummikub_cards"}).clock == 120.0  # K8
    assert read_settings({"game": "rummikub", "clock": "off"}, default_clock="30").clock is None


def test_options_list_every_game_with_its_agents(client):
    options = client.get("/api/options").json()
    listed = {game["name"]: game for game in options["games"]}
    assert list(listed) == list(games.names())
    assert "hoard" in listed["rummikub"]["agents"] and "value" in listed["rummy500"]["agents"]
    assert listed["rummy500"]["no_clock"] and listed["rummikub"]["clock"] == 60.0


# ---------------------------------------------------------------------- the person's turn: clock, undo, hint
def _session(game: str, seed: int, clock: float | None, now: float = 0.0) -> GameSession:
    bot = "value" if game == "rummy500" else "hoard"
    settings = read_settings({"game": game, "opponents": [bot], "seed": seed, "clock": clock or "off"})
    return GameSession("s", settings, *deal(settings), now)


def test_the_clock_runs_out_with_the_rules_time_out():
    session = _session("rummikub", 2, 60.0)  # seat 0 moves first
    assert session.time_left(10.0) == 50.0 and not session.time_out(59.0)
    session.move("place b1", 0, now=30.0)  # staged: T12 takes it back and draws 3
    with pytest.raises(Refused, match="time is up"):
        session.move("place b2", 1, now=60.5)
    assert session.time_out(60.5) and session.log[-1].startswith("time is up (60 s, T12): you drew 3: ")
    view = session.state.view(0)
    assert len(view["rack"]) == 17 and not view["staged"] and session.state.current_player == 1
    cards = _session("rummikub_cards", 9, 120.0)
    while not cards.person_to_move:
        cards.adopt_bot_turn(cards.plan_bot_turn(*cards.bot_position()), 0.0)
    cards.move("place k11", cards.version, now=1.0)
    assert cards.time_out(cards.turn.deadline) and "K8" in cards.log[-1]


def test_undo_takes_back_what_was_staged_and_only_that():
    session = _session("rummikub", 2, None)
    start = session.message(0.0)
    session.move("place b1; place b2", 0, 0.0)
    assert session.message(0.0)["staged"]
    session.undo(1, 0.0)
    back = session.message(0.0)
    assert back["hand"] == start["hand"] and back["moves"] == start["moves"] and back["version"] == 2
    with pytest.raises(Refused, match="nothing to take back"):
        session.undo(2, 0.0)
    rummy = _session("rummy500", 43, None)
    while not rummy.person_to_move:
        rummy.adopt_bot_turn(rummy.plan_bot_turn(*rummy.bot_position()), 0.0)
    rummy.move("draw", rummy.version, 0.0)
    with pytest.raises(Refused, match="nothing to take back"):
        rummy.undo(rummy.version, 0.0)


def test_a_hint_is_the_hint_bots_move_and_plays():
    session = _session("rummikub", 2, None)
    hint = session.hint(session.hint_position(0, 0.0))
    assert hint == "play b1 b2 b3 b4 o8 o9 o10"
    session.move(hint, 0, 0.0)
    assert session.log[-1] == "you: played b1 b2 b3 b4 o8 o9 o10"


def test_the_replay_is_given_only_once_the_game_is_over(client):
    game_id = new_game(client, game="rummikub", opponents=["hoard"], seed=2)
    refused = client.get(f"/api/games/{game_id}/replay")
    assert refused.status_code == 409 and "once the game is over" in refused.json()["error"]
    assert client.get("/api/games/nothing/replay").status_code == 404


def test_a_clock_runs_out_over_the_websocket(client):
    game_id = new_game(client, game="rummikub_cards", opponents=["hoard"], seed=9, clock=0.3)
    with client.websocket_connect(f"/ws/{game_id}") as ws:
        timed = read_until(ws, lambda m: m["type"] == "state" and any("time is up" in line for line in m["log"]))
    assert any(line.startswith("time is up (0.3 s, K8): you drew 1: ") for line in timed["log"])


# ---------------------------------------------------------------------- the command line
@pytest.mark.parametrize(("argv", "said"), [
    (["--clock", "soon"], "error: --clock takes seconds or 'off', got 'soon'"),
    (["--clock", "0"], "error: --clock must be positive seconds or 'off', got '0'"),
    (["--port", "70000"], "error: --port must be 0..65535, got 70000"),
])
def test_bad_command_line_is_one_line(argv, said, capsys):
    with pytest.raises(SystemExit) as stop:
        serve.main(argv)
    assert stop.value.code == 2 and capsys.readouterr().err == said + "\n"


def test_a_port_in_use_is_one_line(capsys):
    taken = serve.listen(0)
    try:
        with pytest.raises(SystemExit) as stop:
            serve.main(["--port", str(taken.getsockname()[1])])
    finally:
        taken.close()
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.startswith("error: cannot listen on 127.0.0.1:") and err.count("\n") == 1


def test_the_command_serves_the_page():
    server = subprocess.Popen([sys.executable, "-m", "rummienv.serve"], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        line = server.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+/", line).group(0)
        with urllib.request.urlopen(url, timeout=30) as page:
            assert page.status == 200 and b"<title>rummienv" in page.read()
    finally:
        server.terminate()
        server.wait(timeout=30)
