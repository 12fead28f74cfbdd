"""Per-job setup on arrival: checkpoint plan and pace, trace outcomes, modeled job failures.

Each arriving job gets the ``CheckpointPlan`` its policy gives for the job's own MTBF (from the
failure model: it falls as the job grows), and the matching ``CheckpointPace`` so the engine adds
its checkpoint stalls to its run time. Plans depend only on the job's type and size, so they are
computed once per shape.

Trace outcomes (``FailureSources``): with ``trace_outcomes=replace`` a job the trace recorded as
FAILED, TIMEOUT or NODE_FAIL runs its recorded work and completes, unless the model fails it;
with ``replay`` or ``both`` it ends where the trace says. When the model has job-level failures
(``replace``/``both``), a GPU job whose failure comes before the end of its work ends ``FAILED``
once its compute reaches that point: its modeled ``work`` becomes the failure time and its
``outcome`` FAILED; the recorded ``recorded_run_time`` and ``trace_state`` stay what the trace
says (what policies, e.g. the ``oracle`` predictor, read; ``recorded_run_time`` in
``jobs.csv``). Such
failures are not recovered (``acmesim.policies.recovery.base``).
"""

from __future__ import annotations

import numpy as np

from acmesim.faults.pacing import CheckpointPace
from acmesim.policies.checkpoint.base import CheckpointPlan, CheckpointPolicyProtocol
from acmesim.policies.failure.base import FailureModelProtocol
from acmesim.sim.job import Job
from acmesim.trace.schema import FAILED_STATES

Shape = tuple[str, int, int, int]


class JobPreparer:
    """Sets each arriving job's checkpoint pace and its modeled ``outcome`` and ``work``."""

    def __init__(self, failure_model: FailureModelProtocol,
                 checkpoint_policy: CheckpointPolicyProtocol, rng: np.random.Generator
                 ) -> None:
        self.failure_model = failure_model
        self.checkpoint_policy = checkpoint_policy
        self.rng = rng
        sources = failure_model.sources
        self.replace_recorded = not sources.recorded
        self.model_job_failures = sources.job_failures
        self._plans: dict[Shape, tuple[CheckpointPlan, CheckpointPace | None]] = {}
        self.plans: dict[int, CheckpointPlan] = {}
        """Checkpoint plan of every GPU job that checkpoints, by engine index."""
        self.failed: dict[int, str] = {}
        """Kind of the modeled job-level failure that ends a job, by engine index."""
        self.inert = (not self.replace_recorded and not self.model_job_failures
                      and getattr(checkpoint_policy, "never_checkpoints", False) is True)
        """Whether preparing a job changes nothing (no recorded outcome replaced, no modeled
        job failure, no checkpoint pace): the arrival hook may then be skipped."""

    def __call__(self, job: Job) -> None:
        """Prepare ``job`` (an engine arrival hook)."""
        if job.pool != "gpu":
            return
        shape = (job.type, job.gpu_num, job.node_num, job.nodes_needed)  # what a plan depends on
        cached = self._plans.get(shape)
        plan, pace = cached if cached is not None else self._plan(job, shape)
        if pace is not None:
            job.pace = pace
            self.plans[job.index] = plan
        if self.replace_recorded and job.trace_state in FAILED_STATES:
            job.outcome = "COMPLETED"
        if self.model_job_failures:
            failure = self.failure_model.job_software_failure(job, self.rng)
            if failure is not None and failure.time < job.work:
                job.work = failure.time
                job.outcome = "FAILED"
                self.failed[job.index] = failure.kind

    def _plan(self, job: Job, shape: Shape) -> tuple[CheckpointPlan, CheckpointPace | None]:
        """The plan and pace of a job of a shape not seen yet (then cached)."""
        mtbf = self.failure_model.job_mtbf(job.gpu_num, job.nodes_needed)
        plan = self.checkpoint_policy.plan(job, mtbf)
        cached = (plan, CheckpointPace.of(plan))
        self._plans[shape] = cached
        return cached
