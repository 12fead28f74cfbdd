"""The failures table (one row per injected fault) and the summary's failure-source fields."""

from __future__ import annotations

import dataclasses
from typing import Any

import pandas as pd

from acmesim.policies.failure.base import FailureSources
from acmesim.policies.failure.events import FailureEvent
from acmesim.results.schema import FAILURES


@dataclasses.dataclass
class FailureRow:
    """One fault and what it did, filled in while the fault is handled."""

    failure_id: int
    fault: FailureEvent
    nodes: list[str]
    nodes_down: int = 0
    jobs_requeued: int = 0
    spare_nodes_used: int = 0
    gpus_hit: int = 0
    lost_gpu_time: float = 0.0
    job_ids: list[str] = dataclasses.field(default_factory=list)

    def hit(self, job: Any, rolled_back_gpu_time: float) -> None:
        """Count ``job`` as hit, with the GPU time of its rolled-back work."""
        self.job_ids.append(job.job_id)
        self.gpus_hit += job.gpu_num
        self.lost_gpu_time += rolled_back_gpu_time

    def record(self) -> dict[str, Any]:
        """The row as ``failures.csv`` fields."""
        fault = self.fault
        return {
            "failure_id": self.failure_id, "time": fault.time, "kind": fault.kind,
            "scope": fault.scope, "target": fault.target,
            "gpu": "" if fault.gpu is None else str(fault.gpu),
            "nodes": ";".join(self.nodes), "nodes_down": self.nodes_down,
            "detection_delay": fault.detection_delay, "repair_time": fault.repair_time,
            "jobs_hit": len(self.job_ids), "gpus_hit": self.gpus_hit,
            "jobs_requeued": self.jobs_requeued, "spare_nodes_used": self.spare_nodes_used,
            "lost_gpu_time": self.lost_gpu_time, "job_ids": ";".join(self.job_ids),
        }


class FailureLog:
    """Every fault of a run, in the order it struck."""

    def __init__(self) -> None:
        self.rows: list[FailureRow] = []

    def __len__(self) -> int:
        return len(self.rows)

    def start(self, fault: FailureEvent, nodes: list[str]) -> FailureRow:
        """Open the row of a fault striking ``nodes`` now."""
        row = FailureRow(len(self.rows), fault, nodes)
        self.rows.append(row)
        return row

    def frame(self) -> pd.DataFrame:
        """The table with exactly the ``FAILURES`` columns (typed even when empty)."""
        dtypes = {"int": "int64", "float": "float64", "str": "object"}
        if not self.rows:
            return pd.DataFrame({c.name: pd.Series(dtype=dtypes[c.kind])
                                 for c in FAILURES.columns})
        frame = pd.DataFrame([row.record() for row in self.rows], columns=FAILURES.names)
        return frame.astype({c.name: dtypes[c.kind] for c in FAILURES.columns})


def sources_fields(sources: FailureSources) -> dict[str, str]:
    """``trace_outcomes`` and ``job_failures_from`` as the summary states them."""
    if sources.recorded and sources.job_failures:
        return {"trace_outcomes": "both", "job_failures_from": "trace+model"}
    if sources.recorded:
        return {"trace_outcomes": "replay", "job_failures_from": "trace"}
    return {"trace_outcomes": "replace", "job_failures_from": "model"}
