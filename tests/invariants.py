"""Invariant checkers shared by the engine, fault-injection and plug-in contract tests.

Each checker recomputes its quantity from the result tables (not from the engine's own counters)
and raises ``AssertionError`` naming what disagrees:

- ``audit_down_nodes``: no job on a node out of service (with ``audit=True``, after every pass);
  together with the engine audit (no GPU allocated twice, busy <= allocated <= capacity);
- ``assert_every_job_ends_once``: one finished row per simulated job, start <= end;
- ``assert_gpu_time_conserved``: held GPU time = (work + checkpoint stalls) + lost, job by job;
- ``assert_utilization_matches_jobs``: ``utilization.csv`` GPU time = ``jobs.csv`` GPU time;
- ``assert_faults_keep_coming``: the fault windows cover the whole run and every drawn fault
  before the end struck; ``assert_trace_faults_struck`` checks it against the fault trace;
- ``check_plans_happen``: each recovery plan is what the engine does right after its fault.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd
import pytest

from acmesim.cluster.health import NodeHealth
from acmesim.sim.job import HELD, PENDING, RUNNING

IN_SERVICE = (NodeHealth.UP,)


def audit_down_nodes(sim) -> None:
    """Extend ``sim``'s audit: after every pass, nodes not UP hold no job."""
    audit = sim.check_invariants

    def check() -> None:
        audit()
        for node, health in enumerate(sim.cluster.health):
            if health not in IN_SERVICE:
                assert not sim.cluster.jobs_on_node[node], (node, health)
    sim.check_invariants = check


def assert_every_job_ends_once(jobs: pd.DataFrame, expected: int) -> None:
    """``expected`` rows, each with a final state and finite start <= end (the recorder itself
    refuses a second end of the same job)."""
    assert len(jobs) == expected
    assert jobs["job_id"].is_unique
    assert (jobs["state"] != "").all()
    assert np.isfinite(jobs["end_time"]).all()
    started = jobs["start_time"].notna()
    assert (jobs.loc[started, "start_time"] >= jobs.loc[started, "submit_time"]).all()
    assert (jobs.loc[started, "end_time"] >= jobs.loc[started, "start_time"]).all()


def assert_gpu_time_conserved(jobs: pd.DataFrame) -> None:
    """Job by job: GPU time held = (work done + checkpoint stalls) x GPUs + lost GPU time."""
    held = (jobs["run_time"] * jobs["gpu_num"]).to_numpy(dtype=float)
    parts = ((jobs["work_done"] + jobs["checkpoint_overhead"]) * jobs["gpu_num"]
             + jobs["lost_gpu_time"]).to_numpy(dtype=float)
    assert held == pytest.approx(parts, rel=1e-9, abs=1e-6)
    assert (jobs["lost_gpu_time"] >= -1e-9).all()
    assert (jobs["work_done"] <= jobs["recorded_run_time"] + 1e-9).all()


def utilization_gpu_time(utilization: pd.DataFrame) -> float:
    """GPU-seconds of the utilization table: mean busy GPUs x interval length, summed."""
    widths = utilization["interval_end"] - utilization["interval_start"]
    return float((widths * utilization["busy_gpus"]).sum())


def assert_utilization_matches_jobs(result) -> None:
    """The utilization table's GPU time equals the jobs table's (GPU jobs' held time)."""
    jobs = result.jobs
    gpu = jobs["pool"] == "gpu"
    held = float((jobs.loc[gpu, "run_time"] * jobs.loc[gpu, "gpu_num"]).sum())
    assert utilization_gpu_time(result.utilization) == pytest.approx(held, rel=1e-9, abs=1e-6)


def assert_faults_keep_coming(injector, end: float) -> None:
    """Fault windows cover ``[0, end)`` and every fault drawn for them before ``end`` struck."""
    windows = injector.windows
    if not injector.failure_model.sources.hardware:
        assert windows == [] and len(injector.log) == 0
        return
    assert windows and windows[0][0] == 0.0
    for (_, stop), (start, _) in zip(windows, windows[1:], strict=False):
        assert start == stop, windows
    assert windows[-1][1] >= end, (windows[-1], end)
    assert all(fault.time >= end for fault in injector.undelivered), "faults left unstruck"
    times = injector.failures_table()["time"]
    assert (times.diff().dropna() >= 0).all() and (times <= end).all()


def assert_trace_faults_struck(fault_times: Iterable[float], injector, end: float) -> None:
    """Every fault of a failure trace before ``end`` is in the failures table, exactly once."""
    expected = sorted(t for t in fault_times if t < end)
    struck = sorted(t for t in injector.failures_table()["time"] if t < end)
    assert struck == expected


def check_plans_happen(policy, sim) -> None:
    """Wrap ``policy.plan`` so each plan is checked against what the engine then does.

    Right after the fault is handled (a callback at the same time, before the scheduling
    pass): the plan's cordon is out of service (if the fault needs a repair), and the job was
    requeued (held or pending) when the plan releases its nodes or needs new ones, else it runs
    again at once on a full gang that avoids the cordon.
    """
    plan_of = policy.plan

    def plan(failure, job, now, rng, **kwargs):
        decided = plan_of(failure, job, now, rng, **kwargs)
        failures = job.failures
        sim.call_at(now, lambda: _check_plan(sim, failure, job, decided, failures + 1))
        return decided
    policy.plan = plan


def _check_plan(sim, failure, job, plan, failures: int) -> None:
    """One plan against the state right after its fault (skipped if the job was hit again)."""
    if job.failures != failures:
        return
    topology = sim.cluster.topology
    cordoned = {topology.node_index(name) for name in plan.cordon_nodes}
    if plan.cordon_switch is not None:
        cordoned.update(topology.nodes_under(plan.cordon_switch))
    if failure.repair_time > 0:
        for node in cordoned:
            assert sim.cluster.health[node] in (NodeHealth.FAILED, NodeHealth.REPAIRING), node
    if plan.release_nodes or plan.needs_new_nodes:
        assert job.status in (HELD, PENDING) and job.index not in sim.running, job.status
    else:
        assert job.status == RUNNING, job.status
        nodes = [node for node, _ in job.grants]
        assert len(nodes) == job.nodes_needed and not cordoned & set(nodes), (nodes, cordoned)
