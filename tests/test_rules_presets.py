"""Rule presets and their YAML overrides (configs/rules/)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rummienv.errors import RulesError
from rummienv.rules import PRESETS, make_rules

RULES_DIR = Path(__file__).resolve().parent.parent / "configs" / "rules"


def test_presets_follow_the_rule_book():
    tiles, cards, r500 = PRESETS["rummikub"], PRESETS["rummikub_cards"], PRESETS["rummy500"]
    assert (tiles.jokers, tiles.opening_threshold, tiles.joker_penalty, tiles.timeout_draws) == (2, 30, 30, 3)
    assert (cards.jokers, cards.opening_threshold, cards.joker_penalty, cards.timeout_draws) == (4, 40, 25, 1)
    assert cards.jokers_keep_number and cards.joker_swap_action and cards.start == "lot"
    assert (r500.hand_size, r500.hand_size_two_players, r500.target_score) == (7, 13, 500)
    assert not r500.free_top_discard and not r500.whole_game


@pytest.mark.parametrize("path", sorted(RULES_DIR.glob("*.yaml")), ids=lambda p: p.stem)
def test_every_shipped_rules_file_loads(path):
    game = path.stem.split("_")[0] if not path.stem.startswith("rummikub_cards") else "rummikub_cards"
    rules = make_rules(game, path)
    assert rules != PRESETS[game]


def test_yaml_override_changes_only_the_named_fields():
    rules = make_rules("rummikub", RULES_DIR / "rummikub_house.yaml")
    assert rules.opening_threshold == 25 and rules.joker_penalty == 50 and rules.jokers == 2


@pytest.mark.parametrize(
    ("game", "override", "message"),
    [
        ("rummikub", {"jokerz": 1}, "unknown rules field 'jokerz' for rummikub; allowed: "),
        ("rummikub", {"jokers": 7}, "'jokers' of rummikub must be in 0..4, got 7"),
        ("rummikub", {"jokers": 1.5}, "must be a whole number"),
        ("rummikub", {"jokers_keep_number": "yes"}, "must be true or false"),
        ("rummikub", {"start": "oldest"}, r"must be one of \['highest_tile', 'lot'\]"),
        ("rummy500", {"free_top_discard": 1}, "must be true or false"),
        ("rummy500", {"game": "rummikub"}, "rules file is for game 'rummikub', not 'rummy500'"),
        ("poker", {}, "unknown game 'poker'"),
    ],
)
def test_bad_overrides_name_the_field_and_what_is_allowed(game, override, message):
    with pytest.raises(RulesError, match=message):
        make_rules(game, override)


def test_bad_rules_file_is_refused(tmp_path):
    with pytest.raises(RulesError, match="does not exist"):
        make_rules("rummikub", tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("opening_threshold: [1, 2\n")
    with pytest.raises(RulesError, match="not valid YAML"):
        make_rules("rummikub", bad)
