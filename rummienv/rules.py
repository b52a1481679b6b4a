"""The games' rules as frozen dataclasses, and field-by-field overrides of their presets.

A preset is the rule book's default (docs/RULES.md), declared with its game in the
registry (``rummienv.games``), which hands it to ``PRESETS`` here, with the game's title, as it
registers the game (an installed package's games when the registry is first asked, which
``import rummienv`` does), so the engines and renders below the registry read presets and titles
by name; a user changes a rule by naming
the field in a dict or a YAML file. Every override is checked against the field's
type and allowed range so that a typo fails loudly instead of silently playing a
different game.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal, get_args, get_type_hints

from rummienv.errors import RulesError


@dataclass(frozen=True)
class RummikubRules:
    """Rules of the tile game (T) and the card edition (K), which share one engine."""

    game: Literal["rummikub", "rummikub_cards"] = "rummikub"
    jokers: int = 2  # T1 / K1
    hand_size: int = 14  # T1 / K1
    opening_threshold: int = 30  # T4 / K3
    joker_penalty: int = 30  # T9 / K7
    jokers_keep_number: bool = False  # K5
    joker_swap_action: bool = False  # K6
    start: Literal["highest_tile", "lot"] = "highest_tile"  # T2 / K2
    timeout_rule: Literal["restore_and_draw", "keep_valid"] = "restore_and_draw"  # T12 / K8
    timeout_draws: int = 3  # T12: 3, K8: 1
    turn_seconds: float = 60.0  # T12 / K8; the engine never times, front ends do
    rounds: int = 0  # T11 / K10; 0 means one round per player


@dataclass(frozen=True)
class Rummy500Rules:
    """Rules of Rummy 500 (F)."""

    game: Literal["rummy500"] = "rummy500"
    hand_size: int = 7  # F2
    hand_size_two_players: int = 13  # F2
    free_top_discard: bool = False  # F6 option
    target_score: int = 500  # F12
    whole_game: bool = False  # one hand by default; True plays to target_score (F12)


Rules = RummikubRules | Rummy500Rules


def rules_fields(rules: Rules) -> dict[str, Any]:
    """Every field of ``rules`` by name, ``game`` included. The values are plain numbers, flags and words, so
    this is ``dataclasses.asdict`` without its deep copies, which cost a soak some 7% of its time: it writes
    the position after every action."""
    return {f.name: getattr(rules, f.name) for f in dataclasses.fields(rules)}


_PRESETS: dict[str, Any] = {}  # each registered game's preset by name, in the order the games were registered
PRESETS: Mapping[str, Any] = MappingProxyType(_PRESETS)  # read-only: games add theirs through the registry
_TITLES: dict[str, str] = {}  # each registered game's title, by name


def add_preset(preset: Any, title: str) -> None:
    """Make ``preset`` the one of the game it names (``preset.game``), shown under ``title``. The registry
    (``rummienv.games``) calls this as it registers a game, so that the engines and renders, which sit below
    the registry, find a game's preset and title by name without importing it; registering a game twice is
    refused there."""
    _PRESETS[preset.game] = preset
    _TITLES[preset.game] = title


def remove_preset(game: str) -> None:
    """Forget the preset and title of ``game`` (the registry's ``unregister``)."""
    _PRESETS.pop(game, None)
    _TITLES.pop(game, None)


def title(game: str) -> str:
    """The title a registered game is shown under (``GameInfo.title``): one engine plays two Rummikub editions,
    and its renders head a picture with the edition's."""
    return _TITLES[game]


def played_with(rules_type: type) -> list[str]:
    """The games whose presets are ``rules_type``: those one engine plays, and whose positions it reads."""
    return [name for name, preset in _PRESETS.items() if isinstance(preset, rules_type)]


_RANGES: dict[str, tuple[float, float]] = {
    "jokers": (0, 4),
    "hand_size": (1, 20),
    "hand_size_two_players": (1, 20),
    "opening_threshold": (0, 200),
    "joker_penalty": (0, 100),
    "timeout_draws": (0, 10),
    "turn_seconds": (0, 3600),
    "rounds": (0, 100),
    "target_score": (1, 100000),
}


def is_number(value: Any) -> bool:
    """A finite int or float as a settings file means it: true and false are no numbers, though Python counts
    them, and NaN or infinity would pass every bound check. Rules and training configs read numbers so."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return isinstance(value, int) or math.isfinite(value)  # an int of any size has no float to overflow


def _check_field(preset: Any, field: dataclasses.Field, value: Any) -> Any:
    game, name, kind = preset.game, field.name, field.type
    if kind == "bool":
        if not isinstance(value, bool):
            raise RulesError(f"rules field {name!r} of {game} must be true or false, got {value!r}")
        return value
    if kind in ("int", "float"):
        if not is_number(value):
            raise RulesError(f"rules field {name!r} of {game} must be a number (a finite one), got {value!r}")
        if kind == "int" and int(value) != value:
            raise RulesError(f"rules field {name!r} of {game} must be a whole number, got {value!r}")
        lo, hi = _RANGES.get(name, (-float("inf"), float("inf")))  # a field not listed here is any number
        if not lo <= value <= hi:
            raise RulesError(f"rules field {name!r} of {game} must be in {lo}..{hi}, got {value!r}")
        return int(value) if kind == "int" else float(value)
    allowed = list(get_args(get_type_hints(type(preset))[name]))
    if value not in allowed:
        raise RulesError(f"rules field {name!r} of {game} must be one of {allowed}, got {value!r}")
    return value


def make_rules(game: str, overrides: dict[str, Any] | str | Path | None = None) -> Any:
    """The preset of ``game`` with ``overrides`` (a dict or a YAML file path) applied."""
    if not isinstance(game, str) or game not in _PRESETS:
        raise RulesError(f"unknown game {game!r}; allowed: {sorted(_PRESETS)}")
    return with_overrides(_PRESETS[game], overrides)


def with_overrides(preset: Any, overrides: dict[str, Any] | str | Path | None = None) -> Any:
    """``preset`` with ``overrides`` applied, each field checked against its type and range."""
    if overrides is None:
        return preset
    game = preset.game
    if isinstance(overrides, (str, Path)):
        overrides = read_yaml(Path(overrides), "rules file", RulesError)
    if not isinstance(overrides, dict):
        raise RulesError(f"rules overrides must be a mapping of field to value, got {overrides!r}")
    fields = {f.name: f for f in dataclasses.fields(preset) if f.name != "game"}
    changes = {}
    for key, value in overrides.items():
        if key == "game":
            if value != game:
                raise RulesError(f"rules file is for game {value!r}, not {game!r}")
            continue
        if key not in fields:
            raise RulesError(f"unknown rules field {key!r} for {game}; allowed: {sorted(fields)}")
        changes[key] = _check_field(preset, fields[key], value)
    return dataclasses.replace(preset, **changes)


def read_yaml(path: Path, what: str, error: type[ValueError]) -> Any:
    """The data of a YAML file a person wrote (rules here, a training config in ``agents.train_config``), or
    ``error`` naming it as ``what`` and the problem in one line, as the command lines print it."""
    import yaml

    if not path.is_file():
        raise error(f"{what} {str(path)!r} does not exist")
    try:
        return yaml.safe_load(path.read_text()) or {}
    except UnicodeDecodeError:
        raise error(f"{what} {str(path)!r} is not text (UTF-8), so not YAML") from None
    except RecursionError:
        raise error(f"{what} {str(path)!r} nests lists or mappings too deeply to read") from None
    except (yaml.YAMLError, ValueError, OverflowError) as exc:  # the parser's own for escapes beyond Unicode
        raise error(f"{what} {str(path)!r} is not valid YAML: {' '.join(str(exc).split())}") from None
