"""Checkpoint theory against the validation table of reliability_facts.md §1.7, and identities."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acmesim.policies.checkpoint.theory import (
    daly_interval,
    expected_efficiency,
    expected_segment_time,
    expected_wall_time,
    lambert_w0,
    max_efficiency,
    optimal_interval,
    young_interval,
)

DELTA, RESTART, SOLVE_MIN = 5.0, 10.0, 500 * 60.0  # Daly's cases: δ = 5 min, R = 10 min, 500 h

# M (min): Young, Daly eq. 37, exact τ*, E_max, T_w(τ*) h, T_w(τ_Young) h, W0 (§1.7 table)
TABLE = [
    (1440, "120.000", "116.690", "116.690", "0.912606", "547.88", "547.90", "-0.9189652"),
    (360, "60.000", "56.713", "56.714", "0.819381", "610.22", "610.37", "-0.8424611"),
    (15, "12.247", "9.141", "9.167", "0.199668", "2504.16", "2573.52", "-0.3888998"),
]


@pytest.mark.parametrize(("mtbf", "young", "daly", "exact", "emax", "tw_opt", "tw_young", "w0"),
                         TABLE)
def test_validation_table_to_printed_digits(mtbf, young, daly, exact, emax, tw_opt, tw_young, w0):
    tau_star = optimal_interval(DELTA, mtbf)
    tau_young = young_interval(DELTA, mtbf)
    assert f"{tau_young:.3f}" == young
    assert f"{daly_interval(DELTA, mtbf):.3f}" == daly
    assert f"{tau_star:.3f}" == exact
    assert f"{max_efficiency(DELTA, mtbf, RESTART):.6f}" == emax
    assert f"{expected_wall_time(tau_star, DELTA, mtbf, SOLVE_MIN, RESTART) / 60:.2f}" == tw_opt
    assert f"{expected_wall_time(tau_young, DELTA, mtbf, SOLVE_MIN, RESTART) / 60:.2f}" == tw_young
    assert f"{lambert_w0(-math.exp(-(1 + DELTA / mtbf))):.7f}" == w0


def test_daly_published_optima_117_57_and_9_1_minutes():
    # Daly's own model optima from the paper's figure captions (§1.7 [P]).
    assert round(daly_interval(DELTA, 1440)) == 117
    assert round(daly_interval(DELTA, 360)) == 57
    assert round(daly_interval(DELTA, 15), 1) == 9.1


def test_no_checkpoint_case_explodes_to_2_7e10_hours():
    hours = expected_wall_time(math.inf, 0.0, 1440, SOLVE_MIN, RESTART) / 60
    assert f"{hours:.1e}" == "2.7e+10"


def test_daly_eq37_second_branch_returns_mtbf():
    assert daly_interval(10.0, 5.0) == 5.0
    assert daly_interval(10.0, 4.9) == 4.9
    assert daly_interval(9.99, 5.0) != 5.0


@pytest.mark.parametrize(("z", "w"), [(0.0, 0.0), (math.e, 1.0), (-1 / math.e, -1.0),
                                      (2 * math.exp(2), 2.0), (-math.log(2) / 2, -math.log(2))])
def test_lambert_w0_known_values(z, w):
    assert lambert_w0(z) == pytest.approx(w, abs=1e-12)


def test_lambert_w0_rejects_below_branch_point():
    with pytest.raises(ValueError, match="-1/e"):
        lambert_w0(-0.37)


@settings(max_examples=200, deadline=None)
@given(st.floats(min_value=-1 / math.e, max_value=1e12))
def test_lambert_w0_solves_its_defining_equation(z):
    w = lambert_w0(z)
    assert w >= -1.0
    assert w * math.exp(w) == pytest.approx(z, rel=1e-12, abs=1e-15)


@settings(max_examples=100, deadline=None)
@given(st.floats(min_value=1e-5, max_value=5.0), st.floats(min_value=1.0, max_value=1e6))
def test_exact_optimum_is_stationary_and_a_minimum(ratio, mtbf):
    delta = ratio * mtbf
    tau = optimal_interval(delta, mtbf)
    assert 0 < tau < mtbf
    # dT_w/dτ = 0  <=>  e^{(τ+δ)/M}·(1 − τ/M) = 1 (§1.5)
    assert math.exp((tau + delta) / mtbf) * (1 - tau / mtbf) == pytest.approx(1.0, rel=1e-9)
    best = expected_wall_time(tau, delta, mtbf, 1.0, 0.3 * mtbf)
    for factor in (0.97, 1.03):
        assert expected_wall_time(tau * factor, delta, mtbf, 1.0, 0.3 * mtbf) > best


@settings(max_examples=100, deadline=None)
@given(st.floats(min_value=1e-4, max_value=3.0), st.floats(min_value=0.0, max_value=2.0))
def test_max_efficiency_is_efficiency_at_the_optimum(ratio, restart_ratio):
    mtbf = 100.0
    delta, restart = ratio * mtbf, restart_ratio * mtbf
    tau = optimal_interval(delta, mtbf)
    assert max_efficiency(delta, mtbf, restart) == pytest.approx(
        expected_efficiency(tau, delta, mtbf, restart), rel=1e-9)


def test_optimum_does_not_depend_on_restart_or_downtime():
    tau = optimal_interval(DELTA, 360)
    for restart, downtime in [(0, 0), (30, 0), (10, 120)]:
        grid = [tau * (1 + k / 1000) for k in range(-50, 51)]
        best = min(grid, key=lambda t: expected_wall_time(t, DELTA, 360, 3e4, restart, downtime))
        assert best == pytest.approx(tau, rel=1.5e-3)


def test_downtime_adds_d_per_expected_failure():
    # Each of the e^{R/M}(e^{(τ+δ)/M} − 1) expected failures costs D more (§1.4).
    tau, mtbf, restart, downtime = 60.0, 360.0, 10.0, 45.0
    failures = math.exp(restart / mtbf) * math.expm1((tau + DELTA) / mtbf)
    extra = (expected_segment_time(tau, DELTA, mtbf, restart, downtime)
             - expected_segment_time(tau, DELTA, mtbf, restart))
    assert extra == pytest.approx(downtime * failures, rel=1e-12)


def test_bad_arguments_raise():
    with pytest.raises(ValueError, match="mtbf"):
        young_interval(1.0, 0.0)
    with pytest.raises(ValueError, match="delta"):
        optimal_interval(-1.0, 10.0)
