"""Time-weighted means of the cluster's step curve over fixed intervals (exact integrals)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from acmesim.core.errors import ConfigError
from acmesim.results.recorders import StepRecorder
from acmesim.results.schema import UTILIZATION

CURVE_FIELDS = tuple(f for f in StepRecorder.FIELDS if f in UTILIZATION.names)
"""The step-curve fields utilization.csv reports (``busy_load`` is the power accounting's)."""
POWER_COLUMNS = ("power_kw", "power_idle_kw", "power_waiting_kw", "power_running_kw")
YEAR = 365.25 * 86_400.0
MAX_INTERVALS = 10_000_000
"""Most rows a utilization table may have (~1 GB of CSV); **chosen**: 1,141 years hourly,
19 years by the minute. A run longer than that (nodes down for ~forever) is an error naming
``utilization_interval``, not an allocation proportional to its span."""


def integral(time: np.ndarray, values: np.ndarray, at: np.ndarray) -> np.ndarray:
    """Integral from 0 to each of ``at`` of the step function ``values`` (0 before time[0])."""
    if len(time) == 0:
        return np.zeros(len(at))
    values = values.astype(np.float64)
    widths = np.diff(time)
    cumulative = np.concatenate(([0.0], np.cumsum(values[:-1] * widths)))
    k = np.searchsorted(time, at, side="right") - 1
    inside = k >= 0
    kk = np.where(inside, k, 0)
    result = cumulative[kk] + values[kk] * (at - time[kk])
    return np.where(inside, result, 0.0)


def utilization_table(curve: dict[str, np.ndarray], end: float, interval: float,
                      total_gpus: int) -> pd.DataFrame:
    """One row per ``interval`` seconds from 0 to ``end``: time-weighted means of the curve."""
    if not interval > 0:
        raise ConfigError(f"utilization_interval must be > 0 seconds, got {interval!r}")
    if end <= 0:
        return pd.DataFrame({c.name: pd.Series(dtype=_dtype(c.kind))
                             for c in UTILIZATION.columns})
    rows = float(np.ceil(end / interval))
    if not rows <= MAX_INTERVALS:
        raise ConfigError(
            f"the run lasted {end:.6g} s ({end / YEAR:.3g} years): utilization.csv would need "
            f"{rows:.3g} rows of utilization_interval={interval:g} s, more than "
            f"{MAX_INTERVALS:,}; raise utilization_interval (or check the repair times and "
            f"capacity that kept jobs waiting so long)")
    count = int(rows)
    edges = np.minimum(np.arange(count + 1, dtype=np.float64) * interval, end)
    widths = np.diff(edges)
    table = {"interval_start": edges[:-1], "interval_end": edges[1:]}
    for name in CURVE_FIELDS:
        area = integral(curve["time"], curve[name], edges)
        table[name] = np.diff(area) / widths
    table["gpu_utilization"] = table["busy_gpus"] / total_gpus
    for name in POWER_COLUMNS:  # filled by a power model (acmesim.energy), else empty
        table[name] = np.full(count, np.nan)
    return pd.DataFrame(table)[UTILIZATION.names]


def _dtype(kind: str) -> str:
    """pandas dtype of a schema kind."""
    return {"int": "int64", "float": "float64", "str": "object"}[kind]
