"""What a game costs a language model: requests, prompt and answer sizes per round, for each game.

    python benchmarks/text_cost.py [--games rummikub rummikub_cards rummy500] [--deals 20] [--json out.json]

A chat-model agent (``llm:``) plays ``--deals`` duplicate deals of one round against each game's
opponent (``max_tiles``, ``value``) through the evaluator, talking to the tests' local fake server
(tests/fake_chat_server.py) scripted to answer the first move each prompt lists: in Rummikub the play
that lays the most pieces, so its games run about as long as a sound player's. It prints, per game, the
requests, the characters of prompts and answers and the tokens at four characters a token (the fake
server's count; a real model's server reports its own, which the results JSON keeps) per round the model
played, and the client's milliseconds per request on this machine (prompt building, HTTP, parsing), as
one JSON line.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import yaml
from json_lines import emit

from agents.evaluate import evaluate
from rummienv import games

ROOT = Path(__file__).resolve().parents[1]
OPPONENT = {"rummy500": "value"}  # the Rummikub games play max_tiles


def measure(game: str, deals: int, server_url: str, folder: Path, model: str) -> dict[str, float]:
    """Per round the model played: requests, characters and tokens of prompts and answers; ms per request."""
    settings = folder / f"{game}.yaml"
    settings.write_text(yaml.safe_dump({"model": model, "base_url": server_url, "retries": 0}))
    spec = f"llm:{settings}"
    replays = folder / f"{game}-replays"
    started = time.perf_counter()
    result = evaluate(game, [spec, OPPONENT.get(game, "max_tiles")], 2, deals, seed=0, progress=False,
                      resamples=10, replays=replays)
    seconds = time.perf_counter() - started
    row = result["agents"][spec]
    rounds, counts = row["games"], row["counts"]
    prompt_chars = answer_chars = 0
    for path in replays.glob("*.json"):
        record = json.loads(path.read_text())
        log = record["agent_logs"][record["agents"].index(spec)]
        for entry in log:
            if "messages" in entry:
                prompt_chars += sum(len(m["content"]) for m in entry["messages"])
                answer_chars += len(entry.get("answer", ""))
    return {"rounds": rounds, "requests_per_round": round(counts["requests"] / rounds, 1),
            "prompt_chars_per_round": round(prompt_chars / rounds),
            "answer_chars_per_round": round(answer_chars / rounds),
            "prompt_tokens_per_round": round(counts["prompt_tokens"] / rounds),
            "answer_tokens_per_round": round(counts["completion_tokens"] / rounds),
            "prompt_chars_per_request": round(prompt_chars / counts["requests"]),
            "ms_per_request": round(1000 * seconds / counts["requests"], 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="+", default=games.names(), choices=games.names())
    parser.add_argument("--deals", type=int, default=20)
    parser.add_argument("--json", type=Path, help="also write the JSON line here")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT / "tests"))
    from fake_chat_server import MODEL, FakeChatServer

    rows = {}
    with FakeChatServer(["legal"]) as server, tempfile.TemporaryDirectory() as folder:
        for game in args.games:
            rows[game] = measure(game, args.deals, server.url, Path(folder), MODEL)
    emit({"benchmark": "text_cost", "deals": args.deals, "answers": "the first listed move", "games": rows}, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
