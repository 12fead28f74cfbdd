"""A pass with no pending job skips a scheduler that is idle then, and nothing else changes.

The oracle: FIFO (``idle_without_pending``) against the same FIFO that asks to be called in
every pass, on random small traces of GPU and CPU jobs; every table and the summary's counters
must be equal, and the skipping FIFO is only called with a job pending.
"""

from __future__ import annotations

import pandas as pd
from factories import cluster, frame, job
from hypothesis import given, settings
from hypothesis import strategies as st

from acmesim.policies.scheduling import SCHEDULERS
from acmesim.policies.scheduling.fifo import Fifo
from acmesim.policies.scheduling.las import LeastAttainedService
from acmesim.policies.scheduling.srtf import ShortestRemainingTimeFirst
from acmesim.run import simulate


class Counting(Fifo):
    """FIFO that counts its calls and checks a job is pending in each."""

    def __init__(self, config=None):
        super().__init__(config)
        self.calls = 0

    def schedule(self, view):
        self.calls += 1
        assert any(len(queue) for queue in view.queues.values())
        return super().schedule(view)


class Always(Fifo):
    """FIFO called in every pass."""

    idle_without_pending = False


@st.composite
def traces(draw):
    """Random GPU and CPU jobs (a CPU job asks 0 GPUs and 1 to 64 threads), integer times."""
    rows = []
    for _ in range(draw(st.integers(1, 15))):
        submit, run = draw(st.integers(0, 200)), draw(st.integers(0, 90))
        if draw(st.booleans()):
            rows.append(job(submit, run, 0, 1, cpus=draw(st.integers(1, 64))))
        else:
            rows.append(job(submit, run, draw(st.sampled_from([1, 4, 8, 16])),
                            draw(st.integers(1, 2))))
    return rows


def _run(scheduler, rows):
    return simulate(frame(rows), cluster(2, cpu_nodes=1, cpus_per_cpu_node=64), scheduler,
                    cpu_jobs="replay")


@settings(max_examples=60, deadline=None, database=None)
@given(traces())
def test_skipping_idle_passes_changes_no_table_and_calls_only_with_a_job_pending(rows):
    counting = Counting()
    skipped, every = _run(counting, rows), _run(Always(), rows)
    pd.testing.assert_frame_equal(skipped.jobs, every.jobs)
    pd.testing.assert_frame_equal(skipped.utilization, every.utilization)
    pd.testing.assert_frame_equal(skipped.curve, every.curve)
    for field in ("events", "simulated_jobs", "makespan", "jct_mean", "queue_delay_mean"):
        assert skipped.summary[field] == every.summary[field]
    assert counting.calls <= skipped.summary["events"]


def test_a_pass_after_the_last_pending_job_started_does_not_call_the_scheduler():
    counting = Counting()
    result = _run(counting, [job(0, 10, 8), job(5, 10, 8)])  # both start on arrival
    assert counting.calls == 2  # the passes at 0 and 5; not those at the ends (10, 15)
    assert result.summary["events"] == 2 + 2 + 4  # arrivals, completions, passes


class SrtfAlways(ShortestRemainingTimeFirst):
    """SRTF called in every pass."""

    idle_without_pending = False


@settings(max_examples=40, deadline=None, database=None)
@given(traces())
def test_srtf_skipping_idle_passes_changes_no_table(rows):
    """SRTF keeps no time-dependent state, so its skipped passes change nothing, preemptions
    included."""
    assert ShortestRemainingTimeFirst.idle_without_pending
    skipped, every = _run(ShortestRemainingTimeFirst(), rows), _run(SrtfAlways(), rows)
    pd.testing.assert_frame_equal(skipped.jobs, every.jobs)
    pd.testing.assert_frame_equal(skipped.curve, every.curve)
    assert skipped.summary["preemptions"] == every.summary["preemptions"]


class LasAlways(LeastAttainedService):
    """LAS called in every pass."""

    idle_without_pending = False


LAS_OPTIONS = {"thresholds": (100.0, 600.0), "starve_time": 60.0}
"""Thresholds and a starvation guard small enough for the traces' jobs to cross them."""


@settings(max_examples=40, deadline=None, database=None)
@given(traces())
def test_las_skipping_idle_passes_changes_no_table(rows):
    """LAS's demotions and promotions applied at the next pass with a job pending leave the
    same state as applied when due: the runs are the same, preemptions included."""
    assert LeastAttainedService.idle_without_pending
    config = LeastAttainedService.Config(**LAS_OPTIONS)
    skipped = _run(LeastAttainedService(config), rows)
    every = _run(LasAlways(config), rows)
    pd.testing.assert_frame_equal(skipped.jobs, every.jobs)
    pd.testing.assert_frame_equal(skipped.curve, every.curve)
    assert skipped.summary["preemptions"] == every.summary["preemptions"]


def test_las_traces_demote_and_preempt():
    """The LAS options above make the random traces' kind of jobs demote and preempt (so the
    comparison covers the time-dependent state)."""
    rows = [job(0, 90, 16, 2), job(0, 90, 8), job(20, 30, 8), job(40, 30, 8), job(45, 20, 4)]
    result = _run(LeastAttainedService(LeastAttainedService.Config(**LAS_OPTIONS)), rows)
    assert result.summary["preemptions"] > 0


def _always(cls):
    """``cls`` asking to be called in every pass."""
    return type(f"{cls.__name__}Always", (cls,), {"idle_without_pending": False})


TYPED = ("Pretrain", "Eval", "SFT", "MLLM", "Debug", "Other")


@st.composite
def typed_traces(draw):
    """Random GPU jobs of every job type (the reservation policies' rules read the type)."""
    return [job(draw(st.integers(0, 200)), draw(st.integers(0, 90)),
                draw(st.sampled_from([1, 4, 8, 16])), draw(st.integers(1, 2)),
                type=draw(st.sampled_from(TYPED)), user=draw(st.sampled_from(["u1", "u2"])))
            for _ in range(draw(st.integers(1, 15)))]


@settings(max_examples=30, deadline=None, database=None)
@given(typed_traces(), st.sampled_from(["acme", "acme_reservation", "sjf", "qssf",
                                        "easy_backfill"]))
def test_priority_schedulers_skipping_idle_passes_change_no_table(rows, name):
    """The priority, reservation and backfill schedulers do nothing in a pass with no job
    pending, so skipping those passes changes no table (preemptions included)."""
    cls = SCHEDULERS.get(name)
    assert cls.idle_without_pending
    skipped, every = _run(cls(), rows), _run(_always(cls)(), rows)
    pd.testing.assert_frame_equal(skipped.jobs, every.jobs)
    pd.testing.assert_frame_equal(skipped.curve, every.curve)
    assert skipped.summary["preemptions"] == every.summary["preemptions"]
