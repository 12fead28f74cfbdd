"""Property test: random small traces under random failure traces keep every invariant."""

from __future__ import annotations

import tempfile
from pathlib import Path

from factories import OnAttach, cluster, frame, job
from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import (
    assert_every_job_ends_once,
    assert_faults_keep_coming,
    assert_gpu_time_conserved,
    assert_trace_faults_struck,
    assert_utilization_matches_jobs,
    audit_down_nodes,
)

from acmesim.faults import FaultInjector
from acmesim.policies.checkpoint import CHECKPOINTS
from acmesim.policies.failure import FAILURES
from acmesim.policies.recovery import RECOVERIES
from acmesim.run import simulate

NODES = 6
KINDS = ["nvlink_error", "ecc_error", "infra_software", "switch_failure", "nccl_timeout",
         "node_failure"]

jobs_strategy = st.lists(st.tuples(
    st.integers(0, 2000),                       # submit
    st.integers(1, 4000),                       # run time
    st.sampled_from([(1, 1), (4, 1), (8, 1), (16, 2), (24, 3)]),  # (gpus, nodes)
    st.sampled_from(["Pretrain", "SFT", "Eval"]),
    st.sampled_from(["COMPLETED", "FAILED"]),
), min_size=1, max_size=10)

faults_strategy = st.lists(st.tuples(
    st.integers(0, 6000),                       # time
    st.integers(0, NODES - 1),                  # node
    st.sampled_from(KINDS),
    st.integers(0, 3000),                       # repair time (ignored by transient kinds)
), max_size=8)


@settings(max_examples=30, deadline=None)
@given(jobs=jobs_strategy, faults=faults_strategy,
       recovery=st.sampled_from(["automatic", "hot_spare", "manual"]),
       interval_min=st.sampled_from([1.0, 5.0, 30.0]), mode=st.sampled_from(["sync", "async"]),
       outcomes=st.sampled_from(["replay", "replace", "both"]))
def test_random_traces_under_random_faults_keep_the_invariants(jobs, faults, recovery,
                                                               interval_min, mode, outcomes):
    rows = [job(s, r, g, n, type=t, state=state) for s, r, (g, n), t, state in jobs]
    lines = ["time,node,kind,repair_time"]
    lines += [f"{t},n{node:04d},{kind},{repair}" for t, node, kind, repair in faults]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "faults.csv"
        path.write_text("\n".join(lines) + "\n")
        failures = FAILURES.create("trace", {"path": str(path), "trace_outcomes": outcomes,
                                             "script_error_prob": 0.2})
    checkpoint = CHECKPOINTS.create("fixed", {"interval_min": interval_min, "mode": mode})
    options = {"spare_fraction": 0.2} if recovery == "hot_spare" else {}
    # windows of 1,500 s: faults up to 6,000 s need several, so later windows are exercised
    injector = FaultInjector(failures, checkpoint, RECOVERIES.create(recovery, options),
                             window=1500.0)

    def setup(sim):
        audit_down_nodes(sim)

    result = simulate(frame(rows), cluster(NODES, per_leaf=3),
                      extensions=[injector, OnAttach(setup)], audit=True, seed=1)
    out = result.jobs
    # every job ends exactly once (the recorder refuses a second end), with a final state
    assert_every_job_ends_once(out, len(rows))
    # GPU-time identity: held = (work done + checkpoint stalls) + lost (rollback + restarts)
    assert_gpu_time_conserved(out)
    # utilization.csv holds exactly the GPU time of jobs.csv, failures and holds included
    assert_utilization_matches_jobs(result)
    # every fault of the trace before the run's end struck, whatever was queued at the time
    end = result.summary["simulated_span"]
    assert_faults_keep_coming(injector, end)
    assert_trace_faults_struck([t for t, *_ in faults], injector, end)
    # work is never more than recorded; less only for a modeled job failure
    short = out["work_done"] < out["recorded_run_time"] - 1e-9
    assert (out.loc[short, "state"] == "FAILED").all()
    assert short.sum() == injector.summary_fields()["job_failures_modeled"]
    if outcomes == "replace":
        recorded_failed = out["state"] == "FAILED"
        assert (recorded_failed == short).all()
    table = injector.failures_table()
    assert table["jobs_hit"].sum() == out["failures"].sum()
    assert (table["lost_gpu_time"] >= -1e-9).all()
    assert (out["recovery_wait"] >= 0).all() and (out["checkpoint_overhead"] >= 0).all()
