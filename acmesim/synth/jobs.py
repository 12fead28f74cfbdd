"""The job model: GPU counts, run times coupled to size by a Gaussian copula, final states.

Run times keep each type's published marginal exactly: a job of GPU-count class ``c`` (latent
size quantile ``u_s`` uniform inside the class's CDF step) gets the duration quantile
``u_d = Phi(rho * Phi^-1(u_s) + sqrt(1 - rho^2) * Phi^-1(v))``, where the ``v`` of the jobs of one
class are stratified (one per equal stratum). Stratifying inside each size class keeps the GPU
time of a type close to its expectation even with few large jobs and heavy tails, so the
GPU-time shares hold from seed to seed.
"""

from __future__ import annotations

import numpy as np

from acmesim.synth.distributions import (
    LogQuantile,
    discrete_draws,
    discrete_quantile,
    norm_cdf,
    norm_ppf,
    rank_stratified_uniforms,
    stratified_uniforms,
)
from acmesim.synth.profiles import StateModel, TypeModel

STATE_NAMES: tuple[str, ...] = ("COMPLETED", "CANCELLED", "FAILED", "TIMEOUT", "NODE_FAIL")
"""State codes used by ``assign_states`` (index into this tuple)."""

STATE_BLOCK = 8
"""Jobs of neighbouring GPU time whose state draws are stratified together."""

HEAVY_GPU_TIME_SHARE = 0.9
"""The heaviest jobs holding this share of all GPU time get weight-balanced state draws."""


def gpu_pmf_arrays(model: TypeModel) -> tuple[np.ndarray, np.ndarray]:
    """The type's GPU counts and their probabilities (normalized), ascending by count."""
    sizes = np.array(sorted(model.gpu_pmf), dtype=np.int64)
    probs = np.array([model.gpu_pmf[s] for s in sizes], dtype=np.float64)
    return sizes, probs / probs.sum()


def draw_sizes(rng: np.random.Generator, model: TypeModel, n: int) -> np.ndarray:
    """``n`` GPU counts of the type (stratified: class counts follow the distribution)."""
    sizes, probs = gpu_pmf_arrays(model)
    return discrete_draws(rng, sizes, probs, n, stratified=True)


def draw_group_sizes(rng: np.random.Generator, model: TypeModel, group_jobs: np.ndarray
                     ) -> np.ndarray:
    """One GPU count per group, so that the *jobs* (not the groups) follow the distribution.

    Systematic sampling weighted by each group's number of jobs: groups in random order take
    consecutive slices of the job-count axis, and a group's GPU count is the quantile at the
    middle of its slice (plus one random offset). A few large evaluation batches thus cannot
    shift the share of single-GPU jobs.
    """
    sizes, probs = gpu_pmf_arrays(model)
    n = len(group_jobs)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    order = rng.permutation(n)
    weights = group_jobs[order].astype(np.float64)
    middle = (np.cumsum(weights) - weights / 2.0) / weights.sum()
    u = np.empty(n, dtype=np.float64)
    u[order] = (middle + rng.random()) % 1.0
    return discrete_quantile(sizes, probs, u)


def draw_durations(rng: np.random.Generator, model: TypeModel, gpus: np.ndarray,
                   quantile: LogQuantile | None = None) -> np.ndarray:
    """Run times (float seconds) for jobs of the type with GPU counts ``gpus`` (see module)."""
    quantile = quantile or LogQuantile(model.duration_knots)
    u_d = duration_quantiles(rng, model, gpus)
    return quantile(u_d)


def duration_quantiles(rng: np.random.Generator, model: TypeModel, gpus: np.ndarray
                       ) -> np.ndarray:
    """The copula step: each job's quantile in the type's run-time distribution."""
    sizes, probs = gpu_pmf_arrays(model)
    upper = np.cumsum(probs)
    lower = upper - probs
    klass = np.searchsorted(sizes, gpus)
    rho = model.size_duration_rho
    u_d = np.empty(len(gpus), dtype=np.float64)
    for index in range(len(sizes)):
        members = np.flatnonzero(klass == index)
        if members.size == 0:
            continue
        v = stratified_uniforms(rng, members.size)
        if rho == 0.0:
            u_d[members] = v
            continue
        u_s = lower[index] + probs[index] * rng.random(members.size)
        z = rho * norm_ppf(u_s) + np.sqrt(1.0 - rho * rho) * norm_ppf(v)
        u_d[members] = norm_cdf(z)
    return u_d


def state_probabilities(model: StateModel, gpu_time: np.ndarray) -> np.ndarray:
    """Rows of (completed, cancelled, failed) probabilities for jobs of the given GPU time."""
    x = np.log10(np.maximum(gpu_time, 1.0)) - 3.0
    weights = np.stack([
        np.ones_like(x),
        np.exp(model.cancelled[0] + model.cancelled[1] * x),
        np.exp(model.failed[0] + model.failed[1] * x),
    ], axis=1)
    return weights / weights.sum(axis=1, keepdims=True)


def assign_states(rng: np.random.Generator, model: StateModel, gpu_time: np.ndarray
                  ) -> np.ndarray:
    """State codes (index into ``STATE_NAMES``) drawn from the logit, failures split 3 ways.

    The draws are stratified among jobs of similar GPU time (``rank_stratified_uniforms``), and
    the heaviest jobs (``HEAVY_GPU_TIME_SHARE`` of the GPU time, often a few hundred pretraining
    runs) are drawn by ``balanced_draws``, so the shares by GPU time do not hinge on the luck of
    a few runs that each hold percents of the total.
    """
    probs = state_probabilities(model, gpu_time)
    draw = rank_stratified_uniforms(rng, gpu_time, STATE_BLOCK)
    code = (draw >= probs[:, 0]).astype(np.int8) + (draw >= probs[:, 0] + probs[:, 1])
    heavy = heaviest(gpu_time, HEAVY_GPU_TIME_SHARE)
    code[heavy] = balanced_draws(rng, probs[heavy], gpu_time[heavy])
    failed = np.flatnonzero(code == 2)
    split = rng.random(failed.size)
    code[failed[split < model.timeout_of_failed]] = 3
    node_fail = (split >= model.timeout_of_failed) & (
        split < model.timeout_of_failed + model.node_fail_of_failed)
    code[failed[node_fail]] = 4
    return code


def heaviest(weights: np.ndarray, share: float) -> np.ndarray:
    """Indices of the largest ``weights`` that together hold ``share`` of the total, largest
    first."""
    order = np.argsort(-weights, kind="stable")
    cumulative = np.cumsum(weights[order])
    if len(order) == 0 or cumulative[-1] <= 0:
        return order[:0]
    return order[: int(np.searchsorted(cumulative, share * cumulative[-1])) + 1]


def balanced_draws(rng: np.random.Generator, probs: np.ndarray, weights: np.ndarray
                   ) -> np.ndarray:
    """Categories drawn in turn so that their weighted shares track the expected ones.

    Each job's draw uses probabilities proportional to ``max(0, deficit_c + w * p_c)``, where
    ``deficit_c`` is the expected minus the realized weight of category ``c`` so far: the first
    job is drawn from its own probabilities, later ones lean towards the categories that are
    behind. The weighted shares then stay within about one job's weight of their expectation.
    """
    deficit = [0.0] * probs.shape[1]
    uniforms = rng.random(len(weights)).tolist()
    chosen = np.empty(len(weights), dtype=np.int8)
    for i, (w, p, u) in enumerate(zip(weights.tolist(), probs.tolist(), uniforms, strict=True)):
        scores = [max(d + w * q, 0.0) for d, q in zip(deficit, p, strict=True)]
        total = sum(scores)
        if total <= 0.0:
            scores, total = p, 1.0
        threshold, c, running = u * total, 0, scores[0]
        while running <= threshold and c < len(scores) - 1:
            c += 1
            running += scores[c]
        for k, q in enumerate(p):
            deficit[k] += w * q
        deficit[c] -= w
        chosen[i] = c
    return chosen
