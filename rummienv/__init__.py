"""RL environments for Rummikub (tiles), the Rummikub card edition and Rummy 500.

Importing the package registers the Gymnasium ids ``rummienv/Rummikub-v0``,
``rummienv/RummikubCards-v0`` and ``rummienv/Rummy500-v0``; it imports no game
until one is used, so ``import rummienv.tiles`` stays cheap.
"""

from __future__ import annotations

from importlib import metadata
from pathlib import Path
from typing import Any

from rummienv.core import State
from rummienv.envs import aec_env
from rummienv.envs.registration import ENV_IDS, register_envs
from rummienv.envs.vector import make_vec
from rummienv.errors import PositionError

__all__ = ["ENV_IDS", "__version__", "aec_env", "load_state", "make_vec"]


def _version() -> str:
    """The installed distribution's version; in a source tree used without installing, pyproject's.

    Read, not written here, so that pyproject.toml stays the one place the version is set.
    """
    try:
        return metadata.version("rummienv")
    except metadata.PackageNotFoundError:
        import tomllib

        try:
            pyproject = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())
            return str(pyproject["project"]["version"])
        except (OSError, KeyError, tomllib.TOMLDecodeError):
            return "0+unknown"


__version__ = _version()

register_envs()


def load_state(position: dict[str, Any]) -> State:
    """The state of a position (the JSON of ``State.to_dict``) of any of the three games."""
    game = position.get("game") if isinstance(position, dict) else None
    if game in ("rummikub", "rummikub_cards"):
        from rummienv.rummikub import load_state as load
    elif game == "rummy500":
        from rummienv.rummy500 import load_state as load
    else:
        raise PositionError(
            f"position 'game' must be 'rummikub', 'rummikub_cards' or 'rummy500', got {game!r}"
            if isinstance(position, dict) else f"a position is a JSON object, got {type(position).__name__}"
        )
    return load(position)
