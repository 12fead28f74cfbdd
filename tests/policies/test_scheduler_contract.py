"""The engine's invariants hold under every registered scheduler, on random tiny traces.

Each example replays random GPU and CPU jobs (single- and multi-node gangs, zero-length jobs,
simultaneous arrivals), sometimes with failure interrupts that hold a job before requeueing
it, with ``audit=True`` (the cluster bookkeeping is re-verified after every pass: no GPU
allocated twice, busy <= allocated <= capacity). On top, every job ends exactly once, GPU time
is conserved (held GPU time = recorded GPU time + lost GPU time, job by job), a job never
stopped runs exactly its recorded time, and the replay is deterministic.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from factories import OnAttach
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from acmesim.cluster.spec import ClusterSpec
from acmesim.evaluation.modes import EVALS
from acmesim.policies.scheduling import SCHEDULERS
from acmesim.run import simulate
from acmesim.trace.schema import JOB_TYPES

T0 = pd.Timestamp("2023-03-01", tz="UTC")
CLUSTER = ClusterSpec("contract", nodes=3, nodes_per_leaf=2, cpu_nodes=1, cpus_per_cpu_node=16)
GANGS = [(1, 1), (2, 1), (4, 1), (8, 1), (16, 2), (12, 2), (24, 3), (0, 1)]
"""(gpu_num, node_num) shapes; gpu_num 0 is a CPU-only job."""
NON_PREEMPTIVE = {"fifo", "easy_backfill", "sjf", "qssf"}

job_rows = st.lists(
    st.tuples(
        st.integers(0, 400),                      # submit (s)
        st.sampled_from([0, 1, 30, 120, 600]),    # run time (s)
        st.sampled_from(GANGS),
        st.sampled_from(JOB_TYPES),
        st.sampled_from(["u1", "u2", "u3"]),
    ),
    min_size=1, max_size=12,
)
interrupts = st.lists(st.tuples(st.integers(0, 800), st.sampled_from([0, 50])), max_size=2)


def frame(rows) -> pd.DataFrame:
    """A normalized job table from the drawn rows."""
    records = []
    for i, (submit, run, (gpus, nodes), kind, user) in enumerate(rows):
        records.append({
            "job_id": f"j{i}", "user": user, "type": kind, "state": "COMPLETED",
            "submit_time": T0 + pd.Timedelta(seconds=submit),
            "start_time": T0 + pd.Timedelta(seconds=submit), "run_time": float(run),
            "gpu_num": gpus, "node_num": nodes, "cpu_num": 8 if gpus == 0 else 0,
        })
    return pd.DataFrame(records)


def interrupter(plan):
    """A setup hook interrupting the lowest-index running job at each planned time."""
    def setup(sim) -> None:
        for when, hold in plan:
            def fire(hold=hold) -> None:
                if sim.running:
                    sim.interrupt(sim.running[min(sim.running)], requeue_after=hold)
            sim.call_at(float(when), fire)
    return setup


def replay(name: str, rows, plan):
    """One audited replay under scheduler ``name``."""
    return simulate(frame(rows), CLUSTER, SCHEDULERS.create(name), cpu_jobs="replay",
                    audit=True, extensions=[OnAttach(interrupter(plan))])


def simulated_rows(name: str, rows) -> int:
    """Jobs a replay simulates: the drawn rows, or the table the evaluation mode of an old
    ``eval_*`` scheduler spelling replays."""
    mode = getattr(SCHEDULERS.get(name), "EVAL_MODE", None)
    return len(rows) if mode is None else len(EVALS.create(mode).rewrite(frame(rows), CLUSTER))


@pytest.mark.parametrize("name", SCHEDULERS.names())
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=job_rows, plan=interrupts)
def test_engine_invariants_hold(name, rows, plan):
    result = replay(name, rows, plan)
    jobs = result.jobs
    # every job ends exactly once (the recorder refuses a second end), after it started
    assert len(jobs) == simulated_rows(name, rows)
    assert jobs["end_time"].notna().all() and np.isfinite(jobs["end_time"]).all()
    assert (jobs["start_time"] >= jobs["submit_time"]).all()
    assert (jobs["end_time"] >= jobs["start_time"]).all()
    # GPU time conserved: held = recorded + lost, job by job
    held = jobs["run_time"] * jobs["gpu_num"]
    recorded = jobs["recorded_run_time"] * jobs["gpu_num"]
    np.testing.assert_allclose(held, recorded + jobs["lost_gpu_time"], rtol=1e-9, atol=1e-6)
    assert (jobs["lost_gpu_time"] >= 0).all()
    # a job never stopped runs exactly its recorded time
    clean = jobs[(jobs["preemptions"] == 0) & (jobs["failures"] == 0)]
    np.testing.assert_allclose(clean["end_time"] - clean["start_time"],
                               clean["recorded_run_time"], atol=1e-9)
    # busy <= allocated <= capacity at every recorded instant
    curve = result.curve
    assert (curve["busy_gpus"] <= curve["allocated_gpus"]).all()
    assert (curve["allocated_gpus"] <= CLUSTER.total_gpus).all()
    if name in NON_PREEMPTIVE:
        assert (jobs["preemptions"] == 0).all()
    assert result.summary["preemptions"] == int(jobs["preemptions"].sum())


@pytest.mark.parametrize("name", SCHEDULERS.names())
@settings(max_examples=8, deadline=None)
@given(rows=job_rows, plan=interrupts)
def test_replay_is_deterministic(name, rows, plan):
    first = replay(name, rows, plan).jobs
    second = replay(name, rows, plan).jobs
    pd.testing.assert_frame_equal(first, second)


@pytest.mark.parametrize("name", SCHEDULERS.names())
def test_prediction_report_is_consistent(name):
    rows = [(0, 120, (8, 1), "SFT", "u1"), (5, 30, (4, 1), "Eval", "u1"),
            (6, 600, (16, 2), "Pretrain", "u2"), (7, 1, (1, 1), "Eval", "u3")]
    summary = replay(name, rows, []).summary
    if "prediction_jobs" in summary:
        assert summary["prediction_jobs"] == len(rows)
        assert summary["prediction_mae"] >= 0 and not math.isnan(summary["prediction_mae"])
        assert summary["prediction_mae"] >= abs(summary["prediction_bias"])
