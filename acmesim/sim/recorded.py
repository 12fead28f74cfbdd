"""The ``recorded`` replay mode's starter: every job starts at its recorded start time.

It is an internal scheduler (not registered): it keeps arrived jobs in a heap by recorded start
and, in each pass, starts the due ones in recorded-start order on nodes the placement policy
chooses. A due job that does not fit the modeled cluster is *late*: it is retried, oldest
first, in every later pass until it fits, and the summary reports how many were late and by
how much (nothing is shifted silently). A job interrupted by a failure restarts as soon as
it fits again. A zero-length job still needs its GPUs for an instant at
its start, after the jobs ending at that time have released theirs.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator

from acmesim.cluster.view import JobInfo, SchedulerView
from acmesim.policies.scheduling.base import Decision, Scheduler
from acmesim.sim.job import PENDING, RUNNING


class RecordedStarts(Scheduler):
    """Starts each job at its recorded start time (later only if it does not fit)."""

    registry_name = "recorded"

    def __init__(self) -> None:
        super().__init__(None)
        self._due: list[tuple[float, int, JobInfo]] = []
        self._late: list[JobInfo] = []

    def on_arrival(self, job: JobInfo, view: SchedulerView) -> None:
        """Remember the job until its recorded start."""
        heapq.heappush(self._due, (job.recorded_start, job.index, job))

    def on_requeue(self, job: JobInfo, view: SchedulerView) -> None:
        """A job stopped by a failure restarts as soon as it fits again."""
        self._late.append(job)

    def schedule(self, view: SchedulerView) -> Decision:
        """Start the late jobs that now fit, then the jobs due now."""
        if not self._late and not (self._due and self._due[0][0] <= view.now):
            return Decision()
        return Decision(start=self._starts(view))

    def _starts(self, view: SchedulerView) -> Iterator[JobInfo]:
        """Yield late jobs (oldest first) and due jobs; keep those that did not start."""
        now = view.now
        ready = self._late
        while self._due and self._due[0][0] <= now:
            ready.append(heapq.heappop(self._due)[2])
        still_late: list[JobInfo] = []
        for job in ready:
            if job.status != PENDING:  # restarted in place after a failure
                continue
            if job.nodes_needed * job.per_node <= view.cluster.free_gpus_total or job.pool != "gpu":
                yield job
            if job.status != RUNNING:
                still_late.append(job)
        self._late = still_late
