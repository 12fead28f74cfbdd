"""Exactly rounded dot products: an oracle in exact rationals, order independence, the summary."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from factories import cluster, frame, job
from hypothesis import given
from hypothesis import strategies as st

from acmesim.core.numeric import exact_dot
from acmesim.results.summary import job_statistics
from acmesim.run import simulate

FINITE = st.floats(min_value=-1e12, max_value=1e12, allow_nan=False, allow_infinity=False)


@given(st.lists(st.tuples(FINITE, FINITE), max_size=60))
def test_exact_dot_is_the_exactly_rounded_sum_of_the_rounded_products(pairs):
    a = np.array([x for x, _ in pairs], dtype=float)
    b = np.array([y for _, y in pairs], dtype=float)
    oracle = float(sum((Fraction(float(x * y)) for x, y in zip(a, b, strict=True)), Fraction(0)))
    assert exact_dot(a, b) == oracle


@given(st.lists(st.tuples(FINITE, FINITE), min_size=2, max_size=40), st.randoms())
def test_exact_dot_does_not_depend_on_the_order_of_the_terms(pairs, random):
    shuffled = list(pairs)
    random.shuffle(shuffled)
    first = exact_dot([x for x, _ in pairs], [y for _, y in pairs])
    assert exact_dot([x for x, _ in shuffled], [y for _, y in shuffled]) == first


def test_exact_dot_keeps_what_a_running_sum_rounds_away():
    # 2^53 + 1 rounds back to 2^53 in float64: summed left to right the two 1s vanish
    assert exact_dot([2.0**53, 1.0, 1.0], [1.0, 1.0, 1.0]) == 2.0**53 + 2
    assert exact_dot([], []) == 0.0


def test_exact_dot_rejects_unequal_shapes():
    with pytest.raises(ValueError, match="equal shapes"):
        exact_dot([1.0, 2.0], [1.0])


def test_summary_gpu_time_is_summed_exactly():
    result = simulate(frame([job(0, 10, 1), job(0, 10, 1), job(0, 10, 1)]), cluster(1),
                      "fifo", "consolidate")
    jobs = result.jobs.copy()
    jobs["run_time"] = [2.0**53, 1.0, 1.0]
    jobs["recorded_run_time"] = [1.0, 2.0**53, 1.0]
    stats = job_statistics(jobs, total_gpus=8, recorded=False)
    assert stats["gpu_time"] == 2.0**53 + 2
    assert stats["trace_gpu_time"] == 2.0**53 + 2
