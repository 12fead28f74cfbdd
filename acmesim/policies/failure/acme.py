"""``failure=acme``: Llama 3 hardware fault rate plus job-level failures calibrated on Acme.

- Hardware faults: every GPU fails at **0.474 per 1000 GPU-days** (Llama 3 405B, 419 unexpected
  interruptions on 16,384 GPUs in 54 days; reliability_facts.md §2.1) — a node of 8 GPUs at
  3.79 per 1000 node-days — with the Llama 3 cause mix (``acmesim.policies.failure.kinds``).
- Job-level failures (``acmesim.policies.failure.job_failures``), **calibrated** so that on the
  Seren-like reference population (``calibration.reliability``) ≈ 43 % of GPU jobs fail
  (Seren 42.9 %, acme_facts §2.6) and infrastructure failures are ≈ 11 % of failed jobs but
  > 82 % of their GPU time (acme_facts §3). Chosen shape: script errors twice as likely as
  framework errors (scripts are "the majority by count"), both early (mean 30 s of run time);
  the fitted values are ``script_error_prob = 0.4``, ``framework_error_prob = 0.2`` and
  ``aux_errors_per_job_day = 16`` auxiliary-service/storage errors per day of run time, which give
  0.43 failed, 10.7 % infrastructure by count and 96 % by GPU time
  (``tests/policies/test_failure_models.py`` re-checks these ranges).

They only take effect with ``trace_outcomes=replace`` or ``both``.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from acmesim.core.bounds import require_positive
from acmesim.policies.failure import FAILURES
from acmesim.policies.failure.base import FailureModel, FailureOptions
from acmesim.policies.failure.rates import (
    LLAMA3_GPU_FAILURES_PER_1000_GPU_DAYS,
    job_mtbf_from_gpu_rate,
    per_gpu_rate,
)

if TYPE_CHECKING:
    import numpy as np


@FAILURES.register("acme")
class AcmeFailures(FailureModel):
    """Poisson GPU faults at the Llama 3 rate plus Acme-calibrated job-level failures."""

    @dataclasses.dataclass(frozen=True)
    class Config(FailureOptions):
        """Options of ``acme``: the per-GPU rate plus the shared options, Acme defaults."""

        gpu_failures_per_1000_gpu_days: float = LLAMA3_GPU_FAILURES_PER_1000_GPU_DAYS
        """Hardware failure rate per 1,000 GPU-days."""
        script_error_prob: float = 0.4
        framework_error_prob: float = 0.2
        early_error_mean_min: float = 0.5
        aux_errors_per_job_day: float = 16.0

        def __post_init__(self) -> None:
            super().__post_init__()
            require_positive(gpu_failures_per_1000_gpu_days=self.gpu_failures_per_1000_gpu_days)

    config: Config

    def time_to_failure(
        self, rng: np.random.Generator, n: int, gpus_per_node: int
    ) -> np.ndarray:
        """Exponential node times to failure: the per-GPU rate times the GPUs of a node."""
        node_rate = per_gpu_rate(self.config.gpu_failures_per_1000_gpu_days) * gpus_per_node
        return rng.exponential(1.0 / node_rate, size=n)

    def job_mtbf(self, gpus: int, nodes: int) -> float | None:
        """``1 / (GPUs × per-GPU rate)``."""
        return job_mtbf_from_gpu_rate(gpus, self.config.gpu_failures_per_1000_gpu_days)
