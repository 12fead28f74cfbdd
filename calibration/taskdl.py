"""Derive the fitted constants of a task-DL profile (``python -m calibration.taskdl helios``).

The search and RL classes are taken as given (assumptions); the supervised class is fitted
around them so the whole workload has the prior trace's published statistics (see
``profile_taskdl.py`` for the list). Every fit uses large fixed-seed samples of the class models
(common random numbers); search promotions depend on the final states, so the state logit and
the class samples are refined together for a few rounds. The printed values are pasted into
``profile_taskdl.py``; the tests check generated traces, not this script.
"""

from __future__ import annotations

import argparse
import dataclasses

import numpy as np

from acmesim.core.rng import RngStreams
from acmesim.synth.distributions import LogQuantile
from acmesim.synth.profile_taskdl import (
    ASSUMED_UTIL,
    CLASS_JOB_SHARES,
    RL,
    SEARCH,
    SESSION,
)
from acmesim.synth.profiles import (
    STATE_SPLIT_NODE_FAIL,
    STATE_SPLIT_TIMEOUT,
    StateModel,
    TypeModel,
)
from acmesim.synth.rl import rl_jobs
from acmesim.synth.search import FINAL, search_jobs
from acmesim.trace.gpu_util import UtilModel, weighted_quantile
from acmesim.trace.targets_prior import PHILLY, PriorTraceTargets, prior_targets
from calibration.synthetic import fit_rho, solve_state_logits, type_sample

LOW_DURATION = 1.0
"""Shortest supervised run time (s): the lower end of the quantile function."""
TAIL_MASS_MIN = 0.001
"""Smallest share of supervised jobs above the last published GPU-count point."""
MAX_GPUS = 256
"""Largest supervised job: Helios' GPU-time CDF by job size reaches ~100 % by 256 GPUs
(cdf_job_gpunum.png (b)), so its rare larger jobs (up to 2,048) carry no visible GPU time, and
on the modeled 2,288-GPU cluster they would stall the packer's queue for days."""


@dataclasses.dataclass
class ClassSample:
    """Run times (GPU jobs of one GPU) of a sample of search or RL jobs, and their variants."""

    work: np.ndarray
    variant: np.ndarray
    units: int

    @property
    def jobs_per_unit(self) -> float:
        """Mean jobs per search / study in the sample."""
        return len(self.work) / self.units

    def cdf(self, x: float) -> float:
        """Share of the sample's jobs that run at most ``x`` seconds."""
        return float((self.work <= x).mean())


def sample_classes(states: StateModel, units: int, seed: int) -> dict[str, ClassSample]:
    """Fixed-seed samples of ``units`` searches and ``units`` RL studies."""
    starts = np.zeros(units, dtype=np.int64)
    search, search_meta = search_jobs(RngStreams(seed), SEARCH, states, starts)
    rl, rl_meta = rl_jobs(RngStreams(seed), RL, states, starts)
    return {"search": ClassSample(search.work.astype(float), search_meta.variant, units),
            "rl": ClassSample(rl.work.astype(float), rl_meta.variant, units)}


def supervised_pmf(prior: PriorTraceTargets, single_gpu_share: float) -> dict[int, float]:
    """GPU-count pmf of the supervised class: the prior's job CDF without search and RL.

    Masses sit at the published CDF points (powers of two); the mass above the last point (at
    least ``TAIL_MASS_MIN``) decays geometrically over the larger powers of two up to the
    prior's largest job (at most 1,024), at the ratio that makes the mean the published one.
    """
    points = sorted(prior.gpu_cdf_jobs)
    cdf = np.array([prior.gpu_cdf_jobs[k] for k in points])
    cdf -= single_gpu_share  # the search and RL jobs all use one GPU
    w_sup = 1.0 - single_gpu_share
    masses = np.diff(np.concatenate([[0.0], cdf])) / w_sup
    pmf = dict(zip(points, masses.tolist(), strict=True))
    covered = float(masses.sum())
    tail = max(1.0 - covered, TAIL_MASS_MIN)
    pmf[points[-1]] -= tail - (1.0 - covered)
    sizes = [2 ** k for k in range(int(np.log2(points[-1])) + 1, 11)
             if 2 ** k <= min(prior.max_gpus, MAX_GPUS)] or [points[-1] * 2]
    target = (prior.mean_gpus - single_gpu_share) / w_sup - sum(k * p for k, p in pmf.items())
    ratio = _tail_ratio(np.array(sizes, dtype=float), tail, target)
    weights = ratio ** np.arange(len(sizes))
    for size, weight in zip(sizes, weights / weights.sum() * tail, strict=True):
        pmf[int(size)] = float(weight)
    return {k: round(v, 6) for k, v in sorted(pmf.items()) if v > 0}


def _tail_ratio(sizes: np.ndarray, mass: float, target_mean_part: float) -> float:
    """Geometric ratio of the tail masses giving the tail's part of the mean GPU count."""
    def part(r: float) -> float:
        w = r ** np.arange(len(sizes))
        return float(mass * (w / w.sum()) @ sizes)
    low, high = 1e-6, 1e6
    for _ in range(200):
        mid = np.sqrt(low * high)
        low, high = (mid, high) if part(mid) < target_mean_part else (low, mid)
    return float(np.sqrt(low * high))


def supervised_knots(prior: PriorTraceTargets, samples: dict[str, ClassSample],
                     shares: dict[str, float]) -> tuple[tuple[float, float], ...]:
    """Run-time knots of the supervised class: the prior's CDF minus the other classes'.

    The CDF points are the published table's and the published median (F = 0.5); the top
    knot is set so the whole workload's mean run time is the published mean.
    """
    w_sup = shares["supervised"]
    knots = [(0.0, LOW_DURATION)]
    points = {**prior.duration_cdf, prior.run_time_median: 0.5}  # the median is a CDF point
    for x, value in sorted(points.items()):
        others = sum(shares[c] * samples[c].cdf(x) for c in samples)
        p = min(max((value - others) / w_sup, knots[-1][0]), 1.0)
        if p > knots[-1][0] + 1e-4 and p < 1.0:
            knots.append((round(p, 4), float(x)))
    others_mean = sum(shares[c] * samples[c].work.mean() for c in samples)
    needed = (prior.run_time_mean - others_mean) / w_sup

    def mean_with(top: float) -> float:
        return LogQuantile(tuple(knots + [(1.0, top)])).mean()

    low, high = knots[-1][1] * 1.01, 1e9
    for _ in range(200):
        mid = np.sqrt(low * high)
        low, high = (mid, high) if mean_with(mid) < needed else (low, mid)
    return tuple(knots + [(1.0, float(round(np.sqrt(low * high))))])


def fit_states(prior: PriorTraceTargets, gpu_time: np.ndarray, weight: np.ndarray,
               start: StateModel) -> StateModel:
    """Logit coefficients matching the prior's state shares by count and GPU time (Newton)."""
    if not prior.state_job_share:
        return start
    targets = np.array([prior.state_job_share["CANCELLED"],
                        prior.state_gpu_time_share["CANCELLED"],
                        prior.state_job_share["FAILED"], prior.state_gpu_time_share["FAILED"]])
    theta = solve_state_logits(np.array([*start.cancelled, *start.failed]), gpu_time, weight,
                               targets, 1e-7)
    a_c, b_c, a_f, b_f = (round(float(v), 4) for v in theta)
    return StateModel((a_c, b_c), (a_f, b_f), STATE_SPLIT_TIMEOUT, STATE_SPLIT_NODE_FAIL)


@dataclasses.dataclass
class Population:
    """A weighted sample of the whole workload: GPUs, run time, class key per job."""

    gpus: np.ndarray
    work: np.ndarray
    key: np.ndarray
    weight: np.ndarray

    @property
    def gpu_time(self) -> np.ndarray:
        """GPU time of every sampled job."""
        return self.gpus * self.work


def population(samples: dict[str, ClassSample], supervised: TypeModel,
               shares: dict[str, float], n: int, seed: int) -> Population:
    """Search, RL and supervised samples weighted by their class shares of the jobs."""
    gpus, work = type_sample(supervised, n, seed)
    parts = [(np.ones(len(s.work)), s.work,
              np.where(s.variant == FINAL, "search_final", name), shares[name] / len(s.work))
             for name, s in samples.items()]
    parts.append((gpus.astype(float), work, np.full(n, "supervised"), shares["supervised"] / n))
    return Population(np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]),
                      np.concatenate([p[2] for p in parts]).astype(str),
                      np.concatenate([np.full(len(p[0]), p[3]) for p in parts]))


def fit_supervised_util(pop: Population, target: float, seed: int) -> float:
    """Mean utilization of supervised jobs giving the GPU-time-weighted median ``target``."""
    def median_with(mean: float) -> float:
        util = np.empty(len(pop.key))
        models = {**ASSUMED_UTIL, "supervised": UtilModel(mean, 4.0),
                  "search_final": UtilModel(mean, 4.0)}
        for name, model in models.items():
            rows = np.flatnonzero(pop.key == name)
            util[rows] = model.draw(RngStreams(seed).fresh(name), len(rows))
        return weighted_quantile(util, pop.gpu_time * pop.weight, 0.5)

    low, high = 0.05, 0.95
    for _ in range(40):
        mid = 0.5 * (low + high)
        low, high = (mid, high) if median_with(mid) < target else (low, mid)
    return round(0.5 * (low + high), 4)


def calibrate(prior: PriorTraceTargets, units: int, n: int, seed: int) -> dict[str, object]:
    """Every fitted constant of the task-DL profile calibrated to ``prior``."""
    shares = dict(CLASS_JOB_SHARES[prior.name])
    states = StateModel((-1.5, 0.3), (-1.0, 0.0), STATE_SPLIT_TIMEOUT, STATE_SPLIT_NODE_FAIL)
    single = shares["search"] + shares["rl"]
    pmf = supervised_pmf(prior, single)
    for _ in range(3):
        samples = sample_classes(states, units, seed)
        knots = supervised_knots(prior, samples, shares)
        model = TypeModel("Supervised", pmf, knots, 0.0, SESSION)
        others = sum(shares[c] * samples[c].work.mean() for c in samples)
        per_job = prior.gpu_time_per_job or prior.run_time_mean * prior.mean_gpus
        rho = fit_rho(model, (per_job - others) / shares["supervised"], n, seed)
        model = dataclasses.replace(model, size_duration_rho=rho)
        pop = population(samples, model, shares, n, seed)
        states = fit_states(prior, pop.gpu_time, pop.weight, states)
    util_target = prior.median_gpu_util or PHILLY.median_gpu_util
    return {"gpu_pmf": pmf, "duration_knots": knots, "rho": rho, "states": states,
            "supervised_util": fit_supervised_util(pop, util_target, seed),
            "jobs_per_search": round(samples["search"].jobs_per_unit, 4),
            "population": pop}


def report(prior: PriorTraceTargets, fitted: dict[str, object]) -> str:
    """The fitted constants and the population's expected statistics, as text."""
    pop: Population = fitted["population"]  # type: ignore[assignment]
    w, t = pop.weight, pop.gpu_time
    lines = [f"{k}={v!r}" for k, v in fitted.items() if k != "population"]
    mean_run = float(w @ pop.work / w.sum())
    lines += [
        f"# expected mean run time {mean_run:.1f} s (published {prior.run_time_mean})",
        f"# expected mean GPUs {float(w @ pop.gpus / w.sum()):.3f} (published {prior.mean_gpus})",
        f"# expected GPU time per job {float(w @ t / w.sum()):.0f} GPU-s "
        f"(published {prior.gpu_time_per_job})",
        f"# single-GPU share of GPU time {float((w * t)[pop.gpus == 1].sum() / (w @ t)):.3f} "
        f"(published {prior.one_gpu_gpu_time_share})",
    ]
    for k, published in prior.gpu_cdf_gpu_time.items():
        share = float((w * t)[pop.gpus <= k].sum() / (w @ t))
        lines.append(f"# GPU time of jobs <= {k} GPUs: {share:.3f} (figure {published})")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Print the fitted constants of the task-DL profile for one prior trace."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prior", choices=["helios", "philly"])
    parser.add_argument("--units", type=int, default=20_000, help="searches / studies sampled")
    parser.add_argument("--jobs", type=int, default=200_000, help="supervised jobs sampled")
    parser.add_argument("--seed", type=int, default=12345)
    args = parser.parse_args(argv)
    prior = prior_targets(args.prior)
    print(report(prior, calibrate(prior, args.units, args.jobs, args.seed)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
