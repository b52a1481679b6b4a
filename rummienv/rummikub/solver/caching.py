"""numba's cache, stamped with the whole solver package rather than one file.

numba keeps each compiled function beside its module and reuses it while that module's own source is
unchanged; it does not look at the modules it calls into or inlines. The solver's modules call and inline
one another, so an edit of one (say the state key's packing in ``store``) would leave the others' cached
code stale. Importing this module (the package's ``__init__`` does, before any of its modules) puts a locator
first in numba's list that takes the solver's modules: it keeps numba's own choice of folder and adds a
digest of every module of the package to the stamp, so an edit anywhere in the package recompiles all of
it, as one file did. Where this numba keeps its locators differently, nothing is changed.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path
from typing import Any

from numba.core import caching

PACKAGE = Path(__file__).resolve().parent


@functools.cache
def _digest(stamps: tuple[tuple[str, float, int], ...]) -> bytes:
    """SHA-256 of the package's modules, by name and content (``stamps`` keys the memo on their mtimes)."""
    sha = hashlib.sha256()
    for name, _, _ in stamps:
        sha.update(name.encode() + b"\0" + (PACKAGE / name).read_bytes())
    return sha.digest()


def package_digest() -> bytes:
    files = sorted(PACKAGE.glob("*.py"))
    return _digest(tuple((f.name, f.stat().st_mtime, f.stat().st_size) for f in files))


class WholePackageLocator:
    """numba's locator for a function of this package, whose source stamp also holds ``package_digest``."""

    inner_classes: list = []

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def get_source_stamp(self) -> Any:
        return self._inner.get_source_stamp(), package_digest()

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> WholePackageLocator | None:
        if Path(py_file).resolve().parent != PACKAGE:
            return None
        for locator_class in cls.inner_classes:
            inner = locator_class.from_function(py_func, py_file)
            if inner is not None:
                return cls(inner)
        return None


_IMPL = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)
if _IMPL is not None and isinstance(getattr(_IMPL, "_locator_classes", None), list):
    WholePackageLocator.inner_classes = list(_IMPL._locator_classes)
    _IMPL._locator_classes = [WholePackageLocator, *WholePackageLocator.inner_classes]
