"""A chat model as a player (agents/chat_agent.py), through the evaluator and a local fake server
(tests/fake_chat_server.py): scripted legal, wrapped, illegal, unreadable, failing and slow answers never break a
game, every refusal and fallback is counted in the results, the log goes with the replay, the same seed gives
the same results, and a bad spec or endpoint is refused before the first game."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml
from fake_chat_server import MODEL, FakeChatServer

from agents.chat_agent import answer_move, parse_spec
from agents.evaluate import evaluate
from agents.evaluate import main as evaluate_main
from agents.registry import make_agent
from rummienv import games, replay, text_interface

pytest.importorskip("openai")

ROOT = Path(__file__).resolve().parents[1]
BAD = ["legal"] * 6 + ["wrapped", "illegal", "garbage", "fail"]  # one answer in ten legal-but-wrapped, one bad each
OPPONENT = {"rummikub": "max_tiles", "rummikub_cards": "max_tiles", "rummy500": "value"}


def agent_file(tmp_path, server: FakeChatServer, **settings) -> str:
    path = tmp_path / "model.yaml"
    path.write_text(yaml.safe_dump({"model": MODEL, "base_url": server.url, "retries": 0, **settings}))
    return f"llm:{path}"


@pytest.mark.parametrize("game", sorted(OPPONENT))
def test_twenty_deals_against_scripted_bad_answers(tmp_path, game):
    with FakeChatServer(BAD) as server:
        spec = agent_file(tmp_path, server)
        result = evaluate(game, [spec, OPPONENT[game]], 2, 20, 0, progress=False)
    assert set(server.requests) == set(BAD)
    row = result["agents"][spec]
    counts = row["counts"]
    assert row["games"] == 40 and len(result["games"]) == 40
    assert counts["illegal"] > 0 and counts["unreadable"] > 0 and counts["errors"] > 0 and counts["fallbacks"] > 0
    assert counts["requests"] == sum(server.requests.values())
    assert counts["decisions"] == counts["legal"] + counts["fallbacks"]
    assert counts["prompt_tokens"] > 0 and counts["completion_tokens"] > 0
    json.dumps(result)  # the counts go into the results file as they are


def test_slow_answers_time_out_into_the_fallback(tmp_path):
    with FakeChatServer(["legal"] * 3 + ["slow"], delay=1.2) as server:
        spec = agent_file(tmp_path, server, timeout=0.4)
        result = evaluate("rummy500", [spec, "value"], 2, 1, 0, progress=False)
    assert server.requests["slow"] > 0
    assert result["agents"][spec]["counts"]["errors"] == server.requests["slow"]


def test_same_seed_same_results_for_any_number_of_workers(tmp_path):
    with FakeChatServer(BAD) as server:
        spec = agent_file(tmp_path, server)
        first = evaluate("rummikub", [spec, "max_tiles"], 2, 3, 5, progress=False)
        again = evaluate("rummikub", [spec, "max_tiles"], 2, 3, 5, progress=False, workers=2)
    assert first == again


def test_the_log_of_prompts_and_answers_goes_with_the_replay(tmp_path):
    with FakeChatServer(BAD) as server:
        spec = agent_file(tmp_path, server, fallback="value")
        result = evaluate("rummy500", [spec, "value"], 2, 1, 0, matches=1, progress=False,
                          replays=tmp_path / "replays")
    assert result["matches"]["agents"][spec]["counts"]["requests"] > 0  # whole games count apart from rounds
    files = sorted((tmp_path / "replays").glob("deal*.json"))
    assert len(files) == 2 and len(list((tmp_path / "replays").glob("match-*.json"))) == 2
    record = json.loads(files[0].read_text())
    seat = record["agents"].index(spec)
    log = record["agent_logs"][seat]
    assert record["agent_logs"][1 - seat] is None
    asked = [entry for entry in log if "messages" in entry]
    assert asked and all(entry["messages"][0]["role"] == "system" for entry in asked)
    assert any("refused" in entry for entry in asked) and any("error" in entry for entry in asked)
    assert all("tokens" in entry for entry in asked if "answer" in entry)
    assert any(entry.get("fallback") == "value" for entry in log)
    replay.read(files[0])  # still a replay, the log alongside


def test_the_prompt_is_the_seats_own_knowledge():
    """What the model is shown, made from a state dealt from the seat's view, is what the true state shows."""
    game = games.make_game("rummikub_cards", 3)
    state, rng = game.new_initial_state(seed=4), np.random.default_rng(0)
    for _ in range(120):
        seat = state.current_player
        sampled = text_interface.view_state(state.view(seat), game, 1)
        assert text_interface.seat_text(sampled, seat) == text_interface.seat_text(state, seat)
        assert text_interface.legal_moves(sampled) == text_interface.legal_moves(state)
        state.apply_action(int(rng.choice(state.legal_actions())))


@pytest.mark.parametrize("spec, words", [
    ("llm:", "no endpoint"),
    ("llm:qwen", "no endpoint"),
    ("llm:@http://127.0.0.1:8000/v1", "no model named"),
    ("llm:qwen@ftp://127.0.0.1/v1", "not an http"),
    ("llm:missing.yaml", "missing.yaml"),
])
def test_malformed_specs_are_one_line_errors(spec, words):
    with pytest.raises(ValueError, match=words) as refused:
        make_agent(spec, "rummikub", 2)
    assert "\n" not in str(refused.value)


def test_an_endpoint_that_is_down_or_lacks_the_model_is_refused_at_start(tmp_path, capsys):
    with FakeChatServer(["legal"], models=["other-model"]) as server:
        with pytest.raises(ValueError, match="does not serve model 'fake-model'; it serves other-model"):
            make_agent(f"llm:{MODEL}@{server.url}", "rummikub", 2)
        url = server.url
    with pytest.raises(ValueError, match="cannot reach"):
        make_agent(f"llm:{MODEL}@{url}", "rummikub", 2)  # the server is gone: nothing listens there
    with pytest.raises(SystemExit):
        evaluate_main(["--game", "rummikub", "--agents", f"llm:{MODEL}@{url}", "max_tiles", "--deals", "1"])
    assert "argument --agents" in capsys.readouterr().err


def test_settings_files_are_checked(tmp_path):
    path = tmp_path / "model.yaml"
    path.write_text(yaml.safe_dump({"model": "m", "base_url": "http://127.0.0.1:1/v1", "re_asks": "two"}))
    with pytest.raises(ValueError, match="re_asks must be a int"):
        parse_spec(f"llm:{path}")
    path.write_text(yaml.safe_dump({"model": "m", "base_url": "http://127.0.0.1:1/v1", "temprature": 1}))
    with pytest.raises(ValueError, match="unknown keys \\['temprature'\\]"):
        parse_spec(f"llm:{path}")
    path.write_text(yaml.safe_dump({"model": "m", "base_url": "http://127.0.0.1:1/v1", "timeout": 5}))
    assert parse_spec(f"llm:{path}").timeout == 5


@pytest.mark.parametrize("answer, move", [
    ("draw", "draw"),
    ("I will draw.\nMove: draw.", "draw"),
    ("<think>maybe play\nr7</think>\n```\n[play r7 r8 r9]\n```", "play r7 r8 r9"),
    ("Final answer: **take 9S; meld 9S 9H 9D**", "take 9S; meld 9S 9H 9D"),
    ("", ""),
])
def test_the_move_is_read_off_the_answers_last_line(answer, move):
    assert answer_move(answer) == move


def test_the_terminal_game_keeps_the_models_log_with_its_replay(tmp_path):
    path = tmp_path / "game.json"
    with FakeChatServer(["legal"]) as server:
        done = subprocess.run([sys.executable, "-m", "rummienv.play", "--game", "rummy500", "--seed", "1",
                               "--opponents", f"llm:{MODEL}@{server.url}", "--replay", str(path)],
                              input="draw\nquit\n", capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    record = json.loads(path.read_text())
    assert record["agent_logs"][0] is None and record["agent_logs"][1][0]["answer"]
