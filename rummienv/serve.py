"""Play in the browser against any agents: a local web server that holds the games and serves the page.

    python -m rummienv.serve                  # a free port; open the address it prints
    python -m rummienv.serve --port 8000 --clock 90

The page deals any registered game for 2-4 seats against any agents (``hoard``, ``max_tiles``, ``value``,
``expert``, ``ppo``, a checkpoint path ...), with the rules' turn clock (T12: 60 s, K8: 2 minutes; Rummy 500 has
none, F13), which ``--clock`` changes or turns off for every game that has one. The server listens on 127.0.0.1
only. It needs the ``serve`` extra (Starlette and uvicorn): pip install 'rummienv[serve]'.
"""

from __future__ import annotations

import argparse
import socket
import sys
import webbrowser

from rummienv import games
from rummienv.play import clock_of
from rummienv.play_text import display

HOST = "127.0.0.1"


def check_clock(arg: str | None) -> None:
    """Refuse a ``--clock`` that no game would take, as the terminal game reads it (``clock_of``)."""
    clocked = [name for name in games.names() if games.of(name).display and not display(name).NO_CLOCK]
    if arg is not None and clocked:
        clock_of(arg, games.of(clocked[0]).rules)


def listen(port: int) -> socket.socket:
    """A socket listening on ``port`` of 127.0.0.1 (0: one the system picks), so that a page opened as soon as the
    address is printed waits for the server rather than being refused; OSError if it cannot be."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((HOST, port))
        sock.listen()
    except OSError:
        sock.close()
        raise
    return sock


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rummienv.serve", description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)")
    parser.add_argument("--clock", help="turn clock in seconds, or 'off', for every game that has one "
                        "(default: each game's rules' clock; the page may set it per game)")
    parser.add_argument("--open", action="store_true", help="open the page in the default browser")
    args = parser.parse_args(argv)
    if not 0 <= args.port <= 65535:
        parser.exit(2, f"error: --port must be 0..65535, got {args.port}\n")
    try:
        check_clock(args.clock)
    except ValueError as exc:
        parser.exit(2, f"error: {exc}\n")
    try:
        import uvicorn

        from rummienv.web.server import create_app
    except ModuleNotFoundError as exc:
        parser.exit(2, f"error: the browser game needs {exc.name}: pip install 'rummienv[serve]'\n")
    try:
        sock = listen(args.port)
    except OSError as exc:
        parser.exit(2, f"error: cannot listen on {HOST}:{args.port}: {exc.strerror}\n")
    url = f"http://{HOST}:{sock.getsockname()[1]}/"
    print(f"rummienv: play at {url}  (Ctrl-C stops the server; its games end with it)", flush=True)
    if args.open:
        webbrowser.open(url)
    server = uvicorn.Server(uvicorn.Config(create_app(args.clock), log_level="warning"))
    server.run(sockets=[sock])
    return 0


if __name__ == "__main__":
    sys.exit(main())
