"""LAS: Tiresias's discretized two-dimensional least-attained-service (Gu et al., NSDI '19).

A job's *attained service* is the GPU time it has held so far (GPUs x time, the "two
dimensions"). Thresholds split jobs into queues: queue 0 holds jobs below the first threshold,
queue 1 those between the first and second, and so on. Lower queues go first; within a queue
jobs go in submission order (FIFO), as in Tiresias. A pending job may preempt running jobs of a
strictly higher queue (never of its own), the most recently submitted first; a running job that
crosses a threshold is demoted. The default single threshold of 18,000 GPU-s (two queues) is the
one the Lucid/Helios simulators use for Tiresias (S-Lab-System-Group/Lucid,
``simulation/policy/tiresias.py``).

Starvation guard: a pending job that has waited ``starve_multiple`` times the time it has run
so far, or ``starve_time`` seconds (0 turns either rule off), is promoted to queue 0, and its
attained service counts again from zero from then on (Tiresias's promotion knob). The default
multiple of 2 is an assumption (Tiresias leaves the knob to the operator; the Lucid simulator has
no guard); ``starve_time`` is off by default.

The engine runs scheduling passes only when something happens (an arrival, a completion, a
failure), so a demotion or promotion due at time t takes effect at the first pass at or after t
with a job pending (before that nothing reads it).
"""

from __future__ import annotations

import bisect
import dataclasses
import heapq
import math
from collections.abc import Sequence

from acmesim.cluster.view import JobInfo, SchedulerView
from acmesim.policies.scheduling import SCHEDULERS
from acmesim.policies.scheduling._preempt import PreemptiveScheduler

TIRESIAS_THRESHOLD = 18000.0
"""GPU-seconds between Tiresias's two queues in the Lucid simulator (tiresias.py)."""


@SCHEDULERS.register("las", "tiresias", "2d_las")
class LeastAttainedService(PreemptiveScheduler):
    """Discretized 2D-LAS with preemption and a starvation guard."""

    idle_without_pending = True
    """Its time-dependent state (demotions, promotions) is read only while a job is pending:
    a demotion applied at the next pass with a pending job gives the level it would have had
    by then (the level is recomputed from the service at that time), and promotions are of
    pending jobs only."""

    @dataclasses.dataclass(frozen=True)
    class Config:
        """Queue thresholds (GPU-s), starvation guard, blocking and planner depth."""

        thresholds: tuple[float, ...] = (TIRESIAS_THRESHOLD,)
        """Attained-service thresholds (GPU-s) between the priority queues."""
        starve_multiple: float = 2.0
        """Promote a job that waited this many times its run so far (0: off)."""
        starve_time: float = 0.0
        """Promote a job that waited this many seconds (0: off)."""
        head_of_line: bool = False
        """true: a job that does not fit blocks the jobs behind it."""
        preempt_depth: int = 8
        """How many pending jobs may preempt per scheduling pass."""

        def __post_init__(self) -> None:
            values = tuple(float(t) for t in self.thresholds)
            if any(t <= 0 for t in values) or list(values) != sorted(set(values)):
                raise ValueError(f"thresholds must be increasing and > 0, got {self.thresholds}")
            if self.starve_multiple < 0 or self.starve_time < 0:
                raise ValueError("starve_multiple and starve_time must be >= 0")
            object.__setattr__(self, "thresholds", values)

    def __init__(self, config: Config | None = None) -> None:
        super().__init__(config)
        self.thresholds: tuple[float, ...] = self.config.thresholds
        self.baseline: dict[int, float] = {}
        """Attained service at a job's last promotion (its service counts from there)."""
        self.level_of: dict[int, int] = {}
        """Queue of each running job."""
        self.running_in: list[dict[int, JobInfo]] = [{} for _ in range(len(self.thresholds) + 1)]
        self._demotions: list[tuple[float, int, int, JobInfo]] = []
        self._promotions: list[tuple[float, int, int, JobInfo]] = []

    # ------------------------------------------------------------------ levels
    def level(self, job: JobInfo, view: SchedulerView) -> int:
        """Queue index of ``job`` from its service since its last promotion."""
        service = view.attained_service(job) - self.baseline.get(job.index, 0.0)
        return bisect.bisect_right(self.thresholds, service)

    def key(self, job: JobInfo, view: SchedulerView) -> tuple[int, float]:
        """(queue, submission time): lower queues first, FIFO inside a queue."""
        return (self.level(job, view), job.submit_time)

    def rank(self, job: JobInfo, view: SchedulerView) -> int:
        """A pending job preempts by its queue."""
        return self.queue.key_of(job)[0]

    # ------------------------------------------------------------------ callbacks
    def on_arrivals(self, jobs: Sequence[JobInfo], view: SchedulerView) -> None:
        """Queue the jobs and arm their starvation guards."""
        super().on_arrivals(jobs, view)
        for job in jobs:
            self._arm_promotion(job, view)

    def on_requeue(self, job: JobInfo, view: SchedulerView) -> None:
        """Leave the running queues, wait again, arm the starvation guard."""
        self._leave(job)
        super().on_requeue(job, view)
        self._arm_promotion(job, view)

    def on_start(self, job: JobInfo, view: SchedulerView) -> None:
        """Enter the running queue of the job's level; schedule its next demotion."""
        super().on_start(job, view)
        level = self.level(job, view)
        self.level_of[job.index] = level
        self.running_in[level][job.index] = job
        self._arm_demotion(job, level)

    def on_finish(self, job: JobInfo, view: SchedulerView) -> None:
        """Leave the running queues."""
        self._leave(job)
        self.baseline.pop(job.index, None)
        super().on_finish(job, view)

    def _leave(self, job: JobInfo) -> None:
        """Forget a job that stopped running."""
        level = self.level_of.pop(job.index, None)
        if level is not None:
            del self.running_in[level][job.index]

    # ------------------------------------------------------------------ time-driven changes
    def _arm_demotion(self, job: JobInfo, level: int) -> None:
        """Remember when a running job will cross its next threshold."""
        if level >= len(self.thresholds) or job.gpu_num <= 0:
            return
        target = self.thresholds[level] + self.baseline.get(job.index, 0.0)
        when = job.last_start + (target - job.attained_closed) / job.gpu_num
        if when >= job.expected_end:
            return  # its running interval ends first (then a pass would drop the entry unread)
        heapq.heappush(self._demotions, (when, job.index, job.epoch, job))

    def _arm_promotion(self, job: JobInfo, view: SchedulerView) -> None:
        """Remember when a waiting job counts as starving."""
        config = self.config
        wait = math.inf
        if config.starve_multiple > 0 and job.attained_closed > 0 and job.gpu_num:
            wait = config.starve_multiple * (job.attained_closed / job.gpu_num)
        if config.starve_time > 0:
            wait = min(wait, config.starve_time)
        if wait < math.inf and self.queue.key_of(job)[0] > 0:
            heapq.heappush(self._promotions, (view.now + wait, job.index,
                                              job.arrival_seq, job))

    def before_pass(self, view: SchedulerView) -> None:
        """Apply the demotions and promotions that are due."""
        now = view.now
        while self._demotions and self._demotions[0][0] <= now:
            _, index, epoch, job = heapq.heappop(self._demotions)
            if self.level_of.get(index) is None or job.epoch != epoch:
                continue
            self._leave(job)
            level = self.level(job, view)
            self.level_of[index] = level
            self.running_in[level][index] = job
            self._arm_demotion(job, level)
            self.state_version += 1
        while self._promotions and self._promotions[0][0] <= now:
            _, index, seq, job = heapq.heappop(self._promotions)
            if job.status != "pending" or job.arrival_seq != seq:
                continue
            self.baseline[index] = job.attained_closed
            self.queue.push(job, self.key(job, view))

    # ------------------------------------------------------------------ preemption
    def worst_rank(self, view: SchedulerView) -> int | None:
        """The highest queue holding a running job."""
        running_in = self.running_in
        for level in range(len(running_in) - 1, -1, -1):
            for job in running_in[level].values():  # a loop, not any(): called every pass
                if job.status == "running":
                    return level
        return None

    def victims(self, view: SchedulerView, rank: int) -> list[JobInfo]:
        """Running jobs of queues above ``rank``: highest queue first, latest submitted first."""
        out: list[JobInfo] = []
        for level in range(len(self.running_in) - 1, rank, -1):
            jobs = sorted((j for j in self.running_in[level].values() if j.status == "running"),
                          key=lambda j: (j.submit_time, j.index), reverse=True)
            out.extend(jobs)
        return out

    def has_victims(self, view: SchedulerView, rank: int) -> bool:
        """Whether a queue above ``rank`` holds a running job (``victims`` non-empty)."""
        return any(job.status == "running"
                   for level in range(len(self.running_in) - 1, rank, -1)
                   for job in self.running_in[level].values())


__all__ = ["TIRESIAS_THRESHOLD", "LeastAttainedService"]
