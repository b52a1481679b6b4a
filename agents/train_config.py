"""The training run's settings: one dataclass, overridden field by field from YAML.

Every field is checked when a file is read, so a typo, an out-of-range value or
an agent that is not one of the game's baselines stops the run before anything is
written or computed, instead of failing halfway or silently training something
else.
Opponents left unset follow the game: all of its baselines. The config is
stored in every checkpoint as plain types, so a resumed run uses exactly the
settings it started with.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_type_hints

from agents.checkpoint import ACTS
from agents.registry import LEARNER, baseline_names, bot_names, check_teacher
from rummienv import games
from rummienv.outcome import REWARDS
from rummienv.rules import is_number, read_yaml


class ConfigError(ValueError):
    """A training config naming an unknown field or holding a bad value."""


def _knob(default: Any, *, lo: float | None = None, hi: float | None = None,
          choices: tuple | Callable[[], tuple] | None = None) -> Any:
    """A field with its allowed range or choices, kept beside its default."""
    meta = {"lo": lo, "hi": hi, "choices": choices}
    if isinstance(default, (list, dict)):
        return field(default_factory=lambda: type(default)(default), metadata=meta)
    return field(default=default, metadata=meta)


@dataclass
class TrainConfig:
    # ---------------------------------------------------------------- the run
    name: str = "run"
    """run name: checkpoint, curves and plot go to runs/<name>/"""
    seed: int = _knob(1, lo=0, hi=2**64 - 1)  # the most torch.manual_seed takes
    """seed of the deals, the network's initialisation and every sampler"""
    game: str = _knob("rummikub", choices=games.names)
    """which game to learn"""
    num_players: int = _knob(2, lo=2, hi=4)
    """seats at the table; the learner's seat varies from game to game"""
    rules: dict = _knob({})
    """rules overrides, field by field (see rummienv.rules); empty plays the preset"""
    total_steps: int = _knob(100_000, lo=1)
    """learner decisions to train on (opponents' moves are not counted here)"""
    reward: str = _knob("win", choices=REWARDS)
    """'win': +1 sole winner, 0 shared, -1 otherwise; 'score': the episode's points, scaled; 'margin': the
    points less the others' mean, scaled (in Rummy 500, where every seat scores, it counts the others' points
    too; in Rummikub it is the score times n / (n - 1))"""
    whole_game: bool = False
    """episodes of whole games (T11, K10, F12: the rounds the rules agree, or to Rummy 500's target), each
    rewarded at its end, not of one round"""
    whole_turns: bool = False
    """Rummikub only: the whole-turn action mode (rummienv.rummikub.whole_turns), two whole plays beside
    the per-piece actions and what they would lay down in the observation"""

    # ------------------------------------------------------------- PPO proper
    num_envs: int = _knob(64, lo=1)
    """games stepped side by side; the network's inference is batched across them"""
    num_steps: int = _knob(64, lo=1)
    """learner decisions per game per rollout (batch = num_envs * num_steps)"""
    learning_rate: float = _knob(3e-4, lo=0.0, hi=1.0)
    """Adam step size"""
    anneal_lr: bool = True
    """decay the step size linearly to zero over the run"""
    gamma: float = _knob(1.0, lo=0.0, hi=1.0)
    """discount; 1 because the only reward comes at the end of a round"""
    gae_lambda: float = _knob(0.95, lo=0.0, hi=1.0)
    """lambda of generalised advantage estimation"""
    num_minibatches: int = _knob(4, lo=1)
    """minibatches per epoch"""
    update_epochs: int = _knob(4, lo=1)
    """passes over each rollout"""
    norm_adv: bool = True
    """normalise advantages within a minibatch"""
    clip_coef: float = _knob(0.2, lo=0.0, hi=1.0)
    """PPO's policy-ratio clip"""
    clip_vloss: bool = True
    """clip the value loss as in the PPO paper's code"""
    ent_coef: float = _knob(0.01, lo=0.0)
    """entropy bonus (over legal actions only: illegal ones have zero probability)"""
    vf_coef: float = _knob(0.5, lo=0.0)
    """weight of the value loss"""
    max_grad_norm: float = _knob(0.5, lo=0.0)
    """global gradient-norm clip"""
    target_kl: float = _knob(0.0, lo=0.0)
    """stop an update's epochs early past this approximate KL; 0 never stops"""
    hidden_size: int = _knob(256, lo=1)
    """width of the shared trunk"""
    num_layers: int = _knob(2, lo=1, hi=8)
    """depth of the shared trunk"""

    # ------------------------------------------------------------ opponents
    baselines: list = _knob(None)
    """baseline agents (agents.registry names) in the opponent pool; unset: the game's bots (all but expert)"""
    latest_prob: float = _knob(0.25, lo=0.0, hi=1.0)
    """share of games against the current network itself (pure self-play)"""
    snapshot_every: int = _knob(5, lo=1)
    """updates between snapshots of the learner added to the pool"""
    pool_size: int = _knob(8, lo=1)
    """snapshots kept; the oldest goes first"""
    pfsp_power: float = _knob(2.0, lo=0.0)
    """opponent weight (1 - win rate) ** power: favour those the learner beats least"""
    mixed_table: bool = False
    """at three or four players, draw each other seat's opponent from the pool apart (a table of different
    players, as evaluation seats them); false: one opponent plays every other seat of a game"""

    # ----------------------------------------------------------- warm start
    imitation_teacher: str = ""
    """baseline to clone before self-play (e.g. 'max_tiles'); empty skips the warm start"""
    imitation_steps: int = _knob(20_000, lo=0)
    """teacher decisions to record (every seat of teacher-only games)"""
    imitation_epochs: int = _knob(4, lo=1)
    """passes of behaviour cloning over the recording"""
    init_from: str = ""
    """an agent file or a run's checkpoint whose network the run starts from (fine-tuning a trained agent for
    another reward, say), in place of a warm start; it must be of the same game, table size and action mode
    and shape. Empty starts from the warm start or from scratch"""

    # ------------------------------------------------------------ judgement
    judge: str = ""
    """a baseline that scores every legal action (the game's expert): after the last update the learner plays
    judge_against, the judge scores each choice it had, and the network is moved toward the judge's values
    (agents.dagger), before the final evaluation; empty skips it"""
    judge_against: list = _knob([LEARNER])
    """the learner's opponents while it is judged, judge_decisions positions against each ('learner': itself)"""
    judge_decisions: int = _knob(2000, lo=1)
    """judged positions of the learner's against each of judge_against"""
    judge_temperature: float = _knob(5.0, lo=1e-6)
    """points of the judge's value per unit of the fit's objective: higher moves the network less"""
    judge_minutes: float = _knob(2.0, lo=0.0)
    """minutes the time budget keeps for the judgement, beside the final evaluation's"""

    # ---------------------------------------------------- evaluation and I/O
    act: str = _knob("sample", choices=ACTS)
    """how the learner plays outside its training: in the evaluations, in the judgement and as an agent made
    of the run ('sample' its policy, or play its 'most_likely' action)"""
    eval_every: int = _knob(10, lo=1)
    """updates between evaluations (and one at the end)"""
    eval_deals: int = _knob(50, lo=1)
    """fixed duplicate deals per baseline (each played from every seat)"""
    eval_opponents: list = _knob(None)
    """baselines the learner is measured against; unset: all of the game's"""
    checkpoint_every: int = _knob(5, lo=1)
    """updates between checkpoints (and one at the end)"""
    time_limit_minutes: float = _knob(0.0, lo=0.0)
    """wall-clock budget of one invocation, warm start and evaluations included: training
    stops early so that the final evaluation ends within it; 0 means no limit"""
    torch_threads: int = _knob(1, lo=1)
    """torch intra-op threads; 1 leaves the other core to the game engine's numba code"""
    num_workers: int = _knob(0, lo=0)
    """processes playing the games (engine, masks, opponents, the learner's own moves) while the learner's
    process updates; 0 takes one per core, 1 plays them in the learner's process. The run is the same for
    any number: it changes the speed alone, and a resumed run may take another"""
    games_per_chunk: int = _knob(4, lo=1)
    """games played as one batch, with their own seeds, by whichever worker is free: smaller chunks keep
    the workers busier to the end of a rollout, larger ones batch the network over more games. The run
    depends on it (as on num_envs)"""
    overlap: bool = False
    """play the next rollout while the learner updates on the last, its chunks handed to workers as they
    come free, so acting with weights one update old; it pays where the update is a large share of the time
    (Rummy 500); off by default, since three seeds have not shown whether the lag costs learning
    (docs/results.md)"""

    def __post_init__(self) -> None:
        """Opponents left unset are the game's own bots, since each game has its own; the search expert joins
        only when named, as a decision of it costs a hundred of theirs."""
        for key in ("baselines", "eval_opponents"):
            if getattr(self, key) is None:
                setattr(self, key, bot_names(self.game))
        if self.num_workers == 0:  # settled here, so that the checkpoint's config names the number run with
            self.num_workers = max(1, min(os.cpu_count() or 1, self.num_chunks))

    @property
    def batch_size(self) -> int:
        return self.num_envs * self.num_steps

    @property
    def num_chunks(self) -> int:
        """Chunks of games (``games_per_chunk``, the last ones one game smaller where it does not divide)."""
        return -(-self.num_envs // self.games_per_chunk)

    @property
    def minibatch_size(self) -> int:
        return self.batch_size // self.num_minibatches

    @property
    def num_updates(self) -> int:
        return max(1, -(-self.total_steps // self.batch_size))


def _check(name: str, kind: Any, value: Any, meta: dict) -> Any:
    """``value`` converted to the field's type, or a ConfigError naming the field."""
    base = kind
    if base is bool:
        if not isinstance(value, bool):
            raise ConfigError(f"config field {name!r} must be true or false, got {value!r}")
    elif base in (int, float):
        if not is_number(value):
            raise ConfigError(f"config field {name!r} must be a number (a finite one), got {value!r}")
        if base is int and int(value) != value:
            raise ConfigError(f"config field {name!r} must be a whole number, got {value!r}")
        value = base(value)
        lo, hi = meta.get("lo"), meta.get("hi")
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            bounds = f"{'' if lo is None else lo}..{'' if hi is None else hi}"
            raise ConfigError(f"config field {name!r} must be in {bounds}, got {value!r}")
    elif base is str:
        if not isinstance(value, str):
            raise ConfigError(f"config field {name!r} must be a string, got {value!r}")
    elif base is list:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"config field {name!r} must be a list of names, got {value!r}")
        value = list(value)
    elif base is dict:
        if not isinstance(value, dict):
            raise ConfigError(f"config field {name!r} must be a mapping, got {value!r}")
        value = dict(value)
    choices = meta.get("choices")
    if callable(choices):  # asked when checked, so that a game registered later is allowed
        choices = choices()
    if choices is not None and value not in choices:
        raise ConfigError(f"config field {name!r} must be one of {list(choices)}, got {value!r}")
    return value


def from_dict(values: dict[str, Any]) -> TrainConfig:
    """A config from plain values; unknown keys and bad values are refused by name."""
    if not isinstance(values, dict):
        raise ConfigError(f"a training config must be a mapping of field to value, got {values!r}")
    fields = {f.name: f for f in dataclasses.fields(TrainConfig)}
    hints = get_type_hints(TrainConfig)
    unknown = sorted(set(values) - set(fields), key=str)  # YAML keys may be numbers or null too
    if unknown:
        raise ConfigError(f"unknown config field {unknown[0]!r}; allowed: {sorted(fields)}")
    checked = {k: _check(k, hints[k], v, dict(fields[k].metadata)) for k, v in values.items()}
    config = TrainConfig(**checked)
    _check_consistency(config)
    return config


def _check_consistency(config: TrainConfig) -> None:
    from rummienv.rules import make_rules

    try:
        make_rules(config.game, config.rules or None)
    except ValueError as exc:
        raise ConfigError(f"config field 'rules': {exc}") from None
    if config.whole_turns and games.info(config.game).whole_turns is None:
        raise ConfigError(f"config field 'whole_turns' is a Rummikub action mode; {games.info(config.game).title} "
                          "has none")
    if config.batch_size < config.num_minibatches:
        raise ConfigError(
            f"config field 'num_minibatches' ({config.num_minibatches}) exceeds the batch "
            f"num_envs * num_steps = {config.batch_size}"
        )
    if config.num_workers > config.num_chunks:
        raise ConfigError(f"config field 'num_workers' ({config.num_workers}) exceeds the number of chunks of games "
                          f"({config.num_chunks}: num_envs {config.num_envs} in chunks of games_per_chunk "
                          f"{config.games_per_chunk}); each worker plays one chunk at a time")
    if not config.baselines and config.latest_prob == 0.0:
        raise ConfigError("config field 'latest_prob' is 0 and 'baselines' is empty: the pool would start empty")
    allowed = baseline_names(config.game)
    named = {"baselines": config.baselines, "eval_opponents": config.eval_opponents,
             "imitation_teacher": [config.imitation_teacher] if config.imitation_teacher else []}
    for key, names in named.items():
        for name in names:
            if name not in allowed:
                raise ConfigError(f"config field {key!r}: {name!r} is not a baseline of {config.game}; "
                                  f"allowed: {allowed}")
    if config.judge:
        try:
            check_teacher(config.game, config.num_players, config.judge, config.whole_turns)
        except ValueError as exc:
            raise ConfigError(f"config field 'judge': {exc}") from None
        if not config.judge_against:
            raise ConfigError(f"config field 'judge_against' is empty; name at least one of {[LEARNER, *allowed]}")
        for name in config.judge_against:
            if name != LEARNER and name not in allowed:
                raise ConfigError(f"config field 'judge_against': {name!r} is neither {LEARNER!r} nor a baseline of "
                                  f"{config.game}; allowed: {[LEARNER, *allowed]}")
    if config.imitation_teacher and config.imitation_steps == 0:
        raise ConfigError("config field 'imitation_steps' is 0 but 'imitation_teacher' is set")
    if config.init_from and config.imitation_teacher:
        raise ConfigError("config fields 'init_from' and 'imitation_teacher' are both set: a run starts from a "
                          "trained network or from a warm start, not both")


def load_config(path: str | Path, **overrides: Any) -> TrainConfig:
    """Read a YAML config; keyword overrides (e.g. from the command line) win."""
    path = Path(path)
    values = read_yaml(path, "config file", ConfigError)
    if not isinstance(values, dict):
        raise ConfigError(f"config file {str(path)!r} must hold a mapping of field to value")
    values.update({k: v for k, v in overrides.items() if v is not None})
    try:
        return from_dict(values)
    except ValueError as exc:
        raise ConfigError(f"{path}: {exc}") from None


def to_dict(config: TrainConfig) -> dict[str, Any]:
    """Plain types only, so the checkpoint loads with ``torch.load(weights_only=True)``."""
    return dataclasses.asdict(config)
