"""``python -m agents.dagger``: the learner's own positions judged by the search expert, and the fit toward them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from agents import dagger
from agents.checkpoint import load_agent, load_checkpoint, save_checkpoint
from agents.ppo import ActorCritic, masked_logits
from agents.train_config import TrainConfig, to_dict
from agents.trained import shipped_path
from rummienv import games
from rummienv.rummikub import actions as A

LEARNER = str(shipped_path("rummy500", 2))


def test_the_teacher_judges_every_legal_action_where_the_learner_had_a_choice() -> None:
    data = dagger.record_values(LEARNER, "value_hold", "expert", 20, seed=3)
    masks, values = data["masks"], data["values"]
    assert len(values) >= 20 and data["obs"].shape[0] == len(values)
    assert np.array_equal(np.isfinite(values), masks)  # a value for every legal action, none for the others
    assert (masks.sum(axis=1) >= 2).all()  # forced moves are not positions to learn from
    again = dagger.record_values(LEARNER, "value_hold", "expert", 20, seed=3)
    assert all(np.array_equal(data[key], again[key], equal_nan=True) for key in data)


def test_a_whole_turn_learner_is_judged_on_its_draws_and_whole_plays_as_its_network_sees_them() -> None:
    learner = str(shipped_path("rummikub", 2))
    shape = load_checkpoint(learner)["model_shape"]
    data = dagger.record_values(learner, "hoard", "expert", 10, seed=3)
    masks, values = data["masks"], data["values"]
    assert data["obs"].shape[1] == shape["obs_size"] and masks.shape[1] == shape["num_actions"]
    judged = np.isfinite(values)
    assert (judged <= masks).all() and (judged.sum(axis=1) >= 2).all()  # a choice the teacher could judge
    assert set(np.flatnonzero(judged.any(axis=0))) <= {A.DRAW, *range(A.NUM_ACTIONS, shape["num_actions"])}
    again = dagger.record_values(learner, "hoard", "expert", 10, seed=3)
    assert all(np.array_equal(data[key], again[key], equal_nan=True) for key in data)


def test_a_table_of_opponents_sits_in_order_after_the_learner() -> None:
    """``First+Second+Third`` at four seats: in the first game, where the learner holds seat 0, they hold seats 1,
    2 and 3; in later games they move round with the learner. A name alone fills every seat beside it."""
    import seat_spy

    for spy in (seat_spy.First, seat_spy.Second, seat_spy.Third):
        spy.seats.clear()
    learner = str(shipped_path("rummikub", 4))
    data = dagger.record_values(learner, "seat_spy:First+seat_spy:Second+seat_spy:Third", "expert", 4, seed=3)
    assert np.isfinite(data["values"]).any(axis=1).all()
    assert [spy.seats[0] for spy in (seat_spy.First, seat_spy.Second, seat_spy.Third)] == [1, 2, 3]
    assert dagger.opponents("hoard", 4) == ["hoard"] * 3
    with pytest.raises(ValueError, match="name 2 seats; a table of 4 has 3 beside the learner's"):
        dagger.opponents("hoard+expert", 4)


def test_a_learner_of_another_action_mode_than_the_teacher_judges_is_refused(tmp_path: Path, capsys) -> None:
    made = games.make_game("rummikub", 2)  # a per-piece network; the Rummikub expert judges whole turns
    net = ActorCritic(made.observation_size, made.num_actions, hidden_size=8, num_layers=1)
    config = to_dict(TrainConfig(game="rummikub", num_players=2, hidden_size=8, num_layers=1, num_workers=1))
    path = tmp_path / "per_piece.pt"
    save_checkpoint(path, {"config": config, "model": net.state_dict(), "model_shape": dict(net.shape),
                           "global_step": 0})
    with pytest.raises(SystemExit):
        dagger.main(["--learner", str(path), "--against", "hoard", "--out", str(tmp_path / "x.pt")])
    assert "the learner plays piece by piece, but teacher 'expert' judges whole turns" in capsys.readouterr().err


def _positions(rng: np.random.Generator, rows: int = 256, size: int = 12, actions: int = 6) -> dict[str, np.ndarray]:
    masks = rng.random((rows, actions)) < 0.6
    masks[:, :2] = True
    values = np.where(masks, rng.normal(0.0, 10.0, (rows, actions)), np.nan).astype(np.float32)
    return {"obs": rng.normal(size=(rows, size)).astype(np.float32), "masks": masks, "values": values}


def _policy_value_and_drift(net: ActorCritic, start: ActorCritic, data: dict[str, np.ndarray]) -> tuple[float, float]:
    """The teacher's mean value of the policy, and KL(start || policy), over ``data``."""
    obs, masks = torch.as_tensor(data["obs"]), torch.as_tensor(data["masks"])
    with torch.no_grad():
        log_p = torch.log_softmax(masked_logits(net.actor(net.trunk(obs)), masks), -1)
        ref = torch.log_softmax(masked_logits(start.actor(start.trunk(obs)), masks), -1)
    values = torch.nan_to_num(torch.as_tensor(data["values"]), nan=0.0)
    drift = (ref.exp() * (ref - log_p)).masked_fill(~masks, 0.0).sum(-1).mean()
    return float((log_p.exp() * values).sum(-1).mean()), float(drift)


def test_the_fit_raises_the_teachers_value_of_the_policy_and_the_kl_term_holds_it_near_the_start() -> None:
    torch.manual_seed(0)
    start = ActorCritic(12, 6, 16, 1)
    data = _positions(np.random.default_rng(0))
    free = dagger.improve(start, data, 60, 1e-2, 5.0, 0.0, torch.Generator().manual_seed(1))
    held = dagger.improve(start, data, 60, 1e-2, 5.0, 10.0, torch.Generator().manual_seed(1))
    before, _ = _policy_value_and_drift(start, start, data)
    free_value, free_drift = _policy_value_and_drift(free, start, data)
    held_value, held_drift = _policy_value_and_drift(held, start, data)
    assert free_value > held_value > before
    assert held_drift < free_drift / 4
    critic = [p for n, p in start.named_parameters() if n.startswith("critic")]
    assert critic and all(torch.equal(a, b) for a, b in zip(critic, (p for n, p in free.named_parameters()
                                                                     if n.startswith("critic")), strict=True))


def test_the_command_writes_an_agent_that_keeps_every_command_that_made_it(tmp_path: Path, capsys) -> None:
    out = tmp_path / "moved.pt"
    argv = ["--learner", LEARNER, "--against", "value_hold", "--decisions", "20", "--rounds", "1", "--epochs", "1",
            "--workers", "1", "--out", str(out)]
    assert dagger.main(argv) == 0
    assert "round 1:" in capsys.readouterr().out
    data, start = load_checkpoint(out), load_checkpoint(LEARNER)
    assert data["trained"]["command"].startswith(start["trained"]["command"] + "; then python -m agents.dagger")
    assert data["act"] == start["act"] and data["global_step"] == start["global_step"]
    load_agent(out, "rummy500", 2)


def test_the_report_weighs_regret_only_where_the_teacher_judged_the_learners_choice() -> None:
    torch.manual_seed(0)
    net = ActorCritic(12, 6, 16, 1)
    data = _positions(np.random.default_rng(2))
    data["masks"][:, 5] = True
    data["values"][:, 5] = np.nan  # a legal step the teacher cannot judge (a piece staged inside a turn)
    with torch.no_grad():
        chosen = masked_logits(net.actor(net.trunk(torch.as_tensor(data["obs"]))),
                               torch.as_tensor(data["masks"])).argmax(-1).numpy()
    assert 0 < (chosen == 5).sum() < len(chosen)  # the network picks the unjudged step in some positions only
    report = dagger.judge_policy(net, data)
    values = np.nan_to_num(data["values"], nan=-np.inf)
    judged = chosen != 5
    regret = (values.max(axis=1) - values[np.arange(len(chosen)), chosen])[judged].mean()
    assert np.isfinite(report["regret"]) and report["regret"] == pytest.approx(regret, rel=1e-5)


@pytest.mark.parametrize(("argv", "said"), [
    (["--teacher", "value_hold"], "does not score actions; teachers that do: expert"),
    (["--against", "nobody"], "unknown agent 'nobody'"),
    (["--out", str(shipped_path("rummy500", 2))], "shipped agents' folder"),
    (["--kl", "-1"], "--kl must be at least 0"),
    (["--temperature", "0"], "--temperature must be above 0"),
])
def test_bad_input_is_refused_with_what_is_allowed(argv: list[str], said: str, tmp_path: Path, capsys) -> None:
    args = {"--learner": LEARNER, "--out": str(tmp_path / "x.pt"), **dict(zip(argv[::2], argv[1::2], strict=True))}
    with pytest.raises(SystemExit):
        dagger.main([item for pair in args.items() for item in pair])
    assert said in capsys.readouterr().err
