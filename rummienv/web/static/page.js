// The browser side of `python -m rummienv.serve`: a new game's form, and a game's page.
//
// The page holds no rules. The server sends the position of this page's seat (table, own pieces, counts, the
// legal moves as move strings); the page draws it, offers what the legal moves allow, and sends moves as the
// strings a person would type in the terminal game. The server checks every move and answers with the next
// position, or with the reason a move was refused (which changes nothing). Each message names the position
// it answers (`version`), so that a message sent twice is refused. `window.rummi` exposes the page's state
// and its measured answer times to tests.
"use strict";

const $ = id => document.getElementById(id);
const rummi = window.rummi = {state: null, version: null, selected: new Set(), pending: null, timings: [],
                              nextId: 1, ws: null, gone: false, deadline: null, hint: null};
const gameId = (location.pathname.match(/^\/game\/([^/]+)$/) || [])[1];

// Moves that name the pieces selected in the hand; every other move with arguments gets a button of its own.
const WITH_SELECTION = {
  place: [["play", "play selected", 1], ["place", "stage selected", 1]],
  swap: [["swap", "swap selected for a joker", 1, 1]],
  meld: [["meld", "meld selected", 1]],
  discard: [["discard", "discard selected", 1, 1]],
};

function showMessage(text, kind) {
  const box = $("message");
  box.textContent = text || "";
  box.className = "message" + (kind ? " " + kind : "");
}

// ------------------------------------------------------------------ a new game
async function startGame(settings, errorBox) {
  const answer = await fetch("/api/games", {method: "POST", headers: {"Content-Type": "application/json"},
                                            body: JSON.stringify(settings)});
  const body = await answer.json();
  if (!answer.ok) { errorBox(body.error); return; }
  location.href = body.url;
}

async function showSetup() {
  $("setup").hidden = false;
  const options = await (await fetch("/api/options")).json();
  const byName = Object.fromEntries(options.games.map(g => [g.name, g]));
  const gameSelect = $("setup-game");
  gameSelect.replaceChildren(...options.games.map(g => new Option(g.title, g.name)));
  function refresh() {
    const game = byName[gameSelect.value];
    const players = Number($("setup-players").value);
    const seat = Math.min(Number($("setup-seat").value) || 0, players - 1);
    $("setup-seat").replaceChildren(...Array.from({length: players}, (_, s) => new Option(String(s), String(s))));
    $("setup-seat").value = String(seat);
    $("agent-names").replaceChildren(...game.agents.map(name => new Option(name, name)));
    const kept = Array.from(document.querySelectorAll(".setup-opponent")).map(input => input.value);
    $("setup-opponents").replaceChildren(...Array.from({length: players - 1}, (_, k) => {
      const label = document.createElement("label");
      const input = document.createElement("input");
      input.className = "setup-opponent"; input.setAttribute("list", "agent-names"); input.size = 14;
      input.value = kept[k] && game.agents.includes(kept[k]) ? kept[k] : game.hint;
      label.append("opponent " + (k + 1) + " ", input);
      return label;
    }));
    const clock = $("setup-clock");
    clock.disabled = Boolean(game.no_clock);
    const server = options.default_clock;
    clock.placeholder = game.no_clock ? "none: " + game.no_clock.split(" (")[0].toLowerCase()
      : server ? "server's: " + server + (server === "off" ? "" : " s") + "; seconds or off"
      : "rules': " + game.clock + " s; seconds or off";
  }
  gameSelect.onchange = refresh; $("setup-players").onchange = refresh;
  refresh();
  $("setup-form").onsubmit = event => {
    event.preventDefault();
    const settings = {game: gameSelect.value, players: Number($("setup-players").value),
                      seat: Number($("setup-seat").value),
                      opponents: Array.from(document.querySelectorAll(".setup-opponent")).map(i => i.value),
                      whole_game: $("setup-whole").checked};
    const clock = $("setup-clock").value.trim(), seed = $("setup-seed").value.trim();
    const rules = $("setup-rules").value.trim();
    if (clock && !$("setup-clock").disabled) settings.clock = clock;
    if (seed) settings.seed = /^\d+$/.test(seed) ? Number(seed) : seed;
    try {
      if (rules) settings.rules = JSON.parse(rules);
    } catch (error) {
      $("setup-error").textContent = "rules: not JSON (" + error.message + ")"; return;
    }
    startGame(settings, text => { $("setup-error").textContent = text; });
  };
}

// ------------------------------------------------------------------ a game
function connect() {
  const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws/" + gameId);
  rummi.ws = ws;
  ws.onopen = () => { $("connection").textContent = ""; };
  ws.onmessage = event => receive(JSON.parse(event.data));
  ws.onclose = event => {
    if (event.code === 4404) { rummi.gone = true; return; }
    $("connection").textContent = "connection lost: coming back...";
    setTimeout(connect, 1000);
  };
}

function send(message) {
  if (!rummi.state || !rummi.ws || rummi.ws.readyState !== WebSocket.OPEN) {
    showMessage("not connected to the server yet", "error"); return;
  }
  message.id = rummi.nextId++;
  message.version = rummi.version;
  message.seat = rummi.state.seat;
  rummi.ws.send(JSON.stringify(message));
}

function sendMove(move) {
  rummi.pending = {at: performance.now(), version: rummi.version, bots: false, move: move};
  showMessage("");
  send({type: "move", move: move});
}

function receive(message) {
  if (message.type === "state") {
    rummi.state = message; rummi.version = message.version;
    rummi.selected.clear(); rummi.hint = null;
    rummi.deadline = message.left === null ? null : performance.now() + message.left * 1000;
    render(message);
    const pending = rummi.pending;
    if (pending && message.version > pending.version) {
      if (message.to_move !== message.seat && !message.over) pending.bots = true;
      else {
        const ms = performance.now() - pending.at;  // the table and hand are drawn anew by now
        rummi.timings.push({ms: ms, bots: pending.bots, move: pending.move});
        $("answer").textContent = "answered in " + Math.round(ms) + " ms";
        rummi.pending = null;
      }
    }
  } else if (message.type === "error") {
    rummi.pending = null;
    showMessage(message.message, "error");
  } else if (message.type === "hint") {
    rummi.hint = message.move;
    $("hint-text").textContent = "hint: " + message.move;
    $("use-hint").hidden = false;
  }
}

function pieces(list, inHand) {
  return list.map(([text, colour, staged, name], index) => {
    const span = document.createElement("span");
    span.className = "piece" + (staged ? " staged" : "");
    span.style.color = colour; span.textContent = text;
    if (inHand) {
      span.dataset.name = name; span.dataset.index = String(index); span.title = name;
      span.onclick = () => toggle(index);
    }
    return span;
  });
}

function toggle(index) {
  if (rummi.selected.has(index)) rummi.selected.delete(index); else rummi.selected.add(index);
  drawHand(rummi.state); drawActions(rummi.state);
}

function selectedNames(state) {
  return Array.from(rummi.selected).sort((a, b) => a - b).map(k => state.hand[k][3]);
}

function yourTurn(state) { return !state.over && !state.failure && state.to_move === state.seat; }

function drawHand(state) {
  const playable = new Set(state.moves.flatMap(move => move.split(" ").slice(1)));
  $("hand").replaceChildren(...pieces(state.hand, true));
  for (const span of $("hand").children) {
    if (playable.has(span.dataset.name)) span.classList.add("playable");
    if (rummi.selected.has(Number(span.dataset.index))) span.classList.add("selected");
  }
  if (!state.hand.length) $("hand").textContent = "(none)";
}

function button(id, text, onClick, disabled) {
  const b = document.createElement("button");
  if (id) b.id = id;
  b.textContent = text; b.onclick = onClick; b.disabled = Boolean(disabled);
  return b;
}

function drawActions(state) {
  const buttons = [];
  if (yourTurn(state)) {
    const chosen = selectedNames(state);
    const verbs = [...new Set(state.moves.map(move => move.split(" ")[0]))];
    for (const verb of verbs) {
      const moves = state.moves.filter(move => move.split(" ")[0] === verb);
      if (WITH_SELECTION[verb]) {
        for (const [typed, text, least, most] of WITH_SELECTION[verb]) {
          const fits = chosen.length >= least && (!most || chosen.length <= most);
          buttons.push(button("act-" + typed, text, () => sendMove([typed, ...chosen].join(" ")), !fits));
        }
      } else if (moves.length === 1 && moves[0] === verb) {
        buttons.push(button("act-" + verb, verb, () => sendMove(verb)));
      } else {
        for (const move of moves) {
          const b = button(null, move, () => sendMove(move));
          b.className = "act-" + verb; b.dataset.move = move;
          buttons.push(b);
        }
      }
    }
  }
  $("actions").replaceChildren(...buttons);
}

function render(state) {
  document.title = state.title + ": " + (state.over ? "game over" : yourTurn(state) ? "your turn" : "waiting");
  $("title").textContent = state.title + " (seed " + state.seed + "): you are seat " + state.seat;
  const mover = state.to_move >= 0 ? "seat " + state.to_move + " (" + state.names[state.to_move] + ")" : "";
  $("status").textContent = state.failure ? "stopped" : state.over ? "game over"
    : yourTurn(state) ? "your turn" : mover + " is moving...";
  const table = $("table");
  table.replaceChildren(...state.table.map(set => {
    const div = document.createElement("div"); div.className = "set";
    const label = document.createElement("div"); label.className = "label"; label.textContent = set.label;
    div.append(label, ...pieces(set.pieces, false)); return div;
  }));
  if (!state.table.length) table.textContent = "(empty)";
  $("pile").textContent = state.pile;
  $("seats").replaceChildren(...state.names.map((name, seat) => {
    const span = document.createElement("span");
    span.className = "seat" + (seat === state.to_move ? " turn" : "");
    span.id = "seat-" + seat;
    span.textContent = "seat " + seat + " (" + name + "): " + state.counts[seat] + " pieces, total "
      + state.totals[seat] + (seat === state.to_move ? " - to move" : "");
    return span;
  }));
  drawHand(state); drawActions(state);
  const mine = yourTurn(state);
  $("undo").disabled = !(mine && state.staged);
  $("hint").disabled = !mine;
  $("hint-text").textContent = ""; $("use-hint").hidden = true;
  $("log").replaceChildren(...state.log.map(line => { const li = document.createElement("li");
    li.textContent = line; return li; }));
  $("log").scrollTop = $("log").scrollHeight;
  $("typed").placeholder = "or type a move" + (state.moves.length ? ", like " + state.moves.slice(-2).join(" or ") : "");
  $("text").textContent = state.text;
  $("help").textContent = state.help;
  if (state.failure) showMessage("the game stopped: " + state.failure, "error");
  $("end").hidden = !state.over;
  if (state.over) {
    $("scores").textContent = "final scores: " + state.names.map((name, s) => name + " " + state.scores[s])
      .join(", ") + "; winner: " + state.winners.map(s => state.names[s]).join(", ");
    $("replay").href = "/api/games/" + state.id + "/replay";
  }
  tick();
}

function tick() {
  const clock = $("clock");
  if (rummi.deadline === null || !rummi.state || !yourTurn(rummi.state)) { clock.textContent = ""; return; }
  const left = Math.max(0, (rummi.deadline - performance.now()) / 1000);
  clock.textContent = "clock: " + Math.ceil(left) + " s";
  clock.className = left < 10 ? "low" : "";
}

function playGame() {
  $("game").hidden = false;
  $("undo").onclick = () => send({type: "undo"});
  $("hint").onclick = () => { $("hint-text").textContent = "thinking..."; send({type: "hint"}); };
  $("use-hint").onclick = () => { if (rummi.hint) sendMove(rummi.hint); };
  $("typed-form").onsubmit = event => {
    event.preventDefault();
    const move = $("typed").value.trim();
    if (move) { sendMove(move); $("typed").value = ""; }
  };
  $("new-game").onclick = () => startGame(rummi.state.settings, text => showMessage(text, "error"));
  setInterval(tick, 250);
  connect();
}

if (gameId) playGame(); else showSetup();
