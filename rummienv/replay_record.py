"""A replay record: a game kept as what recreates it (game, table size, rules, deal seed, every move, the
agents' names), made from a state, written as JSON and read back with its fields checked.

The format alone, apart from playing a replay again and drawing it (``rummienv.replay``), so that those who
write replays (the env wrapper ``RecordReplays``, the evaluator, the play command) need nothing above the
registry.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rummienv import games
from rummienv.core import State
from rummienv.errors import ReplayError, RulesError

FORMAT = "rummienv-replay/1"
PERSON = "you"  # the agent name of the seat a person played (``rummienv.play`` records it so)


def record(state: State, agents: Sequence[str], given_seed: int | None = None,
           agent_logs: Sequence[Any] | None = None) -> dict[str, Any]:
    """The replay of ``state``'s game so far (finished or not); ``agents[p]`` names who played seat p.

    ``given_seed`` is the seed the person started from where the deal's seed was drawn from it (the evaluator
    draws one per deal, the env one per episode): a 19-digit number they never typed names nothing to them.
    ``agent_logs[p]``, where given, is what seat p's agent kept of the game (a chat model's prompts and
    answers), stored with the moves it explains and ignored when the game is played again."""
    position = state.to_dict()
    if len(agents) != len(state.scores()):
        raise ValueError(f"name one agent per seat ({len(state.scores())}), got {len(agents)}")
    rules = dict(position.get("rules") or {})
    return {"format": FORMAT, "game": position["game"], "num_players": len(state.scores()), "rules": rules,
            "whole_game": bool(position.get("whole_game", rules.get("whole_game", False))),
            "seed": int(state.seed), "given_seed": given_seed, "agents": [str(a) for a in agents],
            "moves": [int(a) for a in state.history],
            "scores": [float(x) for x in state.scores()] if state.is_terminal() else None,
            **({"agent_logs": list(agent_logs)} if agent_logs is not None else {})}


def write(path: str | Path, state: State, agents: Sequence[str], given_seed: int | None = None,
          agent_logs: Sequence[Any] | None = None) -> Path:
    """Write the replay of ``state``'s game to ``path`` (its folder is made if need be)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record(state, agents, given_seed, agent_logs)))
    return path


def read(path: str | Path) -> dict[str, Any]:
    """A replay file's record, its fields checked; ``ReplayError`` names what is wrong."""
    try:
        data = json.loads(Path(path).read_text())
    except OSError as exc:
        raise ReplayError(f"cannot read replay {str(path)!r}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise ReplayError(f"replay {str(path)!r} is not text (UTF-8), so not JSON") from None
    except json.JSONDecodeError as exc:
        raise ReplayError(f"replay {str(path)!r} is not JSON: {exc}") from None
    except RecursionError:
        raise ReplayError(f"replay {str(path)!r} nests lists or mappings too deeply to be one") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ReplayError(f"{str(path)!r} is not a replay (its 'format' must be {FORMAT!r})")
    checks = [("game", data.get("game") in games.names(), f"one of {list(games.names())}"),
              ("num_players", type(data.get("num_players")) is int and data["num_players"] in (2, 3, 4),
               "2, 3 or 4"),
              ("seed", _is_seed(data.get("seed")), "a whole number from 0"),
              ("given_seed", data.get("given_seed") is None or _is_seed(data["given_seed"]),
               "a whole number from 0, or null"),
              ("moves", isinstance(data.get("moves"), list) and all(type(m) is int for m in data["moves"]),
               "a list of whole numbers"),
              ("agents", isinstance(data.get("agents"), list) and len(data["agents"]) == data.get("num_players"),
               "one name per seat"),
              ("rules", isinstance(data.get("rules"), dict), "a mapping of rules overrides"),
              ("whole_game", isinstance(data.get("whole_game"), bool), "true or false")]
    for field, ok, allowed in checks:
        if not ok:
            raise ReplayError(f"replay {str(path)!r}: '{field}' must be {allowed}, got {data.get(field)!r}")
    try:  # checked here, so that a replay read is one that plays
        games.make_game(data["game"], data["num_players"], data["rules"] or None, data["whole_game"])
    except RulesError as exc:
        raise ReplayError(f"replay {str(path)!r}: 'rules': {exc}") from None
    return data


def _is_seed(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def given_seed(replay: dict[str, Any]) -> int:
    """The seed to show a person: the one they gave, else the deal's own (which then is the one they gave)."""
    return replay["seed"] if replay.get("given_seed") is None else replay["given_seed"]


def person_seat(replay: dict[str, Any]) -> int | None:
    """The seat a person played, the only one a picture calls "you"; None in a game of bots."""
    return replay["agents"].index(PERSON) if PERSON in replay["agents"] else None
