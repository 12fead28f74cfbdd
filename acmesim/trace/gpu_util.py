"""Per-job GPU utilization: the mean fraction of a job's allocated GPU time its GPUs were busy.

A job table may carry the extra column ``gpu_util`` (float in [0, 1]; NaN for CPU-only jobs),
so a replay can report *busy-but-idle* GPU time: GPUs held by a job but not computing. Values
are drawn per job from a Beta distribution given by its mean and concentration, per job type:

- LLM work (Acme types): pretraining keeps its GPUs almost always busy; the published median GPU
  utilization of Seren and Kalos is 97-99 % (acme_facts.md §6, §7; R-PKL), and pretraining holds
  70-95 % of their GPU time (§2.2), so the GPU-time-weighted median lands there. Evaluation is
  about half GPU inference (model loading 29.5 % of the job's time, metric computation with the
  GPU idle; §5). The other means are **assumptions** between those ends.
- Task-specific DL (``taskdl`` classes) is set by its profile (``taskdl.py``).

Values are rounded to 4 decimals so they survive a CSV round trip exactly.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import numpy as np
import pandas as pd

from acmesim.core.rng import RngStreams

COLUMN = "gpu_util"
"""Name of the per-job GPU utilization column in a normalized job table."""

DECIMALS = 4
"""Decimals kept (exact CSV round trip through ``repr``)."""


@dataclasses.dataclass(frozen=True)
class UtilModel:
    """A Beta distribution of per-job GPU utilization by its mean and concentration (a + b)."""

    mean: float
    concentration: float

    def __post_init__(self) -> None:
        if not 0.0 < self.mean < 1.0 or self.concentration <= 0.0:
            raise ValueError(f"utilization model needs 0 < mean < 1 and concentration > 0, "
                             f"got {self.mean}, {self.concentration}")

    def draw(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """``n`` utilizations in [0, 1], rounded to ``DECIMALS``."""
        a = self.mean * self.concentration
        b = (1.0 - self.mean) * self.concentration
        return np.round(rng.beta(a, b, size=n), DECIMALS)


ACME_UTIL: dict[str, UtilModel] = {
    # acme_facts.md §6/§7: median GPU utilization 97-99 % in Seren and Kalos, where pretraining
    # holds most GPU time; mean 0.98, sd ~0.008 (assumption for the spread)
    "Pretrain": UtilModel(0.98, 300.0),
    # acme_facts.md §5: about half of an evaluation job's time is GPU inference
    "Eval": UtilModel(0.50, 6.0),
    # assumptions: fine-tuning runs are dense training (high), multimodal a little lower
    # (data loading of images), debugging and other jobs idle much of the time
    "SFT": UtilModel(0.85, 20.0),
    "MLLM": UtilModel(0.80, 15.0),
    "Debug": UtilModel(0.45, 4.0),
    "Other": UtilModel(0.65, 4.0),
}
"""Acme job type -> its utilization model."""

DEFAULT_UTIL = UtilModel(0.65, 4.0)
"""Assumption for job types no model names (as Acme's ``Other``)."""


def with_gpu_util(jobs: pd.DataFrame, seed: int,
                  models: Mapping[str, UtilModel] = ACME_UTIL,
                  default: UtilModel = DEFAULT_UTIL) -> pd.DataFrame:
    """A copy of ``jobs`` with a ``gpu_util`` column drawn per type (kept where already set).

    GPU jobs of type ``t`` draw from ``models[t]`` (``default`` when absent) in row order, from
    the stream ``gpu_util/<t>`` of ``RngStreams(seed)``; CPU-only jobs get NaN.
    """
    out = jobs.copy()
    existing = (out[COLUMN].to_numpy(dtype=np.float64) if COLUMN in out
                else np.full(len(out), np.nan))
    values = existing.copy()
    streams = RngStreams(seed)
    gpu = out["gpu_num"].to_numpy(dtype=np.float64) > 0
    types = out["type"].astype(str).to_numpy()
    missing = gpu & np.isnan(existing)
    for job_type in sorted(set(types[missing].tolist())):
        rows = np.flatnonzero(missing & (types == job_type))
        model = models.get(job_type, default)
        values[rows] = model.draw(streams.stream(f"gpu_util/{job_type}"), len(rows))
    values[~gpu] = np.nan
    out[COLUMN] = values
    return out


def weighted_quantile(values: np.ndarray, weights: np.ndarray, q: float) -> float:
    """The ``q`` quantile of ``values`` weighted by ``weights`` (lower value at ties)."""
    values = np.asarray(values, dtype=np.float64)
    weights = np.asarray(weights, dtype=np.float64)
    keep = ~np.isnan(values) & (weights > 0)
    values, weights = values[keep], weights[keep]
    if len(values) == 0:
        return float("nan")
    order = np.argsort(values, kind="stable")
    cumulative = np.cumsum(weights[order])
    index = int(np.searchsorted(cumulative, q * cumulative[-1], side="left"))
    return float(values[order][min(index, len(values) - 1)])


def gpu_time_weighted_util(jobs: pd.DataFrame, q: float = 0.5) -> float:
    """The ``q`` quantile of ``gpu_util`` over the GPU time (run_time x gpu_num) of GPU jobs."""
    weights = jobs["run_time"].to_numpy(dtype=np.float64) * jobs["gpu_num"].to_numpy(
        dtype=np.float64)
    return weighted_quantile(jobs[COLUMN].to_numpy(dtype=np.float64), weights, q)


def busy_gpu_time(jobs: pd.DataFrame) -> tuple[float, float]:
    """(busy, allocated) GPU-seconds of the GPU jobs with a known ``gpu_util``."""
    util = jobs[COLUMN].to_numpy(dtype=np.float64)
    allocated = jobs["run_time"].to_numpy(dtype=np.float64) * jobs["gpu_num"].to_numpy(
        dtype=np.float64)
    known = ~np.isnan(util) & (allocated > 0)
    return float((util[known] * allocated[known]).sum()), float(allocated[known].sum())
