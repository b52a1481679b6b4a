"""The rule book (docs/RULES.md) against the code and the tests.

Every rule is defined once there; every rule id the code cites (strings and comments in
rummienv/ and agents/, comments in configs/) and every id a test is named after
(``test_T4_...``) is defined there; and every defined rule has a test named after it.
"""

from __future__ import annotations

import dataclasses
import io
import re
import tokenize
from collections import Counter
from pathlib import Path

from rummienv.rules import PRESETS

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "docs" / "RULES.md"
PREFIXES = "CTKF"  # common Rummikub, tiles, card edition, Rummy 500
ID = rf"[{PREFIXES}]\d{{1,2}}"
ENTRY = re.compile(rf"^- \*\*({ID}) ", re.MULTILINE)  # "- **T4 Opening.** ..."
CITED = re.compile(rf"\b({ID})\b")
NAMED_TEST = re.compile(rf"^\s*(?:async\s+)?def test_({ID})_", re.MULTILINE)

# Rules known to have no test named after them. Each one needs a reason here; the list
# must not hold an id that has gained a test, so a rule added without a test fails.
UNTESTED: dict[str, str] = {}


def book_ids() -> list[str]:
    return ENTRY.findall(BOOK.read_text(encoding="utf-8"))


def named_test_ids() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in sorted((ROOT / "tests").glob("test_*.py")):
        for rule in NAMED_TEST.findall(path.read_text(encoding="utf-8")):
            found.setdefault(rule, []).append(path.name)
    return found


def _python_texts(path: Path) -> list[tuple[int, str]]:
    """The string literals and comments of a Python file, with their lines."""
    kinds = {tokenize.STRING, tokenize.COMMENT}
    if hasattr(tokenize, "FSTRING_MIDDLE"):  # Python 3.12 splits f-strings into parts
        kinds.add(tokenize.FSTRING_MIDDLE)
    source = path.read_text(encoding="utf-8")
    texts = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in kinds:
            text = token.string
            if token.type == tokenize.COMMENT:
                text = text.split("noqa", 1)[0]  # linter codes such as F401 are not rules
            texts.append((token.start[0], text))
    return texts


def cited_ids() -> dict[str, list[str]]:
    """Rule ids cited by the package's strings and comments, and the rules files' comments."""
    found: dict[str, list[str]] = {}
    sources = [(p, _python_texts(p)) for d in ("rummienv", "agents") for p in sorted((ROOT / d).rglob("*.py"))]
    for path in sorted((ROOT / "configs").rglob("*.yaml")):
        lines = path.read_text(encoding="utf-8").splitlines()
        sources.append((path, [(n, line.partition("#")[2]) for n, line in enumerate(lines, 1)]))
    for path, texts in sources:
        for line, text in texts:
            for rule in CITED.findall(text):
                found.setdefault(rule, []).append(f"{path.relative_to(ROOT)}:{line}")
    return found


def test_every_rule_is_defined_once():
    ids = book_ids()
    assert len(ids) > 30, "docs/RULES.md lost its entries, or their '- **ID Title.**' form"
    twice = sorted(rule for rule, n in Counter(ids).items() if n > 1)
    assert not twice, f"rule ids defined more than once in docs/RULES.md: {twice}"


def test_each_game_numbers_its_rules_without_gaps():
    ids = set(book_ids())
    for prefix in PREFIXES:
        numbers = sorted(int(rule[1:]) for rule in ids if rule[0] == prefix)
        assert numbers == list(range(1, len(numbers) + 1)), f"{prefix} rules are not numbered 1..n: {numbers}"


def test_every_id_a_test_is_named_after_is_in_the_book():
    unknown = {rule: files for rule, files in named_test_ids().items() if rule not in set(book_ids())}
    assert not unknown, f"tests named after rules that docs/RULES.md does not define: {unknown}"


def test_every_id_the_code_cites_is_in_the_book():
    cited = cited_ids()
    assert {"T7", "K6", "F6"} <= set(cited), "the scan of the code's strings found too little"
    unknown = {rule: places for rule, places in cited.items() if rule not in set(book_ids())}
    assert not unknown, f"rule ids cited in the code that docs/RULES.md does not define: {unknown}"


def test_every_rule_has_a_test_named_after_it():
    ids, tested = set(book_ids()), set(named_test_ids())
    missing = sorted(ids - tested - set(UNTESTED))
    assert not missing, f"rules without a test named test_<ID>_...: {missing} (write one, or explain in UNTESTED)"
    stale = sorted(rule for rule in UNTESTED if rule in tested or rule not in ids)
    assert not stale, f"UNTESTED lists rules that now have a test or no longer exist: {stale}"


def test_every_rules_field_is_named_in_the_book():
    text = BOOK.read_text(encoding="utf-8")
    fields = {f.name for preset in PRESETS.values() for f in dataclasses.fields(preset)} - {"game"}
    absent = sorted(name for name in fields if f"`{name}" not in text)
    assert not absent, f"rules fields (rummienv/rules.py) that docs/RULES.md does not name: {absent}"
