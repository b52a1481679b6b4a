"""The web server's routes: the page, the games' options, a new game, a finished game's replay, and each game's
websocket.

    GET  /                      the page (a new game's form)
    GET  /game/{id}             the page, playing game {id} (a closed tab comes back to its game here)
    GET  /api/options           the games, their clocks and hint bots, agent names to suggest
    POST /api/games             a new game from its settings (``settings``): {"id", "url"}, or 400 {"error"}
    GET  /api/games/{id}/replay the finished game's replay (``rummienv-replay/1``, ``python -m rummienv.replay``)
    WS   /ws/{id}               the game's moves in, its positions out (``protocol``, ``live``)

Starlette handles HTTP and websockets; this module only routes. Requests from a page of another site are refused
(the ``Origin`` header must name this server), since the server plays whatever agents it is asked for.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import json
import secrets
import time
from collections.abc import AsyncIterator
from importlib import metadata
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.requests import HTTPConnection, Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from rummienv import games, text_interface
from rummienv.envs.opponents import ENTRY_POINTS
from rummienv.play_text import display
from rummienv.web.live import LiveGames, PageGone
from rummienv.web.protocol import BadMessage, read_request
from rummienv.web.sessions import GameSession, Refused
from rummienv.web.settings import SetupError, deal, read_settings

STATIC = Path(__file__).resolve().parent / "static"
PAGE = STATIC / "page.html"
UNKNOWN_GAME = 4404  # the websocket close code for a game id the server does not hold


def playable() -> list[str]:
    """The registered games a person can play here: those with a display module (the page's pieces and words)."""
    return [name for name in games.names() if games.of(name).display is not None]


def agent_names(game: str) -> list[str]:
    """Agent names to suggest for ``game``: the installed agent factory's baselines (asked of the factory's own
    module, where it offers ``baseline_names``: the web layer, like the env layer, imports no agents) and the
    shipped learner; any other name make_agent takes (a checkpoint path) can be typed."""
    for entry in metadata.entry_points(group=ENTRY_POINTS):
        names = getattr(importlib.import_module(entry.module), "baseline_names", None)
        if callable(names):
            return [*names(game), "ppo"]
    return ["random"]


def _options(default_clock: str | None) -> dict[str, Any]:
    out = []
    for name in playable():
        info, shown = games.of(name), display(name)
        rules = info.rules
        out.append({"name": name, "title": info.title, "no_clock": shown.NO_CLOCK, "hint": shown.HINT,
                    "clock": None if shown.NO_CLOCK else getattr(rules, "turn_seconds", None),
                    "agents": agent_names(name), "help": text_interface.move_help(name), "deal": info.deal})
    return {"games": out, "default_clock": default_clock}


def _same_origin(connection: HTTPConnection) -> bool:
    """Whether a browser's request comes from a page of this server (a script or test sends no Origin)."""
    origin = connection.headers.get("origin")
    return origin is None or urlsplit(origin).netloc == connection.headers.get("host")


def _error(message: str, status: int) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def create_app(default_clock: str | None = None, limit: int = 100) -> Starlette:
    """The server's app: ``default_clock`` is ``--clock`` (seconds or "off"; None: each game's rules' clock),
    ``limit`` the most games held at once."""
    held = LiveGames(limit)

    async def page(request: Request) -> Response:
        game_id = request.path_params.get("game_id")
        return FileResponse(PAGE, status_code=404 if game_id is not None and held.get(game_id) is None else 200)

    async def options(request: Request) -> Response:
        return JSONResponse(_options(default_clock))

    async def new_game(request: Request) -> Response:
        if not _same_origin(request):
            return _error("a new game is asked for from this server's own page", 403)
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            return _error("send the new game's settings as JSON (Content-Type: application/json)", 415)
        try:
            data = json.loads(await request.body())
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
            return _error(f"the settings are not JSON: {exc}", 400)
        try:
            settings = read_settings(data, default_clock)
            dealt = await asyncio.to_thread(deal, settings)  # a trained agent's network loads for a while
        except SetupError as exc:
            return _error(str(exc), 400)
        session = GameSession(secrets.token_urlsafe(9), settings, *dealt, time.monotonic())
        try:
            held.add(session)
        except Refused as exc:
            return _error(str(exc), 503)
        return JSONResponse({"id": session.id, "url": f"/game/{session.id}"}, status_code=201)

    async def replay(request: Request) -> Response:
        game = held.get(request.path_params["game_id"])
        if game is None:
            return _error(f"unknown game {request.path_params['game_id']!r}: the server holds no such game", 404)
        try:
            record = game.session.record()
        except Refused as exc:
            return _error(str(exc), 409)
        name = f"{record['game']}-{game.session.id}.json"
        return JSONResponse(record, headers={"Content-Disposition": f'attachment; filename="{name}"'})

    async def play(websocket: WebSocket) -> None:
        if not _same_origin(websocket):
            await websocket.close(code=1008)
            return
        await websocket.accept()
        game_id = websocket.path_params["game_id"]
        game = held.get(game_id)
        if game is None:
            await websocket.send_json({"type": "error", "message": f"unknown game {game_id!r}: the server holds no "
                                       "such game (it was never made, or the server restarted); start a new one"})
            await websocket.close(code=UNKNOWN_GAME)
            return
        async def send(message: dict[str, Any]) -> None:
            try:
                await websocket.send_json(message)
            except (WebSocketDisconnect, RuntimeError, OSError) as exc:  # closed under the message
                raise PageGone(str(exc)) from exc

        try:
            await game.join(send)
            while True:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                try:
                    request = read_request(message.get("text", message.get("bytes")), game.session.seat)
                except BadMessage as exc:
                    await send({"type": "error", "message": str(exc), "version": game.session.version})
                    continue
                await game.request(request.kind, request.move, request.version, send, request.answers)
        except (WebSocketDisconnect, PageGone):
            pass
        finally:
            game.leave(send)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        held.stop_all()

    app = Starlette(routes=[
        Route("/", page), Route("/game/{game_id}", page), Route("/api/options", options),
        Route("/api/games", new_game, methods=["POST"]), Route("/api/games/{game_id}/replay", replay),
        WebSocketRoute("/ws/{game_id}", play), Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ], lifespan=lifespan)
    app.state.games = held
    return app
