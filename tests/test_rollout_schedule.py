"""The schedule of self-play in chunks on its own, driven by events as workers that take their time would
send them: every chunk plays every rollout once and in order, whatever the number of workers, the overlap or
a stop and resume; the slow chunks go first."""

from __future__ import annotations

import random

import pytest

from agents.rollout_schedule import Finished, Job, RolloutSchedule

CHUNKS = 5


def _finished(job: Job) -> Finished:
    """What a chunk's games would finish in a rollout: its own, whoever plays it."""
    update, c = job
    return [(f"opponent{c}", update / 10)]


class _Workers:
    """Workers that take a drawn time per chunk and answer in the order they finish; they check that no
    chunk's games are in two places at once and keep each chunk's rollouts in the order played."""

    def __init__(self, num_workers: int, seed: int) -> None:
        self.rng = random.Random(seed)
        self.clock = 0.0
        self.free_at = [0.0] * num_workers
        self.queued: list[list[tuple[float, float, Job]]] = [[] for _ in range(num_workers)]  # (done at, seconds, job)
        self.played: dict[int, list[int]] = {c: [] for c in range(CHUNKS)}  # each chunk's rollouts, in order

    def send(self, given: list[tuple[int, Job]]) -> None:
        for k, job in given:
            assert all(job[1] != c for queue in self.queued for *_, (_, c) in queue), f"chunk {job[1]} is out"
            seconds = self.rng.uniform(0.1, 1.0) * (1 + job[1])
            self.free_at[k] = max(self.clock, self.free_at[k]) + seconds
            self.queued[k].append((self.free_at[k], seconds, job))

    def answer(self) -> tuple[int, Job, float]:
        """The next worker to finish, the chunk it played and how long it took."""
        k = min((k for k, queue in enumerate(self.queued) if queue), key=lambda k: self.queued[k][0][0])
        self.clock, seconds, job = self.queued[k].pop(0)
        self.played[job[1]].append(job[0])
        return k, job, seconds


def _play_until(schedule: RolloutSchedule, workers: _Workers, update: int) -> None:
    while not schedule.complete(update):
        workers.send(schedule.hand_out())
        assert schedule.busy()
        k, job, seconds = workers.answer()
        assert schedule.done(k, _finished(job), seconds) == job


def _collect(schedule: RolloutSchedule, workers: _Workers, then: int | None) -> list[Finished]:
    """As training collects a rollout: the next one started first (``overlap``), the rest queued after."""
    update = schedule.started[0]
    if then is not None and schedule.start(then):
        workers.send(schedule.hand_out())
    _play_until(schedule, workers, update)
    workers.send(schedule.queue_the_rest())
    return schedule.collect(update)


def _run(num_workers: int, overlap: bool, updates: range, seed: int = 0, schedule: RolloutSchedule | None = None,
         last: int = 6) -> tuple[list[list[Finished]], _Workers, RolloutSchedule]:
    """Rollouts ``updates`` of a run of ``last`` updates, as training plays them."""
    schedule = schedule or RolloutSchedule(CHUNKS, num_workers)
    workers = _Workers(num_workers, seed)
    collected = []
    if overlap and schedule.start(updates[0]):
        workers.send(schedule.hand_out())
    for update in updates:
        if overlap:
            collected.append(_collect(schedule, workers, update + 1 if update < last else None))
        else:
            schedule.start(update)
            workers.send(schedule.hand_out())
            collected.append(_collect(schedule, workers, None))
    return collected, workers, schedule


@pytest.mark.parametrize("overlap", [False, True])
def test_every_chunk_plays_every_rollout_once_and_in_order_whatever_the_workers(overlap: bool):
    alone, workers, _ = _run(1, overlap, range(1, 7))
    assert alone == [[_finished((u, c)) for c in range(CHUNKS)] for u in range(1, 7)]  # in chunk order
    assert workers.played == {c: list(range(1, 7)) for c in range(CHUNKS)}
    for num_workers in (2, 3, 5):
        for seed in range(4):
            spread, workers, schedule = _run(num_workers, overlap, range(1, 7), seed)
            assert spread == alone
            assert workers.played == {c: list(range(1, 7)) for c in range(CHUNKS)}
            assert schedule.started == [] and schedule.busy() == []


def test_with_overlap_the_next_rollout_is_played_during_the_update():
    """Once rollout 1 is collected, every chunk of rollout 2 is played or out with a worker: none waits for
    the learner to hand it out."""
    schedule, workers = RolloutSchedule(CHUNKS, 2), _Workers(2, 0)
    schedule.start(1)
    workers.send(schedule.hand_out())
    _collect(schedule, workers, then=2)
    out = [c for queue in workers.queued for *_, (update, c) in queue if update == 2]
    played = [c for c, rollouts in workers.played.items() if 2 in rollouts]
    assert sorted(out + played) == list(range(CHUNKS)) and out
    assert schedule.hand_out() == [] and schedule.queue_the_rest() == []


def test_a_free_worker_takes_the_oldest_rollouts_costliest_chunk():
    schedule = RolloutSchedule(3, 3)
    schedule.cost = [1.0, 5.0, 2.0]
    schedule.start(1)
    assert schedule.hand_out() == [(0, (1, 1)), (1, (1, 2)), (2, (1, 0))]
    assert schedule.hand_out() == []  # no worker free
    schedule.start(2)
    assert schedule.done(1, [], 2.0) == (1, 2)
    assert schedule.hand_out() == [(1, (2, 2))]  # chunk 2 is the only one here
    assert schedule.busy() == [0, 1, 2]


def test_the_rest_goes_costliest_first_to_the_least_loaded_worker():
    schedule = RolloutSchedule(4, 2)
    schedule.cost = [3.0, 1.0, 4.0, 2.0]
    schedule.start(1)
    assert schedule.hand_out() == [(0, (1, 2)), (1, (1, 0))]
    assert schedule.queue_the_rest() == [(1, (1, 3)), (0, (1, 1))]  # loads 4 and 3, then 4 and 5
    assert schedule.queue_the_rest() == []


def test_a_started_rollout_is_not_started_again():
    schedule = RolloutSchedule(2, 1)
    assert schedule.start(1) and not schedule.start(1)
    assert schedule.started == [1]


def test_an_unfinished_rollout_is_not_collected_or_saved():
    schedule = RolloutSchedule(2, 1)
    schedule.start(1)
    schedule.hand_out()
    with pytest.raises(ValueError, match="rollout 1 is not played to its end"):
        schedule.collect(1)
    with pytest.raises(ValueError, match=r"rollouts \[1\] are started; a checkpoint holds one at most, played"):
        schedule.state_dict()


@pytest.mark.parametrize("resumed_with", [1, 2, 4])
def test_a_resume_between_updates_goes_on_as_if_never_stopped(resumed_with: int):
    """Stopped after update 3, with rollout 4 played for the next update (``overlap``), and resumed with
    any number of workers: the same rollouts, rollout 4 not played again."""
    straight, _, _ = _run(3, True, range(1, 7))
    before, workers, schedule = _run(3, True, range(1, 4))
    assert schedule.started == [4]
    _play_until(schedule, workers, 4)  # as a checkpoint does first
    saved = schedule.state_dict()
    assert saved == {"update": 4, "finished": [_finished((4, c)) for c in range(CHUNKS)]}
    resumed = RolloutSchedule(CHUNKS, resumed_with)
    resumed.load_state_dict(saved)
    assert resumed.state_dict() == saved
    after, workers, _ = _run(resumed_with, True, range(4, 7), schedule=resumed)
    assert before + after == straight
    assert workers.played == {c: [5, 6] for c in range(CHUNKS)}


def test_nothing_started_saves_and_loads_as_nothing():
    schedule = RolloutSchedule(CHUNKS, 2)
    assert schedule.state_dict() == {}
    schedule.load_state_dict({})
    assert schedule.started == []
