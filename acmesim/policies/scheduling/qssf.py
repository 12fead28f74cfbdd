"""QSSF: quasi-shortest-service-first (Helios, Hu et al., SC '21).

Jobs are ranked by their *predicted GPU time* (requested GPUs x predicted duration), smallest
first. The prediction comes from each user's history in the trace so far (``user_history``:
the mean duration of the user's finished jobs with the same GPU count, else of all the user's
finished jobs, else of every finished job), updated only when a job finishes, so no priority
ever uses the future. This follows the QSSF of the group's simulators (S-Lab-System-Group/Lucid,
``simulation/policy/qssf.py`` and ``simulation/estimator/estimator.py``): pending jobs sorted
by estimated GPU time and, by default, the best job blocks the queue when it does not fit
(``head_of_line=false`` starts later jobs that fit instead). The priority is set when a job is
submitted; a job requeued after a failure is re-ranked by its estimated remaining GPU time.
"""

from __future__ import annotations

import dataclasses

from acmesim.cluster.view import JobInfo, SchedulerView
from acmesim.policies.scheduling import SCHEDULERS
from acmesim.policies.scheduling._priority import PriorityScheduler


@SCHEDULERS.register("qssf", "quasi_shortest_service_first")
class QuasiShortestServiceFirst(PriorityScheduler):
    """Smallest predicted GPU time first, from per-user history."""

    @dataclasses.dataclass(frozen=True)
    class Config:
        """Which run-time predictor estimates durations, and whether the best job blocks."""

        predictor: str = "user_history"
        """Run-time predictor: user_history, type_history, oracle."""
        head_of_line: bool = True
        """true: the best job blocks the rest when it does not fit."""

    def key(self, job: JobInfo, view: SchedulerView) -> float:
        """Predicted remaining GPU time (GPU-s)."""
        return job.gpu_num * self.remaining_estimate(job)
