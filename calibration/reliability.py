"""Check failure-model defaults against the Acme failure shares on a Seren-like job population.

The full trace is not available, so the reference population is rebuilt from published Seren
statistics (acme_facts.md): job-type shares (§2.2, treemap), GPU demand per type (§2.3, box-plot
quartiles and whiskers, interpolated log-linearly and snapped to powers of two) and run time per
type (§2.4, percentiles p25–p99, log-linear between them, 1 s at p0 and p99²/p95 at p100,
capped at the 14-day limit).
GPU count and run time are drawn independently within a type.

``failure_shares`` plays the trace's own accounting: a job ends at its first failure (a restart
is a new job in the trace), and a failed job's GPU time is ``GPUs × time to failure``. Targets:
≈ 40 % of GPU jobs fail (Seren 42.9 %, R-SUM §2.6); infrastructure failures are ≈ 11 % of failed
jobs but > 82 % of the GPU time of failed jobs (acme_facts.md §3).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from acmesim.policies.failure.job_failures import JobErrorRates
from acmesim.policies.failure.rates import per_gpu_rate

FOURTEEN_DAYS = 1_209_600.0
"""Longest Seren GPU job, the wall-clock limit (acme_facts.md §2.1)."""

_QUANTILES = np.array([0.0, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 1.0])

SEREN_TYPES: dict[str, tuple[float, tuple[int, ...], tuple[float, ...]]] = {
    # type: (share of GPU jobs %, GPU whisker-lo/Q1/median/Q3/whisker-hi, run time p25..p99 s)
    "Eval": (64.9, (1, 1, 1, 4, 8), (16, 129, 391, 1208, 2757, 15588)),
    "Pretrain": (0.9, (32, 64, 128, 256, 512), (50, 297, 1196, 24639, 77333, 313273)),
    "SFT": (14.9, (1, 2, 8, 8, 16), (47, 197, 452, 1128, 2321, 13281)),
    "MLLM": (2.9, (1, 1, 2, 8, 16), (28, 253, 795, 5373, 22765, 75630)),
    "Debug": (1.9, (8, 8, 8, 8, 8), (23, 114, 359, 935, 1889, 22631)),
    "Other": (14.6, (1, 1, 1, 8, 16), (10, 77, 356, 2288, 6736, 55546)),
}
"""Seren statistics per job type (acme_facts.md §2.2–2.4; pretrain low whisker ~40 → 32)."""


@dataclasses.dataclass(frozen=True)
class JobPopulation:
    """A table of jobs as arrays: type, GPUs and failure-free run time in seconds."""

    job_type: np.ndarray
    gpus: np.ndarray
    run_time: np.ndarray


@dataclasses.dataclass(frozen=True)
class FailureShares:
    """How failures split in a population (the quantities the Acme paper reports)."""

    failed_fraction: float
    infra_share_of_failed_jobs: float
    infra_share_of_failed_gpu_time: float


def seren_population(rng: np.random.Generator, n: int) -> JobPopulation:
    """``n`` GPU jobs drawn from the Seren reference statistics (module docstring)."""
    names = list(SEREN_TYPES)
    shares = np.array([SEREN_TYPES[t][0] for t in names])
    types = rng.choice(len(names), size=n, p=shares / shares.sum())
    gpus = np.empty(n, dtype=np.int64)
    run_time = np.empty(n)
    for index, name in enumerate(names):
        mask = types == index
        _, box, percentiles = SEREN_TYPES[name]
        gpus[mask] = _gpu_draws(rng, box, int(mask.sum()))
        run_time[mask] = _run_time_draws(rng, percentiles, int(mask.sum()))
    return JobPopulation(np.array(names)[types], gpus, run_time)


def _gpu_draws(rng: np.random.Generator, box: tuple[int, ...], n: int) -> np.ndarray:
    """GPU counts by log-linear interpolation of the box plot, snapped to powers of two."""
    log_points = np.log2(np.array(box, dtype=float))
    logs = np.interp(rng.random(n), [0.0, 0.25, 0.5, 0.75, 1.0], log_points)
    return (2 ** np.round(logs)).astype(np.int64)


def _run_time_draws(rng: np.random.Generator, percentiles: tuple[float, ...], n: int) -> np.ndarray:
    """Run times by log-linear interpolation between the published percentiles."""
    top = min(percentiles[-1] ** 2 / percentiles[-2], FOURTEEN_DAYS)
    log_points = np.log(np.array([1.0, *percentiles, top]))
    return np.exp(np.interp(rng.random(n), _QUANTILES, log_points))


def failure_shares(
    population: JobPopulation,
    gpu_failures_per_1000_gpu_days: float,
    job_errors: JobErrorRates,
    rng: np.random.Generator,
) -> FailureShares:
    """Failure shares when hardware faults strike each GPU at the given rate, plus job errors."""
    rate = per_gpu_rate(gpu_failures_per_1000_gpu_days) * population.gpus
    with np.errstate(divide="ignore"):
        hardware = rng.exponential(1.0, size=len(rate)) / rate
    own = job_errors.sample_many(population.job_type, rng)
    first = np.minimum(hardware, own.time)
    failed = first < population.run_time
    infra = failed & ((hardware <= own.time) | (own.category == "infrastructure"))
    gpu_time = np.where(failed, first * population.gpus, 0.0)
    return FailureShares(
        failed_fraction=float(failed.mean()),
        infra_share_of_failed_jobs=float(infra.sum() / max(failed.sum(), 1)),
        infra_share_of_failed_gpu_time=float(gpu_time[infra].sum() / max(gpu_time.sum(), 1e-300)),
    )
