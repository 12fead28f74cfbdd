"""Fidelity of a replay: recorded against simulated queueing per job type, with verdicts.

``fidelity(trace_jobs, sim_jobs)`` compares the queue delays a trace recorded with those a
scheduled replay of its arrivals produced (both GPU jobs only): per job type the percentiles
``QUEUE_PERCENTILES`` (computed as ``acmesim.analysis.characterize`` does), the share queued at
most 1 s, the simulated/recorded ratios of p90, p95 and p99, and the two-sample Kolmogorov-
Smirnov distance (of the delays at the traces' resolution, ``resolved``); per cluster the mean
and median queue delay, the mean JCT and the allocated share of GPU time. The tolerances are
those of the calibrated baseline (issue 11):

- per type: % queued <= 1 s within ``le1_points`` points; p90, p95, p99 within a factor
  ``2 ** log2_ratio`` (both sides floored at 1 s, since "<= 1 s" is what the Acme figures
  resolve), or, where a type has too few jobs to resolve the percentile, inside the 95 % band
  of its sampling error (the recorded value inside the simulated sample's band, or the
  simulated inside the recorded's; ``acmesim.analysis.sampling``; such a pass is marked);
- the p90 ordering Eval > SFT > {Pretrain, MLLM, Other} > Debug, when all six types are there;
- cluster mean queue delay within ``mean_fraction``, median within ``median_fraction`` (floored
  at 1 s).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from acmesim.analysis.characterize import QUEUE_PERCENTILES, _percentiles
from acmesim.analysis.sampling import percentile_bands, within
from acmesim.trace.schema import JOB_TYPES
from acmesim.trace.targets import CLUSTERS as PUBLISHED_CLUSTERS

RATIO_PERCENTILES: tuple[int, ...] = (90, 95, 99)
"""Percentiles whose simulated/recorded ratio is checked."""
FLOOR = 1.0
"""Queue delays below this (s) are not resolved by the Acme figures: ratios use max(x, 1 s)."""
ORDER_TOP, ORDER_MIDDLE, ORDER_BOTTOM = ("Eval", "SFT"), ("Pretrain", "MLLM", "Other"), "Debug"
"""The published p90 ordering: Eval > SFT > {Pretrain, MLLM, Other} > Debug (acme_facts §2.5)."""


SEREN_QUEUE: dict[str, tuple[float, float, float, float, float, float]] = {
    "Eval": (1, 30, 317, 809, 4206, 47.6),
    "Pretrain": (1, 2, 26, 78, 968, 72.0),
    "SFT": (1, 4, 175, 455, 2476, 60.5),
    "MLLM": (1, 1, 10, 147, 12103, 72.7),
    "Debug": (1, 1, 2, 5, 88, 84.8),
    "Other": (1, 1, 15, 68, 32768, 72.7),
}
"""Published queue delay of Seren GPU jobs per type: p50, p75, p90, p95, p99 (s) and % queued
<= 1 s, read from the trace authors' figure cdf_job_duration_queue.pdf panel (b)
(acme_facts.md §2.5, R-FIG) [derived]. "<= 1" is stored as 1; Other's p99 is a lower bound
(2.4 % wait longer than 2^15 s), see ``LOWER_BOUNDS``."""
LOWER_BOUNDS: frozenset[tuple[str, int]] = frozenset({("Other", 99)})
"""Published percentiles known only as lower bounds: a ratio passes when the simulated value
is at least half of it (a trace's recorded percentiles are values, checked both ways)."""
PUBLISHED_QUEUE: dict[str, Mapping[str, tuple[float, ...]]] = {"seren": SEREN_QUEUE}
"""Per-type queue targets by cluster (Kalos's are deliberately not published: it validates)."""


@dataclasses.dataclass(frozen=True)
class Tolerances:
    """How far simulated queueing may be from recorded queueing and still pass."""

    le1_points: float = 10.0
    log2_ratio: float = 1.0
    mean_fraction: float = 0.25
    median_fraction: float = 0.30


@dataclasses.dataclass(frozen=True)
class TypeFidelity:
    """Recorded against simulated queue delay of one job type."""

    type: str
    jobs: int
    recorded: dict[int, float]
    simulated: dict[int, float]
    recorded_le1: float
    simulated_le1: float
    ratios: dict[int, float]
    ks: float
    failures: tuple[str, ...]
    by_sampling: tuple[int, ...] = ()
    """Percentiles outside the factor but inside the band of their sampling error."""

    @property
    def passed(self) -> bool:
        """Whether every per-type check holds."""
        return not self.failures


@dataclasses.dataclass(frozen=True)
class Fidelity:
    """The whole comparison: per-type rows, cluster figures, and the checks that failed."""

    types: list[TypeFidelity]
    cluster: dict[str, dict[str, float]]
    ordering: bool | None
    failures: tuple[str, ...]

    @property
    def passed(self) -> bool:
        """Whether every check (per type, ordering, cluster) holds."""
        return not self.failures and all(row.passed for row in self.types)


def ratio(simulated: float, recorded: float) -> float:
    """``max(simulated, 1 s) / max(recorded, 1 s)``."""
    return max(simulated, FLOOR) / max(recorded, FLOOR)


def ks_distance(a: np.ndarray, b: np.ndarray) -> float:
    """Two-sample Kolmogorov-Smirnov distance: the largest gap between the empirical CDFs."""
    if len(a) == 0 or len(b) == 0:
        return math.nan
    a, b = np.sort(a), np.sort(b)
    points = np.concatenate([a, b])
    gap = (np.searchsorted(a, points, side="right") / len(a)
           - np.searchsorted(b, points, side="right") / len(b))
    return float(np.abs(gap).max())


def resolved(queue: np.ndarray) -> np.ndarray:
    """Queue delays at the traces' resolution: rounded up to whole seconds (a trace records
    whole-second start and submit times; the generator rounds its replayed starts up alike,
    ``acmesim.synth.baseline``) and everything up to ``FLOOR`` taken as ``FLOOR``, as the
    ratios are. A replay's fractional start-ups (0.3 s) against a trace's 0 and 1 s would
    otherwise make the KS distance of two equal distributions large."""
    return np.maximum(np.ceil(np.asarray(queue, dtype=np.float64) - 1e-6), FLOOR)


def type_fidelity(name: str, recorded: np.ndarray, simulated: np.ndarray,
                  tol: Tolerances) -> TypeFidelity:
    """The comparison of one type's recorded and simulated queue delays."""
    rec = _percentiles(recorded, QUEUE_PERCENTILES)
    rec_le1 = 100.0 * float((recorded <= FLOOR).mean()) if len(recorded) else math.nan
    return _compare(name, len(recorded), rec, rec_le1, simulated, tol,
                    ks_distance(resolved(recorded), resolved(simulated)),
                    recorded_bands=percentile_bands(recorded, RATIO_PERCENTILES))


def _compare(name: str, jobs: int, rec: dict[int, float], rec_le1: float,
             simulated: np.ndarray, tol: Tolerances, ks: float, *,
             bounds: frozenset[tuple[str, int]] = frozenset(),
             recorded_bands: dict[int, tuple[float, float]] | None = None) -> TypeFidelity:
    """Simulated queue delays against recorded percentiles and share <= 1 s: the recorded
    ones ``bounds`` are lower bounds; ``recorded_bands`` the sampling bands of a recorded
    sample's percentiles (None for published ones)."""
    sim = _percentiles(simulated, QUEUE_PERCENTILES)
    sim_le1 = 100.0 * float((simulated <= FLOOR).mean()) if len(simulated) else math.nan
    ratios = {p: ratio(sim[p], rec[p]) for p in RATIO_PERCENTILES}
    simulated_bands = percentile_bands(simulated, RATIO_PERCENTILES)
    failures, by_sampling = [], []
    if not abs(sim_le1 - rec_le1) <= tol.le1_points:
        failures.append(f"{name} % <= 1 s: {sim_le1:.1f} vs {rec_le1:.1f}")
    for p, value in ratios.items():
        bound = (name, p) in bounds
        if (math.log2(value) >= -tol.log2_ratio if bound
                else abs(math.log2(value)) <= tol.log2_ratio):
            continue
        if not bound and (_inside(simulated_bands[p], rec[p]) or _inside(
                (recorded_bands or {}).get(p), sim[p])):
            by_sampling.append(p)
            continue
        failures.append(f"{name} p{p}: {sim[p]:.0f} s vs {'>' if bound else ''}"
                        f"{rec[p]:.0f} s (x{value:.2f})")
    return TypeFidelity(name, jobs, rec, sim, rec_le1, sim_le1, ratios, ks, tuple(failures),
                        tuple(by_sampling))


def _inside(band: tuple[float, float] | None, value: float) -> bool:
    """``value`` inside ``band``, both floored at ``FLOOR`` (queue delays below 1 s are not
    resolved)."""
    if band is None:
        return False
    return within((max(band[0], FLOOR), max(band[1], FLOOR)), max(value, FLOOR))


def p90_ordering(p90: dict[str, float]) -> bool | None:
    """Whether Eval > SFT > each of {Pretrain, MLLM, Other} > Debug (None: a type is missing)."""
    needed = (*ORDER_TOP, *ORDER_MIDDLE, ORDER_BOTTOM)
    if any(t not in p90 for t in needed):
        return None
    eval_, sft = (p90[t] for t in ORDER_TOP)
    middle = [p90[t] for t in ORDER_MIDDLE]
    return eval_ > sft > max(middle) and min(middle) > p90[ORDER_BOTTOM]


def types_of(frame: pd.DataFrame) -> list[str]:
    """Job types in the paper's order, unknown ones after."""
    present = set(frame["type"].astype(str))
    return [t for t in JOB_TYPES if t in present] + sorted(present - set(JOB_TYPES))


def allocated_share(submit: np.ndarray, end: np.ndarray, gpu_time: float, gpus: int) -> float:
    """GPU time over the GPUs' time from the first submission to the last end."""
    span = float(np.nanmax(end) - np.nanmin(submit)) if len(submit) else 0.0
    return gpu_time / (gpus * span) if span > 0 and gpus > 0 else math.nan


def recorded_frame(trace: pd.DataFrame) -> pd.DataFrame:
    """The trace's GPU jobs as (type, queue, jct, gpu_time, submit, end), seconds."""
    gpu = trace[trace["gpu_num"] > 0]
    origin = gpu["submit_time"].min()
    return pd.DataFrame({
        "type": gpu["type"].astype(str).to_numpy(),
        "queue": gpu["queue_time"].to_numpy(dtype=float),
        "jct": (gpu["end_time"] - gpu["submit_time"]).dt.total_seconds().to_numpy(),
        "gpu_time": (gpu["run_time"] * gpu["gpu_num"]).to_numpy(dtype=float),
        "submit": (gpu["submit_time"] - origin).dt.total_seconds().to_numpy(),
        "end": (gpu["end_time"] - origin).dt.total_seconds().to_numpy(),
    })


def simulated_frame(jobs: pd.DataFrame) -> pd.DataFrame:
    """A replay's GPU jobs (``jobs.csv`` columns) as (type, queue, jct, gpu_time, submit, end)."""
    gpu = jobs[jobs["pool"] == "gpu"]
    return pd.DataFrame({
        "type": gpu["type"].astype(str).to_numpy(),
        "queue": gpu["queue_delay"].to_numpy(dtype=float),
        "jct": gpu["jct"].to_numpy(dtype=float),
        "gpu_time": (gpu["run_time"] * gpu["gpu_num"]).to_numpy(dtype=float),
        "submit": gpu["submit_time"].to_numpy(dtype=float),
        "end": gpu["end_time"].to_numpy(dtype=float),
    })


def fidelity(recorded: pd.DataFrame, simulated: pd.DataFrame, total_gpus: int,
             tol: Tolerances | None = None) -> Fidelity:
    """Compare ``recorded_frame``-shaped and ``simulated_frame``-shaped tables (see module)."""
    tol = tol or Tolerances()
    rows = []
    for name in types_of(recorded):
        rec = recorded.loc[recorded["type"] == name, "queue"].to_numpy()
        sim = simulated.loc[simulated["type"] == name, "queue"].to_numpy()
        rows.append(type_fidelity(name, rec, sim, tol))
    cluster = {
        "queue_mean": _pair(recorded["queue"].mean(), simulated["queue"].mean()),
        "queue_median": _pair(recorded["queue"].median(), simulated["queue"].median()),
        "jct_mean": _pair(recorded["jct"].mean(), simulated["jct"].mean()),
        "allocated_share": _pair(
            allocated_share(recorded["submit"].to_numpy(), recorded["end"].to_numpy(),
                            float(recorded["gpu_time"].sum()), total_gpus),
            allocated_share(simulated["submit"].to_numpy(), simulated["end"].to_numpy(),
                            float(simulated["gpu_time"].sum()), total_gpus)),
    }
    return _verdict(rows, cluster, tol)


def published_fidelity(simulated: pd.DataFrame, cluster: str,
                       tol: Tolerances | None = None) -> Fidelity:
    """Compare a replay with the *published* queueing of ``cluster`` (not a trace's column):
    the per-type table where one is published (Seren), and the mean and median queue delay
    (R-SUM). KS distances are NaN (no published distribution); JCT and allocation are not
    compared (NaN)."""
    tol = tol or Tolerances()
    targets = PUBLISHED_CLUSTERS[cluster.lower()]
    rows = []
    for name, values in PUBLISHED_QUEUE.get(cluster.lower(), {}).items():
        rec = dict(zip(QUEUE_PERCENTILES, map(float, values[:5]), strict=True))
        sim = simulated.loc[simulated["type"] == name, "queue"].to_numpy()
        rows.append(_compare(name, len(sim), rec, float(values[5]), sim, tol, math.nan,
                             bounds=LOWER_BOUNDS))
    nan = math.nan
    table = {
        "queue_mean": _pair(targets.queue_mean, simulated["queue"].mean()),
        "queue_median": _pair(targets.queue_median, simulated["queue"].median()),
        "jct_mean": _pair(nan, simulated["jct"].mean()),
        "allocated_share": _pair(nan, nan),
    }
    return _verdict(rows, table, tol)


def _verdict(rows: list[TypeFidelity], cluster: dict[str, dict[str, float]],
             tol: Tolerances) -> Fidelity:
    """The cluster-level checks on top of the per-type rows."""
    ordering = p90_ordering({row.type: row.simulated[90] for row in rows})
    failures = []
    mean = cluster["queue_mean"]
    if not abs(ratio(mean["simulated"], mean["recorded"]) - 1) <= tol.mean_fraction:
        failures.append(f"mean queue: {mean['simulated']:.0f} s vs {mean['recorded']:.0f} s")
    median = cluster["queue_median"]
    if not abs(ratio(median["simulated"], median["recorded"]) - 1) <= tol.median_fraction:
        failures.append(f"median queue: {median['simulated']:.1f} s vs "
                        f"{median['recorded']:.1f} s")
    if ordering is False:
        failures.append("p90 ordering Eval > SFT > {Pretrain, MLLM, Other} > Debug")
    return Fidelity(rows, cluster, ordering, tuple(failures))


def _pair(recorded: float, simulated: float) -> dict[str, float]:
    """A recorded/simulated pair with their ratio (both floored at 1 s for queue delays; the
    JCTs and shares compared here are far above 1, or tiny shares where the ratio is moot)."""
    recorded, simulated = float(recorded), float(simulated)
    return {"recorded": recorded, "simulated": simulated,
            "ratio": ratio(simulated, recorded) if recorded >= 0 else math.nan}



def to_dict(result: Fidelity) -> dict[str, Any]:
    """The comparison as JSON-ready data."""
    return {
        "passed": result.passed,
        "failures": [*result.failures, *(f for row in result.types for f in row.failures)],
        "p90_ordering": result.ordering,
        "cluster": result.cluster,
        "types": [{**dataclasses.asdict(row), "passed": row.passed,
                   "recorded": {f"p{p}": v for p, v in row.recorded.items()},
                   "simulated": {f"p{p}": v for p, v in row.simulated.items()},
                   "ratios": {f"p{p}": v for p, v in row.ratios.items()},
                   "failures": list(row.failures)} for row in result.types],
    }
