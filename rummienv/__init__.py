"""RL environments for Rummikub (tiles), the Rummikub card edition and Rummy 500.

Importing the package registers the Gymnasium ids ``rummienv/Rummikub-v0``,
``rummienv/RummikubCards-v0`` and ``rummienv/Rummy500-v0`` (``rummienv.games``
declares the games); it imports no game until one is used, so ``import
rummienv.tiles`` stays cheap.
"""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

from rummienv import games
from rummienv.envs import aec_env
from rummienv.envs.registration import env_ids, register_envs
from rummienv.envs.vector import make_vec
from rummienv.games import GameInfo, load_state

__all__ = ["ENV_IDS", "GameInfo", "__version__", "aec_env", "load_state", "make_vec", "register_game"]


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
ENV_IDS = env_ids()  # the Gymnasium ids of the package's own games


def register_game(info: GameInfo) -> None:
    """Add a game: to the registry, and its Gymnasium id (if it declares one) to Gymnasium's."""
    games.register(info)
    register_envs()
