"""Fault-path regressions, each a hand-worked case with exact expected times.

- a held interruption frees GPUs: the queue gets them at once and the utilization curve drops;
- faults keep coming while any work remains, queued jobs included;
- a run that would last ~forever fails with a clear error, not a huge allocation;
- the nodes a recovery policy cordons are the nodes taken out of service.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from factories import by_id, cluster, frame, job
from invariants import assert_faults_keep_coming, assert_utilization_matches_jobs

from acmesim.core.errors import AcmesimError, ConfigError
from acmesim.faults import FaultInjector
from acmesim.policies.checkpoint import CHECKPOINTS
from acmesim.policies.failure import FAILURES
from acmesim.policies.recovery import RECOVERIES
from acmesim.policies.recovery.automatic import AutomaticOptions, AutomaticRecovery
from acmesim.policies.scheduling.base import NOTHING, Scheduler
from acmesim.results.utilization import CURVE_FIELDS, MAX_INTERVALS, utilization_table
from acmesim.run import simulate

PROMPT_PERSON = {"delay_sigma": 0.0, "work_start_hour": 0.0, "work_end_hour": 24.0}
"""A person who always answers with exactly the median delays: 30 min response + 60 min
diagnosis, at any hour (so a manual wait is exact)."""


def trace_model(tmp_path, rows):
    """``failure=trace`` on a CSV of ``rows`` (header first)."""
    path = tmp_path / "faults.csv"
    path.write_text("\n".join(rows) + "\n")
    return FAILURES.create("trace", {"path": str(path)})


def replay(rows, spec, failures, recovery, options, **kwargs):
    """An audited replay of ``rows`` under ``failures`` and recovery ``recovery``."""
    injector = FaultInjector(failures, CHECKPOINTS.create("none"),
                             RECOVERIES.create(recovery, options))
    result = simulate(frame(rows), spec, extensions=[injector], audit=True, **kwargs)
    return result, injector


# ---------------------------------------------------------------------------- D2
@pytest.mark.parametrize(("recovery", "options", "noticed"), [
    ("manual", PROMPT_PERSON, 0.0),
    # automatic, always escalated: noticed after detection (0) + log 60 + 2 NCCL rounds x 60
    ("automatic", {**PROMPT_PERSON, "manual_fraction": 1.0}, 180.0),
])
def test_a_held_interruption_gives_its_gpus_to_the_queue_at_once(tmp_path, recovery, options,
                                                                 noticed):
    # j0 fills the 4-node cluster; j1..j4 (1 GPU each) queue behind it. A transient fault at
    # 50,000 s interrupts j0; a person takes noticed + 5,400 s to respond and diagnose, and
    # holds j0 meanwhile (no checkpoint: it restarts from 0 with a 600 s manual relaunch).
    faults = trace_model(tmp_path, ["time,node,kind,detection_delay,repair_time",
                                    "50000,n0000,nccl_timeout,0,0"])
    rows = [job(0, 100_000, 32, 4)] + [job(10 + i, 100 * (i + 1), 1) for i in range(4)]
    result, _ = replay(rows, cluster(4), faults, recovery, options)
    jobs = by_id(result.jobs)
    # all 32 GPUs are free from 50,000 s: the four small jobs start then, not when j0 requeues
    for i in range(1, 5):
        assert jobs[f"j{i}"]["start_time"] == 50_000
        assert jobs[f"j{i}"]["end_time"] == 50_000 + 100 * i
    requeued = 50_000 + noticed + 5_400
    assert jobs["j0"]["recovery_wait"] == noticed + 5_400
    assert jobs["j0"]["end_time"] == requeued + 600 + 100_000
    assert jobs["j0"]["run_time"] == 50_000 + 600 + 100_000
    # the curve drops from 32 busy GPUs to the 4 small jobs at the fault, to 0 at 50,400
    curve = result.curve.set_index("time")["busy_gpus"]
    assert curve.loc[50_000] == 4 and curve.loc[50_400] == 0
    assert_utilization_matches_jobs(result)


# ---------------------------------------------------------------------------- D3
def test_faults_keep_coming_while_every_job_waits_in_the_queue(tmp_path):
    # one node, fault windows of 1,000 s. Window 0: a node failure at 100 s (repair 500 s)
    # interrupts j0; automatic recovery waits 180 s (detection 0 + 60 log + 2 x 60 NCCL), so j0
    # is back in the queue at 280 s while the node is down until 600 s. The window's last fault
    # (400 s) finds nothing running, nothing held, nothing to arrive: only j0 queued.
    faults = trace_model(tmp_path, [
        "time,node,kind,detection_delay,repair_time",
        "100,n0000,node_failure,0,500", "400,n0000,nccl_timeout,0,0",
        "1500,n0000,node_failure,0,100"])
    injector = FaultInjector(faults, CHECKPOINTS.create("none"),
                             RECOVERIES.create("automatic", {"manual_fraction": 0.0}),
                             window=1000.0)
    result = simulate(frame([job(0, 1000, 8)]), cluster(1), extensions=[injector], audit=True)
    j0 = by_id(result.jobs)["j0"]
    # j0 restarts at 600 s (300 s relaunch + 1,000 s of work, no checkpoint); window 1 still
    # opens, and its fault at 1,500 s strikes j0 again: back in the queue at 1,680 s (the node
    # is repaired at 1,600 s), then 300 + 1,000 s more
    assert list(injector.failures_table()["time"]) == [100, 400, 1500]
    assert (j0["failures"], j0["end_time"]) == (2, 1680 + 300 + 1000)
    assert j0["recovery_wait"] == (600 - 100) + (1680 - 1500)
    assert injector.windows == [(0.0, 1000.0), (1000.0, 2000.0), (2000.0, 3000.0)]
    assert_faults_keep_coming(injector, result.summary["simulated_span"])
    assert_utilization_matches_jobs(result)


class NeverStarts(Scheduler):
    """A scheduler that never starts anything."""

    registry_name = "never"

    def schedule(self, view):
        return NOTHING


def test_jobs_no_scheduler_starts_still_end_the_run_with_the_engine_error(tmp_path):
    # the fault stream must not keep a stuck run alive: faults at 10 s and 5,000 s (window 2)
    faults = trace_model(tmp_path, ["time,node,kind,repair_time",
                                    "10,n0000,node_failure,100", "5000,n0000,node_failure,100"])
    injector = FaultInjector(faults, CHECKPOINTS.create("none"),
                             RECOVERIES.create("automatic"), window=1000.0)
    with pytest.raises(AcmesimError, match=r"1 job\(s\) still pending.*'never' never started"):
        simulate(frame([job(0, 100, 8)]), cluster(1), NeverStarts(), extensions=[injector])
    assert len(injector.log) == 1 and len(injector.windows) == 1


# ---------------------------------------------------------------------------- D10
def test_nodes_down_for_ever_stop_the_run_with_a_clear_error_not_a_huge_allocation(tmp_path):
    # every node fails at 0 s for 1e15 s: the job could start only after ~32 million years
    faults = trace_model(tmp_path, ["time,node,kind,repair_time",
                                    "0,n0000,node_failure,1e15", "0,n0001,node_failure,1e15"])
    with pytest.raises(AcmesimError, match=r"100 x the trace's span.*1 job\(s\) have not ended"
                                           r".*needs 1 of 2 nodes"):
        replay([job(0, 1000, 8)], cluster(2), faults, "automatic", {"manual_fraction": 0.0})


def test_a_utilization_table_too_long_to_hold_is_a_clear_error():
    curve = {name: np.zeros(1, dtype=np.int64) for name in CURVE_FIELDS}
    curve["time"] = np.zeros(1)
    with pytest.raises(ConfigError, match=r"3\.17e\+07 years.*2\.78e\+11 rows.*"
                                          r"utilization_interval=3600"):
        utilization_table(curve, end=1e15, interval=3600.0, total_gpus=8)
    with pytest.raises(ConfigError, match=f"more than {MAX_INTERVALS:,}"):
        utilization_table(curve, end=3600.0 * (MAX_INTERVALS + 1), interval=3600.0,
                          total_gpus=8)


# ---------------------------------------------------------------------------- cordon
class CordonLeaf(AutomaticRecovery):
    """Automatic recovery that cordons the whole leaf switch of a failed node."""

    def cordon(self, failure):
        return ((), "leaf00") if not failure.transient else ((), None)


class CordonNothing(AutomaticRecovery):
    """Automatic recovery that leaves every node in service."""

    def cordon(self, failure):
        return (), None


class InconsistentPlan(AutomaticRecovery):
    """A policy whose plans cordon something else than it applies."""

    def plan(self, failure, job, now, rng, **kwargs):
        return dataclasses.replace(super().plan(failure, job, now, rng, **kwargs),
                                   cordon_nodes=("n0003",))


def cordon_replay(policy, faults):
    # j0 on n0000, j1 on n0001 (leaf00), j2 on n0002 (leaf01); a node failure on n0000 at 100 s
    rows = [job(0, 1000, 8), job(0, 1000, 8), job(0, 400, 8)]
    injector = FaultInjector(faults, CHECKPOINTS.create("none"), policy)
    result = simulate(frame(rows), cluster(4, per_leaf=2), extensions=[injector], audit=True)
    return by_id(result.jobs), injector.failures_table().iloc[0]


NODE_FAILURE = ["time,node,kind,detection_delay,repair_time", "100,n0000,node_failure,0,1000"]


def test_the_nodes_a_policy_cordons_are_the_nodes_taken_out_of_service(tmp_path):
    policy = CordonLeaf(AutomaticOptions(manual_fraction=0.0))
    jobs, row = cordon_replay(policy, trace_model(tmp_path, NODE_FAILURE))
    # the leaf goes down: j1 on n0001 is interrupted too; both wait 180 s, requeue at 280 s.
    # n0003 is free: j0 restarts there (300 s relaunch + 1,000 s); j1 takes n0002 when j2 ends
    assert (row["nodes"], row["nodes_down"], row["job_ids"]) == ("n0000", 2, "j0;j1")
    assert (jobs["j0"]["nodes"], jobs["j0"]["end_time"]) == ("n0003", 280 + 300 + 1000)
    assert (jobs["j1"]["nodes"], jobs["j1"]["end_time"]) == ("n0002", 400 + 300 + 1000)
    assert jobs["j2"]["failures"] == 0


def test_a_policy_that_cordons_nothing_keeps_the_node_in_service(tmp_path):
    policy = CordonNothing(AutomaticOptions(manual_fraction=0.0))
    jobs, row = cordon_replay(policy, trace_model(tmp_path, NODE_FAILURE))
    # j0 is requeued (automatic needs a replacement after a hardware fault) and gets n0000 back
    assert (row["nodes_down"], row["jobs_requeued"]) == (0, 1)
    assert (jobs["j0"]["nodes"], jobs["j0"]["end_time"]) == ("n0000", 280 + 300 + 1000)
    assert jobs["j1"]["failures"] == 0


def test_a_plan_stating_another_cordon_than_its_policy_applies_is_refused(tmp_path):
    policy = InconsistentPlan(AutomaticOptions(manual_fraction=0.0))
    with pytest.raises(AcmesimError, match=r"planned cordon \('n0003',\).*takes \('n0000',\)"):
        cordon_replay(policy, trace_model(tmp_path, NODE_FAILURE))
