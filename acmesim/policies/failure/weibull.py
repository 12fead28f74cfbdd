"""``failure=weibull``: node times to failure are Weibull with a decreasing hazard.

HPC failure logs are fitted well by Weibull inter-failure times with decreasing hazard (shape < 1)
and lognormal repair times (Schroeder & Gibson, reliability_facts.md §1.7, §5). ``shape = 0.7``
is **chosen** (the facts give only "shape < 1"); the scale is set so that the mean time to
failure equals ``node_mtbf_hours`` (default: the Llama 3 rate, as for ``exponential``). Every node
starts a fresh renewal at time 0 and after each repair.
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING

from acmesim.core.bounds import require_positive
from acmesim.policies.failure import FAILURES
from acmesim.policies.failure.base import FailureModel, FailureOptions
from acmesim.policies.failure.rates import (
    LLAMA3_NODE_MTBF_HOURS,
    SECONDS_PER_HOUR,
    job_mtbf_from_node_mtbf,
)

if TYPE_CHECKING:
    import numpy as np


@FAILURES.register("weibull")
class WeibullFailures(FailureModel):
    """Weibull node faults (renewal process), mean ``node_mtbf_hours``, shape ``shape``."""

    @dataclasses.dataclass(frozen=True)
    class Config(FailureOptions):
        """Options of ``weibull``: node MTBF and shape plus the shared failure options."""

        node_mtbf_hours: float = LLAMA3_NODE_MTBF_HOURS
        """Mean time between failures of one node (h)."""
        shape: float = 0.7
        """Weibull shape of the time between failures (< 1: failures cluster early)."""

        def __post_init__(self) -> None:
            super().__post_init__()
            require_positive(node_mtbf_hours=self.node_mtbf_hours, shape=self.shape)

    config: Config

    @property
    def scale_seconds(self) -> float:
        """Weibull scale giving a mean of ``node_mtbf_hours``: mean / Γ(1 + 1/shape)."""
        mean = self.config.node_mtbf_hours * SECONDS_PER_HOUR
        return mean / math.gamma(1.0 + 1.0 / self.config.shape)

    def time_to_failure(
        self, rng: np.random.Generator, n: int, gpus_per_node: int
    ) -> np.ndarray:
        """Weibull node times to failure."""
        return self.scale_seconds * rng.weibull(self.config.shape, size=n)

    def job_mtbf(self, gpus: int, nodes: int) -> float | None:
        """Mean node time to failure divided by the job's node count (a renewal average)."""
        return job_mtbf_from_node_mtbf(nodes, self.config.node_mtbf_hours)
