"""The one-row summary of a run: counts by outcome, JCT and queueing statistics, utilization."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from acmesim.core.numeric import exact_dot
from acmesim.results.schema import STATS, SUMMARY
from acmesim.trace.schema import FAILED_STATES, FINAL_STATES, JOB_TYPES

HOUR = 3600.0


def _stats(values: np.ndarray) -> list[float]:
    """mean, p50, p95, p99 of ``values`` (NaN when empty)."""
    if len(values) == 0:
        return [float("nan")] * len(STATS)
    p50, p95, p99 = np.percentile(values, [50, 95, 99])
    return [float(values.mean()), float(p50), float(p95), float(p99)]


def _stat_fields(metrics: Mapping[str, np.ndarray], suffix: str = "",
                 rows: np.ndarray | None = None) -> dict[str, float]:
    """jct_* and queue_delay_* statistics of ``metrics`` (each metric's values, of the jobs
    where ``rows`` is true if given: no copy of the jobs table per job type)."""
    out: dict[str, float] = {}
    for metric, values in metrics.items():
        chosen = values if rows is None else values[rows]
        for stat, value in zip(STATS, _stats(chosen), strict=True):
            out[f"{metric}_{stat}{suffix}"] = value
    return out


def job_statistics(jobs: pd.DataFrame, total_gpus: int, recorded: bool) -> dict[str, Any]:
    """Every summary field computed from the jobs table."""
    out: dict[str, Any] = {"simulated_jobs": len(jobs)}
    states = jobs["state"].value_counts()
    for state in FINAL_STATES:
        out[f"jobs_{state.lower()}"] = int(states.get(state, 0))
    out["jobs_other_state"] = int(len(jobs) - sum(states.get(s, 0) for s in FINAL_STATES))
    late = (jobs["start_time"] - jobs["recorded_start_time"]).to_numpy(dtype=float)
    late = late[late > 0] if recorded else late[:0]
    out["recorded_late_jobs"] = len(late)
    out["recorded_delay_mean"] = float(late.mean()) if len(late) else 0.0
    out["recorded_delay_max"] = float(late.max()) if len(late) else 0.0
    out["recorded_delay_total"] = float(late.sum())
    first = float(jobs["submit_time"].min()) if len(jobs) else 0.0
    makespan = float(jobs["end_time"].max()) - first if len(jobs) else 0.0
    out["makespan"] = makespan
    metrics = {m: jobs[m].to_numpy(dtype=float) for m in ("jct", "queue_delay")}
    out.update(_stat_fields(metrics))
    types = jobs["type"]
    for job_type in JOB_TYPES:
        out.update(_stat_fields(metrics, f"_{job_type.lower()}",
                                (types == job_type).to_numpy()))
    gpu = jobs["pool"] == "gpu"
    gpu_num = jobs["gpu_num"].to_numpy(dtype=float)
    out["gpu_time"] = exact_dot(jobs["run_time"].to_numpy(dtype=float)[gpu], gpu_num[gpu])
    out["trace_gpu_time"] = exact_dot(jobs["recorded_run_time"].to_numpy(dtype=float), gpu_num)
    out["gpu_utilization"] = (out["gpu_time"] / (total_gpus * makespan)) if makespan > 0 else 0.0
    out["preemptions"] = int(jobs["preemptions"].sum())
    out["failures"] = int(jobs["failures"].sum())
    out["lost_gpu_time"] = float(jobs["lost_gpu_time"].sum())
    out.update(reliability_statistics(jobs))
    return out


def reliability_statistics(jobs: pd.DataFrame) -> dict[str, Any]:
    """Restarts, checkpoint stalls, failed jobs' GPU time, recovery waits, pretraining ETTR."""
    gpu_num = jobs["gpu_num"].to_numpy(dtype=float)
    failed = jobs["state"].isin(sorted(FAILED_STATES)).to_numpy()
    held = jobs["run_time"].to_numpy(dtype=float) * gpu_num
    stalls = jobs["checkpoint_overhead"].to_numpy(dtype=float) * gpu_num
    pretrain = (jobs["type"] == "Pretrain").to_numpy()
    wall = float(np.nansum(jobs["end_time"].to_numpy(dtype=float)[pretrain]
                           - jobs["start_time"].to_numpy(dtype=float)[pretrain]))
    return {
        "restarts": int(jobs["restarts"].sum()),
        "lost_gpu_hours_checkpoints": float(stalls.sum()) / HOUR,
        "failed_job_gpu_hours": float(held[failed].sum()) / HOUR,
        "recovery_wait_hours": float(jobs["recovery_wait"].sum()) / HOUR,
        "ettr_pretrain": (float(np.nansum(jobs["work_done"].to_numpy(dtype=float)[pretrain]))
                          / wall if wall > 0 else float("nan")),
    }


def loss_by_cause(jobs: pd.DataFrame, failure_lost_gpu_time: float) -> dict[str, float]:
    """Lost GPU-hours split between failures and preemptions (the rest of ``lost_gpu_time``)."""
    total = float(jobs["lost_gpu_time"].sum())
    return {"lost_gpu_hours_failures": failure_lost_gpu_time / HOUR,
            "lost_gpu_hours_preemptions": max(0.0, total - failure_lost_gpu_time) / HOUR}


def summary_row(fields: Mapping[str, Any]) -> dict[str, Any]:
    """A full summary row in schema order; missing fields are empty (failed runs)."""
    unknown = set(fields) - set(SUMMARY.names)
    if unknown:
        raise KeyError(f"summary fields not in the schema: {sorted(unknown)}")
    return {name: fields.get(name, None) for name in SUMMARY.names}
