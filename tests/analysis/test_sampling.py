"""The sampling band of a percentile (``acmesim.analysis.sampling``): exact binomial oracles."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acmesim.analysis.sampling import (
    order_statistic_ranks,
    percentile_band,
    percentile_bands,
    within,
)


def exact_cdf(n: int, q: Fraction, k: int) -> Fraction:
    """P(B <= k) for B ~ Binomial(n, q), in exact rationals (0 for k < 0)."""
    return sum((math.comb(n, i) * q**i * (1 - q) ** (n - i) for i in range(k + 1)),
               Fraction(0))


def test_the_median_of_ten_is_bracketed_by_the_second_and_ninth_values():
    # Binomial(10, 1/2): P(B <= 1) = 11/1024 <= 0.025 < P(B <= 2) = 56/1024, so l = 2;
    # P(B <= 7) = 968/1024 < 0.975 <= P(B <= 8) = 1013/1024, so u = 9: coverage 0.978
    assert order_statistic_ranks(10, 50) == (2, 9)
    assert percentile_band(np.arange(10.0, 0.0, -1.0), 50) == (2.0, 9.0)


def test_a_p99_of_a_few_hundred_jobs_reaches_the_longest_or_past_it():
    # 385 jobs: P(B <= 384) = 1 - 0.99^385 = 0.979 >= 0.975 > P(B <= 383) = 0.898, so the
    # band's top is the 385th value, the longest; below 367 jobs (0.99^n > 0.025) even the
    # longest may lie under the true p99: 300 jobs, no upper end
    lower, upper = order_statistic_ranks(385, 99)
    assert upper == 385 and lower < 380
    values = np.arange(1.0, 386.0)
    assert percentile_band(values, 99) == (float(lower), 385.0)
    assert order_statistic_ranks(300, 99)[1] == 301
    assert percentile_band(np.arange(1.0, 301.0), 99)[1] == math.inf
    assert within(percentile_band(np.arange(1.0, 301.0), 99), 1e9) and not within(None, 1.0)
    assert percentile_bands(values, (50, 99))[99] == percentile_band(values, 99)
    assert all(math.isnan(v) for v in percentile_band(np.array([]), 50))


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 160), p=st.integers(1, 99))
def test_ranks_cover_the_percentile_and_are_the_tightest(n, p):
    q = Fraction(p, 100)
    lower, upper = order_statistic_ranks(n, p)
    tail = Fraction(1, 40)
    # coverage: P(l <= B <= u - 1) >= 95 % (B values below the true percentile)
    assert exact_cdf(n, q, upper - 1) - exact_cdf(n, q, lower - 1) >= Fraction(19, 20)
    # tightest of its kind: rank l + 1 would leave more than 2.5 % below, u - 1 above
    assert exact_cdf(n, q, lower) > tail
    assert exact_cdf(n, q, upper - 2) < 1 - tail
    assert 0 <= lower <= upper <= n + 1


def test_bad_arguments_are_rejected():
    for n, p in ((0, 50), (10, 0), (10, 100)):
        with pytest.raises(ValueError, match="need n >= 1"):
            order_statistic_ranks(n, p)
