"""A replay as one self-contained HTML page: the table, every seat's rack or hand (all of them: it is a
replay), each move in words and a slider, with no server and nothing fetched.

Every state of the game is laid out here, in Python, as plain data (the same ``view`` the text and picture
renders read, one per seat), so the page's script only draws: it holds no rules. The states are handed in
(``rummienv.replay.states``), so the page needs no more than the record and what it shows. Opening the page at
``#step=N`` steps forward N times from the deal, as the "next" button does.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from rummienv.core import TIMEOUT, State
from rummienv.play_text import display
from rummienv.replay_record import given_seed


def _snapshot(record: dict[str, Any], state: Any, move: str) -> dict[str, Any]:
    """What the page shows after a move: the table, every seat's pieces, the counts, whose turn, scores."""
    views = [state.view(seat) for seat in range(record["num_players"])]
    table, hands, pile, totals = display(record["game"]).page_parts(views)
    over = state.is_terminal()
    return {"move": move, "table": table, "hands": hands, "pile": pile, "totals": totals,
            "to_move": -1 if over else int(state.current_player),
            "scores": [f"{x:+g}" for x in state.scores()] if over else None}


def snapshots(record: dict[str, Any], states: Iterable[State]) -> list[dict[str, Any]]:
    """The deal and the state after every move (``states``: the record played again), each with the move that
    led to it in words."""
    out, moves, said = [], record["moves"], "the deal"
    for k, state in enumerate(states):
        out.append(_snapshot(record, state, said))
        if k < len(moves):  # put the next move in words while its state is here
            move = moves[k]
            said = f"seat {state.current_player}: " + ("time-out" if move == TIMEOUT else state.action_to_string(move))
    return out


def page(record: dict[str, Any], states: Iterable[State]) -> str:
    """The HTML of the replay page of ``record``, whose ``states`` are the deal and the state after every move."""
    title = f"{record['game']} replay: {' vs '.join(record['agents'])} (seed {given_seed(record)})"
    data = json.dumps({"agents": record["agents"], "steps": snapshots(record, states)}, separators=(",", ":"))
    return _TEMPLATE.replace("__TITLE__", html.escape(title)).replace("__DATA__", data.replace("</", "<\\/"))


def write_page(record: dict[str, Any], states: Iterable[State], path: str | Path) -> Path:
    """Write the replay page (``page``) to ``path``, its folder made if need be."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(page(record, states), encoding="utf-8")
    return path


_TEMPLATE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>__TITLE__</title>
<style>
body{font-family:system-ui,sans-serif;background:#1c5c3c;color:#f0f0e6;margin:16px}
h1{font-size:18px;margin:0 0 8px}
#controls{display:flex;gap:8px;align-items:center;margin:8px 0}
#slider{flex:1}
.area{background:#174e33;border-radius:6px;padding:8px;margin:8px 0}
.set{display:inline-block;margin:4px 12px 4px 0;vertical-align:top}
.label{font-size:11px;color:#aac8b4}
.piece{display:inline-block;min-width:22px;padding:4px 3px;margin:1px;border-radius:3px;background:#faf6e4;
text-align:center;font-weight:600;font-size:14px;border:1px solid #3c3c3c}
.piece.staged{border:3px solid #ffc800;padding:2px 1px}
.seat{margin:6px 0}.turn{color:#ffc800}
#scores{font-weight:700;font-size:16px}
</style></head>
<body>
<h1>__TITLE__</h1>
<div id="controls"><button id="prev">&#9664; prev</button><button id="next">next &#9654;</button>
<input id="slider" type="range" min="0" value="0"><span id="where"></span></div>
<div id="move" class="area"></div>
<div class="area"><div class="label">table</div><div id="table"></div></div>
<div class="area"><div class="label">racks and hands (staged pieces outlined)</div><div id="hands"></div></div>
<div id="pile"></div><div id="scores"></div>
<script>
const replay = __DATA__;
const steps = replay.steps;
let at = 0;
const slider = document.getElementById("slider");
slider.max = steps.length - 1;
function pieces(list) {
  return list.map(([text, colour, staged]) => {
    const span = document.createElement("span");
    span.className = staged ? "piece staged" : "piece"; span.style.color = colour; span.textContent = text;
    return span;
  });
}
function show(k) {
  at = Math.max(0, Math.min(steps.length - 1, k));
  const s = steps[at];
  slider.value = at;
  document.getElementById("where").textContent = "step " + at + " of " + (steps.length - 1);
  document.getElementById("move").textContent = s.move;
  const table = document.getElementById("table");
  table.replaceChildren(...s.table.map(set => {
    const div = document.createElement("div"); div.className = "set";
    const label = document.createElement("div"); label.className = "label"; label.textContent = set.label;
    div.append(label, ...pieces(set.pieces)); return div;
  }));
  if (!s.table.length) table.textContent = "(empty)";
  document.getElementById("hands").replaceChildren(...s.hands.map((hand, seat) => {
    const div = document.createElement("div"); div.className = "seat" + (seat === s.to_move ? " turn" : "");
    div.append("seat " + seat + " (" + replay.agents[seat] + "), total " + s.totals[seat] + ": ",
               ...pieces(hand));
    return div;
  }));
  document.getElementById("pile").textContent = s.pile;
  document.getElementById("scores").textContent = s.scores ? "final scores: " + s.scores.map(
    (x, seat) => replay.agents[seat] + " " + x).join(", ") : "";
}
document.getElementById("prev").onclick = () => show(at - 1);
document.getElementById("next").onclick = () => show(at + 1);
slider.oninput = () => show(Number(slider.value));
document.addEventListener("keydown", e => {
  if (e.key === "ArrowRight") show(at + 1); else if (e.key === "ArrowLeft") show(at - 1);
});
show(0);
const asked = /step=(\\d+)/.exec(location.hash);
if (asked) for (let i = 0; i < Number(asked[1]); i++) document.getElementById("next").click();
</script>
</body></html>
"""
