"""Failures of a job's own run: script and framework errors early on, auxiliary-service errors.

The Acme paper sorts failures into three categories (acme_facts.md §3): *script* errors (user
mistakes, the majority by count), *framework* errors (RuntimeError, ValueError, … that "usually
appear early in a job") and *infrastructure* errors. Hardware infrastructure faults come from the
cluster-level ``FailureEvent`` stream; the job-level infrastructure errors here are the
ConnectionError/NetworkError failures of auxiliary services (metric reporting, logging,
monitoring) and S3 storage errors the paper names, which strike any time during a run.

Per job: a script error with probability ``script_error_prob`` and a framework error with
probability ``framework_error_prob``, each at an exponential time with mean
``early_error_mean_min`` (early in the run); plus job-level infrastructure errors as a Poisson
process of ``aux_errors_per_job_day`` per day of run time, a share ``storage_share`` of them S3
storage errors. The earliest of these is the job's failure. Job types listed in
``error_free_types`` never get script or framework errors.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, cast

from acmesim.core.bounds import (
    option_values,
    require_non_negative,
    require_positive,
    require_within,
)
from acmesim.policies.failure.events import JobFailure, JobFailureCategory
from acmesim.policies.failure.rates import SECONDS_PER_DAY
from acmesim.policies.job_shape import JobShape

if TYPE_CHECKING:
    import numpy as np


@dataclasses.dataclass(frozen=True)
class JobErrorRates:
    """Probabilities, timing and rates of job-level failures (module docstring)."""

    script_error_prob: float = 0.0
    framework_error_prob: float = 0.0
    early_error_mean_min: float = 5.0
    aux_errors_per_job_day: float = 0.0
    storage_share: float = 0.3
    error_free_types: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        require_within(0, 1, **option_values(
            self, "script_error_prob", "framework_error_prob", "storage_share"))
        require_positive(early_error_mean_min=self.early_error_mean_min)
        require_non_negative(aux_errors_per_job_day=self.aux_errors_per_job_day)

    @property
    def enabled(self) -> bool:
        """True when any job-level failure can happen."""
        return bool(self.script_error_prob or self.framework_error_prob
                    or self.aux_errors_per_job_day)

    def sample(self, job: JobShape, rng: np.random.Generator) -> JobFailure | None:
        """The job's earliest failure, or None."""
        import numpy as np
        draws = self.sample_many(np.array([job.job_type]), rng)
        if not np.isfinite(draws.time[0]):
            return None
        category = cast(JobFailureCategory, str(draws.category[0]))  # one of _CATEGORIES
        return JobFailure(float(draws.time[0]), str(draws.kind[0]), category)

    def sample_many(self, job_types: np.ndarray, rng: np.random.Generator) -> JobFailureDraws:
        """Vectorized: each job's earliest failure time (``inf`` for none), kind and category."""
        import numpy as np
        n = len(job_types)
        u = rng.random((n, 3))
        early = rng.exponential(self.early_error_mean_min * 60.0, size=(n, 2))
        aux = rng.exponential(1.0, size=n)
        prone = ~np.isin(job_types, self.error_free_types)
        times = np.full((n, 3), np.inf)
        times[:, 0] = np.where(prone & (u[:, 0] < self.script_error_prob), early[:, 0], np.inf)
        times[:, 1] = np.where(prone & (u[:, 1] < self.framework_error_prob), early[:, 1], np.inf)
        if self.aux_errors_per_job_day > 0:
            times[:, 2] = aux * SECONDS_PER_DAY / self.aux_errors_per_job_day
        first = np.argmin(times, axis=1)
        storage = u[:, 2] < self.storage_share
        kind = np.where(first == 2, np.where(storage, "storage_error", "connection_error"),
                        np.where(first == 0, "script_error", "framework_error"))
        category = np.array(_CATEGORIES)[first]
        return JobFailureDraws(times[np.arange(n), first], kind, category)


_CATEGORIES = ("script", "framework", "infrastructure")


@dataclasses.dataclass(frozen=True)
class JobFailureDraws:
    """Vectorized job failures: time (s of run time, ``inf`` when none), kind, category."""

    time: np.ndarray
    kind: np.ndarray
    category: np.ndarray
