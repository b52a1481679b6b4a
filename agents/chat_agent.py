"""A language model as a player: any chat model behind an OpenAI-compatible endpoint, by text.

Researchers measure and train language models as game players; this seats one wherever an agent name goes
(``--agents llm:MODEL@URL``, or ``llm:FILE.yaml`` for the settings below), against the baselines, the
learners or another model. The model reads its seat's view and legal moves as text and answers a move string
(``rummienv.text_interface``: the terminal game's words, a whole Rummikub turn in one answer). It is held to
the same exact mask as every bot: an answer that is not a legal move is refused with the reason, asked again
a bounded number of times, and then a declared fallback plays (a draw, or a named agent), so that a model's
mistakes cost it the move, never the game's correctness. Every prompt, answer and token count is logged and
handed to the evaluator with each game (``take_report``), which keeps the counts in its results and the log
beside the game's replay.

The client is the ``openai`` package (the ``llm`` extra), which local servers (vLLM, llama.cpp, Ollama) and
hosted ones speak; it owns the time-outs and retries of each request.
"""

from __future__ import annotations

import dataclasses
import os
import re
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import BaseAgent, first_legal, reads_view
from rummienv import play_text, text_interface
from rummienv.core import Game
from rummienv.errors import IllegalActionError, NotationError
from rummienv.rules import read_yaml

PREFIX = "llm:"
DRAW = "draw"  # the fallback that draws where the rules allow it, else plays a random legal action
FORM = "llm:MODEL@URL (an OpenAI-compatible endpoint, e.g. llm:qwen2.5-7b-instruct@http://127.0.0.1:8000/v1) " \
       "or llm:FILE.yaml (the settings of agents/chat_agent.py's ChatSettings)"


@dataclasses.dataclass(frozen=True)
class ChatSettings:
    """How to reach the model and how patient to be with it."""

    model: str
    base_url: str
    api_key_env: str = "OPENAI_API_KEY"  # the environment variable holding the key; local servers need none
    temperature: float = 0.0  # 0: the same answer to the same prompt, as far as the server allows
    max_tokens: int = 512  # per answer: a reasoning model needs room before its move
    timeout: float = 60.0  # seconds a request may take
    retries: int = 2  # the client's retries of a request that failed or timed out
    re_asks: int = 2  # times an answer that is not a legal move is asked again, with the reason
    fallback: str = DRAW  # what moves once the re-asks are spent or the endpoint fails: "draw" or an agent's name
    max_listed: int = 80  # legal moves listed in a prompt; a longer list ends with how many more there are
    check_endpoint: bool = True  # ask the endpoint for its models when the agent is made


def parse_spec(spec: str) -> ChatSettings:
    """The settings ``spec`` names; a one-line ValueError saying what is allowed when it names none."""
    body = spec[len(PREFIX):] if spec.startswith(PREFIX) else spec
    if body.endswith((".yaml", ".yml")):
        return _from_file(Path(body), spec)
    model, at, url = body.rpartition("@")
    if not at or not model.strip() or not url.strip():
        raise ValueError(f"agent {spec!r}: {'no model named' if at and url.strip() else 'no endpoint'}; "
                         f"write {FORM}")
    if not re.match(r"https?://[^/\s]+", url):
        raise ValueError(f"agent {spec!r}: endpoint {url!r} is not an http(s) URL; write {FORM}")
    return ChatSettings(model=model.strip(), base_url=url.strip())


def _from_file(path: Path, spec: str) -> ChatSettings:
    values = read_yaml(path, "llm agent file", ValueError)
    fields = {f.name: f for f in dataclasses.fields(ChatSettings)}
    if not isinstance(values, dict) or not {"model", "base_url"} <= set(values):
        raise ValueError(f"agent {spec!r}: the file must map at least model and base_url; keys: {', '.join(fields)}")
    unknown = sorted(set(values) - set(fields))
    if unknown:
        raise ValueError(f"agent {spec!r}: unknown keys {unknown}; keys: {', '.join(fields)}")
    settings = parse_spec(f"{values['model']}@{values['base_url']}")
    for name, value in values.items():
        wanted = type(getattr(settings, name))
        if not isinstance(value, wanted) or isinstance(value, bool) and wanted is not bool:
            if not (wanted is float and isinstance(value, int) and not isinstance(value, bool)):
                raise ValueError(f"agent {spec!r}: {name} must be a {wanted.__name__}, got {value!r}")
    return dataclasses.replace(settings, **{k: v for k, v in values.items() if k not in ("model", "base_url")})


def make_client(settings: ChatSettings, spec: str) -> Any:
    """The endpoint's client, checked once: an endpoint that cannot be reached or lacks the model is a one-line
    ValueError now, not a failure in the middle of a game."""
    try:
        import openai
    except ImportError:
        raise ValueError(f"agent {spec!r} needs the openai package: pip install 'rummienv[llm]'") from None
    client = openai.OpenAI(base_url=settings.base_url, api_key=os.environ.get(settings.api_key_env) or "none",
                           timeout=settings.timeout, max_retries=settings.retries)
    if settings.check_endpoint:
        try:
            served = [m.id for m in client.with_options(timeout=min(settings.timeout, 10.0), max_retries=0)
                      .models.list()]
        except openai.NotFoundError:
            served = None  # a server that does not list its models: the first request will say
        except openai.APIError as exc:
            raise ValueError(f"agent {spec!r}: cannot reach {settings.base_url} ({type(exc).__name__}: "
                             f"{str(exc).splitlines()[0] if str(exc) else 'no answer'})") from None
        if served is not None and settings.model not in served:
            raise ValueError(f"agent {spec!r}: {settings.base_url} does not serve model {settings.model!r}; it "
                             f"serves {', '.join(served) or 'none'}")
    return client


def answer_move(answer: str) -> str:
    """The move in a model's answer: its last line that says something, without reasoning blocks, code fences,
    a "Move:" label, brackets or quotes (how models tend to wrap a one-line answer)."""
    answer = re.sub(r"<think>.*?</think>", "", answer, flags=re.S)
    lines = [line.strip().strip("`").strip() for line in answer.splitlines()]
    lines = [line for line in lines if line]
    if not lines:
        return ""
    move = re.sub(r"^(final\s+)?(move|answer)\s*:\s*", "", lines[-1], flags=re.I)
    return move.strip().strip("[]\"'*").strip().rstrip(".")


class ChatAgent(BaseAgent):
    """A chat model playing one seat; see the module's docstring."""

    reads_view = True

    def __init__(self, settings: ChatSettings, game: Game, client: Any, fallback: Any = None,
                 seed: int | None = None) -> None:
        super().__init__(seed)
        self.settings, self.game, self.client, self.fallback = settings, game, client, fallback
        moves = text_interface.move_help(game)
        self.system = (f"{text_interface.rules_brief(game)}\n\n{moves[0].upper()}{moves[1:]}\n\n"
                       "Each message shows what your seat sees and your legal moves. Answer with exactly one move on "
                       "the last line of your answer, written as in the list (a play may name any pieces that make "
                       "a legal play).")
        self.plan: list[int] = []
        self.counts: Counter[str] = Counter()
        self.log: list[dict[str, Any]] = []

    def reseed(self, seed: int) -> None:
        super().reseed(seed)
        self.plan = []
        if callable(getattr(self.fallback, "reseed", None)):
            self.fallback.reseed(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The next action of the model's move; a new move is asked for once the last one is played out."""
        if self.plan and action_mask[self.plan[0]]:
            return self.plan.pop(0)
        view = self._require_view()
        state = text_interface.view_state(view, self.game, self.rng)
        actions = self._ask(state, view, observation, action_mask)
        self.plan = actions[1:]
        return actions[0]

    def take_report(self) -> dict[str, Any]:
        """The counts (requests, tokens, illegal answers, fallbacks) and the log of the game just played, handed
        over and forgotten: the evaluator calls it after each game."""
        report = {"counts": dict(self.counts), "log": self.log}
        self.counts, self.log, self.plan = Counter(), [], []
        return report

    def _prompt(self, state: Any) -> str:
        moves = text_interface.legal_moves(state)
        listed = moves[:self.settings.max_listed]
        more = f"\n(and {len(moves) - len(listed)} more)" if len(moves) > len(listed) else ""
        return (f"{text_interface.seat_text(state, state.current_player)}\n\nLegal moves:\n"
                + "\n".join(f"- {move}" for move in listed) + more + "\n\nYour move:")

    def _ask(self, state: Any, view: dict[str, Any], observation: np.ndarray, mask: np.ndarray) -> list[int]:
        """The model's move as actions, asked again with the reason while it is refused, then the fallback's."""
        messages = [{"role": "system", "content": self.system}, {"role": "user", "content": self._prompt(state)}]
        self.counts["decisions"] += 1
        for _ in range(1 + self.settings.re_asks):
            answer = self._request(messages, view)
            if answer is None:
                break
            try:
                actions = text_interface.parse_move(state, answer_move(answer))
            except (NotationError, IllegalActionError) as exc:
                self.counts["illegal" if isinstance(exc, IllegalActionError) else "unreadable"] += 1
                self.log[-1]["refused"] = str(exc)
                messages += [{"role": "assistant", "content": answer},
                             {"role": "user", "content": f"That move is refused: {exc}. Answer with one legal move."}]
                continue
            self.counts["legal"] += 1
            return actions
        self.counts["fallbacks"] += 1
        self.log.append({"seat": view["player"], "fallback": self.settings.fallback})
        return [self._fallback(state, view, observation, mask)]

    def _request(self, messages: list[dict[str, str]], view: dict[str, Any]) -> str | None:
        """One answer of the model, logged with its tokens and time; None when the endpoint failed (after the
        client's retries)."""
        import openai

        entry: dict[str, Any] = {"seat": view["player"], "messages": [dict(m) for m in messages]}
        self.log.append(entry)
        self.counts["requests"] += 1
        started = time.perf_counter()
        try:
            response = self.client.chat.completions.create(
                model=self.settings.model, messages=messages, temperature=self.settings.temperature,
                max_tokens=self.settings.max_tokens, seed=int(self.rng.integers(2**31)))
        except openai.APIError as exc:
            self.counts["errors"] += 1
            entry["error"] = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
            return None
        finally:
            entry["seconds"] = round(time.perf_counter() - started, 3)
        usage = response.usage
        if usage is not None:
            self.counts["prompt_tokens"] += int(usage.prompt_tokens or 0)
            self.counts["completion_tokens"] += int(usage.completion_tokens or 0)
            entry["tokens"] = [int(usage.prompt_tokens or 0), int(usage.completion_tokens or 0)]
        entry["answer"] = (response.choices[0].message.content or "") if response.choices else ""
        return entry["answer"]

    def _fallback(self, state: Any, view: dict[str, Any], observation: np.ndarray, mask: np.ndarray) -> int:
        if self.fallback is not None:
            if reads_view(self.fallback):
                self.fallback.observe(view)
            return int(self.fallback.act(observation, mask))
        drawn = first_legal(mask, sorted(play_text.display(state).DRAWS))
        return drawn if drawn is not None else int(self.rng.choice(np.flatnonzero(mask)))
