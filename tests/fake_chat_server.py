"""A local stand-in for an OpenAI-compatible chat server, with scripted answers, so that a chat-model agent's
whole path (client, time-outs, retries, refusals, fallbacks, logs) is tested without a network or a model.

Each request's behaviour is picked from ``script`` by a hash of its messages, so the same prompt gets the same
answer whichever process or order asks it (the evaluator's results stay the same for any number of workers):

- ``legal``: the first move the prompt lists (in Rummikub, the play that lays the most pieces);
- ``wrapped``: a listed move inside reasoning, a code fence and a "Move:" label, as chat models answer;
- ``illegal``: a move that reads well and is not legal (``pass`` with a pool to draw from, ``end`` with a stock);
- ``garbage``: words that are no move;
- ``slow``: the legal answer after ``delay`` seconds (longer than the client's time-out in the tests);
- ``fail``: an HTTP 500 error.

Usage counts tokens as characters / 4 (a real server counts its own).
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL = "fake-model"


def listed_moves(prompt: str) -> list[str]:
    """The moves a prompt lists under "Legal moves:", one per "- " line."""
    moves, listing = [], False
    for line in prompt.splitlines():
        if line.startswith("Legal moves"):
            listing = True
        elif listing and line.startswith("- "):
            moves.append(line[2:])
        elif listing and moves:
            break
    return moves


def answer(messages: list[dict[str, str]], behaviour: str) -> str:
    prompt = next(m["content"] for m in messages if m["role"] == "user")
    moves = listed_moves(prompt)
    if behaviour == "illegal":
        return "end" if "Rummy 500" in messages[0]["content"] else "pass"
    if behaviour == "garbage":
        return "Let me think about the table; it is an interesting position."
    if behaviour == "wrapped":
        return f"<think>the first listed move looks good</think>\nI will play it.\n```\nMove: [{moves[0]}]\n```"
    return moves[0]


class FakeChatServer:
    """The server in a thread of this process: ``url`` is its base URL (``.../v1``), ``requests`` counts what
    it answered, by behaviour."""

    def __init__(self, script: list[str], delay: float = 1.0, models: list[str] | None = None) -> None:
        self.script, self.delay, self.models = script, delay, [MODEL] if models is None else models
        self.requests: dict[str, int] = {}
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> FakeChatServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def behaviour(self, messages: list[dict[str, str]]) -> str:
        digest = hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).digest()
        picked = self.script[int.from_bytes(digest[:8], "big") % len(self.script)]
        with self._lock:
            self.requests[picked] = self.requests.get(picked, 0) + 1
        return picked

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet: the tests read the counts instead
                pass

            def _send(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up waiting (a slow answer past its time-out): nothing to answer

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models"):
                    self._send(200, {"object": "list", "data": [
                        {"id": m, "object": "model", "created": 0, "owned_by": "test"} for m in server.models]})
                else:
                    self._send(404, {"error": {"message": "not found", "type": "invalid_request_error"}})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                if not self.path.endswith("/chat/completions"):
                    self._send(404, {"error": {"message": "not found", "type": "invalid_request_error"}})
                    return
                behaviour = server.behaviour(body["messages"])
                if behaviour == "fail":
                    self._send(500, {"error": {"message": "scripted failure", "type": "server_error"}})
                    return
                if behaviour == "slow":
                    time.sleep(server.delay)
                text = answer(body["messages"], behaviour)
                prompt_chars = sum(len(m["content"]) for m in body["messages"])
                self._send(200, {
                    "id": "fake", "object": "chat.completion", "created": 0, "model": body["model"],
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": text}}],
                    "usage": {"prompt_tokens": prompt_chars // 4, "completion_tokens": len(text) // 4 + 1,
                              "total_tokens": prompt_chars // 4 + len(text) // 4 + 1}})

        return Handler
