"""Queueing delay and JCT per job and per job type, from any jobs table (read, never written).

Shared by the terminal report (``acmesim.cli.report``), the result object of ``acmesim.run``
and the figures of ``acmesim.analysis.plots``.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from acmesim.core.errors import AcmesimError


def seconds(column: pd.Series) -> pd.Series:
    """A time column as float seconds (timestamps become seconds since the epoch)."""
    if pd.api.types.is_datetime64_any_dtype(column):
        return (column - pd.Timestamp(0, tz=column.dt.tz)).dt.total_seconds()
    converted = pd.to_numeric(column, errors="coerce")
    if converted.notna().any() or column.isna().all():
        return converted.astype(float)
    stamps = pd.to_datetime(column, utc=True, errors="coerce")
    return (stamps - pd.Timestamp(0, tz="UTC")).dt.total_seconds()


DELAY_COLUMNS = frozenset({"type", "submit_time", "start_time", "end_time", "queue_delay", "jct"})
"""Every column ``job_delays`` reads (a reader may read these alone)."""


def job_delays(jobs: pd.DataFrame) -> pd.DataFrame:
    """``type``, ``queue_delay`` and ``jct`` (s) per job, from the columns a jobs table has."""
    out = pd.DataFrame({"type": jobs["type"].astype(str) if "type" in jobs else "all"})
    submit = seconds(jobs["submit_time"]) if "submit_time" in jobs else None
    for metric, origin in (("queue_delay", "start_time"), ("jct", "end_time")):
        if metric in jobs:
            out[metric] = pd.to_numeric(jobs[metric], errors="coerce")
        elif submit is not None and origin in jobs:
            out[metric] = seconds(jobs[origin]) - submit
        else:
            raise AcmesimError(f"jobs table has neither {metric!r} nor submit/{origin} columns")
    return out


def by_type_table(jobs: pd.DataFrame) -> pd.DataFrame:
    """Per job type: jobs, mean and median queue delay, mean and median JCT (s)."""
    delays = job_delays(jobs)
    table = delays.groupby("type").agg(
        jobs=("jct", "size"),
        queue_mean=("queue_delay", "mean"),
        queue_p50=("queue_delay", "median"),
        jct_mean=("jct", "mean"),
        jct_p50=("jct", "median"),
    )
    return table.sort_values("jobs", ascending=False)


def duration_text(value: Any) -> str:
    """Seconds as a short human duration (``0.42 s``, ``12.5 min``, ``3.2 h``, ``4.1 d``)."""
    try:
        seconds_ = float(value)
    except (TypeError, ValueError):
        return "-"
    if seconds_ != seconds_:
        return "-"
    for unit, size in (("d", 86400.0), ("h", 3600.0), ("min", 60.0)):
        if abs(seconds_) >= size:
            return f"{seconds_ / size:.1f} {unit}"
    return f"{seconds_:.3g} s"
