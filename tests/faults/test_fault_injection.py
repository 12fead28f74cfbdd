"""Failure injection, checkpointing and recovery in replays: hand-worked cases and invariants."""

from __future__ import annotations

import dataclasses
import math

import pandas as pd
import pytest
from factories import OnAttach, by_id, cluster, frame, job

from acmesim.cluster.health import NodeHealth
from acmesim.core.config import Choice, ReplayConfig
from acmesim.core.errors import TraceError
from acmesim.faults import CheckpointPace, FaultInjector
from acmesim.policies.checkpoint import CHECKPOINTS
from acmesim.policies.checkpoint.base import CheckpointPlan
from acmesim.policies.failure import FAILURES
from acmesim.policies.recovery import RECOVERIES
from acmesim.run import run_replay, simulate

AUTOMATIC = {"manual_fraction": 0.0}  # never escalate to a person: no random delays


class ExactPlan:
    """A checkpoint policy with a hand-picked plan for every job (exact test numbers)."""

    def __init__(self, interval=100.0, stall=10.0, persist=0.0, restore=10.0):
        mode = "async" if persist else "sync"
        self.value = CheckpointPlan(interval, stall, persist, restore, 0.0, 0.0, mode, math.inf)

    def plan(self, job, mtbf=None):
        return self.value


def trace_model(tmp_path, rows, **options):
    """``failure=trace`` on a CSV of ``rows`` (header first)."""
    path = tmp_path / "faults.csv"
    path.write_text("\n".join(rows) + "\n")
    return FAILURES.create("trace", {"path": str(path), **options})


def replay(rows, spec, failures, checkpoint=None, recovery="automatic", recovery_options=None,
           **kwargs):
    """Simulate ``rows`` with an injector; returns (result, injector)."""
    checkpoint = checkpoint or CHECKPOINTS.create("none")
    policy = RECOVERIES.create(recovery, recovery_options or AUTOMATIC)
    injector = FaultInjector(failures, checkpoint, policy)
    result = simulate(frame(rows), spec, extensions=[injector], audit=True, **kwargs)
    return result, injector


# ---------------------------------------------------------------------------- pace arithmetic
def test_pace_of_a_sync_plan_stalls_once_per_interval_and_never_at_the_end():
    pace = CheckpointPace.of(ExactPlan().value)
    # 1000 s of work, a checkpoint at 100, 200, ..., 900 (not at 1000): 9 stalls of 10 s
    assert pace.wall(0.0, 1000.0) == 1090.0
    # resuming at the checkpoint at 200 does not take it again: 300..900 = 7 stalls
    assert pace.wall(200.0, 1000.0) == 870.0
    # 250 s of wall: 0-100 work, 100-110 stall, 110-210 work, 210-220 stall, 220-250 work
    assert pace.advance(0.0, 1000.0, 250.0) == (230.0, 20.0)
    assert pace.advance(0.0, 1000.0, 105.0) == (100.0, 5.0)  # inside the first stall
    assert pace.persisted(0.0, 1000.0, 250.0) == 200.0
    assert pace.persisted(0.0, 1000.0, 109.0) is None  # the first write ends at 110
    assert pace.advance(0.0, 1000.0, 1090.0) == (1000.0, 90.0)


def test_pace_of_an_async_plan_persists_after_the_background_write():
    pace = CheckpointPace.of(ExactPlan(stall=2.0, persist=50.0).value)
    # checkpoint 1: stall 100-102, persisted at 152; checkpoint 2: stall 202-204, at 254
    assert pace.persisted(0.0, 1000.0, 250.0) == 100.0
    assert pace.persisted(0.0, 1000.0, 254.0) == 200.0
    # a write longer than the interval makes the next stall wait for it: 2 + (150 - 100)
    slow = CheckpointPace.of(ExactPlan(stall=2.0, persist=150.0).value)
    assert slow.later_stall == 52.0
    assert slow.wall(0.0, 350.0) == 350.0 + 2.0 + 52.0 + 52.0
    assert CheckpointPace.of(CHECKPOINTS.create("none").plan(job(0, 1))) is None


# ---------------------------------------------------------------------------- hand-worked replays
def test_one_node_failure_with_sync_checkpoints_loses_exactly_the_work_since_the_checkpoint(
        tmp_path):
    faults = trace_model(tmp_path, ["time,node,kind,repair_time", "250,n0000,node_failure,1000"])
    result, injector = replay([job(0, 1000, 8, type="Pretrain")], cluster(2), faults, ExactPlan())
    j0 = by_id(result.jobs)["j0"]
    # fault at 250: work 230 done (20 s stalled), checkpoint 200 persisted -> 30 s x 8 GPUs lost
    row = injector.failures_table().iloc[0]
    assert (row["jobs_hit"], row["jobs_requeued"], row["lost_gpu_time"]) == (1, 1, 240.0)
    assert (row["nodes"], row["nodes_down"]) == ("n0000", 1)
    # automatic: detection min(300, 300 timeout) + log 60 + 2 NCCL rounds x 60 = 480 s wait;
    # requeued at 730 onto n0001 (n0000 is down until 1250); restart 5 min + restore 10 s
    assert j0["recovery_wait"] == 480.0 and j0["nodes"] == "n0001"
    # then 800 s of work from 200 with 7 stalls (300..900): 870 s
    assert j0["end_time"] == 730 + 310 + 870
    assert j0["run_time"] == 250 + 310 + 870
    assert j0["checkpoint_overhead"] == 20 + 70
    assert j0["lost_gpu_time"] == 8 * (30 + 310)
    assert (j0["failures"], j0["restarts"], j0["work_done"]) == (1, 1, 1000.0)
    assert j0["run_time"] * 8 == (j0["work_done"] + j0["checkpoint_overhead"]) * 8 \
        + j0["lost_gpu_time"]
    assert result.summary["ettr_pretrain"] == 1000 / 1910
    assert injector.summary_fields()["node_downtime_hours"] == 1000 / 3600


def test_an_async_write_still_in_flight_is_lost_with_the_node(tmp_path):
    faults = trace_model(tmp_path, ["time,node,kind,repair_time", "250,n0000,node_failure,1000"])
    result, injector = replay([job(0, 1000, 8, type="Pretrain")], cluster(2), faults,
                              ExactPlan(stall=2.0, persist=50.0))
    # work at 250 is 246 (two 2 s stalls); checkpoint 200 is persisted only at 254: back to 100
    assert injector.failures_table().iloc[0]["lost_gpu_time"] == 8 * 146.0
    j0 = by_id(result.jobs)["j0"]
    # restart at 730 + 310; 900 s of work from 100 with 8 stalls of 2 s
    assert j0["end_time"] == 730 + 310 + 900 + 16


def test_jobs_that_never_fail_still_pay_their_checkpoint_stalls():
    injector = FaultInjector(FAILURES.create("none"), ExactPlan(), RECOVERIES.create("automatic"))
    result = simulate(frame([job(0, 1000, 8, type="Pretrain")]), cluster(1),
                      extensions=[injector])
    j0 = by_id(result.jobs)["j0"]
    assert (j0["end_time"], j0["checkpoint_overhead"], j0["lost_gpu_time"]) == (1090, 90, 0)
    assert result.summary["lost_gpu_hours_checkpoints"] == 8 * 90 / 3600


def test_transient_fault_restarts_the_job_in_place_without_taking_the_node_down(tmp_path):
    faults = trace_model(tmp_path, ["time,node,kind", "250,n0000,nccl_timeout"])
    result, injector = replay([job(0, 1000, 8)], cluster(1), faults, ExactPlan())
    j0 = by_id(result.jobs)["j0"]
    # hang detected at the 300 s heartbeat timeout (not the 1800 s watchdog) + 180 s diagnosis;
    # the job keeps its node through the wait, restarts (300 s + 10 s restore) from 200
    assert injector.failures_table().iloc[0][["nodes_down", "jobs_requeued"]].tolist() == [0, 0]
    assert j0["end_time"] == 250 + 480 + 310 + 870 and j0["nodes"] == "n0000"
    assert j0["recovery_wait"] == 480.0
    assert j0["lost_gpu_time"] == 8 * (30 + 480 + 310)


def test_hot_spares_are_held_out_of_scheduling_and_swap_in_for_a_failed_node(tmp_path):
    faults = trace_model(tmp_path, ["time,node,kind,repair_time", "250,n0000,node_failure,1000"])
    rows = [job(0, 1000, 8, type="Pretrain"), job(0, 1000, 8), job(0, 100, 8)]
    options = {"manual_fraction": 0.0, "spare_fraction": 0.25}  # ceil(0.25 x 3) = 1 spare
    result, injector = replay(rows, cluster(3, per_leaf=4), faults, ExactPlan(),
                              recovery="hot_spare", recovery_options=options)
    jobs = by_id(result.jobs)
    # n0002 is the spare: j2 cannot start at 0 although a whole node is idle
    assert jobs["j2"]["start_time"] > 0
    # j0 restarts at once on the spare, waiting 480 s then 300 s restart + 300 s swap + 10 s
    assert jobs["j0"]["nodes"] == "n0002"
    assert jobs["j0"]["end_time"] == 250 + 480 + 610 + 870
    row = injector.failures_table().iloc[0]
    assert (row["spare_nodes_used"], row["jobs_requeued"]) == (1, 0)
    # j2 waits for j1 (ends 1090): n0000 is repaired at 1250 but refills the spare pool
    assert jobs["j2"]["start_time"] == 1090 and jobs["j2"]["nodes"] == "n0001"


def test_a_leaf_switch_failure_takes_every_node_under_it(tmp_path):
    faults = trace_model(tmp_path, ["time,node,kind,repair_time", "50,n0001,switch_failure,100"])
    rows = [job(0, 100, 8), job(0, 100, 8), job(0, 100, 8)]
    result, injector = replay(rows, cluster(4, per_leaf=2), faults)
    row = injector.failures_table().iloc[0]
    assert (row["scope"], row["target"], row["nodes"]) == ("switch", "leaf00", "n0000;n0001")
    assert (row["nodes_down"], row["jobs_hit"], row["job_ids"]) == (2, 2, "j0;j1")
    jobs = by_id(result.jobs)
    assert jobs["j2"]["failures"] == 0
    assert {jobs["j0"]["failures"], jobs["j1"]["failures"]} == {1}


def test_trace_outcomes_say_whether_recorded_failures_are_replayed_or_replaced(tmp_path):
    rows = [job(0, 100, 8, state="FAILED"), job(0, 100, 8)]
    replayed, inj = replay(rows, cluster(2), FAILURES.create("exponential"))
    assert by_id(replayed.jobs)["j0"]["state"] == "FAILED"
    assert inj.summary_fields()["job_failures_from"] == "trace"
    replaced, inj = replay(rows, cluster(2), FAILURES.create(
        "exponential", {"trace_outcomes": "replace"}))
    assert by_id(replaced.jobs)["j0"]["state"] == "COMPLETED"
    assert inj.summary_fields()["job_failures_from"] == "model"


def test_modeled_job_failures_end_jobs_early_and_are_counted_once(tmp_path):
    options = {"trace_outcomes": "replace", "script_error_prob": 1.0,
               "early_error_mean_min": 1.0, "error_free_types": ["Eval"]}
    rows = [job(i, 3600, 8, type="Eval" if i % 2 else "SFT") for i in range(20)]
    result, injector = replay(rows, cluster(4), FAILURES.create("exponential", options))
    jobs = result.jobs
    failed = jobs["state"] == "FAILED"
    assert (jobs.loc[failed, "type"] == "SFT").all() and failed.sum() == 10
    assert (jobs.loc[failed, "work_done"] < 3600).all()
    assert (jobs.loc[~failed, "work_done"] == 3600).all()
    assert injector.summary_fields()["job_failures_modeled"] == 10
    gpu_hours = (jobs.loc[failed, "run_time"] * 8).sum() / 3600
    assert result.summary["failed_job_gpu_hours"] == pytest.approx(gpu_hours)


def test_a_failure_trace_naming_an_unknown_node_is_a_clear_error(tmp_path):
    faults = trace_model(tmp_path, ["time,node,kind", "5,n0009,ecc_error"])
    with pytest.raises(TraceError, match=r"faults.csv.*line 2.*node.*n0009"):
        replay([job(0, 100, 8)], cluster(2), faults)


# ---------------------------------------------------------------------------- invariants
ROWS = [job(t * 37 % 5000, 200 + (t * 53) % 3000, [1, 2, 4, 8, 16, 32][t % 6],
            [1, 1, 1, 1, 2, 4][t % 6], type=["Pretrain", "SFT", "Eval", "Other"][t % 4])
        for t in range(80)]


def down_nodes_hold_no_jobs(sim):
    """After every pass: nodes out of service or held as spares have no job."""
    audit = sim.check_invariants

    def check():
        audit()
        for node, health in enumerate(sim.cluster.health):
            if health is not NodeHealth.UP:
                assert not sim.cluster.jobs_on_node[node], (node, health)
    sim.check_invariants = check


@pytest.mark.parametrize(("recovery", "scheduler"), [
    ("automatic", "fifo"), ("hot_spare", "fifo"), ("manual", "fifo"),
    ("automatic", "srtf"), ("hot_spare", "las"), ("hot_spare", "acme_reservation")])
def test_invariants_hold_under_frequent_failures(recovery, scheduler):
    failures = FAILURES.create("exponential", {"node_mtbf_hours": 2.0})
    checkpoint = CHECKPOINTS.create("young", {"mode": "sync", "node_mtbf_hours": 2.0})
    injector = FaultInjector(failures, checkpoint, RECOVERIES.create(recovery))

    def setup(sim):
        down_nodes_hold_no_jobs(sim)
    result = simulate(frame(ROWS), cluster(8, per_leaf=4), scheduler,
                      extensions=[injector, OnAttach(setup)], audit=True, seed=3)
    jobs = result.jobs
    assert len(jobs) == len(ROWS) and (jobs["state"] != "").all()
    assert jobs["failures"].sum() > 0 and len(injector.log) > 0
    held = jobs["run_time"] * jobs["gpu_num"]
    useful = (jobs["work_done"] + jobs["checkpoint_overhead"]) * jobs["gpu_num"]
    assert held.to_numpy() == pytest.approx((useful + jobs["lost_gpu_time"]).to_numpy(),
                                            rel=1e-9, abs=1e-6)
    assert (jobs["work_done"] == jobs["recorded_run_time"]).all()
    table = injector.failures_table()
    assert table["lost_gpu_time"].sum() / 3600 <= result.summary["lost_gpu_hours_failures"] + 1e-9
    assert table["jobs_hit"].sum() == jobs["failures"].sum()
    assert (table["time"].diff().dropna() >= 0).all()


def test_same_seed_gives_byte_identical_jobs_and_failures(tmp_path):
    config = ReplayConfig(cluster=Choice("tiny"), failure=Choice("weibull", {
        "node_mtbf_hours": 1.0, "trace_outcomes": "replace", "script_error_prob": 0.3}),
        checkpoint=Choice("daly", {"mode": "async"}), recovery=Choice("hot_spare"),
        run_id="r", seed=7)
    rows = [job(t * 7 % 300, 600 + t % 50 * 60, [1, 2, 4, 8, 16][t % 5], 2 if t % 5 == 4 else 1,
                type=["Eval", "SFT", "Pretrain"][t % 3]) for t in range(60)]
    first = run_replay(config, tmp_path / "a", jobs=frame(rows))
    run_replay(config, tmp_path / "b", jobs=frame(rows))
    assert first.error is None and first.summary["failure_events"] > 0
    for name in ("jobs.csv", "failures.csv"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    run_replay(dataclasses.replace(config, seed=8), tmp_path / "c", jobs=frame(rows))
    assert (tmp_path / "c" / "failures.csv").read_bytes() != \
        (tmp_path / "a" / "failures.csv").read_bytes()
    summary = pd.read_csv(tmp_path / "a" / "summary.csv", keep_default_na=False).iloc[0]
    assert (summary["trace_outcomes"], summary["job_failures_from"]) == ("replace", "model")


def test_default_replay_is_the_failure_free_replay(tmp_path):
    rows = ROWS[:40]
    result = run_replay(ReplayConfig(cluster=Choice("tiny"), run_id="r"), tmp_path,
                        jobs=frame(rows))
    plain = simulate(frame(rows), "tiny")
    written = pd.read_csv(tmp_path / "jobs.csv", keep_default_na=False)
    expected = plain.jobs.astype({"nodes": str, "energy_kwh": object})
    expected["energy_kwh"] = ""  # power=none: the energy column is empty
    pd.testing.assert_frame_equal(written, expected, check_dtype=False)
    assert result.summary["failure_events"] == 0 and result.summary["restarts"] == 0
    assert len(pd.read_csv(tmp_path / "failures.csv")) == 0


@pytest.mark.parametrize("recovery", ["automatic", "hot_spare"])
def test_recorded_mode_restarts_interrupted_jobs_as_soon_as_they_fit(tmp_path, recovery):
    faults = trace_model(tmp_path, ["time,node,kind,repair_time", "50,n0000,node_failure,500",
                                    "60,n0001,infra_software,0"])
    rows = [job(0, 100, 8, start=10), job(0, 100, 8, start=20), job(0, 100, 8, start=30)]
    options = {**AUTOMATIC, "spare_fraction": 0.2} if recovery == "hot_spare" else AUTOMATIC
    result, _ = replay(rows, cluster(5, per_leaf=5), faults, recovery=recovery,
                              recovery_options=options, mode="recorded")
    jobs = by_id(result.jobs)
    assert len(result.jobs) == 3 and (result.jobs["state"] == "COMPLETED").all()
    assert jobs["j0"]["failures"] == 1 and jobs["j1"]["failures"] == 1
    assert jobs["j2"]["failures"] == 0 and jobs["j2"]["start_time"] == 30
