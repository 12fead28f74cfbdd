"""Derive the fitted constants of a workload profile (``python -m calibration.synthetic seren``).

Two fits, each on a large sample of the job model with a fixed seed (common random numbers):

1. ``size_duration_rho`` of every type: bisection so that the type's expected GPU time per job,
   times its published share of the GPU jobs, times the number of GPU jobs, equals its published
   share of GPU time times the cluster's total GPU time (R-SUM). Each type is fitted alone.
2. The state logit (two intercepts, two slopes): Newton's method so that the expected shares of
   CANCELLED and FAILED jobs, by count and by GPU time, equal the published ones.

The printed values are pasted into ``profiles.py``; the tests check the generated traces, not
this script.
"""

from __future__ import annotations

import argparse
import dataclasses

import numpy as np

from acmesim.core.rng import RngStreams
from acmesim.synth.distributions import LogQuantile
from acmesim.synth.jobs import draw_durations, draw_sizes, state_probabilities
from acmesim.synth.profiles import StateModel, TypeModel, WorkloadProfile, get_profile


def type_sample(model: TypeModel, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """GPU counts and run times of ``n`` jobs of one type (a fixed-seed sample)."""
    streams = RngStreams(seed)
    gpus = draw_sizes(streams.fresh(f"sizes/{model.name}"), model, n)
    durations = draw_durations(streams.fresh(f"durations/{model.name}"), model, gpus,
                               LogQuantile(model.duration_knots))
    return gpus, durations


def mean_gpu_time(model: TypeModel, rho: float, n: int, seed: int) -> float:
    """Mean GPU time per job of ``model`` with copula correlation ``rho``."""
    gpus, durations = type_sample(dataclasses.replace(model, size_duration_rho=rho), n, seed)
    return float(np.mean(gpus * durations))


def fit_rho(model: TypeModel, target_mean: float, n: int, seed: int) -> float:
    """The correlation giving mean GPU time ``target_mean`` (bisection on [-0.9, 0.99])."""
    low, high = -0.9, 0.99
    if mean_gpu_time(model, high, n, seed) < target_mean:
        return high
    if mean_gpu_time(model, low, n, seed) > target_mean:
        return low
    for _ in range(30):
        middle = 0.5 * (low + high)
        if mean_gpu_time(model, middle, n, seed) < target_mean:
            low = middle
        else:
            high = middle
    return round(0.5 * (low + high), 4)


def fit_rhos(profile: WorkloadProfile, n: int, seed: int) -> dict[str, float]:
    """Fitted correlations of every type of ``profile``."""
    t = profile.targets
    fitted = {}
    for model in profile.types:
        total = t.type_gpu_time_share[model.name] * t.total_gpu_time
        jobs = profile.type_share(model.name) * t.gpu_jobs
        fitted[model.name] = fit_rho(model, total / jobs, n, seed)
    return fitted


def population(profile: WorkloadProfile, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """GPU times of a mixed sample in the published type proportions, and per-job weights."""
    times, weights = [], []
    for model in profile.types:
        gpus, durations = type_sample(model, n, seed)
        times.append(gpus * durations)
        weights.append(np.full(n, profile.type_share(model.name) / n))
    return np.concatenate(times), np.concatenate(weights)


def state_residuals(theta: np.ndarray, gpu_time: np.ndarray, weight: np.ndarray,
                    targets: np.ndarray) -> np.ndarray:
    """Expected (cancel count, cancel time, fail count, fail time) shares minus targets."""
    model = StateModel((theta[0], theta[1]), (theta[2], theta[3]), 0.0, 0.0)
    probs = state_probabilities(model, gpu_time)
    by_count = weight @ probs / weight.sum()
    by_time = (weight * gpu_time) @ probs / (weight * gpu_time).sum()
    return np.array([by_count[1], by_time[1], by_count[2], by_time[2]]) - targets


def fit_states(profile: WorkloadProfile, n: int, seed: int) -> tuple[float, ...]:
    """Logit coefficients (a_cancel, b_cancel, a_fail, b_fail) matching the state shares."""
    gpu_time, weight = population(profile, n, seed)
    t = profile.targets
    targets = np.array([t.state_job_share["CANCELLED"], t.state_gpu_time_share["CANCELLED"],
                        t.state_job_share["FAILED"], t.state_gpu_time_share["FAILED"]])
    theta = solve_state_logits(np.array([-2.0, 0.5, 0.0, 0.0]), gpu_time, weight, targets, 1e-6)
    return tuple(round(float(v), 4) for v in theta)


def solve_state_logits(
    theta: np.ndarray, gpu_time: np.ndarray, weight: np.ndarray, targets: np.ndarray, tol: float
) -> np.ndarray:
    """Damped Newton steps (finite-difference Jacobian) until the state residuals are < ``tol``."""
    theta = np.asarray(theta, dtype=float)
    for _ in range(100):
        residual = state_residuals(theta, gpu_time, weight, targets)
        if np.abs(residual).max() < tol:
            break
        jacobian = np.empty((4, 4))
        for j in range(4):
            step = np.zeros(4)
            step[j] = 1e-5
            jacobian[:, j] = (state_residuals(theta + step, gpu_time, weight, targets)
                              - residual) / 1e-5
        delta = np.linalg.lstsq(jacobian, -residual, rcond=None)[0]
        theta = theta + delta * min(1.0, 1.0 / max(np.abs(delta).max(), 1e-12))
    return theta


def main(argv: list[str] | None = None) -> int:
    """Print the fitted constants of a profile."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("profile")
    parser.add_argument("--jobs", type=int, default=400_000, help="sample size per type")
    parser.add_argument("--seed", type=int, default=12345)
    args = parser.parse_args(argv)
    profile = get_profile(args.profile)
    rhos = fit_rhos(profile, args.jobs, args.seed)
    prefix = profile.name.upper()
    print(f"{prefix}_FITTED_RHO = {rhos!r}")
    fitted = dataclasses.replace(profile, types=tuple(
        dataclasses.replace(m, size_duration_rho=rhos.get(m.name, m.size_duration_rho))
        for m in profile.types))
    a_c, b_c, a_f, b_f = fit_states(fitted, args.jobs, args.seed)
    print(f"{prefix}_FITTED_STATES = (({a_c}, {b_c}), ({a_f}, {b_f}))")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
