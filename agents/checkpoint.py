"""Checkpoints: written atomically, read without unpickling arbitrary objects.

A checkpoint is one ``torch.save`` of a dict holding tensors and plain Python
values only, so ``torch.load(weights_only=True)`` reads it and a hostile file
cannot run code. It is written to a temporary file beside the target and moved
into place with ``os.replace``, so an interrupted write (a signal, a full disk) never
leaves a half file where a good one was, nor the temporary file beside it.
"""

from __future__ import annotations

import os
import tempfile
import warnings
from pathlib import Path
from typing import Any

import torch

from agents.ppo import ActorCritic, PolicyAgent
from agents.whole_turn_policy import WholeTurnPolicy, per_piece_agent
from rummienv import games
from rummienv.games import rules_of

FORMAT = "rummienv-ppo-checkpoint"
VERSION = 1
# How an agent file's network picks its move: sampled from the policy, as trained, or its most likely action.
ACTS = ("sample", "most_likely")


class CheckpointError(ValueError):
    """A file that is not a readable checkpoint of this project, or not for this game."""


class CheckpointWriteError(OSError):
    """A checkpoint that could not be written (a full disk, a folder made read-only); the file it was to replace
    is left as it was, and no temporary file is left beside it."""


def save_checkpoint(path: str | Path, payload: dict[str, Any]) -> None:
    """Write ``payload`` to ``path`` whole or not at all; a CheckpointWriteError names the path and the cause.

    torch reports a write that failed inside ``torch.save`` as a RuntimeError about a file position, the
    operating system's error (``No space left on device``) only in its context, so the cause is looked for
    along the chain: a person who has to free space must be told so.
    """
    path = Path(path)
    tmp: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "wb") as handle:
            torch.save({"format": FORMAT, "version": VERSION, **payload}, handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        cause = _os_error(exc)
        if cause is None:
            raise
        raise CheckpointWriteError(f"could not write the checkpoint {path} ({cause.strerror or cause})") from exc


def _os_error(exc: BaseException) -> OSError | None:
    """The operating system's error behind ``exc``, if any: ``exc`` itself or one it was raised from or during."""
    seen: set[int] = set()
    while isinstance(exc, Exception) and id(exc) not in seen:
        if isinstance(exc, OSError):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


def load_checkpoint(path: str | Path) -> dict[str, Any]:
    """The checkpoint's dict, or a CheckpointError saying why the file is refused."""
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"checkpoint {str(path)!r} does not exist")
    try:
        with warnings.catch_warnings():  # torch warns about a foreign file's pickle protocol before failing
            warnings.simplefilter("ignore", UserWarning)
            data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises many types for damaged or foreign files
        # torch's own message advises weights_only=False, which would run whatever code the file holds
        raise CheckpointError(
            f"checkpoint {str(path)!r} is corrupt or not a checkpoint of this project ({type(exc).__name__} "
            "reading it as plain values); this project's checkpoints hold plain values only, so do not load "
            "this file with weights_only=False: that could run code from it"
        ) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CheckpointError(f"checkpoint {str(path)!r} is not a rummienv PPO checkpoint (no {FORMAT!r} marker)")
    if data.get("version") != VERSION:
        raise CheckpointError(
            f"checkpoint {str(path)!r} has format version {data.get('version')!r}; this code reads {VERSION}"
        )
    for key in ("config", "model", "model_shape", "global_step"):
        if key not in data:
            raise CheckpointError(f"checkpoint {str(path)!r} lacks {key!r}: it is damaged or incomplete")
    for key in ("config", "model", "model_shape"):
        if not isinstance(data[key], dict):
            raise CheckpointError(f"checkpoint {str(path)!r}: {key!r} is a {type(data[key]).__name__}, not a "
                                  "mapping: it is damaged or not this project's")
    shape = data["model_shape"]
    if set(shape) != set(SHAPE_FIELDS) or not all(type(v) is int and v >= 1 for v in shape.values()):
        raise CheckpointError(f"checkpoint {str(path)!r}: model_shape must give {', '.join(SHAPE_FIELDS)} as whole "
                              f"numbers from 1, got {shape!r}")
    return data


# The network's description in a checkpoint: ActorCritic's constructor arguments, nothing else.
SHAPE_FIELDS = ("obs_size", "num_actions", "hidden_size", "num_layers")


def network_from(data: dict[str, Any]) -> ActorCritic:
    """The network a checkpoint (``load_checkpoint``'s dict) describes, with its weights."""
    net = ActorCritic(**data["model_shape"])
    try:
        net.load_state_dict(data["model"])
    except (RuntimeError, TypeError, ValueError) as exc:  # torch's message lists every key, over several lines
        raise CheckpointError("checkpoint weights do not fit the network they describe: "
                              f"{' '.join(str(exc).split())[:300]}") from None
    return net


def load_agent(path: str | Path, game: Any, num_players: int, seed: int | None = 0,
               greedy: bool | None = None) -> PolicyAgent | WholeTurnPolicy:
    """A checkpoint as an agent, refused if it was trained for another game or table size.

    ``game`` is a game's name, its rules preset, or a Game built from them. ``greedy`` left unset follows the
    file: an agent exported to play its most likely action (``agents.trained --act most_likely``) plays so
    wherever it is loaded, and a run's checkpoint acts as its config's ``act`` says (it samples, as it
    trained, unless the config says ``most_likely``).
    """
    data = load_checkpoint(path)
    name = game if isinstance(game, str) else getattr(game, "rules", game).game
    trained = data["config"]
    if (trained.get("game"), trained.get("num_players")) != (name, num_players):
        raise CheckpointError(
            f"checkpoint {str(path)!r} was trained for {trained.get('game')} with "
            f"{trained.get('num_players')} players, not {name} with {num_players}"
        )
    whole_turns = trained.get("whole_turns", False)
    if not isinstance(whole_turns, bool):
        raise CheckpointError(f"checkpoint {str(path)!r}: config whole_turns is {whole_turns!r}, not true or false")
    try:
        wanted = games.make_game(name, num_players, rules_of(game), whole_turns=whole_turns)
    except ValueError as exc:  # a whole-turn network for a game without that mode
        raise CheckpointError(f"checkpoint {str(path)!r} cannot play {name}: {exc}") from None
    got = data["model_shape"]
    if (got["obs_size"], got["num_actions"]) not in wanted.network_shapes():
        raise CheckpointError(
            f"checkpoint {str(path)!r} holds a network for {got['obs_size']} observations and {got['num_actions']} "
            f"actions; {name} with {num_players} players{' in whole turns' if whole_turns else ''} has "
            f"{wanted.observation_size} and {wanted.num_actions}")
    if greedy is None:
        greedy = act_of(data, path) == "most_likely"
    policy = PolicyAgent(network_from(data), seed=seed, greedy=greedy, name=Path(path).stem)
    return per_piece_agent(policy, rules_of(game), whole_turns)


def act_of(data: dict[str, Any], path: str | Path) -> str:
    """How the file's network picks its move (one of ``ACTS``; a file that says nothing samples)."""
    act = data.get("act", "sample")
    if act not in ACTS:
        raise CheckpointError(f"checkpoint {str(path)!r} asks to act {act!r}; allowed: {', '.join(ACTS)}")
    return act
