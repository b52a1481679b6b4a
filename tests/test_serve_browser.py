"""The browser game in a real headless Chromium, driven by Playwright: for every game, a whole game through the page
against a bot (the form, clicks on pieces and buttons, a refused move and its reason, undo where pieces are staged,
a hint played, the end with scores, the replay downloaded and read back, a new game), the clock running out with a
short clock, and each move's answer time from click to redrawn table, bots' turns included.

The server runs in this process (uvicorn on a thread, a port the system picks). CI installs Chromium (.ci/run);
without it, or without Playwright, these tests skip and say why. ``RUMMIENV_SERVE_TIMINGS=FILE`` writes the answer
times measured, ``RUMMIENV_PAGE_PICTURE=FILE`` keeps the screenshot of a game in progress (docs/browser_play.md).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import sys
import threading
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from browser import CHROMIUM  # noqa: E402

from rummienv import games, replay  # noqa: E402

pytest.importorskip("starlette", reason="the browser game needs the serve extra: pip install 'rummienv[serve]'")
pytest.importorskip("uvicorn", reason="the browser game needs the serve extra: pip install 'rummienv[serve]'")
sync_api = pytest.importorskip("playwright.sync_api", reason="needs Playwright for Python (the dev extra)")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium (apt-get install chromium; .ci/run does)")

import uvicorn  # noqa: E402

from rummienv.serve import listen  # noqa: E402
from rummienv.web.server import create_app  # noqa: E402

# game, opponent, seed, rules: deals whose whole game is short, where the person's first turn has a play
GAMES = [("rummikub", "hoard", 13, {"hand_size": 10}), ("rummikub_cards", "hoard", 9, {"hand_size": 10}),
         ("rummy500", "value", 67, {"hand_size_two_players": 7})]  # hoard is a Rummikub bot; value is Rummy 500's
WAIT = 30_000  # ms: the longest a page may take to answer (the solver is compiled before the pages open)
ANSWERS: list[dict] = []  # every move's answer time, as the page measured it


@pytest.fixture(scope="module")
def server():
    games.make_game("rummikub", 2).new_initial_state(0).legal_actions()  # the solver compiled or loaded first,
    sock = listen(0)  # so that no page waits for it nor counts it in an answer time
    app_server = uvicorn.Server(uvicorn.Config(create_app(), log_level="warning"))
    thread = threading.Thread(target=app_server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not app_server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    app_server.should_exit = True
    thread.join(timeout=30)
    _report(ANSWERS)


def _report(answers: list[dict]) -> None:
    """Print the bot-turn answer times (pytest -s shows them); write them all where RUMMIENV_SERVE_TIMINGS says."""
    bots = sorted(answer["ms"] for answer in answers if answer["bots"])
    if bots:
        p95 = bots[min(len(bots) - 1, round(0.95 * (len(bots) - 1)))]
        print(f"\nmove answer times with bots' turns: {len(bots)} moves, median {statistics.median(bots):.1f} ms, "
              f"p95 {p95:.1f} ms, most {bots[-1]:.1f} ms")
    if os.environ.get("RUMMIENV_SERVE_TIMINGS"):
        Path(os.environ["RUMMIENV_SERVE_TIMINGS"]).write_text(json.dumps(answers))


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1100, "height": 860}, accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(WAIT)
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    yield page
    keep_answers(page)
    context.close()
    assert problems == [], f"the page's script failed: {problems}"


def keep_answers(page) -> None:
    """Keep the answer times the page measured so far (before it leaves for another game, which starts anew)."""
    ANSWERS.extend(page.evaluate("window.rummi ? rummi.timings.splice(0) : []"))


def start(page, base: str, game: str, opponent: str, seed: int, rules: dict, clock: str = "off") -> None:
    """Fill the new game's form as a person does, and wait for the person's first turn."""
    page.goto(base + "/")
    page.wait_for_selector("#setup-game option", state="attached")
    page.select_option("#setup-game", game)
    page.fill(".setup-opponent", opponent)
    page.fill("#setup-seed", str(seed))
    page.fill("#setup-rules", json.dumps(rules))
    if not page.is_disabled("#setup-clock"):
        page.fill("#setup-clock", clock)
    page.click("#setup-start")
    page.wait_for_url("**/game/*")
    wait_for_my_turn(page, -1)


def wait_for_my_turn(page, after: int) -> dict:
    """The position once it is the person's turn again (or the game is over), later than position ``after``."""
    page.wait_for_function(f"""window.rummi && rummi.state && rummi.version > {after} && rummi.pending === null &&
        (rummi.state.over || rummi.state.to_move === rummi.state.seat)""")
    return page.evaluate("rummi.state")


def hand_names(page) -> list[str]:
    return page.eval_on_selector_all("#hand .piece", "spans => spans.map(s => s.dataset.name)")


def select(page, names: list[str]) -> None:
    """Click the hand's pieces of these names, each once."""
    taken: set[int] = set()
    for name in names:
        index = next(k for k, held in enumerate(hand_names(page)) if held == name and k not in taken)
        taken.add(index)
        page.click(f"#hand .piece[data-index='{index}']")


def ask_hint(page) -> str:
    page.click("#hint")
    page.wait_for_selector("#use-hint:visible")
    return page.inner_text("#hint-text").removeprefix("hint: ")


def refused(page, version: int) -> str:
    """The reason shown for a refused move, checked to have changed nothing."""
    page.wait_for_selector("#message.error")
    assert page.evaluate("rummi.version") == version
    return page.inner_text("#message")


def click_move(page, move: str) -> None:
    """Make ``move`` as a person would with the page's buttons: its own button (draw, take 5C, layoff 8H run), or
    its pieces selected in the hand and the verb's button (play, meld, discard)."""
    verb, *pieces = move.split()
    own = page.locator("#actions button", has_text=move)
    if page.locator(f"#actions button[data-move='{move}']").count():
        page.click(f"#actions button[data-move='{move}']")
    elif not pieces and page.locator(f"#act-{verb}").count():
        page.click(f"#act-{verb}")
    elif pieces and page.locator(f"#act-{verb}").count():
        for selected in page.locator("#hand .piece.selected").all():
            selected.click()
        select(page, pieces)
        page.click(f"#act-{verb}")
    else:
        raise AssertionError(f"no button makes {move!r}: {own.count()} buttons say it")


def play_to_the_end(page, on_turn=None) -> dict:
    """Play the hint bot's move at every turn with the page's buttons, until the game is over; ``on_turn(state,
    hint)`` sees each turn first."""
    state = page.evaluate("rummi.state")
    while not state["over"]:
        hint = ask_hint(page)
        if on_turn is not None:
            on_turn(state, hint)
        click_move(page, hint)
        state = wait_for_my_turn(page, state["version"])
        assert page.inner_text("#message") == "", page.inner_text("#message")
    return state


@pytest.mark.parametrize(("game", "opponent", "seed", "rules"), GAMES)
def test_a_whole_game_through_the_page(page, server, tmp_path, game, opponent, seed, rules):
    start(page, server, game, opponent, seed, rules)
    state = page.evaluate("rummi.state")
    assert page.inner_text("#status") == "your turn" and page.inner_text("#clock") == ""
    if game == "rummy500":
        assert page.is_disabled("#undo")  # nothing is ever staged: every Rummy 500 move is on the table at once
        page.click("#act-draw")
        state = wait_for_my_turn(page, state["version"])
        select(page, hand_names(page)[:2])
        page.click("#act-meld")
        assert "is not a group or run (F5)" in refused(page, state["version"])
    else:
        hint = ask_hint(page).split()[1:]  # a play: two of its pieces alone are none
        select(page, hint[:2])
        page.click("#act-play")
        reason = refused(page, state["version"])
        assert reason.startswith(f"not legal: 'play {hint[0]} {hint[1]}': the staged ")
        assert page.eval_on_selector_all("#hand .piece.selected", "s => s.length") == 2  # still there to change
        before = hand_names(page)
        page.click("#hand .piece.selected")  # deselect one, stage the other
        page.click("#act-place")
        page.wait_for_function(f"rummi.version === {state['version'] + 1}")
        assert page.eval_on_selector_all("#hand .piece.staged", "s => s.length") == 1
        page.click("#undo")
        state = wait_for_my_turn(page, state["version"] + 1)
        assert not state["staged"] and hand_names(page) == before
        assert page.eval_on_selector_all("#hand .piece.staged", "s => s.length") == 0
        select(page, hint)  # staged, then committed
        page.click("#act-place")
        page.wait_for_function(f"rummi.version === {state['version'] + 1}")
        assert page.eval_on_selector_all("#hand .piece.staged", "s => s.length") == len(hint)
        page.click("#act-commit")
        state = wait_for_my_turn(page, state["version"] + 1)
        assert f"you: played {' '.join(hint)}" in state["log"]
    ask_hint(page)
    page.click("#use-hint")
    wait_for_my_turn(page, state["version"])
    shots: list[Path] = []

    def picture(state: dict, hint: str) -> None:
        """A screenshot of the first turn with a few sets on the table, a piece of the hint's play selected."""
        if game != "rummikub" or shots or len(state["table"]) < 3 or not hint.startswith("play "):
            return
        select(page, hint.split()[1:2])
        shots.append(tmp_path / "browser_play.png")
        bottom = page.evaluate("document.body.getBoundingClientRect().bottom") + 16  # not the empty window below
        page.screenshot(path=str(shots[0]), clip={"x": 0, "y": 0, "width": 1100, "height": bottom})

    final = play_to_the_end(page, picture)
    if game == "rummikub":
        assert shots and shots[0].stat().st_size > 10_000
        if os.environ.get("RUMMIENV_PAGE_PICTURE"):
            shutil.copy(shots[0], os.environ["RUMMIENV_PAGE_PICTURE"])
    assert page.is_visible("#end") and page.inner_text("#status") == "game over"
    scores = page.inner_text("#scores")
    assert scores.startswith("final scores: you ") and "; winner: " in scores
    with page.expect_download() as download:
        page.click("#replay")
    saved = tmp_path / "replay.json"
    download.value.save_as(saved)
    record = replay.read(saved)
    assert record["game"] == game and record["agents"] == ["you", opponent] and record["seed"] == seed
    *_, last = replay.states(record)
    assert [f"{x:+g}" for x in last.scores()] == final["scores"]
    keep_answers(page)
    page.click("#new-game")
    page.wait_for_function(f"location.pathname !== '/game/{final['id']}' && window.rummi && rummi.state")
    assert page.evaluate("rummi.state.game") == game and page.evaluate("rummi.state.version") >= 0


def test_the_clock_runs_out(page, server):
    start(page, server, "rummikub", "hoard", 13, {"hand_size": 10}, clock="1.5")
    assert page.inner_text("#clock") in ("clock: 2 s", "clock: 1 s") and page.is_visible("#clock.low")
    page.wait_for_selector("#log li:has-text('time is up (1.5 s, T12): you drew 3')", timeout=10_000)


def test_a_typed_move_and_a_lost_connection(page, server):
    start(page, server, "rummikub_cards", "hoard", 9, {"hand_size": 10})
    version = page.evaluate("rummi.version")
    page.fill("#typed", "swap k5")
    page.press("#typed", "Enter")
    assert "not legal: 'swap k5': a joker may be swapped only after opening (K6)" in refused(page, version)
    page.evaluate("rummi.ws.close()")  # the connection drops; the page comes back to its game by the id
    page.wait_for_selector("#connection:has-text('connection lost')")
    page.wait_for_function("rummi.ws.readyState === WebSocket.OPEN")
    page.fill("#typed", "draw")
    page.press("#typed", "Enter")
    wait_for_my_turn(page, version)
    assert page.locator("#log li", has_text="you: drew").count() == 1
