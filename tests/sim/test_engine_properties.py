"""Property-based invariants of the engine on random small traces (hypothesis)."""

from __future__ import annotations

import numpy as np
from factories import cluster, frame, job
from hypothesis import example, given, settings
from hypothesis import strategies as st

from acmesim.policies.scheduling.base import Decision, Scheduler
from acmesim.policies.scheduling.fifo import Fifo
from acmesim.run import PreemptionModel, simulate
from acmesim.trace.schema import FINAL_STATES

GPUS = 8


@st.composite
def traces(draw, max_jobs=25):
    """Random jobs: single-node (1-8 GPUs) or 2-3 whole nodes, integer times."""
    rows = []
    for _ in range(draw(st.integers(1, max_jobs))):
        submit = draw(st.integers(0, 300))
        delay = draw(st.integers(0, 50))
        run = draw(st.integers(0, 120))
        if draw(st.booleans()):
            gpus, nodes = draw(st.sampled_from([1, 2, 3, 4, 8])), 1
        else:
            nodes = draw(st.integers(2, 3))
            gpus = draw(st.sampled_from([nodes * GPUS, nodes * GPUS - 4]))
        rows.append(job(submit, run, gpus, nodes, start=submit + delay,
                        state=draw(st.sampled_from(FINAL_STATES))))
    return rows


def step_value(times, values, at):
    """Value of a right-continuous step function at each of ``at`` (0 before the first)."""
    k = np.searchsorted(times, at, side="right") - 1
    return np.where(k >= 0, np.asarray(values)[np.maximum(k, 0)], 0)


def busy_sweep(starts, ends, gpus):
    """The busy-GPU step function of intervals [start, end), computed independently."""
    points = sorted(set(starts) | set(ends))
    busy = [sum(g for s, e, g in zip(starts, ends, gpus, strict=True) if s <= t < e)
            for t in points]
    return np.asarray(points, dtype=float), np.asarray(busy)


def assert_same_curve(curve, starts, ends, gpus):
    times, busy = busy_sweep(starts, ends, gpus)
    grid = np.union1d(times, curve["time"].to_numpy())
    expected = step_value(times, busy, grid)
    actual = step_value(curve["time"].to_numpy(), curve["busy_gpus"].to_numpy(), grid)
    np.testing.assert_array_equal(actual, expected)


@settings(max_examples=40, deadline=None, database=None)
@given(traces(), st.integers(3, 4), st.sampled_from(["consolidate", "spread", "first_fit"]))
def test_scheduled_fifo_invariants(rows, nodes, placement):
    result = simulate(frame(rows), cluster(nodes), "fifo", placement, audit=True)
    jobs = result.jobs
    assert len(jobs) == len(rows) and jobs.job_id.is_unique
    assert list(jobs.state) == [r["state"] for r in sorted(rows, key=lambda r: r["submit"])]
    assert (jobs.start_time >= jobs.submit_time).all()
    assert np.array_equal(jobs.end_time, jobs.start_time + jobs.run_time)
    assert np.array_equal(jobs.run_time, jobs.recorded_run_time)
    # strict FIFO: starts are non-decreasing in arrival order
    assert (np.diff(jobs.start_time.to_numpy()) >= 0).all()
    trace_gpu_time = sum(r["run"] * r["gpu_num"] for r in rows)
    assert result.summary["gpu_time"] == result.summary["trace_gpu_time"] == trace_gpu_time
    curve = result.curve
    assert (curve.busy_gpus <= curve.allocated_gpus).all()
    assert (curve.allocated_gpus <= nodes * GPUS).all()
    assert_same_curve(curve, list(jobs.start_time), list(jobs.end_time), list(jobs.gpu_num))


def max_concurrent_nodes(rows):
    """Peak of the summed gang sizes of jobs running at once in the recorded schedule.

    A zero-length job holds its GPUs for an instant at its start (jobs ending then are gone).
    """
    def running(r, t):
        return r["start"] <= t < r["start"] + r["run"] or r["run"] == 0 and r["start"] == t
    starts = {r["start"] for r in rows}
    return max(sum(r["node_num"] for r in rows if running(r, t)) for t in starts)


@settings(max_examples=40, deadline=None, database=None)
@given(traces(), st.sampled_from(["consolidate", "spread", "first_fit"]))
@example(rows=[job(0, 1, 24, 3), job(0, 0, 1)], placement="consolidate")
def test_recorded_mode_equals_the_trace_exactly(rows, placement):
    nodes = max(max_concurrent_nodes(rows), 3)
    result = simulate(frame(rows), cluster(nodes), "fifo", placement, mode="recorded",
                      audit=True)
    jobs = result.jobs
    assert result.summary["recorded_late_jobs"] == 0
    assert np.array_equal(jobs.start_time, jobs.recorded_start_time)
    assert np.array_equal(jobs.run_time, jobs.recorded_run_time)
    assert result.summary["gpu_time"] == sum(r["run"] * r["gpu_num"] for r in rows)
    origin = min(r["submit"] for r in rows)  # time 0 is the earliest submission
    assert_same_curve(result.curve, [r["start"] - origin for r in rows],
                      [r["start"] + r["run"] - origin for r in rows],
                      [r["gpu_num"] for r in rows])


@settings(max_examples=30, deadline=None, database=None)
@given(traces(), st.integers(3, 4))
def test_recorded_mode_on_a_too_small_cluster_only_delays_and_reports(rows, nodes):
    result = simulate(frame(rows), cluster(nodes), "fifo", "consolidate", mode="recorded",
                      audit=True)
    jobs = result.jobs
    late = jobs.start_time - jobs.recorded_start_time
    assert (late >= 0).all()
    assert result.summary["recorded_late_jobs"] == int((late > 0).sum())
    assert result.summary["recorded_delay_total"] == float(late.sum())
    assert np.array_equal(jobs.run_time, jobs.recorded_run_time)


class RandomPreempter(Scheduler):
    """FIFO starts plus preemption of the oldest running job at every third pass."""

    def __init__(self):
        super().__init__(None)
        self.passes = 0

    def schedule(self, view):
        self.passes += 1
        victims = []
        if self.passes % 3 == 0 and view.running:
            victims = [next(iter(view.running.values()))]
        return Decision(start=Fifo._heads(view), preempt=victims)


@settings(max_examples=30, deadline=None, database=None)
@given(traces(max_jobs=12), st.floats(0, 1), st.sampled_from([0.0, 40.0]))
def test_gpu_time_is_conserved_under_preemption(rows, rollback, overhead):
    model = PreemptionModel(rollback_fraction=rollback, restart_overhead_small=overhead,
                            restart_overhead_large=overhead)
    result = simulate(frame(rows), cluster(4), RandomPreempter(), "consolidate",
                      preemption=model, audit=True)
    jobs = result.jobs
    assert len(jobs) == len(rows) and jobs.end_time.notna().all()
    held = float((jobs.run_time * jobs.gpu_num).sum())
    trace = sum(r["run"] * r["gpu_num"] for r in rows)
    assert np.isclose(held, trace + jobs.lost_gpu_time.sum(), rtol=1e-9, atol=1e-6)
    assert (jobs.run_time >= jobs.recorded_run_time - 1e-9).all()
    assert (jobs.lost_gpu_time >= 0).all()
