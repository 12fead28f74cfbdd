"""Every registered placement, failure, checkpoint, recovery and prediction plug-in keeps the
engine's invariants on random tiny traces under random faults.

Parametrized over the registries, so a new plug-in gets these tests without writing any. Each
example replays random GPU jobs (1- to 3-node gangs) on a 6-node cluster with the plug-in under
test in its slot and defaults elsewhere (``fifo``, ``consolidate``, a random failure trace,
fixed-interval checkpoints, automatic recovery), with fault windows short enough that most runs
outlast several, and checks (``invariants``): no GPU allocated twice and no job on a node out of
service (audited after every pass), every job ends exactly once, GPU time conserved job by job,
``utilization.csv`` GPU time equal to ``jobs.csv`` GPU time, faults keep coming while work
remains (every fault of the trace before the end struck), and each recovery plan is what
happens (the cordon taken down, the job relaunched in place or requeued as planned).
"""

from __future__ import annotations

import dataclasses
import tempfile
from pathlib import Path

import pytest
from factories import OnAttach, cluster, frame, job
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from invariants import (
    assert_every_job_ends_once,
    assert_faults_keep_coming,
    assert_gpu_time_conserved,
    assert_trace_faults_struck,
    assert_utilization_matches_jobs,
    audit_down_nodes,
    check_plans_happen,
)

from acmesim.faults import FaultInjector
from acmesim.policies.checkpoint import CHECKPOINTS
from acmesim.policies.failure import FAILURES
from acmesim.policies.placement import PLACEMENTS
from acmesim.policies.prediction import PREDICTORS
from acmesim.policies.recovery import RECOVERIES
from acmesim.policies.scheduling import SCHEDULERS
from acmesim.run import simulate

NODES = 6
WINDOW = 1500.0
"""Fault window (s): runs of a few thousand seconds draw several."""
KINDS = ["nvlink_error", "ecc_error", "infra_software", "switch_failure", "nccl_timeout",
         "node_failure"]
REGISTRIES = {"placement": PLACEMENTS, "failure": FAILURES, "checkpoint": CHECKPOINTS,
              "recovery": RECOVERIES, "prediction": PREDICTORS}
CASES = [(kind, name) for kind, registry in REGISTRIES.items() for name in registry.names()]
PREDICTING = [name for name in SCHEDULERS.names()
              if "predictor" in {f.name for f in dataclasses.fields(SCHEDULERS.config_class(name))}]
"""Schedulers that take a run-time predictor (they replay the prediction plug-ins)."""

jobs_strategy = st.lists(st.tuples(
    st.integers(0, 2000),                                           # submit (s)
    st.integers(1, 3000),                                           # run time (s)
    st.sampled_from([(1, 1), (4, 1), (8, 1), (16, 2), (24, 3)]),    # (GPUs, nodes)
    st.sampled_from(["Pretrain", "SFT", "Eval", "Other"]),
), min_size=1, max_size=8)
faults_strategy = st.lists(st.tuples(
    st.integers(0, 6000), st.integers(0, NODES - 1), st.sampled_from(KINDS),
    st.integers(0, 2000),                                           # repair (s)
), max_size=6)


def stress(config_class: type, mtbf_hours: float, trace: Path) -> dict:
    """Options that make a plug-in's faults frequent, for whichever of them it declares."""
    fields = {f.name for f in dataclasses.fields(config_class)}
    known = {"node_mtbf_hours": mtbf_hours, "path": str(trace),
             "gpu_failures_per_1000_gpu_days": 24_000.0 / (8 * mtbf_hours)}
    return {key: value for key, value in known.items() if key in fields}


def plugins(kind: str, name: str, trace: Path, mtbf_hours: float, interval_min: float,
            predicting: str):
    """(scheduler, placement, failure model, checkpoint policy, recovery policy) of a case."""
    chosen = {"placement": "consolidate", "failure": "trace", "checkpoint": "fixed",
              "recovery": "automatic", kind: name}
    failure = FAILURES.create(chosen["failure"], stress(
        FAILURES.config_class(chosen["failure"]), mtbf_hours, trace))
    options = stress(CHECKPOINTS.config_class(chosen["checkpoint"]), mtbf_hours, trace)
    if chosen["checkpoint"] == "fixed":
        options["interval_min"] = interval_min
    checkpoint = CHECKPOINTS.create(chosen["checkpoint"], options)
    recovery = RECOVERIES.create(chosen["recovery"])
    scheduler = (SCHEDULERS.create(predicting, {"predictor": name}) if kind == "prediction"
                 else SCHEDULERS.create("fifo"))
    return scheduler, PLACEMENTS.create(chosen["placement"]), failure, checkpoint, recovery


@pytest.mark.parametrize(("kind", "name"), CASES)
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(jobs=jobs_strategy, faults=faults_strategy, mtbf_hours=st.sampled_from([6.0, 24.0]),
       interval_min=st.sampled_from([1.0, 10.0]), seed=st.integers(0, 3),
       predicting=st.sampled_from(PREDICTING))
def test_every_plugin_keeps_the_invariants_under_faults(kind, name, jobs, faults, mtbf_hours,
                                                       interval_min, seed, predicting):
    rows = [job(s, r, g, n, type=t) for s, r, (g, n), t in jobs]
    lines = ["time,node,kind,repair_time"]
    lines += [f"{t},n{node:04d},{k},{repair}" for t, node, k, repair in faults]
    with tempfile.TemporaryDirectory() as folder:
        trace = Path(folder) / "faults.csv"
        trace.write_text("\n".join(lines) + "\n")
        scheduler, placement, failure, checkpoint, recovery = plugins(
            kind, name, trace, mtbf_hours, interval_min, predicting)
    injector = FaultInjector(failure, checkpoint, recovery, window=WINDOW)

    def setup(sim) -> None:
        audit_down_nodes(sim)
        check_plans_happen(recovery, sim)

    result = simulate(frame(rows), cluster(NODES, per_leaf=3), scheduler, placement,
                      extensions=[injector, OnAttach(setup)], audit=True, seed=seed)
    end = result.summary["simulated_span"]
    assert_every_job_ends_once(result.jobs, len(rows))
    assert_gpu_time_conserved(result.jobs)
    assert_utilization_matches_jobs(result)
    assert_faults_keep_coming(injector, end)
    if getattr(failure.config, "path", None):
        assert_trace_faults_struck([t for t, *_ in faults], injector, end)
    assert injector.failures_table()["jobs_hit"].sum() == result.jobs["failures"].sum()
