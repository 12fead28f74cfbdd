"""``failure=exponential``: every node fails as a Poisson process of mean ``node_mtbf_hours``.

Default node MTBF ≈ 6,329 h: the Llama 3 rate of 0.474 unexpected interruptions per 1000
GPU-days on 8-GPU nodes (reliability_facts.md §2.1, §5: 3.8 per 1000 node-days). Faults follow
the Llama 3 cause mix (``acmesim.policies.failure.kinds``). Job-level failures are off by default;
set ``script_error_prob`` etc. (see ``failure=acme`` for calibrated values).
"""

from __future__ import annotations

import dataclasses
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


@FAILURES.register("exponential", "poisson")
class ExponentialFailures(FailureModel):
    """Memoryless node faults: exponential times to failure, renewed after each repair."""

    @dataclasses.dataclass(frozen=True)
    class Config(FailureOptions):
        """Options of ``exponential``: the node MTBF plus the shared failure options."""

        node_mtbf_hours: float = LLAMA3_NODE_MTBF_HOURS
        """Mean time between failures of one node (h)."""

        def __post_init__(self) -> None:
            super().__post_init__()
            require_positive(node_mtbf_hours=self.node_mtbf_hours)

    config: Config

    def time_to_failure(
        self, rng: np.random.Generator, n: int, gpus_per_node: int
    ) -> np.ndarray:
        """Exponential node times to failure."""
        return rng.exponential(self.config.node_mtbf_hours * SECONDS_PER_HOUR, size=n)

    def job_mtbf(self, gpus: int, nodes: int) -> float | None:
        """Node MTBF divided by the job's node count."""
        return job_mtbf_from_node_mtbf(nodes, self.config.node_mtbf_hours)
