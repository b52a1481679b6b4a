"""Which worker plays which chunk of which rollout, and when a rollout is complete: the order of self-play in
chunks (``agents.rollout_workers``), kept apart from how chunks travel so that it can be checked on its own.

It is bookkeeping driven by events: a rollout is started, worker k is done with the oldest chunk it was
given, a rollout is collected. What it hands out keeps a run the same for any number of workers: a chunk's
games are in one place at a time, so a chunk goes out only while no worker has it, and for the oldest
rollout it has not played, so each chunk plays every rollout once and in order. Which worker plays it, and
when, changes only how long a rollout takes: a free worker takes the oldest rollout's costliest chunk, so
that no slow chunk is left to play alone at the end, and once a rollout is collected the chunks that may be
played next are queued on the least loaded workers, to play while the learner trains (``overlap``).
"""

from __future__ import annotations

from collections import deque
from typing import Any

Finished = list[tuple[str, float]]  # (opponent, the learner's share of the win) of the games that ended
Job = tuple[int, int]  # (rollout, chunk)


class RolloutSchedule:
    """The rollouts started and not collected, the chunks each worker has in the order it was given them,
    and what each chunk took last time."""

    def __init__(self, num_chunks: int, num_workers: int) -> None:
        self.num_chunks = num_chunks
        self.cost = [0.0] * num_chunks  # seconds each chunk took last time: the costliest goes first
        self._played: dict[int, dict[int, Finished]] = {}  # per rollout started, oldest first: its chunks played
        self._playing: list[deque[Job]] = [deque() for _ in range(num_workers)]  # each worker's, in order

    @property
    def started(self) -> list[int]:
        """The rollouts started and not collected, oldest first."""
        return list(self._played)

    def start(self, update: int) -> bool:
        """Start rollout ``update``; False if it is started already (one a checkpoint held, played)."""
        if update in self._played:
            return False
        self._played[update] = {}
        return True

    def hand_out(self) -> list[tuple[int, Job]]:
        """A chunk for each free worker, as (worker, job), while there are chunks it may play."""
        given = []
        for k, playing in enumerate(self._playing):
            if not playing and (ready := self._ready()):
                given.append(self._give(k, ready[0]))
        return given

    def queue_the_rest(self) -> list[tuple[int, Job]]:
        """Every chunk that may be played, costliest first on the least loaded worker, so that all play on
        while the learner trains: workers need not wait to be handed the next."""
        load = [sum(self.cost[c] for _, c in playing) for playing in self._playing]
        given = []
        for job in self._ready():
            k = min(range(len(load)), key=load.__getitem__)
            given.append(self._give(k, job))
            load[k] += self.cost[job[1]]
        return given

    def busy(self) -> list[int]:
        """The workers with chunks to play, whose answers may be waited for."""
        return [k for k, playing in enumerate(self._playing) if playing]

    def done(self, k: int, finished: Finished, seconds: float) -> Job:
        """Worker ``k`` has played the oldest chunk it was given, in ``seconds``; which one that was."""
        update, c = job = self._playing[k].popleft()
        self._played[update][c], self.cost[c] = finished, seconds
        return job

    def complete(self, update: int) -> bool:
        return len(self._played[update]) == self.num_chunks

    def collect(self, update: int) -> list[Finished]:
        """Take complete rollout ``update`` off the schedule; what each chunk finished, in chunk order (not the
        order played, which depends on the workers)."""
        if not self.complete(update):
            raise ValueError(f"rollout {update} is not played to its end")
        played = self._played.pop(update)
        return [played[c] for c in range(self.num_chunks)]

    def _ready(self) -> list[Job]:
        """The chunks that may be handed out: not out with a worker, each for the oldest rollout it has not
        played; the oldest rollout's first, then the costliest."""
        out = {c for playing in self._playing for _, c in playing}
        ready = []
        for c in range(self.num_chunks):
            if c not in out:
                ready += [(update, c) for update, played in self._played.items() if c not in played][:1]
        return sorted(ready, key=lambda job: (job[0], -self.cost[job[1]]))

    def _give(self, k: int, job: Job) -> tuple[int, Job]:
        self._playing[k].append(job)
        return k, job

    # ----------------------------------------------------------- checkpoints
    def state_dict(self) -> dict[str, Any]:
        """The rollout played and not collected (with ``overlap``, the one for the next update) and what its
        chunks finished; empty when there is none. A checkpoint is written between updates, once every
        rollout started is played, and at most one is then started; which chunk each worker played, and
        its cost, change nothing that is played."""
        if len(self._played) > 1 or not all(map(self.complete, self._played)):
            raise ValueError(f"rollouts {self.started} are started; a checkpoint holds one at most, played")
        if not self._played:
            return {}
        ((update, played),) = self._played.items()
        return {"update": update, "finished": [list(played[c]) for c in range(self.num_chunks)]}

    def load_state_dict(self, data: dict[str, Any]) -> None:
        """Resume with the rollout ``state_dict`` held, played, or none."""
        self._played = {int(data["update"]): {c: [(str(n), float(r)) for n, r in finished]
                                             for c, finished in enumerate(data["finished"])}} if data else {}
