"""The CPU jobs' latency: a share at 0 s and a lognormal, derived from a median and a mean."""

from __future__ import annotations

import math
from statistics import NormalDist

import pytest

from acmesim.synth.profiles import KALOS, SEREN, zero_inflated_lognormal


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
    assert (KALOS.cpu.latency_median, KALOS.cpu.latency_sigma) == (9.0, 1.9)  # unchanged


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
