"""``failure=trace``: replay the faults listed in a failure trace CSV (time, node, kind).

The format is documented in ``acmesim.policies.failure.failure_trace``. Missing detection delays and
repair times are filled from each kind's defaults (``acmesim.policies.failure.kinds``) with the
caller's RNG stream, so a run stays reproducible. Usage:
``failure=trace failure.path=faults.csv``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from acmesim.core.bounds import require_positive
from acmesim.core.errors import TraceError
from acmesim.policies.failure import FAILURES
from acmesim.policies.failure.base import FailureModel, FailureOptions, resolve_target
from acmesim.policies.failure.events import ClusterInfo, FailureEvent, check_horizon
from acmesim.policies.failure.failure_trace import TraceFault, read_failure_trace
from acmesim.policies.failure.rates import job_mtbf_from_node_mtbf
from acmesim.policies.failure.windows import faults_from

if TYPE_CHECKING:
    import numpy as np


@FAILURES.register("trace")
class TraceFailures(FailureModel):
    """Faults read from a CSV file instead of drawn from a distribution."""

    @dataclasses.dataclass(frozen=True)
    class Config(FailureOptions):
        """Options of ``trace``: the CSV path and, optionally, the node MTBF it represents."""

        path: str = ""
        """CSV file of the faults to inject (time, node, kind; see docs/failures.md)."""
        node_mtbf_hours: float | None = None
        """Node MTBF the file represents, for checkpoint policies (h; null: unknown)."""

        def __post_init__(self) -> None:
            super().__post_init__()
            if not self.path:
                raise ValueError("failure=trace needs failure.path=<faults.csv>")
            require_positive(node_mtbf_hours=self.node_mtbf_hours)

    config: Config

    def __init__(self, config: Config, **context: Any) -> None:
        super().__init__(config, **context)
        self.faults = read_failure_trace(config.path, self.mix.names())

    def events(
        self, cluster: ClusterInfo, horizon: float, rng: np.random.Generator
    ) -> Iterator[FailureEvent]:
        """The trace's faults before ``horizon``; unknown nodes are a ``TraceError``."""
        import numpy as np
        horizon = check_horizon(horizon)
        index = {node: i for i, node in enumerate(cluster.nodes)}
        faults = [f for f in self.faults if f.time < horizon]
        kinds = np.array([self.mix.index(f.kind) for f in faults], dtype=np.int64)
        drawn_repair = self.mix.repair_of(kinds, rng)
        drawn_gpu = rng.integers(cluster.gpus_per_node, size=len(faults))
        events = [
            self._trace_event(cluster, index, f, float(drawn_repair[i]), int(drawn_gpu[i]))
            for i, f in enumerate(faults)
        ]
        return iter(events)

    def window_events(
        self, cluster: ClusterInfo, start: float, end: float, rng: np.random.Generator
    ) -> Iterator[FailureEvent]:
        """The trace's faults in ``[start, end)`` (the trace's own times, not restarted)."""
        return faults_from(self, cluster, start, end, rng)

    def job_mtbf(self, gpus: int, nodes: int) -> float | None:
        """From ``node_mtbf_hours`` when given; otherwise unknown (None)."""
        if self.config.node_mtbf_hours is None:
            return None
        return job_mtbf_from_node_mtbf(nodes, self.config.node_mtbf_hours)

    def _trace_event(
        self, cluster: ClusterInfo, index: dict[str, int], fault: TraceFault, repair: float,
        gpu: int,
    ) -> FailureEvent:
        """The ``FailureEvent`` of one trace row, defaults filled in."""
        if fault.node not in index:
            raise TraceError(self.config.path, "node is not in the cluster", line=fault.line,
                             column="node", value=fault.node,
                             expected=f"a node id such as {cluster.nodes[0]!r}")
        if fault.gpu is not None and fault.gpu >= cluster.gpus_per_node:
            raise TraceError(self.config.path, "GPU index out of range", line=fault.line,
                             column="gpu", value=fault.gpu,
                             expected=f"0..{cluster.gpus_per_node - 1}")
        kind = self.mix.kinds[self.mix.index(fault.kind)]
        scope, target = resolve_target(kind, cluster, index[fault.node])
        detection = kind.detection_s if fault.detection_delay is None else fault.detection_delay
        return FailureEvent(
            fault.time, kind.name, scope, target, detection,
            repair if fault.repair_time is None else fault.repair_time,
            (gpu if fault.gpu is None else fault.gpu) if scope == "gpu" else None,
        )

