"""The engine hands the jobs submitted at one time to ``Scheduler.on_arrivals`` in one call.

Oracles: a hand-worked trace (which jobs each call gets, and that they are all queued by then);
and every scheduler with a hook against the same scheduler told of its arrivals one job per
call through its per-job ``on_arrival``, on random small traces where many jobs share a submit
second (every table and the preemption count must be equal).
"""

from __future__ import annotations

import pandas as pd
import pytest
from factories import OnArrival, cluster, frame, job
from hypothesis import given, settings
from hypothesis import strategies as st

from acmesim.policies.scheduling import SCHEDULERS
from acmesim.policies.scheduling._priority import PriorityScheduler
from acmesim.policies.scheduling.base import Scheduler
from acmesim.policies.scheduling.fifo import Fifo
from acmesim.run import simulate

HOOKED = ("acme", "acme_reservation", "las", "srtf", "sjf", "qssf", "easy_backfill")
"""The shipped schedulers that hear of arrivals."""

TYPES = ("Pretrain", "Eval", "SFT", "MLLM", "Debug", "Other")


class Recording(Fifo):
    """FIFO that records each ``on_arrivals`` call: (time, its jobs, the GPU queue then)."""

    def __init__(self, config=None):
        super().__init__(config)
        self.calls = []

    def on_arrivals(self, jobs, view):
        self.calls.append((view.now, [j.job_id for j in jobs],
                           [j.job_id for j in view.queues["gpu"]]))


def test_each_submit_time_is_one_call_with_its_jobs_in_order_all_queued():
    rows = [job(0, 100, 8), job(0, 100, 8), job(5, 1, 1), job(5, 1, 1), job(5, 1, 1),
            job(9, 1, 1)]
    recording = Recording()
    seen = []
    simulate(frame(rows), cluster(2), recording,
             extensions=[OnArrival(lambda j: seen.append(j.job_id))])
    # two 8-GPU jobs fill both nodes at 0, so the 1-GPU jobs queue behind them
    assert recording.calls == [(0.0, ["j0", "j1"], ["j0", "j1"]),
                               (5.0, ["j2", "j3", "j4"], ["j2", "j3", "j4"]),
                               (9.0, ["j5"], ["j2", "j3", "j4", "j5"])]
    assert seen == ["j0", "j1", "j2", "j3", "j4", "j5"]  # the extension's hook: each job


class PerJob(Scheduler):
    """A scheduler with only the per-job hook: the default ``on_arrivals`` calls it."""

    def __init__(self, config=None):
        super().__init__(config)
        self.fifo, self.heard = Fifo(), []

    def schedule(self, view):
        return self.fifo.schedule(view)

    def on_arrival(self, job, view):
        self.heard.append(job.job_id)


def test_a_scheduler_with_only_on_arrival_hears_of_every_job_in_order():
    per_job = PerJob()
    simulate(frame([job(0, 1), job(0, 1), job(3, 1)]), cluster(1), per_job)
    assert per_job.heard == ["j0", "j1", "j2"]


def test_a_per_job_hook_under_a_batch_hook_is_refused_when_the_class_is_made():
    with pytest.raises(TypeError, match="on_arrivals"):
        type("Skipped", (PriorityScheduler,), {"on_arrival": lambda self, job, view: None})
    # with the batch hook beside it, the class is fine
    type("Both", (PriorityScheduler,), {"on_arrival": lambda self, job, view: None,
                                        "on_arrivals": lambda self, jobs, view: None})


class OneByOne(Scheduler):
    """``inner`` told of each arrival by its own ``on_arrival`` call (the per-job path)."""

    def __init__(self, inner):
        super().__init__(None)
        self.inner = inner
        self.idle_without_pending = inner.idle_without_pending

    def schedule(self, view):
        return self.inner.schedule(view)

    def on_arrivals(self, jobs, view):
        for one in jobs:
            self.inner.on_arrival(one, view)

    def on_start(self, job, view):
        self.inner.on_start(job, view)

    def on_requeue(self, job, view):
        self.inner.on_requeue(job, view)

    def on_finish(self, job, view):
        self.inner.on_finish(job, view)

    def summary_fields(self):
        return self.inner.summary_fields()


@st.composite
def traces(draw):
    """Random GPU jobs of every type and two users, many at the same second (0-20)."""
    rows = []
    for _ in range(draw(st.integers(1, 24))):
        gpus = draw(st.sampled_from([1, 2, 4, 8, 16]))
        rows.append(job(draw(st.integers(0, 20)), draw(st.integers(1, 60)), gpus,
                        2 if gpus == 16 else 1, type=draw(st.sampled_from(TYPES)),
                        user=draw(st.sampled_from(["u1", "u2"]))))
    return sorted(rows, key=lambda row: row["submit"])


@pytest.mark.parametrize("name", HOOKED)
@settings(max_examples=40, deadline=None, database=None)
@given(rows=traces())
def test_the_batch_hook_decides_as_one_job_at_a_time(name, rows):
    table, spec = frame(rows), cluster(3)
    batch = simulate(table, spec, SCHEDULERS.create(name, {}))
    one_by_one = simulate(table, spec, OneByOne(SCHEDULERS.create(name, {})))
    pd.testing.assert_frame_equal(batch.jobs, one_by_one.jobs)
    pd.testing.assert_frame_equal(batch.curve, one_by_one.curve)
    assert batch.summary["preemptions"] == one_by_one.summary["preemptions"]
