"""``failure=none``: no modeled failures; recorded trace outcomes are replayed as they are."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from acmesim.policies.failure import FAILURES
from acmesim.policies.failure.base import FailureModelProtocol, failure_sources
from acmesim.policies.failure.events import ClusterInfo, FailureEvent, JobFailure, check_horizon

if TYPE_CHECKING:
    import numpy as np


@FAILURES.register("none")
class NoFailures(FailureModelProtocol):
    """A cluster that never fails; jobs end only as the trace records."""

    def __init__(self, config: Any, **context: Any) -> None:
        self.config = config
        self.sources = failure_sources("replay", modeled=False)

    def events(
        self, cluster: ClusterInfo, horizon: float, rng: np.random.Generator
    ) -> Iterator[FailureEvent]:
        """No faults."""
        check_horizon(horizon)
        return iter(())

    def window_events(
        self, cluster: ClusterInfo, start: float, end: float, rng: np.random.Generator
    ) -> Iterator[FailureEvent]:
        """No faults in any window."""
        return self.events(cluster, end - start, rng)

    def job_software_failure(self, job: Any, rng: np.random.Generator) -> JobFailure | None:
        """Never a modeled job failure."""
        return None

    def job_mtbf(self, gpus: int, nodes: int) -> float | None:
        """Jobs never see a fault."""
        return float("inf")
