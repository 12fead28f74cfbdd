"""Single-job simulator: hand-worked cases, SimPy == vectorized twin, Monte Carlo == Daly."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acmesim.policies.checkpoint.theory import expected_efficiency, optimal_interval
from acmesim.studies.reliability.monte_carlo import monte_carlo, replay
from acmesim.studies.reliability.single_job import simulate, simulate_seeded
from acmesim.studies.reliability.single_job_model import (
    ConstantRecovery,
    ExponentialGaps,
    FailureSequence,
    PooledRecovery,
    SingleJobSpec,
    WeibullGaps,
)

BOTH = pytest.mark.parametrize("run", [simulate, replay], ids=["simpy", "vectorized"])


def identity_holds(result) -> bool:
    parts = (result.solve_time + result.lost_work + result.checkpoint_time
             + result.restart_time + result.downtime)
    return math.isclose(result.wall, parts, rel_tol=1e-12, abs_tol=1e-9)


@BOTH
def test_one_failure_sync_loses_work_since_last_checkpoint(run):
    # 100 s of compute, checkpoint every 30 s costing 5 s. Failure at t = 50 (in segment 2,
    # which began at 35) loses 15 s; downtime 3, restart 7, resume from 30:
    # 50 + 3 + 7 + (30+5) + (30+5) + (10+5) = 145.
    result = run(SingleJobSpec(100, 30, 5), FailureSequence.of([50], 3, 7))
    assert result.lost_work == pytest.approx(15.0)
    assert result.wall == pytest.approx(145.0)
    assert result.checkpoint_time == pytest.approx(20.0)
    assert (result.restart_time, result.downtime, result.failures) == (7.0, 3.0, 1)
    assert identity_holds(result)


@BOTH
@pytest.mark.parametrize(("fault", "lost"), [(45.0, 43.0), (55.0, 23.0)])
def test_async_checkpoint_survives_only_once_written(run, fault, lost):
    # Async: 2 s copy stall, 20 s background write. Checkpoint 1 is copied at 32 and durable at
    # 52. A fault at 45 loses everything (30 + 13 s); one at 55 loses only segment 2's 23 s.
    result = run(SingleJobSpec(100, 30, 2, 20), FailureSequence.of([fault], 3, 7))
    assert result.lost_work == pytest.approx(lost)
    assert identity_holds(result)


@BOTH
def test_async_without_failures_waits_for_writes(run):
    # Stalls: 2, 2, 2, then 2 + (20 − 10) before the last, then a 20 s final flush: 38 s.
    result = run(SingleJobSpec(100, 30, 2, 20), FailureSequence.of([]))
    assert result.wall == pytest.approx(138.0)
    assert result.checkpoint_time == pytest.approx(38.0)


@BOTH
def test_failure_during_restart_is_retried(run):
    # Second fault 4 s into the 7 s restart: restart time 4 + 7, downtime 3 + 3, wall 152.
    result = run(SingleJobSpec(100, 30, 5), FailureSequence.of([50, 4], 3, 7))
    assert result.wall == pytest.approx(152.0)
    assert result.restart_time == pytest.approx(11.0)
    assert result.failures == 2
    assert identity_holds(result)


@BOTH
def test_without_checkpoints_a_failure_restarts_from_scratch(run):
    result = run(SingleJobSpec(100), FailureSequence.of([80], 3, 7))
    assert result.lost_work == pytest.approx(80.0)
    assert result.wall == pytest.approx(80 + 3 + 7 + 100)


@BOTH
def test_no_failures_costs_one_stall_per_segment(run):
    result = run(SingleJobSpec(95, 30, 5), FailureSequence.of([]))
    assert result.wall == pytest.approx(95 + 4 * 5)
    assert result.ettr == pytest.approx(95 / 115)


# Integer phase lengths and half-integer failure gaps: every phase boundary falls on an integer
# offset from the last restart and every fault on a half-integer one, so no fault ever ties with
# the end of a phase (a measure-zero event the two simulators may book differently, see
# acmesim.studies.reliability.single_job_model) and all arithmetic is exact in binary floating
# point.
whole = st.integers
specs = st.builds(
    SingleJobSpec,
    solve_time=whole(1, 300).map(float),
    interval=st.one_of(st.just(math.inf), whole(1, 120).map(float)),
    stall=whole(0, 10).map(float),
    persist=st.one_of(st.just(0.0), whole(0, 80).map(float)),
)
sequences = st.integers(0, 25).flatmap(lambda n: st.builds(
    FailureSequence.of,
    st.lists(whole(0, 119).map(lambda g: g + 0.5), min_size=n, max_size=n),
    st.lists(whole(0, 10).map(float), min_size=n, max_size=n),
    st.lists(whole(0, 15).map(float), min_size=n, max_size=n),
))


@settings(max_examples=60, deadline=None)
@given(specs, sequences)
def test_simpy_and_vectorized_agree_exactly(spec, sequence):
    a, b = simulate(spec, sequence), replay(spec, sequence)
    assert a.failures == b.failures
    for field in ("wall", "lost_work", "checkpoint_time", "restart_time", "downtime"):
        assert getattr(a, field) == pytest.approx(getattr(b, field), rel=1e-9, abs=1e-9), field
    assert identity_holds(a) and identity_holds(b)


@pytest.mark.parametrize("gaps", [ExponentialGaps(500.0), WeibullGaps(500.0, 0.7)])
def test_simpy_on_named_streams_equals_a_one_job_monte_carlo(gaps):
    spec = SingleJobSpec(3000.0, 200.0, 10.0, 30.0)
    pool = PooledRecovery(np.array([5.0, 50.0, 500.0]), np.array([1.0, 20.0, 60.0]))
    failures = 0
    for seed in range(5):
        live = simulate_seeded(spec, seed, gaps, pool)
        batch = monte_carlo(spec, 1, seed, gaps, pool).replication(0)
        assert live.failures == batch.failures
        assert live.wall == pytest.approx(batch.wall, rel=1e-12)
        failures += live.failures
    assert failures >= 10


DELTA, RESTART = 300.0, 600.0  # 5-min checkpoint, 10-min restart (Daly's cases)


@pytest.mark.parametrize("mtbf_h", [24.0, 6.0, 1.0])
def test_monte_carlo_ettr_within_2_percent_of_daly(mtbf_h):
    mtbf = mtbf_h * 3600
    tau = optimal_interval(DELTA, mtbf)
    spec = SingleJobSpec(40 * tau, tau, DELTA)  # a multiple of τ: Daly's formula is exact
    result = monte_carlo(spec, 2000, 11, ExponentialGaps(mtbf), ConstantRecovery(0.0, RESTART))
    assert result.ettr == pytest.approx(expected_efficiency(tau, DELTA, mtbf, RESTART), rel=0.02)
    assert result.failures.mean() > 1


def test_monte_carlo_with_downtime_matches_its_closed_form():
    mtbf, downtime = 2 * 3600.0, 1800.0
    tau = optimal_interval(DELTA, mtbf)
    spec = SingleJobSpec(40 * tau, tau, DELTA)
    result = monte_carlo(spec, 2000, 5, ExponentialGaps(mtbf), ConstantRecovery(downtime, RESTART))
    expected = expected_efficiency(tau, DELTA, mtbf, RESTART, downtime)
    assert result.ettr == pytest.approx(expected, rel=0.02)


def test_simulated_best_interval_is_within_one_grid_step_of_the_exact_optimum():
    mtbf = 3600.0
    step = 120.0
    grid = np.arange(600.0, 2520.0, step)
    walls = [
        monte_carlo(SingleJobSpec(100 * 3600.0, tau, DELTA), 1000, 2, ExponentialGaps(mtbf),
                    ConstantRecovery(0.0, RESTART)).wall.mean()
        for tau in grid
    ]
    best = grid[int(np.argmin(walls))]
    assert abs(best - optimal_interval(DELTA, mtbf)) <= step


def test_monte_carlo_accounting_identity_and_determinism():
    spec = SingleJobSpec(50 * 3600.0, 1800.0, 60.0, 900.0)
    args = (spec, 300, 9, WeibullGaps(4 * 3600.0, 0.7), ConstantRecovery(600.0, 300.0))
    a, b = monte_carlo(*args), monte_carlo(*args)
    parts = a.solve_time + a.lost_work + a.checkpoint_time + a.restart_time + a.downtime
    np.testing.assert_allclose(a.wall, parts, rtol=1e-12)
    for field in dataclasses.fields(a):
        np.testing.assert_array_equal(getattr(a, field.name), getattr(b, field.name))
    other = monte_carlo(spec, 300, 10, *args[3:])
    assert not np.array_equal(a.wall, other.wall)


def test_weibull_gaps_have_the_requested_mean():
    gaps = WeibullGaps(100.0, 0.7)(np.random.default_rng(0), 200_000)
    assert gaps.mean() == pytest.approx(100.0, rel=0.02)
    assert gaps.std() / gaps.mean() > 1.2  # decreasing hazard: more variable than exponential


def test_monte_carlo_reports_a_job_that_cannot_finish():
    spec = SingleJobSpec(1000 * 3600.0)  # no checkpoints, MTBF 1 h: never finishes
    with pytest.raises(RuntimeError, match="did not finish"):
        monte_carlo(spec, 10, 0, ExponentialGaps(3600.0), ConstantRecovery(), max_failures=500)


def test_bad_specs_are_rejected():
    with pytest.raises(ValueError, match="solve_time"):
        SingleJobSpec(0.0)
    with pytest.raises(ValueError, match="same length"):
        FailureSequence((1.0,), (), ())
