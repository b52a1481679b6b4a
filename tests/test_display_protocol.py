"""Every game's display module gives what rummienv.display_protocol names, with the same parameters.

The terminal game and the replay page call a display module's functions by name, so a name missing or
misspelled, or a parameter renamed, would fail only when a person reaches that prompt; here it fails at once,
for every registered game and the toy game of docs/adding_a_game.md where it has a display module.
"""

from __future__ import annotations

import importlib
import inspect
from types import SimpleNamespace
from typing import Any

import pytest
import toy_game

from rummienv import games
from rummienv.display_protocol import ClockedDisplay, Display

DISPLAYS = sorted({info.display for info in [*map(games.info, games.names()), toy_game.INFO] if info.display})


def members(protocol: type) -> dict[str, Any]:
    """The protocol's names, its own and those it extends: each function, or the annotation of a constant."""
    named: dict[str, Any] = {}
    for cls in reversed([c for c in protocol.__mro__ if c.__module__ == protocol.__module__]):
        named.update(cls.__dict__.get("__annotations__", {}))
        named.update({name: value for name, value in vars(cls).items()
                      if inspect.isfunction(value) and not name.startswith("_")})
    return named


def parameters(function: Any) -> str:
    """The parameters a caller by name relies on, ``self`` left out: each name, with "=" if it has a default."""
    found = inspect.signature(function).parameters.values()
    return ", ".join(p.name + ("=" if p.default is not p.empty else "") for p in found if p.name != "self")


def unmet(module: Any) -> list[str]:
    """What ``module`` lacks of the protocol it must meet, in words; [] when it meets it."""
    protocol = Display if getattr(module, "NO_CLOCK", None) else ClockedDisplay
    problems = []
    for name, wanted in members(protocol).items():
        if not hasattr(module, name):
            problems.append(f"no {name}")
        elif inspect.isfunction(wanted) and parameters(getattr(module, name)) != parameters(wanted):
            problems.append(f"{name}({parameters(getattr(module, name))}), not {name}({parameters(wanted)})")
    return problems


@pytest.mark.parametrize("path", DISPLAYS)
def test_each_display_module_gives_every_name_with_its_parameters(path: str) -> None:
    assert unmet(importlib.import_module(path)) == []


def test_the_protocol_names_what_the_front_ends_call() -> None:
    assert set(members(Display)) == {"HELP", "HINT", "NO_CLOCK", "DRAWS", "render", "who_starts", "parse_move",
                                     "why_not", "gained", "describe_turn", "as_command", "whole_turns", "rules_brief",
                                     "deal_number", "totals", "table_sets", "page_parts"}
    assert set(members(ClockedDisplay)) - set(members(Display)) == {"time_out"}


def test_a_missing_or_misspelled_name_or_parameter_is_caught() -> None:
    module = importlib.import_module("rummienv.rummikub.display")
    whole = {name: getattr(module, name) for name in members(ClockedDisplay)}
    assert unmet(SimpleNamespace(**whole)) == []
    missing = {name: value for name, value in whole.items() if name != "gained"}
    assert unmet(SimpleNamespace(**missing)) == ["no gained"]
    misspelled = {**missing, "gain": whole["gained"]}
    assert unmet(SimpleNamespace(**misspelled)) == ["no gained"]
    renamed = {**whole, "render": lambda state, seat, names, seen=None: ""}
    assert unmet(SimpleNamespace(**renamed)) == [
        "render(state, seat, names, seen=), not render(state, me, names, seen=)"]
    no_default = {**whole, "render": lambda state, me, names, seen: ""}
    assert unmet(SimpleNamespace(**no_default)) == [
        "render(state, me, names, seen), not render(state, me, names, seen=)"]
    unclocked = {name: value for name, value in whole.items() if name != "time_out"}
    assert unmet(SimpleNamespace(**unclocked)) == ["no time_out"]
    assert unmet(SimpleNamespace(**{**unclocked, "NO_CLOCK": "no clock here"})) == []


def test_the_package_games_are_among_those_checked() -> None:
    assert {"rummienv.rummikub.display", "rummienv.rummy500.display"} <= set(DISPLAYS)
