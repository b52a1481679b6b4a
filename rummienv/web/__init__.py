"""Play in the browser: a local web server (``python -m rummienv.serve``) that holds games and serves a page to
play them against any agents.

The server holds every game; a page only ever gets what its own seat may know (``seat_view``). The modules,
each with one job: ``seat_view`` (what one seat's page is sent), ``sessions`` (a game held on the server: the
person's moves, undo, hint, the clock's time-out, the bots' turns), ``settings`` (a new game's settings, checked),
``protocol`` (the page's messages, checked), ``live`` (a game's asyncio side: its bots' turns off the event
loop, its clock, its open pages) and ``server`` (the Starlette app: routes and the websocket). The page itself is
``static/page.html`` with its script and style.
"""

from __future__ import annotations
