"""The package as users install it: its version, its type marker and the changelog beside it."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

import rummienv

ROOT = Path(__file__).resolve().parents[1]
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def test_version_is_the_one_pyproject_sets() -> None:
    assert rummienv.__version__ == VERSION


def test_version_without_install_metadata_is_read_from_pyproject(monkeypatch: pytest.MonkeyPatch) -> None:
    def not_installed(name: str) -> str:
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(rummienv.metadata, "version", not_installed)
    assert rummienv._version() == VERSION


def test_wheel_carries_the_py_typed_marker(tmp_path: Path) -> None:
    assert (ROOT / "rummienv" / "py.typed").is_file()
    pytest.importorskip("setuptools.build_meta")
    source = tmp_path / "source"
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        (source / name).parent.mkdir(exist_ok=True)
        shutil.copy(ROOT / name, source / name)
    for package in ("rummienv", "agents"):
        shutil.copytree(ROOT / package, source / package, ignore=shutil.ignore_patterns("__pycache__", "*.orig"))
    build = [sys.executable, "-c", f"from setuptools import build_meta; build_meta.build_wheel({str(tmp_path)!r})"]
    result = subprocess.run(build, cwd=source, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    (wheel,) = tmp_path.glob("*.whl")
    assert "rummienv/py.typed" in zipfile.ZipFile(wheel).namelist()


def test_changelog_has_unreleased_changes_and_the_current_version() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert "## [Unreleased]" in changelog and f"## [{VERSION}]" in changelog


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
@pytest.mark.parametrize("index", ["", "https://example.invalid/whl/cpu"])
def test_makefile_installs_torch_first_from_the_index_named(index: str) -> None:
    """The set-up installs torch before the project, from ``TORCH_INDEX`` when one is named (dry run)."""
    dry = subprocess.run(["make", "-n", "-B", ".venv/.installed", f"TORCH_INDEX={index}"], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout.splitlines()
    installs = [line for line in dry if " install " in line and "--upgrade pip" not in line]
    assert "torch==2.13.0" in installs[0] and "-e" in installs[1]
    assert ("--index-url" in installs[0]) == bool(index) and (not index or installs[0].endswith(index))


def test_a_first_compile_is_announced_and_a_cached_one_is_not(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    from types import SimpleNamespace

    from rummienv.rummikub import solver
    from rummienv.rummikub.solver import masks

    index = tmp_path / "masks.turn_mask.nbi"
    probe = SimpleNamespace(_cache=SimpleNamespace(_cache_file=SimpleNamespace(_index_path=str(index))))
    solver.announce_compiling(probe)
    assert "compiling the Rummikub solver" in capsys.readouterr().err
    index.write_text("")
    solver.announce_compiling(probe)
    assert capsys.readouterr().err == ""
    # this numba keeps its cache where the notice looks for it, so the notice is not silently lost
    assert isinstance(masks.turn_mask._cache._cache_file._index_path, str)
