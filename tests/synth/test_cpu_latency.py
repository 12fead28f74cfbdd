"""The CPU jobs' latency: a share at 0 s and a lognormal, derived from a median and a mean."""

from __future__ import annotations

import math
from statistics import NormalDist

import pytest

from acmesim.synth.profiles import (
    KALOS,
    SEREN,
    lognormal_median_for_mean,
    zero_inflated_lognormal,
)


def test_without_zeros_it_is_the_lognormal_of_that_median_and_mean():
    # zero 0: the median is the lognormal's, and mean = median e^(sigma^2 / 2) = e^0.5 at
    # median 1 gives sigma 1
    assert zero_inflated_lognormal(1.0, math.exp(0.5), 0.0) == (1.0, 1.0)
    # median 3, mean 3 e^2: sigma = sqrt(2 x 2) = 2
    assert zero_inflated_lognormal(3.0, 3.0 * math.exp(2.0), 0.0) == (3.0, 2.0)


def test_seren_cpu_latency_is_derived_from_the_published_median_and_mean():
    # R-SUM: median 1 s, mean 4.813 s; 35 % at 0 s. z = Phi^-1(0.15 / 0.65) = -0.73632,
    # sigma = z + sqrt(z^2 + 2 ln(4.813 / 0.65)) = -0.73632 + sqrt(0.54217 + 4.00418)
    # = 1.39590, lognormal median = e^(1.39590 x 0.73632) = e^1.02783 = 2.7951 s
    assert zero_inflated_lognormal(1.0, 4.813, 0.35) == (2.795, 1.3959)
    cpu = SEREN.cpu
    assert (cpu.latency_median, cpu.latency_sigma, cpu.latency_zero) == (2.795, 1.3959, 0.35)


def test_kalos_cpu_queue_is_derived_from_the_published_median_and_mean():
    # R-SUM: Kalos CPU queue median 9 s, mean 88.401 s (acme_facts.md §2.4), none at 0 s:
    # sigma = sqrt(2 ln(88.401 / 9)) = sqrt(2 x 2.28465) = 2.13760, the median stays 9 s
    assert zero_inflated_lognormal(9.0, 88.401, 0.0) == (9.0, 2.1376)
    cpu = KALOS.cpu
    assert (cpu.latency_median, cpu.latency_sigma, cpu.latency_zero) == (9.0, 2.1376, 0.0)


def test_kalos_cpu_run_part_carries_the_duration_mean_left_after_the_queue():
    # end - submit mean 118.352 s less the queue mean 88.401 s = 29.951 s (R-SUM); at sigma
    # 2.1 the median is 29.951 / e^2.205 = 29.951 / 9.07011 = 3.3021 s
    assert lognormal_median_for_mean(29.951, 2.1) == 3.3021
    assert lognormal_median_for_mean(math.exp(0.5), 1.0) == 1.0
    assert (KALOS.cpu.run_median, KALOS.cpu.run_sigma) == (3.3021, 2.1)
    queue_mean = 9.0 * math.exp(2.1376 ** 2 / 2)
    run_mean = 3.3021 * math.exp(2.1 ** 2 / 2)
    assert queue_mean + run_mean == pytest.approx(118.352, rel=1e-3)


@pytest.mark.parametrize("args", [(0.0, 2.0), (10.0, 0.0), (-1.0, 1.0)])
def test_a_lognormal_needs_a_positive_mean_and_sigma(args):
    with pytest.raises(ValueError, match="need mean > 0"):
        lognormal_median_for_mean(*args)


def test_the_fit_meets_its_median_and_mean_exactly():
    median, mean, zero = 1.0, 4.813, 0.35
    m, s = zero_inflated_lognormal(median, mean, zero)
    at_median = zero + (1 - zero) * NormalDist().cdf(math.log(median / m) / s)
    assert at_median == pytest.approx(0.5, abs=1e-4)
    assert (1 - zero) * m * math.exp(s * s / 2) == pytest.approx(mean, rel=1e-4)


@pytest.mark.parametrize("args", [(1.0, 4.8, 0.5), (1.0, 0.6, 0.35), (0.0, 4.8, 0.35),
                                  (1.0, 4.8, -0.1)])
def test_impossible_facts_are_refused(args):
    with pytest.raises(ValueError, match="need 0 <= zero"):
        zero_inflated_lognormal(*args)
