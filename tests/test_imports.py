"""The project's import graph has no cycles, so its layers (docs/contract.md) point one way.

A cycle means two modules each need the other to load: the order they are imported in starts to
matter, a lazy import inside a function hides the knot rather than untying it, and no layer can be
read, tested or replaced without the one above it. The graph is built statically with `ast` from the
source of `rummienv/`, `agents/` and `train.py`, so it sees every arrow, not only those one run takes.

The rule for an arrow (an edge from the importing module to a project module):

- every `import` and `from ... import` counts wherever it stands, inside functions too: a lazy import
  is still an arrow; so does `importlib.import_module("a.b")` of a literal name. Only what stands
  under `if TYPE_CHECKING:` is skipped, as it never runs;
- `import a.b.c` is an arrow to `a.b.c` alone; `from a.b import c` is an arrow to the submodule
  `a.b.c` when `c` is a module, else to the package `a.b` (its `__init__`); relative imports resolve
  against the importing module's package;
- only the module named is an arrow: that importing `a.b.c` first runs `a/__init__` and `a/b/__init__`
  is not counted, so a package `__init__` may import and re-export its own submodules. It is a cycle,
  though, when such a submodule imports back a name from that `__init__` (`from rummienv import x`
  inside a module `rummienv/__init__` imports), since that arrow is a real one.

The registry's `"module:attribute"` strings (`rummienv.games`) are not arrows here: they are declared,
and the one naming the env layer above the registry is said, in that one place (`GameInfo`); a test
below holds the registry to it.

Besides module cycles, each subpackage (`rummienv.envs`, `rummienv.rummikub` ...) is checked as one
node, since the layers are packages: the env layer importing a module that imports the env layer is a
cycle of layers even when no two modules import each other.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from rummienv import games

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("rummienv", "agents", "train.py")

# Cycles known and not yet broken, each the set of its modules (of its nodes, for subpackages) with the reason it
# stays; the tests fail on any other cycle, and on an entry here that is no longer a cycle.
KNOWN_CYCLES: dict[frozenset[str], str] = {
}
KNOWN_SUBPACKAGE_CYCLES: dict[frozenset[str], str] = {
}


def project_modules(root: Path = ROOT, sources: Iterable[str] = SOURCES) -> dict[str, Path]:
    """Every module under `sources` by its dotted name (a package by its own name, for `__init__.py`)."""
    modules: dict[str, Path] = {}
    for source in sources:
        path = root / source
        files = [path] if path.is_file() else sorted(path.rglob("*.py"))
        for file in files:
            parts = list(file.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = file
    return modules


def is_type_checking(test: ast.expr) -> bool:
    """True for `TYPE_CHECKING` and `typing.TYPE_CHECKING`, the guards whose body never runs."""
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def imported_names(nodes: Iterable[ast.AST], package: str) -> Iterator[tuple[str, list[str]]]:
    """Each import in or under `nodes` as (module, names imported from it: [] for a plain `import`), relative
    imports resolved against `package`; `import_module("literal")` and `__import__("literal")` count too.
    What stands under `if TYPE_CHECKING:` is skipped."""
    for node in nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, []
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            yield base, [alias.name for alias in node.names]
        elif isinstance(node, ast.If) and is_type_checking(node.test):
            yield from imported_names(node.orelse, package)
        else:
            if isinstance(node, ast.Call) and _call_name(node.func) in ("import_module", "__import__") and node.args:
                first = node.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    yield first.value, []
            yield from imported_names(ast.iter_child_nodes(node), package)


def _call_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else None


def nearest_module(name: str, modules: dict[str, Path]) -> str | None:
    """The project module `name` names, or its nearest project ancestor; None outside the project."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def imports_of(module: str, file: Path, modules: dict[str, Path]) -> set[str]:
    """The project modules `module` imports, by the rule in this file's docstring."""
    package = module if file.name == "__init__.py" else module.rpartition(".")[0]
    tree = ast.parse(file.read_text(), filename=str(file))
    targets: set[str] = set()
    for base, names in imported_names([tree], package):
        named = [f"{base}.{name}" if f"{base}.{name}" in modules else base for name in names] or [base]
        targets.update(target for name in named if (target := nearest_module(name, modules)) is not None)
    targets.discard(module)
    return targets


def import_graph(root: Path = ROOT, sources: Iterable[str] = SOURCES) -> dict[str, set[str]]:
    """Each project module -> the project modules it imports."""
    modules = project_modules(root, sources)
    return {module: imports_of(module, file, modules) for module, file in modules.items()}


def subpackage_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The graph with each subpackage (`rummienv.envs`, `rummienv.rummikub` ...) drawn as one node: the layers of
    docs/contract.md are packages, so two of them importing each other is a cycle even when no two modules are."""
    collapsed: dict[str, set[str]] = {}
    for source, targets in graph.items():
        collapsed.setdefault(_subpackage(source), set()).update(_subpackage(target) for target in targets)
    for name, targets in collapsed.items():
        targets.discard(name)
    return collapsed


def _subpackage(module: str) -> str:
    return ".".join(module.split(".")[:2]) if module.count(".") >= 2 else module


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components, iteratively (no recursion limit); those of two or more modules."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            successor = next(successors, None)
            if successor is None:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        components.append(sorted(component))
            elif successor not in index:
                index[successor] = low[successor] = len(index)
                stack.append(successor)
                on_stack.add(successor)
                work.append((successor, iter(sorted(graph.get(successor, ())))))
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
    return sorted(components)


def unexpected_cycles(graph: dict[str, set[str]], known: dict[frozenset[str], str],
                      only: Callable[[list[str]], bool] = lambda cycle: True) -> tuple[list[str], list[list[str]]]:
    """The cycles of `graph` (those `only` keeps) not in `known`, each with its arrows, and the entries of `known`
    that are no longer cycles."""
    cycles = [cycle for cycle in strongly_connected(graph) if only(cycle)]
    new = [_describe(cycle, graph) for cycle in cycles if frozenset(cycle) not in known]
    stale = sorted(sorted(entry) for entry in set(known) - {frozenset(cycle) for cycle in cycles})
    return new, stale


def _describe(cycle: list[str], graph: dict[str, set[str]]) -> str:
    members = set(cycle)
    arrows = [f"{source} -> {target}" for source in cycle for target in sorted(graph[source] & members)]
    return "{" + ", ".join(cycle) + "}: " + "; ".join(arrows)


def test_no_module_imports_itself_through_others() -> None:
    new, stale = unexpected_cycles(import_graph(), KNOWN_CYCLES)
    assert not new, "import cycles:\n" + "\n".join(new)
    assert not stale, f"no longer cycles, drop them from KNOWN_CYCLES: {stale}"


def test_no_two_subpackages_import_each_other() -> None:
    """Cycles through a subpackage only: those among single modules are the test above's."""
    modules = import_graph()
    subpackages = {_subpackage(module) for module in modules if module.count(".") >= 2}
    new, stale = unexpected_cycles(subpackage_graph(modules), KNOWN_SUBPACKAGE_CYCLES,
                                   lambda cycle: not subpackages.isdisjoint(cycle))
    assert not new, "import cycles between subpackages:\n" + "\n".join(new)
    assert not stale, f"no longer cycles, drop them from KNOWN_SUBPACKAGE_CYCLES: {stale}"


def test_the_registry_names_the_env_layer_only_where_its_docstring_says() -> None:
    """The registry's paths are arrows the graph cannot see: GameInfo's docstring says which point up."""
    up = {"env"}
    for name in games.names():
        info = games.info(name)
        if not info.game.startswith("rummienv."):
            continue  # a game another package declares
        for field in dataclasses.fields(info):
            value = getattr(info, field.name)
            if field.name in ("name", "title", "rules", "family", "deal", "env_id") or value is None:
                continue
            module = value.partition(":")[0]
            floor = "rummienv.envs." if field.name in up else f"rummienv.{info.family}."
            assert module.startswith(floor), f"{name}: {field.name} = {value!r} is not under {floor}"


def test_the_arrows_follow_the_rule(tmp_path: Path) -> None:
    files = {
        "pkg/__init__.py": "from pkg.a import f\n",  # a package re-exporting its submodule
        "pkg/a.py": "def f():\n    from pkg import b\n",  # lazy, and a submodule named by `from pkg import`
        "pkg/b.py": ("from typing import TYPE_CHECKING\nimport importlib\nif TYPE_CHECKING:\n    import pkg.a\n"
                     "else:\n    import os\nimportlib.import_module('pkg.sub.d')\n"),
        "pkg/sub/__init__.py": "",
        "pkg/sub/c.py": "from .. import f\nfrom . import d\nimport pkg.sub\n",  # a name of pkg/__init__; relative
        "pkg/sub/d.py": "import json\nfrom pkg.sub.c import nothing_here\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert import_graph(tmp_path, ["pkg"]) == {
        "pkg": {"pkg.a"}, "pkg.a": {"pkg.b"}, "pkg.b": {"pkg.sub.d"}, "pkg.sub": set(),
        "pkg.sub.c": {"pkg", "pkg.sub.d", "pkg.sub"}, "pkg.sub.d": {"pkg.sub.c"},
    }


def test_tarjan_finds_each_cycle_once_and_nothing_else() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": {"e"}, "e": {"d"}, "f": {"a"}, "g": set()}
    assert strongly_connected(graph) == [["a", "b", "c"], ["d", "e"]]
    assert subpackage_graph({"x.p.one": {"x.p.two", "x.top"}, "x.p.two": set(), "x.top": {"x.p.one"}}) == {
        "x.p": {"x.top"}, "x.top": {"x.p"}}
