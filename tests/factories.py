"""Hand-made normalized job tables for engine tests (the acmesim.trace.schema columns)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import pandas as pd

from acmesim.cluster import ClusterSpec
from acmesim.sim.extension import Extension

T0 = pd.Timestamp("2023-03-01 00:00:00", tz="UTC")
"""Time 0 of factory traces (the earliest submission is put here unless told otherwise)."""


def job(submit: float, run: float, gpus: int = 1, nodes: int = 1, *, start: float | None = None,
        state: str = "COMPLETED", type: str = "Other", user: str = "u1",  # noqa: A002
        cpus: int | None = None, job_id: str | None = None) -> dict[str, Any]:
    """One job row in seconds; ``start`` defaults to ``submit`` (no recorded queueing)."""
    return {"job_id": job_id, "user": user, "type": type, "state": state,
            "submit": submit, "start": submit if start is None else start, "run": run,
            "gpu_num": gpus, "node_num": nodes, "cpu_num": 16 * gpus if cpus is None else cpus}


def frame(rows: Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """A normalized job table from ``job(...)`` rows (ids j0, j1, ... unless given)."""
    records = []
    for i, row in enumerate(rows):
        submit = T0 + pd.to_timedelta(row["submit"], unit="s")
        start = T0 + pd.to_timedelta(row["start"], unit="s")
        end = start + pd.to_timedelta(row["run"], unit="s")
        records.append({
            "job_id": row["job_id"] or f"j{i}", "user": row["user"], "type": row["type"],
            "state": row["state"], "submit_time": submit, "start_time": start,
            "end_time": end, "run_time": float(row["run"]),
            "queue_time": (start - submit).total_seconds(),
            "gpu_num": int(row["gpu_num"]), "node_num": int(row["node_num"]),
            "cpu_num": int(row["cpu_num"]),
        })
    columns = ["job_id", "user", "type", "state", "submit_time", "start_time", "end_time",
               "run_time", "queue_time", "gpu_num", "node_num", "cpu_num"]
    table = pd.DataFrame.from_records(records, columns=columns)
    for column in ("submit_time", "start_time", "end_time"):
        table[column] = pd.to_datetime(table[column], utc=True)
    return table


def cluster(nodes: int = 1, *, gpus: int = 8, per_leaf: int = 2, per_spine: int = 2,
            cpu_nodes: int = 0, cpus_per_cpu_node: int = 128) -> ClusterSpec:
    """A small cluster spec for tests."""
    return ClusterSpec(name="test", nodes=nodes, gpus_per_node=gpus, nodes_per_leaf=per_leaf,
                       leaves_per_spine=per_spine, cpu_nodes=cpu_nodes,
                       cpus_per_cpu_node=cpus_per_cpu_node)


def by_id(result_jobs: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """Rows of a jobs table keyed by job_id."""
    return {row["job_id"]: row for row in result_jobs.to_dict("records")}


class OnAttach(Extension):
    """An extension that only calls ``callback(sim)`` when attached (probes, test faults)."""

    def __init__(self, callback: Callable[[Any], None]) -> None:
        self.callback = callback

    def attach(self, sim: Any) -> None:
        self.callback(sim)


class OnArrival(Extension):
    """An extension that only calls ``callback(job)`` as each job arrives (probes, preparers)."""

    def __init__(self, callback: Callable[[Any], None]) -> None:
        self.callback = callback

    def on_arrival(self, job: Any) -> None:
        self.callback(job)
