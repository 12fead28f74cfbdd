"""The statistics the Acme paper reports for a trace, and their comparison with the published ones.

``characterize(jobs)`` works on any normalized job table (a real trace read with
``acmesim.load_trace`` or a synthetic one) and returns plain dicts and numbers (JSON-ready
after ``to_jsonable``). ``compare(stats, targets)`` puts each published value of
``acmesim.trace.targets`` beside the measured one, with its error and a pass/fail against
its tolerance (``ClusterTargets.tolerance``, from ``TOLERANCES``): every published value gets
a verdict.

Conventions: shares are fractions of GPU jobs (``gpu_num > 0``); GPU time is run time x GPUs;
TIMEOUT and NODE_FAIL count as FAILED (AcmeTrace README); percentiles use numpy's linear
interpolation. The *run time* statistics use the cluster's published ``duration``: ``end -
start`` by default, ``end - submit`` for Kalos (``duration_origin="submit_time"``), because the
published Kalos figures are built from that column (schema_examples.md).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np
import pandas as pd

from acmesim.analysis.sampling import percentile_bands, within
from acmesim.trace.schema import FAILED_STATES, JOB_TYPES
from acmesim.trace.targets import ClusterTargets, Tolerance

RUN_PERCENTILES: tuple[int, ...] = (25, 50, 75, 90, 95, 99)
"""Run-time percentiles of the paper's per-type table (acme_facts.md §2.4)."""
QUEUE_PERCENTILES: tuple[int, ...] = (50, 75, 90, 95, 99)
"""Queueing percentiles reported per type."""
GPU_PERCENTILES: tuple[int, ...] = (25, 50, 75)
"""GPU-count quartiles (the box plots of acme_facts.md §2.3)."""
GPU_CDF_POINTS: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64, 128, 256)
"""GPU counts at which the job and GPU-time CDFs are reported (cdf_job_gpunum)."""
STATE_CLASSES: tuple[str, ...] = ("COMPLETED", "CANCELLED", "FAILED")
"""The paper's three final-state classes."""
LOCAL_UTC_OFFSET_HOURS = 8
"""Hour-of-day and weekday profiles are in Shanghai time, the Acme clusters' local time."""
BATCH_MIN_JOBS = 10
"""A same-second, same-user group of at least this many GPU jobs counts as a batch."""


def characterize(jobs: pd.DataFrame, *, duration_origin: str = "start_time",
                 utc_offset_hours: int = LOCAL_UTC_OFFSET_HOURS) -> dict[str, Any]:
    """The paper's statistics of a normalized job table (see the module docstring)."""
    gpu_mask = jobs["gpu_num"].to_numpy(dtype=np.float64) > 0
    gpu = jobs[gpu_mask]
    cpu = jobs[~gpu_mask]
    run = _durations(gpu, duration_origin)
    gpus = gpu["gpu_num"].to_numpy(dtype=np.float64)
    gpu_time = run * gpus
    types = gpu["type"].astype(str).to_numpy()
    states = _state_classes(gpu["state"])
    stats: dict[str, Any] = {
        "duration_origin": duration_origin,
        "jobs": {"all": len(jobs), "gpu": len(gpu), "cpu": len(cpu)},
        "span_days": _span_days(jobs),
        "total_gpu_time": float(gpu_time.sum()),
        "type_job_share": _shares(types, None, _type_order(types)),
        "type_gpu_time_share": _shares(types, gpu_time, _type_order(types)),
        "state_job_share": _shares(states, None, STATE_CLASSES),
        "state_gpu_time_share": _shares(states, gpu_time, STATE_CLASSES),
        **_gpu_demand(gpus, gpu_time, types),
        **_run_times(run, types),
        **_queueing(gpu, types),
        "cpu": _cpu_stats(cpu, duration_origin),
        "arrivals": arrival_stats(jobs, utc_offset_hours),
    }
    return stats


def _durations(jobs: pd.DataFrame, origin: str) -> np.ndarray:
    """Float seconds from ``origin`` (start_time or submit_time) to end_time."""
    if origin not in ("start_time", "submit_time"):
        raise ValueError(f"duration_origin must be start_time or submit_time, got {origin!r}")
    delta = jobs["end_time"] - jobs[origin]
    return delta.dt.total_seconds().to_numpy(dtype=np.float64)


def _state_classes(states: pd.Series) -> np.ndarray:
    """Final states folded into the paper's classes (TIMEOUT, NODE_FAIL -> FAILED)."""
    values = states.astype(str).to_numpy(dtype=object)
    return np.where(np.isin(values, list(FAILED_STATES)), "FAILED", values)


def _type_order(types: np.ndarray) -> list[str]:
    """Job types present, in the paper's order (unknown types after, sorted)."""
    present = set(types.tolist())
    return [t for t in JOB_TYPES if t in present] + sorted(present - set(JOB_TYPES))


def _shares(labels: np.ndarray, weights: np.ndarray | None, order: Any) -> dict[str, float]:
    """Share of each label by count (``weights`` None) or by weight, in ``order``."""
    total = len(labels) if weights is None else float(weights.sum())
    result = {}
    for label in order:
        mask = labels == label
        part = mask.sum() if weights is None else weights[mask].sum()
        result[label] = float(part / total) if total else float("nan")
    return result


def _percentiles(values: np.ndarray, points: tuple[int, ...]) -> dict[int, float]:
    """``{p: value}`` (NaN for an empty array)."""
    if len(values) == 0:
        return {p: float("nan") for p in points}
    return {p: float(v) for p, v in zip(points, np.percentile(values, points), strict=True)}


def _gpu_demand(gpus: np.ndarray, gpu_time: np.ndarray, types: np.ndarray) -> dict[str, Any]:
    """GPU counts: 1-GPU share, mean, median, CDFs by jobs and GPU time, quartiles per type."""
    total = float(gpu_time.sum())
    n = len(gpus)
    return {
        "one_gpu_share": float((gpus == 1).mean()) if n else float("nan"),
        "mean_gpus": float(gpus.mean()) if n else float("nan"),
        "median_gpus": float(np.median(gpus)) if n else float("nan"),
        "max_gpus": float(gpus.max()) if n else float("nan"),
        "gpu_cdf_jobs": {k: float((gpus <= k).mean()) if n else float("nan")
                         for k in GPU_CDF_POINTS},
        "gpu_cdf_gpu_time": {k: float(gpu_time[gpus <= k].sum() / total) if total
                             else float("nan") for k in GPU_CDF_POINTS},
        "gpu_percentiles": {t: _percentiles(gpus[types == t], GPU_PERCENTILES)
                            for t in _type_order(types)},
    }


def _run_times(run: np.ndarray, types: np.ndarray) -> dict[str, Any]:
    """Run-time mean, median, maximum, and percentiles per type."""
    n = len(run)
    return {
        "run_time": {"mean": float(run.mean()) if n else float("nan"),
                     "median": float(np.median(run)) if n else float("nan"),
                     "max": float(run.max()) if n else float("nan"),
                     "percentiles": _percentiles(run, RUN_PERCENTILES),
                     "share_le_65536": float((run <= 65536).mean()) if n else float("nan")},
        "run_time_percentiles": {t: _percentiles(run[types == t], RUN_PERCENTILES)
                                 for t in _type_order(types)},
        "run_time_share_le_65536": {t: float((run[types == t] <= 65536).mean())
                                    for t in _type_order(types)},
        "run_time_percentile_bands": {t: percentile_bands(run[types == t], RUN_PERCENTILES)
                                      for t in _type_order(types)},
    }


def _queueing(gpu: pd.DataFrame, types: np.ndarray) -> dict[str, Any]:
    """Queueing delay of GPU jobs: mean, median, percentiles per type."""
    queue = gpu["queue_time"].to_numpy(dtype=np.float64)
    n = len(queue)
    return {
        "queue_time": {"mean": float(queue.mean()) if n else float("nan"),
                       "median": float(np.median(queue)) if n else float("nan")},
        "queue_percentiles": {t: _percentiles(queue[types == t], QUEUE_PERCENTILES)
                              for t in _type_order(types)},
        "queue_mean_by_type": {t: float(queue[types == t].mean()) for t in _type_order(types)},
        "queue_share_le_1": {t: float((queue[types == t] <= 1.0).mean())
                             for t in _type_order(types)},
        "queue_percentile_bands": {t: percentile_bands(queue[types == t], QUEUE_PERCENTILES)
                                   for t in _type_order(types)},
    }


def _cpu_stats(cpu: pd.DataFrame, duration_origin: str) -> dict[str, Any]:
    """CPU-only jobs: run time and queueing mean/median, final-state shares."""
    if cpu.empty:
        return {"jobs": 0}
    run = _durations(cpu, duration_origin)
    queue = cpu["queue_time"].to_numpy(dtype=np.float64)
    return {
        "jobs": len(cpu),
        "run_time_mean": float(run.mean()), "run_time_median": float(np.median(run)),
        "queue_mean": float(queue.mean()), "queue_median": float(np.median(queue)),
        "state_job_share": _shares(_state_classes(cpu["state"]), None, STATE_CLASSES),
    }


def _span_days(jobs: pd.DataFrame) -> float:
    """Days from the first to the last submission (at least one second)."""
    if jobs.empty:
        return 0.0
    submit = jobs["submit_time"]
    return max((submit.max() - submit.min()).total_seconds(), 1.0) / 86400.0


def arrival_stats(jobs: pd.DataFrame, utc_offset_hours: int = LOCAL_UTC_OFFSET_HOURS
                  ) -> dict[str, Any]:
    """Arrival rhythm and burstiness of the GPU jobs: rates, hourly and weekday profiles, CV."""
    gpu = jobs[jobs["gpu_num"].to_numpy(dtype=np.float64) > 0]
    days = _span_days(jobs)
    seconds = pd.DatetimeIndex(gpu["submit_time"]).as_unit("s").asi8
    local = np.sort(seconds.astype(np.int64)) + utc_offset_hours * 3600
    hourly = np.bincount((local // 3600) % 24, minlength=24)
    weekday = np.bincount((local // 86400 + 3) % 7, minlength=7)  # 1970-01-01: Thursday
    gaps = np.diff(local).astype(np.float64)
    cv = float(gaps.std() / gaps.mean()) if len(gaps) > 1 and gaps.mean() > 0 else float("nan")
    return {
        "jobs_per_day": len(jobs) / days if days else float("nan"),
        "gpu_jobs_per_day": len(gpu) / days if days else float("nan"),
        "hourly_share": (hourly / max(hourly.sum(), 1)).tolist(),
        "weekday_share": (weekday / max(weekday.sum(), 1)).tolist(),
        "interarrival_cv": cv,
        "same_second_share": float((gaps == 0).mean()) if len(gaps) else float("nan"),
        "batches": batch_stats(gpu),
        "all_jobs": burstiness(jobs),
    }


def burstiness(jobs: pd.DataFrame) -> dict[str, float]:
    """The published arrival statistics of *all* jobs, from 1-second submit times.

    ``interarrival_cv``: standard deviation over mean of the gaps between consecutive
    submissions (population standard deviation; a Poisson process gives 1);
    ``same_second_share``: share of jobs whose submit second holds another job too;
    ``max_median_hourly``: the busiest clock hour's submissions over the median hour's, over
    every hour from the first submission's to the last's (empty hours count; inf when the
    median hour is empty); ``top5_user_share``: share of jobs of the five most active users.
    """
    nan = float("nan")
    if jobs.empty:
        return {"interarrival_cv": nan, "same_second_share": nan, "max_median_hourly": nan,
                "top5_user_share": nan}
    seconds = np.sort(pd.DatetimeIndex(jobs["submit_time"]).as_unit("s").asi8.astype(np.int64))
    gaps = np.diff(seconds).astype(np.float64)
    cv = float(gaps.std() / gaps.mean()) if len(gaps) and gaps.mean() > 0 else nan
    _, per_second = np.unique(seconds, return_counts=True)
    hourly = np.bincount(seconds // 3600 - seconds[0] // 3600)
    median = float(np.median(hourly))
    users = jobs["user"].astype(str).value_counts().to_numpy()
    return {
        "interarrival_cv": cv,
        "same_second_share": float(per_second[per_second > 1].sum() / len(seconds)),
        "max_median_hourly": float(hourly.max() / median) if median > 0 else float("inf"),
        "top5_user_share": float(users[:5].sum() / len(jobs)),
    }


def batch_stats(gpu: pd.DataFrame) -> dict[str, Any]:
    """Same-user, same-second groups of GPU jobs: how many, how large, which types."""
    if gpu.empty:
        return {"groups": 0}
    sizes = gpu.groupby(["user", "submit_time"], sort=False).size().to_numpy()
    batches = sizes[sizes >= BATCH_MIN_JOBS]
    eval_jobs = gpu[gpu["type"] == "Eval"]
    eval_sizes = (eval_jobs.groupby(["user", "submit_time"], sort=False).size().to_numpy()
                  if len(eval_jobs) else np.zeros(0, dtype=np.int64))
    return {
        "min_jobs": BATCH_MIN_JOBS,
        "count": int(len(batches)),
        "mean_size": float(batches.mean()) if len(batches) else 0.0,
        "max_size": int(sizes.max()),
        "share_of_gpu_jobs": float(batches.sum() / len(gpu)),
        "eval_share_in_batches": float(eval_sizes[eval_sizes >= BATCH_MIN_JOBS].sum()
                                       / max(len(eval_jobs), 1)),
    }


# ------------------------------------------------------------------------------------------------
# Comparison with the published targets
# ------------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class ComparisonRow:
    """One published statistic beside the measured one."""

    group: str
    metric: str
    published: float
    measured: float
    unit: str
    tolerance: Tolerance | None = None
    source: str = ""
    band: tuple[float, float] | None = None
    """For a percentile of the trace's jobs: the 95 % band of its sampling error
    (``acmesim.analysis.sampling``); a published value inside it passes too."""

    @property
    def error(self) -> float:
        """Points for shares with a point tolerance, else the signed relative error."""
        kind = self.tolerance.kind if self.tolerance else ("points" if self.unit == "%" else
                                                           "relative")
        return Tolerance(kind, 0.0).error(self.measured, self.published)

    @property
    def error_unit(self) -> str:
        """``points``, ``log2`` (a factor tolerance) or ``relative``."""
        kind = self.tolerance.kind if self.tolerance else ("points" if self.unit == "%" else
                                                           "relative")
        return {"points": "points", "factor": "log2"}.get(kind, "relative")

    @property
    def passed(self) -> bool | None:
        """Pass/fail against the row's tolerance, or inside the band of the measured
        percentile's sampling error (None only for a row without a tolerance)."""
        if self.tolerance is None or _missing(self.measured):
            return None if self.tolerance is None else False
        return self.tolerance.passes(self.measured, self.published) or self.by_sampling

    @property
    def by_sampling(self) -> bool:
        """Whether the row passes only because the published value lies inside the band of
        the measured percentile's sampling error (outside its fixed tolerance)."""
        if (self.tolerance is None or self.band is None or _missing(self.measured)
                or self.tolerance.kind in ("at_most", "above")):
            return False
        return (not self.tolerance.passes(self.measured, self.published)
                and within(self.band, self.published))


def _missing(value: float) -> bool:
    """True for NaN or None."""
    return value is None or (isinstance(value, float) and math.isnan(value))


def compare(stats: dict[str, Any], targets: ClusterTargets) -> list[ComparisonRow]:
    """Every published statistic of ``targets`` beside its measured value in ``stats``.

    Each row carries its tolerance (``ClusterTargets.tolerance``), so each gets a verdict;
    statistics the cluster does not publish (NaN or absent) give no row.
    """
    rows: list[ComparisonRow] = []
    src = targets.sources
    for key, label in (("type_job_share", "jobs"), ("type_gpu_time_share", "GPU time")):
        for job_type, value in getattr(targets, key).items():
            rows.append(ComparisonRow(f"type share of {label}", job_type, value,
                                      stats[key].get(job_type, 0.0), "%",
                                      targets.tolerance(key), src.get(key, "")))
    for key, label in (("state_job_share", "jobs"), ("state_gpu_time_share", "GPU time")):
        for state, value in getattr(targets, key).items():
            rows.append(ComparisonRow(f"state share of {label}", state, value,
                                      stats[key].get(state, 0.0), "%", targets.tolerance(key),
                                      src.get(key, "")))
    rows += _demand_rows(stats, targets)
    rows += _run_time_rows(stats, targets)
    rows += _load_rows(stats, targets)
    rows += _queue_rows(stats, targets)
    rows += _arrival_rows(stats, targets)
    return [r for r in rows if not _missing(r.published)]


def _demand_rows(stats: dict[str, Any], t: ClusterTargets) -> list[ComparisonRow]:
    """GPU demand: 1-GPU share, mean and median GPUs, CDF points and quartiles per type."""
    src = t.sources
    rows = [
        ComparisonRow("GPU demand", "1-GPU job share", t.one_gpu_share, stats["one_gpu_share"],
                      "%", t.tolerance("one_gpu_share"), src["one_gpu_share"]),
        ComparisonRow("GPU demand", "mean GPUs per GPU job", t.mean_gpus, stats["mean_gpus"],
                      "GPUs", t.tolerance("mean_gpus"), src["mean_gpus"]),
        ComparisonRow("GPU demand", "median GPUs per GPU job", t.median_gpus,
                      stats["median_gpus"], "GPUs", t.tolerance("median_gpus"),
                      src["median_gpus"]),
    ]
    for k, value in t.gpu_cdf_jobs.items():
        rows.append(ComparisonRow("GPU-count CDF of jobs", f"<= {k} GPUs", value,
                                  stats["gpu_cdf_jobs"][k], "%", t.tolerance("gpu_cdf_jobs"),
                                  src["gpu_cdf_jobs"]))
    for k, value in t.gpu_cdf_gpu_time.items():
        rows.append(ComparisonRow("GPU-count CDF of GPU time", f"<= {k} GPUs", value,
                                  stats["gpu_cdf_gpu_time"][k], "%",
                                  t.tolerance("gpu_cdf_gpu_time"), src["gpu_cdf_gpu_time"]))
    for job_type, box in t.gpu_box.items():
        measured = stats["gpu_percentiles"].get(job_type, {})
        for p, value in zip(GPU_PERCENTILES, box, strict=True):
            rows.append(ComparisonRow(f"GPUs of {job_type} jobs", f"p{p}", value,
                                      measured.get(p, float("nan")), "GPUs",
                                      t.tolerance("gpu_box"), src["gpu_box"]))
    return rows


def _run_time_rows(stats: dict[str, Any], t: ClusterTargets) -> list[ComparisonRow]:
    """Run-time percentiles and the 2^16 s share per type, and cluster-wide values."""
    rows = []
    src = t.sources["duration_percentiles"]
    for job_type, table in t.duration_percentiles.items():
        measured = stats["run_time_percentiles"].get(job_type, {})
        bands = stats.get("run_time_percentile_bands", {}).get(job_type, {})
        for p, value in table.items():
            key = "type_median_run_time" if p == 50 else "type_run_time_percentile"
            rows.append(ComparisonRow(f"run time of {job_type} (s)", f"p{p}", float(value),
                                      measured.get(p, float("nan")), "s", t.tolerance(key),
                                      src, bands.get(p)))
        rows.append(ComparisonRow(f"run time of {job_type} (s)", "share <= 65536 s",
                                  t.duration_share_le_65536[job_type],
                                  stats["run_time_share_le_65536"].get(job_type, float("nan")),
                                  "%", t.tolerance("duration_share_le_65536"),
                                  t.sources["duration_share_le_65536"]))
    rows += [
        ComparisonRow("run time, all GPU jobs (s)", "mean", t.run_time_mean,
                      stats["run_time"]["mean"], "s", t.tolerance("run_time_mean"),
                      t.sources["run_time_mean"]),
        ComparisonRow("run time, all GPU jobs (s)", "median", t.run_time_median,
                      stats["run_time"]["median"], "s", t.tolerance("run_time_median"),
                      t.sources["run_time_median"]),
    ]
    return rows


def _load_rows(stats: dict[str, Any], t: ClusterTargets) -> list[ComparisonRow]:
    """Load, cluster queueing and CPU jobs, scaled to the trace's span where needed."""
    days = stats["span_days"] or float("nan")
    capacity = t.gpus * 86400.0
    src = t.sources
    cpu = stats["cpu"]
    rows = [
        ComparisonRow("load", "GPU jobs per day", t.gpu_jobs / t.span_days,
                      stats["jobs"]["gpu"] / days, "jobs", t.tolerance("gpu_jobs_per_day"),
                      src["gpu_jobs"]),
        ComparisonRow("load", "CPU jobs per day", t.cpu_jobs / t.span_days,
                      stats["jobs"]["cpu"] / days, "jobs", t.tolerance("cpu_jobs_per_day"),
                      src["cpu_jobs"]),
        ComparisonRow("load", "GPU time / capacity",
                      t.total_gpu_time / (capacity * t.span_days),
                      stats["total_gpu_time"] / (capacity * days), "%",
                      t.tolerance("gpu_time_per_capacity"), src["total_gpu_time"]),
        ComparisonRow("queueing, GPU jobs (s)", "mean", t.queue_mean, stats["queue_time"]["mean"],
                      "s", t.tolerance("queue_mean"), src["queue_mean"]),
        ComparisonRow("queueing, GPU jobs (s)", "median", t.queue_median,
                      stats["queue_time"]["median"], "s", t.tolerance("queue_median"),
                      src["queue_median"]),
    ]
    if cpu.get("jobs"):
        rows += [
            ComparisonRow("CPU jobs (s)", "run time mean", t.cpu_run_time_mean,
                          cpu["run_time_mean"], "s", t.tolerance("cpu_run_time_mean"),
                          src["cpu_run_time_mean"]),
            ComparisonRow("CPU jobs (s)", "run time median", t.cpu_run_time_median,
                          cpu["run_time_median"], "s", t.tolerance("cpu_run_time_median"),
                          src["cpu_run_time_median"]),
            ComparisonRow("CPU jobs (s)", "queue mean", t.cpu_queue_mean, cpu["queue_mean"], "s",
                          t.tolerance("cpu_queue_mean"), src["cpu_queue_mean"]),
            ComparisonRow("CPU jobs (s)", "queue median", t.cpu_queue_median,
                          cpu["queue_median"], "s", t.tolerance("cpu_queue_median"),
                          src["cpu_queue_median"]),
        ]
        for state, value in t.cpu_state_job_share.items():
            rows.append(ComparisonRow("CPU jobs", f"{state} share of jobs", value,
                                      cpu["state_job_share"][state], "%",
                                      t.tolerance("cpu_state_job_share"),
                                      src["cpu_state_job_share"]))
    return rows


def _queue_rows(stats: dict[str, Any], t: ClusterTargets) -> list[ComparisonRow]:
    """Per-type queueing percentiles (bounds where published as one) and % queued <= 1 s."""
    rows = []
    for job_type, table in t.queue_percentiles.items():
        measured = stats["queue_percentiles"].get(job_type, {})
        bands = stats.get("queue_percentile_bands", {}).get(job_type, {})
        bounds = t.queue_percentile_bounds.get(job_type, {})
        for p, value in table.items():
            bound = bounds.get(p)
            tolerance = Tolerance(bound, 0.0) if bound else t.tolerance("type_queue_percentile")
            rows.append(ComparisonRow(f"queueing of {job_type} (s)", f"p{p}", float(value),
                                      measured.get(p, float("nan")), "s", tolerance,
                                      t.sources["queue_percentiles"], bands.get(p)))
        rows.append(ComparisonRow(f"queueing of {job_type} (s)", "share <= 1 s",
                                  t.queue_share_le_1[job_type],
                                  stats["queue_share_le_1"].get(job_type, float("nan")), "%",
                                  t.tolerance("type_queue_share_le_1"),
                                  t.sources["queue_share_le_1"]))
    return rows


ARRIVAL_METRICS: dict[str, tuple[str, str]] = {
    "interarrival_cv": ("inter-arrival CV (Poisson = 1)", "x"),
    "same_second_share": ("jobs sharing their submit second", "%"),
    "max_median_hourly": ("busiest hour / median hour", "x"),
    "top5_user_share": ("jobs of the top-5 users", "%"),
}
"""The published arrival statistics (``burstiness``): label and unit."""


def _arrival_rows(stats: dict[str, Any], t: ClusterTargets) -> list[ComparisonRow]:
    """The arrival statistics of all jobs (1-s submit times)."""
    measured = stats["arrivals"]["all_jobs"]
    return [ComparisonRow("arrivals, all jobs", label, t.arrivals[key], measured[key], unit,
                          t.tolerance(key), t.sources["arrivals"])
            for key, (label, unit) in ARRIVAL_METRICS.items() if key in t.arrivals]


def comparison_summary(rows: list[ComparisonRow]) -> dict[str, int]:
    """How many calibration criteria pass and fail, and how many pass only inside the band of
    their percentile's sampling error (``ComparisonRow.by_sampling``)."""
    verdicts = [r.passed for r in rows if r.passed is not None]
    return {"criteria": len(verdicts), "passed": sum(verdicts),
            "failed": len(verdicts) - sum(verdicts),
            "passed_by_sampling": sum(r.by_sampling for r in rows)}


def to_jsonable(value: Any) -> Any:
    """``value`` with int dict keys as strings, numpy scalars as Python, NaN as None."""
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def row_to_dict(row: ComparisonRow) -> dict[str, Any]:
    """A comparison row as a JSON-ready dict."""
    tolerance = row.tolerance
    return to_jsonable({
        "group": row.group, "metric": row.metric, "published": row.published,
        "measured": row.measured, "unit": row.unit, "error": row.error,
        "error_unit": row.error_unit,
        "tolerance": None if tolerance is None else tolerance.value,
        "tolerance_kind": None if tolerance is None else tolerance.kind,
        "passed": row.passed, "passed_by_sampling": row.by_sampling,
        "sampling_band": None if row.band is None else list(row.band), "source": row.source,
    })
