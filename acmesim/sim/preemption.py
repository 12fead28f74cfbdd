"""What an early stop costs a job: rolled-back work and a restart overhead when it resumes.

When a running job is preempted it keeps the work saved at its last checkpoint plus
``1 - rollback_fraction`` of the work done since then (``rollback_fraction = 0`` models a
graceful stop that checkpoints first, as InternEvo's stop file does, acme_facts.md §4; ``1``
loses everything since the last checkpoint). A job interrupted by an infrastructure failure
uses ``failure_rollback_fraction`` instead (default 1: every restart rolls back to the last
checkpoint, acme_facts.md §3). Checkpoint policies move
``Job.checkpointed_work`` forward through ``Simulation.record_checkpoint``. On every resume the
job first spends a restart overhead before doing work: 40 s for jobs of up to 8 GPUs, 60 s for
larger ones (Lucid's simulator defaults, after Tiresias's measured 62 s; acme_facts.md §8).
"""

from __future__ import annotations

import dataclasses

from acmesim.cluster.view import JobInfo
from acmesim.core.errors import ConfigError


@dataclasses.dataclass(frozen=True)
class PreemptionModel:
    """Rollback and restart overhead of jobs that stop early and resume."""

    rollback_fraction: float = 0.0
    failure_rollback_fraction: float = 1.0
    restart_overhead_small: float = 40.0
    restart_overhead_large: float = 60.0
    large_job_gpus: int = 8

    def __post_init__(self) -> None:
        for name in ("rollback_fraction", "failure_rollback_fraction"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ConfigError(f"{name} must be in [0, 1], got {getattr(self, name)!r}")
        if self.restart_overhead_small < 0 or self.restart_overhead_large < 0:
            raise ConfigError("restart overheads must be >= 0 seconds")

    def restart_overhead(self, job: JobInfo) -> float:
        """Seconds a resumed job spends restarting before it does work again."""
        if job.gpu_num > self.large_job_gpus:
            return self.restart_overhead_large
        return self.restart_overhead_small

    def saved_work(self, checkpointed: float, progress: float, cause: str = "preemption"
                   ) -> float:
        """Work kept after a stop at ``progress`` with ``checkpointed`` work safely saved."""
        checkpointed = min(checkpointed, progress)
        fraction = (self.rollback_fraction if cause == "preemption"
                    else self.failure_rollback_fraction)
        return progress - fraction * (progress - checkpointed)
