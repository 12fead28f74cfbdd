"""SRTF: shortest remaining time first, preemptive.

A pending job whose (estimated) remaining run time is shorter than a running job's may preempt
it: the planner (``_preempt``) stops the running jobs with the longest remaining time on the
node(s) the pending job needs, and the stopped jobs wait with their remaining work as their
priority. With the oracle predictor (default) remaining time is exact, an upper bound on what
a real scheduler could do; Lucid's simulator ranks running and pending jobs the same way
(S-Lab-System-Group/Lucid, ``simulation/policy/srtf.py``). A running job's remaining time is
counted to its estimated end, restart overhead included; a job that outlives its estimate is
treated as about to finish (remaining 0) and is never preempted.
"""

from __future__ import annotations

import bisect
import dataclasses
from collections.abc import Iterator

from acmesim.cluster.view import JobInfo, SchedulerView
from acmesim.policies.scheduling import SCHEDULERS
from acmesim.policies.scheduling._preempt import PreemptiveScheduler


@SCHEDULERS.register("srtf", "shortest_remaining_time_first")
class ShortestRemainingTimeFirst(PreemptiveScheduler):
    """Preemptive shortest (estimated) remaining time first."""

    idle_without_pending = True  # no time-dependent state: with nothing pending, nothing to do

    @dataclasses.dataclass(frozen=True)
    class Config:
        """Predictor, head-of-line blocking, and how many pending jobs may preempt per pass."""

        predictor: str = "oracle"
        """Run-time predictor: oracle (recorded run time), user_history, type_history."""
        head_of_line: bool = False
        """true: the best job blocks the rest when it does not fit."""
        preempt_depth: int = 8
        """How many pending jobs may preempt per scheduling pass."""

    def __init__(self, config: Config | None = None) -> None:
        super().__init__(config)
        self._remaining = (self.estimates.remaining if self.estimates is not None
                           else self.remaining_estimate)
        """``remaining_estimate`` without the indirection (called for every rank and key)."""
        self._exact = self.estimates is not None and self.estimates.exact
        """Remaining time is the recorded one (the oracle): ``on_start`` works it out itself."""
        self.ends: dict[int, float] = {}
        """Estimated end of each running GPU job."""
        self._end_at: list[float] = []
        self._end_of: list[int] = []
        """The (end, index) pairs of ``ends`` in ascending order, as two parallel lists (their
        bisection compares floats, not tuples); ``worst_rank`` and ``victims`` walk them from
        the top."""

    def key(self, job: JobInfo, view: SchedulerView) -> float:
        """Estimated remaining run time (s)."""
        return self._remaining(job)

    def rank(self, job: JobInfo, view: SchedulerView) -> float:
        """Pending jobs preempt by their estimated remaining time."""
        return self._remaining(job)

    def on_start(self, job: JobInfo, view: SchedulerView) -> None:
        """Remember when the job should end."""
        self.queue.remove(job)  # PriorityScheduler.on_start, written out (once a start)
        if job.pool == "gpu":
            index = job.index
            if self._exact:  # Estimates.remaining, written out
                remaining = max(job.recorded_run_time - job.work_done, 0.0)
            else:
                remaining = self._remaining(job)
            end = job.last_start + job.overhead + remaining
            if index in self.ends:
                self._forget_end(index)
            self.ends[index] = end
            at, of = self._end_at, self._end_of
            place = bisect.bisect_right(at, end)
            while place and at[place - 1] == end and of[place - 1] > index:
                place -= 1  # equal ends go by index
            at.insert(place, end)
            of.insert(place, index)

    def on_requeue(self, job: JobInfo, view: SchedulerView) -> None:
        """Forget the stopped job's end and queue it again."""
        self._forget_end(job.index)
        super().on_requeue(job, view)

    def on_finish(self, job: JobInfo, view: SchedulerView) -> None:
        """Forget the finished job's end."""
        self._forget_end(job.index)
        super().on_finish(job, view)

    def _forget_end(self, index: int) -> None:
        """Drop a job's estimated end, if it has one."""
        end = self.ends.pop(index, None)
        if end is not None:
            at, of = self._end_at, self._end_of
            place = bisect.bisect_left(at, end)
            while of[place] != index:
                place += 1  # equal ends go by index
            del at[place]
            del of[place]

    def _by_end(self) -> Iterator[tuple[float, int]]:
        """(end, index) of every job in ``ends``, latest first."""
        return zip(reversed(self._end_at), reversed(self._end_of), strict=True)

    def worst_rank(self, view: SchedulerView) -> float | None:
        """Longest remaining time among running jobs."""
        running = view.running
        for end, index in self._by_end():
            if index in running:
                return max(end - view.now, 0.0)
        return None

    def victims(self, view: SchedulerView, rank: float) -> list[JobInfo]:
        """Running jobs with more remaining time than ``rank``, longest first."""
        return list(self.iter_victims(view, rank))

    def iter_victims(self, view: SchedulerView, rank: float) -> Iterator[JobInfo]:
        """``victims``, one at a time (the planner mostly stops at the first few)."""
        now = view.now
        running = view.running
        for end, index in self._by_end():
            if not end - now > rank:
                return  # ends ascend, so no earlier entry has more time left
            job = running.get(index)
            if job is not None:
                yield job

    def has_victims(self, view: SchedulerView, rank: float) -> bool:
        """Whether a running job has more remaining time than ``rank`` (``victims`` non-empty)."""
        now = view.now
        running = view.running
        for end, index in self._by_end():
            if not end - now > rank:
                return False
            if index in running:
                return True
        return False
