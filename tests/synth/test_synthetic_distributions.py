"""Building blocks of the synthetic workload model, checked against exact oracles."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acmesim.synth import arrivals
from acmesim.synth.distributions import (
    LogQuantile,
    discrete_quantile,
    norm_cdf,
    norm_ppf,
    rank_stratified_uniforms,
    stratified_uniforms,
)
from acmesim.synth.jobs import balanced_draws, draw_group_sizes, heaviest
from acmesim.synth.profiles import SEREN, GroupModel


def test_norm_cdf_matches_math_erf():
    x = np.linspace(-7.0, 7.0, 1401)
    exact = np.array([0.5 * math.erfc(-v / math.sqrt(2.0)) for v in x])
    assert np.max(np.abs(norm_cdf(x) - exact)) < 2e-7
    assert np.max(np.abs(norm_cdf(x) - exact) / exact) < 1e-6


@given(st.floats(min_value=1e-12, max_value=1 - 1e-12))
@settings(max_examples=200, deadline=None)
def test_norm_ppf_inverts_the_exact_cdf(p):
    z = float(norm_ppf(np.array([p]))[0])
    back = 0.5 * math.erfc(-z / math.sqrt(2.0))
    assert back == pytest.approx(p, rel=1e-6, abs=1e-15)


def test_log_quantile_passes_through_knots_and_interpolates_geometrically():
    q = LogQuantile(((0.0, 1.0), (0.5, 100.0), (1.0, 400.0)))
    assert q(np.array([0.0, 0.5, 1.0])) == pytest.approx([1.0, 100.0, 400.0])
    assert q(np.array([0.25]))[0] == pytest.approx(10.0)  # geometric mean of 1 and 100
    assert q.cdf(np.array([10.0, 200.0])) == pytest.approx([0.25, 0.75])


def test_log_quantile_mean_is_the_exact_integral():
    # two segments, each log-linear: mean = sum dp * (b - a) / ln(b / a)
    q = LogQuantile(((0.0, 1.0), (0.5, 100.0), (1.0, 400.0)))
    expected = 0.5 * 99.0 / math.log(100.0) + 0.5 * 300.0 / math.log(4.0)
    assert q.mean() == pytest.approx(expected, rel=1e-12)


def test_log_quantile_rejects_bad_knots():
    with pytest.raises(ValueError):
        LogQuantile(((0.1, 1.0), (1.0, 2.0)))
    with pytest.raises(ValueError):
        LogQuantile(((0.0, 5.0), (0.5, 2.0), (1.0, 9.0)))


@given(st.integers(min_value=1, max_value=500), st.integers(min_value=0, max_value=2**32))
@settings(max_examples=50, deadline=None)
def test_stratified_uniforms_fill_every_stratum_once(n, seed):
    u = stratified_uniforms(np.random.default_rng(seed), n)
    assert sorted(np.floor(u * n).astype(int).tolist()) == list(range(n))


@given(st.integers(min_value=1, max_value=300), st.integers(min_value=1, max_value=16),
       st.integers(min_value=0, max_value=2**32))
@settings(max_examples=50, deadline=None)
def test_rank_stratified_uniforms_are_distinct_strata_inside_each_block(n, block, seed):
    rng = np.random.default_rng(seed)
    key = rng.random(n)
    u = rank_stratified_uniforms(rng, key, block)
    rank = np.empty(n, dtype=int)
    rank[np.argsort(-key, kind="stable")] = np.arange(n)
    for b in range(0, n, block):
        members = (rank >= b) & (rank < b + block)
        size = int(members.sum())
        assert sorted(np.floor(u[members] * size).astype(int).tolist()) == list(range(size))


def test_discrete_quantile_maps_cdf_steps():
    values, probs = np.array([1, 8, 64]), np.array([0.5, 0.3, 0.2])
    u = np.array([0.0, 0.49, 0.5, 0.79, 0.8, 0.999])
    assert discrete_quantile(values, probs, u).tolist() == [1, 1, 8, 8, 64, 64]


def test_mean_group_size_equals_the_exact_sum():
    model = GroupModel("batch", 16.0, 1.3, 512)
    # P(round(X) = k) for a lognormal X, with everything below 1.5 at 1 and above 511.5 at 512
    def cdf(x):
        return 0.5 * math.erfc(-(math.log(x) - math.log(16.0)) / (1.3 * math.sqrt(2.0)))
    expected = sum(k * ((cdf(k + 0.5) if k < 512 else 1.0) - (cdf(k - 0.5) if k > 1 else 0.0))
                   for k in range(1, 513))
    assert arrivals.mean_group_size(model) == pytest.approx(expected, rel=1e-5)


@given(st.integers(min_value=1, max_value=60), st.integers(min_value=0, max_value=2**32))
@settings(max_examples=40, deadline=None)
def test_balanced_draws_keep_weighted_shares_near_expectation(n, seed):
    rng = np.random.default_rng(seed)
    weights = np.sort(rng.pareto(1.2, n) + 1.0)[::-1]
    probs = rng.dirichlet([1.0, 1.0, 1.0], n)
    chosen = balanced_draws(rng, probs, weights)
    for c in range(3):
        realized = weights[chosen == c].sum()
        expected = weights @ probs[:, c]
        assert abs(realized - expected) <= 2.0 * weights.max() + 1e-9


def test_heaviest_returns_the_top_jobs_holding_the_share():
    weights = np.array([1.0, 50.0, 2.0, 40.0, 7.0])
    assert heaviest(weights, 0.5).tolist() == [1]
    assert heaviest(weights, 0.9).tolist() == [1, 3]


def test_group_sizes_follow_the_distribution_weighted_by_jobs():
    model = SEREN.types[0]  # Eval: batches share one GPU count
    rng = np.random.default_rng(3)
    group_jobs = arrivals.group_sizes(rng, model.group, 2000)
    sizes = draw_group_sizes(rng, model, group_jobs)
    jobs_per_size = {s: group_jobs[sizes == s].sum() / group_jobs.sum() for s in model.gpu_pmf}
    slack = group_jobs.max() / group_jobs.sum() + 1e-9
    for size, p in model.gpu_pmf.items():
        assert abs(jobs_per_size[size] - p / sum(model.gpu_pmf.values())) <= slack
