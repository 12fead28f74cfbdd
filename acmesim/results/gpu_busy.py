"""Busy-but-idle GPU time of a replay: GPUs held by jobs but not computing.

A trace may give each job its GPU utilization (extra column ``gpu_util``, the mean fraction of
the job's GPU time its GPUs were busy; ``acmesim.trace.gpu_util``). A job that holds
``run_time x gpu_num`` GPU-seconds in the simulation keeps ``gpu_util`` of them busy and the
rest idle, so the summary reports how much of the allocated GPU time a policy hands to work that
leaves it idle (near none for LLM pretraining, much for RL and small jobs).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from acmesim.trace.gpu_util import COLUMN

FIELDS: tuple[str, ...] = ("gpu_util_jobs", "busy_gpu_time", "idle_gpu_time")
"""The summary fields this module fills (declared in ``acmesim.results.schema.SUMMARY``)."""


def gpu_busy_input(trace: pd.DataFrame) -> pd.DataFrame:
    """The columns of the input table ``gpu_busy_fields`` reads (``job_id`` and ``gpu_util``;
    none when the trace has no ``gpu_util``): what a run keeps of its input once the engine's
    job table is built, so the input table itself can be freed before the loop."""
    if COLUMN not in trace.columns:
        return pd.DataFrame()
    return trace[["job_id", COLUMN]]


def gpu_busy_fields(result_jobs: pd.DataFrame, trace: pd.DataFrame) -> dict[str, Any]:
    """Busy and idle GPU-seconds of the simulated GPU jobs whose trace row has ``gpu_util``.

    ``result_jobs`` is the jobs table of a simulation (``run_time`` = time held), ``trace`` the
    input table; rows are matched by ``job_id`` (the first row of a repeated id). Returns no
    fields when the trace has no ``gpu_util`` column.
    """
    if COLUMN not in trace.columns:
        return {}
    first = trace.drop_duplicates("job_id")
    util_by_id = pd.Series(first[COLUMN].to_numpy(dtype=np.float64),
                           index=first["job_id"].astype(str).to_numpy())
    util = result_jobs["job_id"].astype(str).map(util_by_id).to_numpy(dtype=np.float64)
    held = (result_jobs["run_time"].to_numpy(dtype=np.float64)
            * result_jobs["gpu_num"].to_numpy(dtype=np.float64))
    known = ~np.isnan(util) & (result_jobs["gpu_num"].to_numpy() > 0)
    busy = float((held[known] * util[known]).sum())
    return {"gpu_util_jobs": int(known.sum()), "busy_gpu_time": busy,
            "idle_gpu_time": float(held[known].sum()) - busy}
