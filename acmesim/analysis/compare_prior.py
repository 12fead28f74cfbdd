"""Compare a trace with the published statistics of a prior DL trace (Philly, Helios, PAI).

``acmesim characterize TRACE --profile taskdl`` (or ``taskdl_philly``, ``helios``, ``philly``,
``pai``) uses ``profile_comparison``: the rows of ``characterize.compare`` for the prior
trace's targets (``acmesim.trace.targets_prior``), where the whole-trace mean and median
run time become calibration criteria (15 %, ``PRIOR_TOLERANCES``) beside the mean GPU demand,
plus rows for the duration CDF, the single-GPU share of GPU time and the GPU-time-weighted
median GPU utilization when the trace has ``gpu_util`` (against Philly's 48.6 % when the prior
trace publishes none, as Helios), each with its ``TOLERANCES`` entry. Acme cluster names go
straight to ``compare`` with the Acme targets.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pandas as pd

from acmesim.analysis.characterize import ComparisonRow, compare
from acmesim.trace.gpu_util import COLUMN, gpu_time_weighted_util
from acmesim.trace.targets import CLUSTERS, SEREN, TOLERANCES, cluster_targets
from acmesim.trace.targets_prior import (
    PHILLY,
    PRIOR_PROFILES,
    PRIOR_TOLERANCES,
    PRIOR_TRACES,
    PriorTraceTargets,
    as_cluster_targets,
    comparison_profile_names,
)

_RUN_TIME_GROUP = "run time, all GPU jobs (s)"


def profile_names() -> list[str]:
    """Every name ``profile_comparison`` accepts: Acme clusters, then prior-trace profiles."""
    return comparison_profile_names()


def profile_comparison(stats: dict[str, Any], name: str,
                       jobs: pd.DataFrame | None = None) -> list[ComparisonRow]:
    """Published statistics of profile ``name`` beside the measured ``stats`` (see module)."""
    if name in CLUSTERS:
        return compare(stats, cluster_targets(name))
    prior = PRIOR_TRACES[PRIOR_PROFILES[name]]
    rows = compare(stats, as_cluster_targets(prior, SEREN.nodes, SEREN.gpus_per_node))
    rows = [_as_criterion(row) for row in rows]
    return rows + _duration_rows(stats, jobs, prior) + _extra_rows(stats, jobs, prior)


def _as_criterion(row: ComparisonRow) -> ComparisonRow:
    """Whole-trace mean and median run time rows with their 15 % tolerance."""
    if row.group != _RUN_TIME_GROUP:
        return row
    return dataclasses.replace(row, tolerance=PRIOR_TOLERANCES[f"run_time_{row.metric}"])


def _duration_rows(stats: dict[str, Any], jobs: pd.DataFrame | None,
                   prior: PriorTraceTargets) -> list[ComparisonRow]:
    """The whole-trace duration CDF at the published points (needs the job table)."""
    if jobs is None:
        return []
    run = _gpu_run_times(jobs, stats["duration_origin"])
    return [ComparisonRow("run-time CDF of GPU jobs", f"<= {x} s", value,
                          float((run <= x).mean()) if len(run) else float("nan"), "%",
                          TOLERANCES["duration_cdf"], prior.sources["duration_cdf"])
            for x, value in sorted(prior.duration_cdf.items())]


def _extra_rows(stats: dict[str, Any], jobs: pd.DataFrame | None,
                prior: PriorTraceTargets) -> list[ComparisonRow]:
    """Single-GPU share of GPU time and median utilization."""
    rows = [ComparisonRow("GPU demand", "1-GPU share of GPU time",
                          prior.one_gpu_gpu_time_share, stats["gpu_cdf_gpu_time"][1], "%",
                          TOLERANCES["one_gpu_gpu_time_share"],
                          prior.sources["one_gpu_gpu_time_share"])]
    if jobs is not None and COLUMN in jobs:
        reference = prior if prior.median_gpu_util is not None else PHILLY
        published = reference.median_gpu_util
        assert published is not None  # PHILLY publishes its median
        gpu = jobs[jobs["gpu_num"].to_numpy(dtype=np.float64) > 0]
        rows.append(ComparisonRow("GPU utilization",
                                  f"GPU-time-weighted median ({reference.name})",
                                  published, gpu_time_weighted_util(gpu), "%",
                                  TOLERANCES["median_gpu_util"],
                                  reference.sources["median_gpu_util"]))
    return rows


def _gpu_run_times(jobs: pd.DataFrame, origin: str) -> np.ndarray:
    """Run times (s) of the GPU jobs, from ``origin`` to the end."""
    gpu = jobs[jobs["gpu_num"].to_numpy(dtype=np.float64) > 0]
    return (gpu["end_time"] - gpu[origin]).dt.total_seconds().to_numpy(dtype=np.float64)
