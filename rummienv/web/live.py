"""A game's asyncio side: the task that plays its bots and runs its clock, and the pages that watch it.

A bot's turn (a search may take seconds, the solver's first call a minute) and a hint are worked out in a worker
thread on a copy of the state (``GameSession.plan_bot_turn``), so that the server keeps answering every page
meanwhile; what changes the game is then adopted on the event loop, under the game's lock, and sent at once to
every page open on it, so that the person sees each bot's turn as it is played. The clock is kept here too: the
task waits for the person's move or for the deadline, whichever comes first, and at the deadline applies the
rules' time-out. The clock runs whether or not a page is open, as a clock on the table would.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from rummienv.web.sessions import GameSession, Refused

Send = Callable[[dict[str, Any]], Awaitable[None]]
log = logging.getLogger(__name__)


class PageGone(ConnectionError):
    """A page's connection closed while something was sent to it: the page is dropped, and may come back."""


class LiveGame:
    """One session on the event loop: its lock, its open pages (each a ``send``), and the task that moves it."""

    def __init__(self, session: GameSession) -> None:
        self.session = session
        self.lock = asyncio.Lock()
        self.pages: set[Send] = set()
        self.last_seen = time.monotonic()
        self._changed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start the task that plays the bots and keeps the clock (on the running loop)."""
        self._task = asyncio.get_running_loop().create_task(self._run(), name=f"game {self.session.id}")

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()

    async def join(self, send: Send) -> None:
        """Add a page and send it the position now: a page that opens late, or comes back, starts from here."""
        async with self.lock:
            self.pages.add(send)
            self.last_seen = time.monotonic()
            await send(self.session.message(time.monotonic()))

    def leave(self, send: Send) -> None:
        self.pages.discard(send)
        self.last_seen = time.monotonic()

    async def request(self, kind: str, payload: Any, version: int, send: Send, answers: Any) -> None:
        """Carry out a page's move, undo or hint; a refusal goes to that page alone and changes nothing."""
        self.last_seen = time.monotonic()
        session = self.session
        try:
            if kind == "hint":
                async with self.lock:
                    position = session.hint_position(version, time.monotonic())
                try:
                    move = await asyncio.to_thread(session.hint, position)
                except Exception as exc:  # the hint bot's failure is said; the game goes on without a hint
                    raise Refused(f"the hint bot failed: {type(exc).__name__}: {' '.join(str(exc).split())}") from exc
                await send({"type": "hint", "move": move, "version": version, "answers": answers})
                return
            async with self.lock:
                if kind == "move":
                    session.move(payload, version, time.monotonic())
                else:
                    session.undo(version, time.monotonic())
                await self._send_all()
        except Refused as exc:
            await send({"type": "error", "message": str(exc), "version": session.version, "answers": answers})
            return
        self._changed.set()

    async def _send_all(self) -> None:
        """Send every open page the position (under the lock, so that pages get the positions in order)."""
        message = self.session.message(time.monotonic())
        for send in list(self.pages):
            try:
                await send(message)
            except PageGone:  # it may come back by the game's id
                self.pages.discard(send)

    async def _run(self) -> None:
        session = self.session
        try:
            while not session.over and session.failure is None:
                if session.bot_to_move:
                    planned = await asyncio.to_thread(session.plan_bot_turn, *session.bot_position())
                    async with self.lock:
                        session.adopt_bot_turn(planned, time.monotonic())
                        await self._send_all()
                    continue
                self._changed.clear()
                try:
                    await asyncio.wait_for(self._changed.wait(), session.time_left(time.monotonic()))
                except TimeoutError:
                    async with self.lock:
                        if session.time_out(time.monotonic()):
                            await self._send_all()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a bot's failure stops its game, and the page says why
            log.exception("game %s stopped", session.id)
            async with self.lock:
                seat = session.state.current_player
                session.fail(f"seat {seat} ({session.names[seat]}) failed: {type(exc).__name__}: {exc}")
                await self._send_all()


class LiveGames:
    """Every game the server holds, by id. Past ``limit`` games, a new one replaces the one longest without a page
    open on it; a server whose every game has a page open refuses a new one rather than drop one being played."""

    def __init__(self, limit: int = 100) -> None:
        self.limit = limit
        self._games: dict[str, LiveGame] = {}

    def get(self, game_id: str) -> LiveGame | None:
        return self._games.get(game_id)

    def __len__(self) -> int:
        return len(self._games)

    def add(self, session: GameSession) -> LiveGame:
        """Hold ``session`` and start its task (on the running loop)."""
        if len(self._games) >= self.limit:
            idle = [game for game in self._games.values() if not game.pages]
            if not idle:
                raise Refused(f"the server holds {self.limit} games, each with a page open: finish or close one first")
            oldest = min(idle, key=lambda game: game.last_seen)
            oldest.stop()
            del self._games[oldest.session.id]
        game = LiveGame(session)
        self._games[session.id] = game
        game.start()
        return game

    def stop_all(self) -> None:
        for game in self._games.values():
            game.stop()
