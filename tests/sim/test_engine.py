"""Engine semantics on hand-computed tiny traces whose schedules are known exactly."""

from __future__ import annotations

import math

import pytest
from factories import OnAttach, by_id, cluster, frame, job

from acmesim.core.errors import AcmesimError
from acmesim.policies.scheduling.base import Decision, Scheduler
from acmesim.policies.scheduling.fifo import Fifo
from acmesim.run import PreemptionModel, simulate
from acmesim.sim.clock import PASS_PRIORITY


def run(rows, nodes=1, **kwargs):
    kwargs.setdefault("audit", True)
    return simulate(frame(rows), kwargs.pop("spec", None) or cluster(nodes), **kwargs)


def times(result, job_id):
    row = by_id(result.jobs)[job_id]
    return row["start_time"], row["end_time"]


def test_fifo_head_of_line_blocking():
    # one 8-GPU node; j1 (4 GPUs) cannot fit beside j0 (6), and j2 (2 GPUs, fits) must wait
    result = run([job(0, 100, 6), job(1, 10, 4), job(2, 10, 2)])
    assert times(result, "j0") == (0, 100)
    assert times(result, "j1") == (100, 110)
    assert times(result, "j2") == (100, 110)
    assert by_id(result.jobs)["j2"]["queue_delay"] == 98


def test_gang_waits_for_whole_nodes():
    # j0 takes 1 GPU of node 0; the 2-node gang needs both nodes whole
    result = run([job(0, 100, 1), job(1, 50, 16, nodes=2), job(2, 10, 1)], nodes=2)
    assert times(result, "j1") == (100, 150)
    assert times(result, "j2") == (150, 160)  # FIFO: behind the gang
    assert sorted(by_id(result.jobs)["j1"]["nodes"].split(";")) == ["n0000", "n0001"]


def test_multi_node_job_takes_whole_nodes_but_counts_its_own_gpus():
    result = run([job(0, 10, 12, nodes=2)], nodes=2)
    curve = result.curve.iloc[0]
    assert (curve.busy_gpus, curve.allocated_gpus, curve.busy_nodes) == (12, 16, 2)


def test_job_finishing_at_t_frees_gpus_for_a_job_arriving_at_t_in_the_same_pass():
    result = run([job(0, 10, 8), job(10, 5, 8)])
    assert times(result, "j1") == (10, 15)
    assert by_id(result.jobs)["j1"]["queue_delay"] == 0


class Spy(Fifo):
    """FIFO that records what it sees in every pass."""

    idle_without_pending = False  # it records the passes without a pending job too

    def __init__(self):
        super().__init__(None)
        self.seen = []

    def schedule(self, view):
        self.seen.append((view.now, len(view.pending), view.cluster.free_gpus_total,
                          sorted(view.running)))
        return super().schedule(view)


def test_one_pass_per_timestamp_after_every_event_at_that_time():
    spy = Spy()
    rows = [job(0, 10, 8), job(0, 10, 8), job(10, 5, 4), job(10, 5, 4), job(12, 3, 8)]
    simulate(frame(rows), cluster(2), spy, "consolidate", audit=True)
    stamps = [now for now, *_ in spy.seen]
    assert stamps == sorted(set(stamps)) == [0, 10, 12, 15]
    # at t=10 both 8-GPU jobs have ended and both arrivals are queued when the pass runs
    assert spy.seen[1] == (10, 2, 16, [])
    assert PASS_PRIORITY > 1  # simpy NORMAL is 1: passes sort after normal events


def test_a_failure_at_t_is_applied_before_the_pass_at_t_whatever_its_event_order():
    def setup(sim):
        # scheduled at t=5, so its event at t=10 comes after the arrival event at t=10
        sim.call_at(5, lambda: sim.call_at(10, lambda: sim.set_node_health(0, "failed")))
    rows = [job(0, 1, 1), job(10, 5, 8)]
    assert by_id(run(rows, nodes=2, placement="first_fit").jobs)["j1"]["nodes"] == "n0000"
    result = run(rows, nodes=2, placement="first_fit", extensions=[OnAttach(setup)])
    j1 = by_id(result.jobs)["j1"]
    assert (j1["nodes"], j1["failures"], j1["start_time"]) == ("n0001", 0, 10)


def test_zero_length_job_gets_a_follow_up_pass_at_the_same_time():
    spy = Spy()
    simulate(frame([job(0, 0, 8), job(0, 5, 8)]), cluster(1), spy, "consolidate")
    assert [now for now, *_ in spy.seen] == [0, 0, 5]


def test_trace_outcomes_end_after_their_recorded_run_time():
    rows = [job(0, 30, 2, state="CANCELLED"), job(0, 40, 2, state="FAILED"),
            job(5, 50, 2, state="COMPLETED")]
    result = run(rows)
    jobs = by_id(result.jobs)
    assert [jobs[j]["state"] for j in ("j0", "j1", "j2")] == ["CANCELLED", "FAILED", "COMPLETED"]
    assert [jobs[j]["end_time"] for j in ("j0", "j1", "j2")] == [30, 40, 55]
    assert (result.summary["jobs_cancelled"], result.summary["jobs_failed"]) == (1, 1)


def test_recorded_mode_reproduces_the_trace_and_reports_conflicts():
    rows = [job(0, 100, 8, start=0), job(10, 10, 8, start=50), job(20, 5, 1, start=200)]
    result = run(rows, mode="recorded")
    assert times(result, "j1") == (100, 110)  # did not fit at 50: late by 50, not shifted
    assert times(result, "j2") == (200, 205)
    assert result.summary["recorded_late_jobs"] == 1
    assert result.summary["recorded_delay_max"] == 50
    ok = run(rows, nodes=2, mode="recorded")
    assert times(ok, "j1") == (50, 60) and ok.summary["recorded_late_jobs"] == 0


def test_recorded_mode_rejects_start_before_submit():
    with pytest.raises(AcmesimError, match="j0.*start_time"):
        run([job(10, 5, 1, start=5)], mode="recorded")


def test_oversize_jobs_error_or_are_skipped_and_counted():
    rows = [job(0, 10, 8), job(0, 10, 24, nodes=3, job_id="huge")]
    with pytest.raises(AcmesimError, match="'huge' needs 3 node"):
        run(rows, nodes=2)
    result = run(rows, nodes=2, oversize_jobs="skip")
    assert list(result.jobs.job_id) == ["j0"]
    assert result.summary["oversize_jobs_skipped"] == 1


def test_cpu_jobs_are_skipped_by_default_and_replayed_on_cpu_nodes_on_request():
    rows = [job(0, 10, 8), job(0, 20, 0, cpus=100), job(1, 20, 0, cpus=100)]
    skipped = run(rows)
    assert skipped.summary["cpu_jobs_skipped"] == 2 and len(skipped.jobs) == 1
    spec = cluster(1, cpu_nodes=1, cpus_per_cpu_node=128)
    replayed = run(rows, spec=spec, cpu_jobs="replay")
    jobs = by_id(replayed.jobs)
    assert times(replayed, "j1") == (0, 20) and times(replayed, "j2") == (20, 40)
    assert jobs["j1"]["pool"] == "cpu" and jobs["j1"]["nodes"] == "c00"
    assert replayed.summary["gpu_time"] == 80  # CPU jobs use no GPU time
    with pytest.raises(AcmesimError, match="CPU node"):
        run(rows, cpu_jobs="replay")


def test_fifo_blocks_per_pool_so_a_cpu_job_is_not_stuck_behind_a_gpu_job():
    rows = [job(0, 100, 8), job(1, 10, 8), job(2, 5, 0, cpus=8)]
    result = run(rows, spec=cluster(1, cpu_nodes=1), cpu_jobs="replay")
    assert times(result, "j2") == (2, 7)


class PreemptAt(Scheduler):
    """FIFO that preempts every running job when a job of type Pretrain arrives."""

    def schedule(self, view):
        urgent = [j for j in view.pending if j.type == "Pretrain"]
        victims = list(view.running.values()) if urgent else []
        return Decision(start=Fifo._heads(view), preempt=victims)

    def on_requeue(self, job, view):
        self.requeued = getattr(self, "requeued", 0) + 1


def test_preemption_rolls_back_charges_overhead_and_ignores_the_stale_completion():
    model = PreemptionModel(rollback_fraction=0.5, restart_overhead_small=40.0)
    rows = [job(0, 100, 8), job(30, 10, 8, type="Pretrain")]
    scheduler = PreemptAt()
    result = run(rows, scheduler=scheduler, preemption=model)
    jobs = by_id(result.jobs)
    # j0 ran 30 s, keeps 15 s of work; it was requeued behind j1 (30..40) and resumes at 40
    # with 40 s overhead + 85 s of work left: ends at 165, exactly once
    assert jobs["j0"]["end_time"] == 165 and jobs["j0"]["preemptions"] == 1
    assert jobs["j0"]["run_time"] == 30 + 125
    assert jobs["j0"]["lost_gpu_time"] == 8 * (15 + 40)
    assert result.summary["gpu_time"] == result.summary["trace_gpu_time"] + 8 * 55
    assert scheduler.requeued == 1 and len(result.jobs) == 2


def test_checkpoint_bounds_the_rollback():
    def setup(sim):
        sim.call_at(20, lambda: sim.record_checkpoint(sim.job(0)))
    model = PreemptionModel(rollback_fraction=1.0, restart_overhead_small=0.0)
    rows = [job(0, 100, 8), job(30, 10, 8, type="Pretrain")]
    result = run(rows, scheduler=PreemptAt(), preemption=model, extensions=[OnAttach(setup)])
    j0 = by_id(result.jobs)["j0"]
    assert j0["lost_gpu_time"] == 8 * 10  # work 20..30 redone
    assert j0["end_time"] == 40 + 80


def test_node_failure_interrupts_the_job_and_repair_brings_the_node_back():
    def setup(sim):
        sim.call_at(50, lambda: sim.set_node_health(0, "failed"))
        sim.call_at(70, lambda: sim.set_node_health(0, "up"))
    model = PreemptionModel(restart_overhead_small=10.0)  # failures roll back to checkpoint
    result = run([job(0, 100, 8)], scheduler="fifo", preemption=model, extensions=[OnAttach(setup)])
    j0 = by_id(result.jobs)["j0"]
    assert j0["failures"] == 1 and j0["preemptions"] == 0
    assert j0["end_time"] == 70 + 10 + 100  # no checkpoint: all 50 s of work redone
    assert j0["lost_gpu_time"] == 8 * (50 + 10)


def test_switch_failure_takes_down_every_node_under_it_and_held_jobs_requeue_later():
    def setup(sim):
        sim.call_at(10, lambda: sim.record_checkpoint(sim.job(0)))
        sim.call_at(20, lambda: sim.interrupt(sim.job(0), requeue_after=30, overhead=5))
        sim.call_at(25, lambda: seen.append(sim.job(0)))
        sim.call_at(30, lambda: victims.extend(sim.set_switch_health("leaf00", "failed")))
    seen, victims = [], []
    result = run([job(0, 100, 8), job(0, 100, 8)], spec=cluster(4, per_leaf=2),
                 extensions=[OnAttach(setup)])
    jobs = by_id(result.jobs)
    assert seen == [None]  # held: neither pending nor running
    assert [v.job_id for v in victims] == ["j1"]  # j0, j1 were consolidated on leaf00
    # j0 requeues at 50 and restarts from its checkpoint (10 s done) after 5 s of overhead
    assert (jobs["j0"]["end_time"], jobs["j0"]["nodes"]) == (50 + 5 + 90, "n0003")
    assert jobs["j0"]["lost_gpu_time"] == 8 * (10 + 5)
    # j1 restarts at once on leaf01 from scratch with the default 40 s overhead
    assert (jobs["j1"]["end_time"], jobs["j1"]["nodes"]) == (30 + 40 + 100, "n0002")
    assert jobs["j1"]["lost_gpu_time"] == 8 * (30 + 40)


def test_terminating_a_held_job_ends_it_once():
    def setup(sim):
        sim.call_at(20, lambda: sim.interrupt(sim.job(0), requeue_after=30))
        sim.call_at(30, lambda: sim.terminate(sim.held[0], "NODE_FAIL"))
    result = run([job(0, 100, 8)], extensions=[OnAttach(setup)])
    j0 = by_id(result.jobs)["j0"]
    assert (j0["state"], j0["end_time"], j0["run_time"]) == ("NODE_FAIL", 30, 20)


def test_terminate_ends_a_job_with_the_given_state():
    def setup(sim):
        sim.call_at(5, lambda: sim.terminate(sim.job(0), "NODE_FAIL"))
    result = run([job(0, 100, 8), job(1, 10, 8)], extensions=[OnAttach(setup)])
    assert by_id(result.jobs)["j0"]["state"] == "NODE_FAIL"
    assert times(result, "j0") == (0, 5) and times(result, "j1") == (5, 15)


class Lazy(Scheduler):
    def schedule(self, view):
        return Decision()


class Greedy(Scheduler):
    def schedule(self, view):
        return Decision(start=list(view.pending) + list(view.running.values()))


def test_a_scheduler_that_never_starts_jobs_is_an_error_not_a_hang():
    with pytest.raises(AcmesimError, match="1 job.*still pending"):
        run([job(0, 10, 1)], scheduler=Lazy())


def test_starting_a_running_job_is_a_clear_error():
    with pytest.raises(AcmesimError, match="which is running, not pending"):
        run([job(0, 10, 1), job(5, 10, 1)], scheduler=Greedy())


def test_progress_is_reported_at_most_about_every_percent():
    calls = []
    rows = [job(t, 10, 1) for t in range(0, 1000, 2)]
    run(rows, progress=lambda f, n: calls.append((f, n)))
    assert 50 <= len(calls) <= 102
    assert calls[-1] == (1.0, 500)
    assert all(a[0] <= b[0] for a, b in zip(calls, calls[1:], strict=False))


def test_unplaceable_start_keeps_the_job_pending():
    class Eager(Scheduler):
        def schedule(self, view):
            return Decision(start=list(view.pending))
    result = run([job(0, 10, 8), job(0, 10, 8)], scheduler=Eager())
    assert times(result, "j1") == (10, 20)
    assert not math.isnan(result.summary["jct_mean"])
