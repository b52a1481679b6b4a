"""The TextArena envs (``rummienv.envs.text_arena``): registered under TextArena's conventions, played to the end
by TextArena agents through its own wrappers, and telling each seat only what that seat may know.

The agents are scripted ``ta.Agent`` subclasses that need no network: one answers the first of the legal moves
its last board lists, one answers an invalid move before each legal one, so every game here also exercises
TextArena's error allowance. The whole file runs in a few seconds once the Rummikub solver is compiled.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections import Counter
from typing import Any

import pytest

ta = pytest.importorskip("textarena")

import rummienv.envs.text_arena as text_arena  # noqa: E402  (after the skip: it needs textarena)
from rummienv import games, play_text  # noqa: E402
from rummienv import text_interface as ti  # noqa: E402
from rummienv.tiles import tile_name  # noqa: E402

IDS = {"Rummikub-v0": "rummikub", "RummikubCards-v0": "rummikub_cards", "Rummy500-v0": "rummy500"}
_LEGAL = re.compile(rf"^{re.escape(text_arena.LEGAL_PREFIX)}(.*)$", re.M)
INVALID = ("fly away", "draw; draw")  # not understood (NotationError); understood but never legal (a step after a draw)


def text_of(observation: Any) -> str:
    """An observation as text: wrapped envs give a string, the raw env its list of (sender, message, type)."""
    if isinstance(observation, str):
        return observation
    return "\n".join(message for _, message, _ in observation)


class FirstLegalAgent(ta.Agent):
    """Answers the first move of the latest legal-move list it was shown, as plain text (TextArena's
    ActionFormattingWrapper brackets it where the env is wrapped). The raw env sends only what is new, and no new
    board after a refused move, so the agent keeps the last list it saw."""

    def __init__(self) -> None:
        self.legal: list[str] = []

    def __call__(self, observation: Any) -> str:
        lines = _LEGAL.findall(text_of(observation))
        if lines:
            self.legal = re.findall(r"\[([^\[\]]*)\]", lines[-1])
        assert self.legal, "no legal moves were shown to the seat to move"
        return self.legal[0]


class InvalidFirstAgent(FirstLegalAgent):
    """Before each legal answer, an invalid one (alternately not understood and not legal), inside a sentence as
    a model would write it: the env must take the bracketed move and refuse it without changing the game."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def __call__(self, observation: Any) -> str:
        legal = super().__call__(observation)
        self.calls += 1
        if self.calls % 2:
            return f"I will play [{INVALID[(self.calls // 2) % 2]}]"
        return f"My move: [{legal}]"


def play(env: Any, agents: list[ta.Agent], seed: int) -> tuple[dict, dict, list]:
    """TextArena's own loop: reset, observe, step until done, close; the rewards, the game info and every
    (seat, step_info)."""
    env.reset(num_players=len(agents), seed=seed)
    done, infos = False, []
    while not done:
        pid, observation = env.get_observation()
        done, info = env.step(agents[pid](observation))
        infos.append((pid, info))
        assert len(infos) < 5000, "the game did not end"
    rewards, game_info = env.close()
    return rewards, game_info, infos


def unwrapped(env: Any) -> text_arena.RummyTextArenaEnv:
    while isinstance(env, ta.Wrapper):
        env = env.env
    return env


def test_registration_makes_every_game_and_its_versions():
    for base, name in IDS.items():
        for suffix in ("", "-train", "-raw", "-long", "-long-train", "-long-raw"):
            env = ta.make(base + suffix)
            inner = unwrapped(env)
            assert isinstance(inner, text_arena.RummyTextArenaEnv)
            assert inner.game_name == name and inner.whole_game == ("-long" in suffix)
            if suffix in ("", "-long"):  # TextArena's default wrappers, as its card games have
                assert env.is_wrapped_with(ta.wrappers.LLMObservationWrapper)
                assert env.is_wrapped_with(ta.wrappers.ActionFormattingWrapper)
            if suffix.endswith("-raw"):
                assert env is inner
    assert unwrapped(ta.make("Rummy500-v0", whole_game=True)).whole_game
    assert text_arena.register_text_arena_envs() == []  # importing again registers nothing twice


def test_missing_textarena_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "textarena", None)  # what a missing package looks like to an import
    monkeypatch.delitem(sys.modules, "rummienv.envs.text_arena")
    with pytest.raises(ImportError, match=r"pip install 'rummienv\[textarena\]'") as caught:
        importlib.import_module("rummienv.envs.text_arena")
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(("env_id", "players"), [("Rummikub-v0", 2), ("RummikubCards-v0-train", 2),
                                                 ("Rummy500-v0", 2), ("Rummikub-v0", 4)])
def test_scripted_agents_play_a_game_to_the_end(env_id, players):
    env = ta.make(env_id)
    agents = [FirstLegalAgent() if seat % 2 == 0 else InvalidFirstAgent() for seat in range(players)]
    rewards, game_info, infos = play(env, agents, seed=7)
    engine = unwrapped(env).engine
    assert engine.is_terminal()
    winners = engine.winners()
    assert sorted(rewards) == list(range(players))
    if len(winners) == players:
        assert set(rewards.values()) == {0}
    else:
        assert rewards == {seat: 1 if seat in winners else -1 for seat in range(players)}
    if players == 2:
        assert sum(rewards.values()) == 0  # a two-player TextArena game is zero-sum
    refused = [seat for seat, info in infos if info.get("invalid_move")]
    for seat in range(players):
        assert game_info[seat]["invalid_moves"] == refused.count(seat)
        assert not game_info[seat]["invalid_move"]  # a valid answer after each invalid one: nobody lost by them
        assert game_info[seat]["score"] == float(engine.scores()[seat])
    assert refused and set(refused) == set(range(1, players, 2))


def test_whole_game_plays_several_deals():
    env = ta.make("RummikubCards-v0-long")
    rewards, game_info, _ = play(env, [FirstLegalAgent(), FirstLegalAgent()], seed=3)
    inner = unwrapped(env)
    assert inner.engine.is_terminal() and sum(rewards.values()) == 0
    assert any("is over; totals so far" in message for _, message in inner.state.logs)


def _pieces(view: dict[str, Any]) -> set[str]:
    """What a seat holds, by name."""
    if "rack" in view:
        return {tile_name(t) for t in [*view["rack"], *view["staged"]]}
    return set(view["hand"])


def _public(view: dict[str, Any]) -> set[str]:
    """What lies open to every seat in a view: the table, the discard pile, the cards known to be in hands."""
    if "rack" in view:
        return {tile_name(t) for _, pieces in view["table_sets"] for t in pieces}
    return {*view["discard"], *(c for meld in view["melds"] for c in meld["cards"]), *sum(view["known"], [])}


@pytest.mark.parametrize(("env_id", "players"), [("Rummikub-v0-raw", 2), ("RummikubCards-v0-raw", 3),
                                                 ("Rummy500-v0-raw", 2), ("Rummy500-v0-raw", 3)])
def test_no_message_holds_another_seats_pieces(env_id, players, monkeypatch):
    """Every message, as it is sent, is checked against the other seats' views: no piece that only another seat
    holds (neither the receiver's own nor ever open on the table or pile) is named, nor another rack's line."""
    env = ta.make(env_id)
    game = IDS[env_id.removesuffix("-raw")]
    fresh = games.make_game(game, players).new_initial_state(0)
    with pytest.raises(ValueError) as unknown:
        ti.parse_move(fresh, "fly away")
    # texts that name pieces only as examples, the same in every position (the env sends reasons on one line)
    constant = [" ".join(text.split()) for text in (play_text.help_text(game), str(unknown.value))]
    public: dict[int, set[str]] = {seat: set() for seat in range(players)}
    checked = []

    def check(to_id: int, message: str, kind: Any) -> None:
        engine = env.engine
        views = [engine.view(seat) for seat in range(players)]
        public[to_id] |= _public(views[to_id])
        if kind == ta.ObservationType.PROMPT:  # made from the game alone: checked below against another deal
            return
        for other in range(players):
            if other != to_id:
                assert f"Rack of seat {other}" not in message and f"Hand of seat {other}" not in message
        hidden = set().union(*(_pieces(views[o]) for o in range(players) if o != to_id))
        hidden -= _pieces(views[to_id]) | public[to_id] | {"J"}
        for text in constant:
            message = message.replace(text, "")
        named = set(re.findall(r"[A-Za-z0-9]+", message)) & hidden
        assert not named, f"message to seat {to_id} names {named}: {message!r}"
        checked.append(to_id)

    original = ta.State.add_observation

    def recording(self, message, observation_type, from_id=ta.GAME_ID, to_id=-1):
        for seat in range(players) if to_id == -1 else [to_id]:
            check(seat, message, observation_type)
        return original(self, message, observation_type, from_id=from_id, to_id=to_id)

    monkeypatch.setattr(ta.State, "add_observation", recording)
    agents = [InvalidFirstAgent() if seat == 0 else FirstLegalAgent() for seat in range(players)]
    play(env, agents, seed=11)
    assert set(checked) == set(range(players)) and len(checked) > 50
    prompts = [env.state.logs[seat][1] for seat in range(players)]
    env.reset(num_players=players, seed=12)
    assert [env.state.logs[seat][1] for seat in range(players)] == prompts  # the prompt does not depend on the deal


def test_invalid_moves_warn_the_offender_alone_then_it_loses():
    env = ta.make("Rummikub-v0-raw")
    env.reset(num_players=2, seed=4)
    pid, _ = env.get_observation()
    before = env.engine.to_dict()
    done, info = env.step("[fly away]")
    assert not done and info["invalid_move"] and info["invalid_moves"] == 1 and "fly away" in info["reason"]
    assert env.engine.to_dict() == before  # a refused move changes nothing
    again, warning = env.get_observation()
    assert again == pid
    warning = text_of(warning)
    assert "attempted an invalid move" in warning and "unknown move 'fly away'" in warning
    other = 1 - pid
    assert "fly away" not in text_of(env.state.observations[other])  # neither the move nor the reason reach it
    done, info = env.step("draw; draw")  # understood, not legal: nothing may follow a draw
    assert done and "step 2" in info["reason"]
    rewards, game_info = env.close()
    assert rewards == {pid: -1, other: 1}
    assert game_info[pid]["invalid_move"] and game_info[pid]["invalid_moves"] == 2
    assert "loses" in game_info[other]["reason"] and "fly away" not in game_info[other]["reason"]


def test_invalid_moves_at_three_seats_end_the_game_for_the_offender():
    env = ta.make("Rummy500-v0-raw", error_allowance=0)
    env.reset(num_players=3, seed=4)
    pid, _ = env.get_observation()
    done, _ = env.step("[discard]")
    rewards, game_info = env.close()
    assert done and rewards == {seat: -1 if seat == pid else 1 for seat in range(3)}
    assert game_info[pid]["invalid_move"]


def test_a_valid_move_resets_the_allowance_and_moves_are_read_from_brackets():
    assert text_arena.move_of("I think [draw] or maybe [play r7 r8 r9]") == "play r7 r8 r9"
    assert text_arena.move_of("  draw ") == "draw"
    env = ta.make("Rummy500-v0-raw")
    env.reset(num_players=2, seed=4)
    pid, _ = env.get_observation()
    assert not env.step("[fly away]")[0]
    done, info = env.step("Drawing now: [draw]")  # Rummy 500: the seat then melds or discards, asked again
    assert not done and not info["invalid_move"] and env.state.current_player_id == pid
    assert "You got:" in text_of(env.get_observation()[1])
    assert not env.step("[fly away]")[0]  # one error in a row again, within the allowance


def test_a_seat_is_told_the_piece_it_drew_alone():
    """Pieces staged and then taken back by a draw are not news: only the drawn piece is told, to its seat."""
    env = ta.make("Rummikub-v0-raw")
    env.reset(num_players=2, seed=1)
    pid, _ = env.get_observation()
    place = next(move for move in ti.legal_moves(env.engine) if move.startswith("place "))
    rack = Counter(env.engine.view(pid)["rack"])
    assert not env.step(place)[0] and not env.step("draw")[0]
    drawn = Counter(env.engine.view(pid)["rack"]) - rack
    told = [m for _, m, _ in env.state.observations[pid] if m.startswith("You got:")]
    assert told == [f"You got: {tile_name(next(drawn.elements()))}"]
    assert not any("You got" in m for _, m, _ in env.state.observations[1 - pid])
    assert f"Player {pid} drew" in text_of(env.state.observations[1 - pid])


def test_same_seed_same_game():
    def transcript(seed: int) -> tuple:
        env = ta.make("Rummikub-v0")
        rewards, _, _ = play(env, [FirstLegalAgent(), InvalidFirstAgent()], seed=seed)
        return rewards, unwrapped(env).state.logs

    first = transcript(21)
    assert transcript(21) == first
    assert transcript(22)[1] != first[1]


def test_board_string_is_a_seats_view():
    env = ta.make("Rummy500-v0")
    env.reset(num_players=2, seed=2)
    inner = unwrapped(env)
    seat = inner.engine.current_player
    assert env.get_board_str() == ti.view_text(inner.engine.view(seat), inner.game)
    with pytest.raises(ValueError, match="2, 3 or 4"):
        env.reset(num_players=5)
