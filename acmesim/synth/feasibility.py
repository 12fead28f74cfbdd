"""Check that a job table's recorded start and end times fit on a cluster of a given size.

A sweep over start/end events (an end at time t frees its GPUs before a start at t) verifies at
every instant that (1) busy GPUs never exceed ``nodes x gpus_per_node`` and (2) whole nodes
never run out: multi-node jobs hold ``node_num`` whole nodes and the single-node jobs need at
least ``ceil(their GPUs / gpus_per_node)`` further nodes (and one node each for jobs of more than
half a node, which cannot share). For GPU counts that divide the node size (1, 2, 4, 8) the node
condition is exact, because such sizes always pack perfectly; for other sizes it is necessary.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd


@dataclasses.dataclass(frozen=True)
class FeasibilityReport:
    """The outcome of a feasibility check; ``ok`` is False at the first violating instant."""

    ok: bool
    peak_gpus: int
    peak_nodes: int
    capacity_gpus: int
    nodes: int
    violation_time: pd.Timestamp | None = None
    message: str = ""

    def __bool__(self) -> bool:
        return self.ok


def check_feasibility(jobs: pd.DataFrame, nodes: int, gpus_per_node: int = 8
                      ) -> FeasibilityReport:
    """Verify that ``jobs`` (normalized table) never needs more GPUs or nodes than exist."""
    gpu_jobs = jobs[pd.to_numeric(jobs["gpu_num"]) > 0]
    capacity = nodes * gpus_per_node
    if gpu_jobs.empty:
        return FeasibilityReport(True, 0, 0, capacity, nodes)
    start = _seconds(gpu_jobs["start_time"])
    end = _seconds(gpu_jobs["end_time"])
    gpus = gpu_jobs["gpu_num"].to_numpy(dtype=np.int64)
    node_num = np.maximum(gpu_jobs["node_num"].to_numpy(dtype=np.int64), 1)
    ids = (gpu_jobs["job_id"].astype(str).to_numpy() if "job_id" in gpu_jobs.columns
           else np.arange(len(gpu_jobs)).astype(str))
    bad = _job_level_problem(start, end, gpus, node_num, nodes, gpus_per_node, ids)
    if bad:
        return FeasibilityReport(False, 0, 0, capacity, nodes, message=bad)
    multi = (node_num > 1) | (gpus > gpus_per_node)
    whole = np.where(multi, np.maximum(node_num, -(-gpus // gpus_per_node)), 0)
    single_gpus = np.where(multi, 0, gpus)
    big_single = (~multi & (2 * gpus > gpus_per_node)).astype(np.int64)
    times = np.concatenate([end, start])
    kind = np.concatenate([np.zeros(len(end), np.int8), np.ones(len(start), np.int8)])
    sign = np.where(kind == 1, 1, -1)
    order = np.lexsort((kind, times))
    busy = np.cumsum((np.concatenate([gpus, gpus]) * sign)[order])
    held = np.cumsum((np.concatenate([whole, whole]) * sign)[order])
    single = np.cumsum((np.concatenate([single_gpus, single_gpus]) * sign)[order])
    bigs = np.cumsum((np.concatenate([big_single, big_single]) * sign)[order])
    need = held + np.maximum(-(-single // gpus_per_node), bigs)
    peak_gpus, peak_nodes = int(busy.max()), int(need.max())
    over = np.flatnonzero((busy > capacity) | (need > nodes))
    if over.size == 0:
        return FeasibilityReport(True, peak_gpus, peak_nodes, capacity, nodes)
    at = int(over[0])
    when = pd.Timestamp(int(times[order][at]), unit="s", tz="UTC")
    message = (f"at {when}: {int(busy[at])} GPUs busy of {capacity}, "
               f"{int(need[at])} nodes needed of {nodes}")
    return FeasibilityReport(False, peak_gpus, peak_nodes, capacity, nodes, when, message)


def _job_level_problem(start: np.ndarray, end: np.ndarray, gpus: np.ndarray,
                       node_num: np.ndarray, nodes: int, gpus_per_node: int,
                       ids: np.ndarray) -> str:
    """A description of the first job that cannot run at all, or ``""``."""
    checks = (
        (end < start, "ends before it starts"),
        (gpus > node_num * gpus_per_node, "asks for more GPUs than its nodes hold"),
        (node_num > nodes, "asks for more nodes than the cluster has"),
    )
    for mask, text in checks:
        if mask.any():
            return f"job {ids[int(np.flatnonzero(mask)[0])]} {text}"
    return ""


def _seconds(values: pd.Series) -> np.ndarray:
    """Timestamps as integer epoch seconds."""
    stamps = pd.DatetimeIndex(pd.to_datetime(values, utc=True)).as_unit("s")
    return stamps.asi8.astype(np.int64)
