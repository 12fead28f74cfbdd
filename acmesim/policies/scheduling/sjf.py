"""SJF: shortest job first, non-preemptive, by (estimated) run time.

The classic size-based policy; with the oracle predictor (default) it ranks jobs by their
recorded run time, an upper bound on what a real scheduler could do. Like the SJF of the
Helios/Lucid simulators (S-Lab-System-Group/Lucid, ``simulation/policy/sjf.py``), the pending
queue is sorted by run time and, by default, the shortest job blocks the ones behind it when it
does not fit (``head_of_line=false`` lets later jobs that fit start instead). A job requeued
after a failure is ranked by its estimated remaining work.
"""

from __future__ import annotations

import dataclasses

from acmesim.cluster.view import JobInfo, SchedulerView
from acmesim.policies.scheduling import SCHEDULERS
from acmesim.policies.scheduling._priority import PriorityScheduler


@SCHEDULERS.register("sjf", "shortest_job_first")
class ShortestJobFirst(PriorityScheduler):
    """Non-preemptive shortest (estimated) job first."""

    @dataclasses.dataclass(frozen=True)
    class Config:
        """Which run-time predictor ranks jobs, and whether the best job blocks the rest."""

        predictor: str = "oracle"
        """Run-time predictor: oracle (recorded run time), user_history, type_history."""
        head_of_line: bool = True
        """true: the shortest job blocks the rest when it does not fit."""

    def key(self, job: JobInfo, view: SchedulerView) -> float:
        """Estimated remaining run time (s)."""
        return self.remaining_estimate(job)
