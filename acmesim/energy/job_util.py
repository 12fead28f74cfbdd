"""Each GPU job's utilization for the power model: the trace's ``gpu_util``, else a draw.

A trace may carry ``gpu_util`` (``acmesim.trace.gpu_util``: ``trace=synthetic`` and the
workload mixes set it per job type). The Acme trace files, and a table from ``generate_trace``
used directly, do not, so the GPU jobs without one draw it from ``DERIVED``, from the random
stream ``power.gpu_util``:

- the published GPU utilization of Seren is bimodal: about 31% of samples near 0% and a median of
  99% (acme_facts.md §6, R-PKL), while about 29% of the GPUs are idle (28-30% of power samples
  are <= 70 W; §6 power). The idle GPUs account for nearly all the samples near 0%, so
  **[derived]** the share of *allocated* GPU time near 0% is (0.31 - 0.29) / (1 - 0.29) ~ 3%:
  ``zero_share = 0.03`` of the jobs run at utilization 0;
- the others draw from a Beta distribution of mean 0.97 and concentration 20 (**assumption**
  for the spread; median about 0.98, so the allocated samples' median is near the published
  99%).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np
import pandas as pd

from acmesim.trace.gpu_util import COLUMN


@dataclasses.dataclass(frozen=True)
class DerivedUtilization:
    """A share of jobs at utilization 0, the rest from Beta(mean, concentration)."""

    zero_share: float
    mean: float
    concentration: float

    def draw(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """``n`` utilizations in [0, 1] (two draws per job, in this order: share, Beta)."""
        zero = rng.random(n) < self.zero_share
        a = self.mean * self.concentration
        b = (1.0 - self.mean) * self.concentration
        return np.where(zero, 0.0, rng.beta(a, b, size=n))


DERIVED = DerivedUtilization(zero_share=0.03, mean=0.97, concentration=20.0)
"""The per-job utilization of jobs whose trace row gives none (see the module)."""


def trace_utilization(frame: pd.DataFrame, job_ids: Sequence[str]) -> np.ndarray:
    """``gpu_util`` of each of ``job_ids`` from ``frame`` (first row of an id; NaN if absent)."""
    if COLUMN not in frame.columns:
        return np.full(len(job_ids), np.nan)
    first = frame.drop_duplicates("job_id")
    by_id = pd.Series(first[COLUMN].to_numpy(dtype=np.float64),
                      index=first["job_id"].astype(str).to_numpy())
    ids = pd.Series(np.asarray(job_ids, dtype=object), dtype=object).astype(str)
    return ids.map(by_id).to_numpy(dtype=np.float64)


def job_utilization(given: np.ndarray, rng: np.random.Generator,
                    derived: DerivedUtilization = DERIVED) -> tuple[np.ndarray, int]:
    """``given`` with its NaNs drawn from ``derived``; returns it and how many were drawn."""
    util = np.array(given, dtype=np.float64)
    missing = np.isnan(util)
    count = int(missing.sum())
    if count:
        util[missing] = derived.draw(rng, count)
    return np.clip(util, 0.0, 1.0), count
