"""A field added by one declaration (the trace's recorded queue time, ``queue_time``) reaches the
engine's job, the policies' view and ``jobs.csv`` (``recorded_queue_delay``)."""

from __future__ import annotations

import factories
import numpy as np
import pytest

from acmesim.cluster.view import JobInfo
from acmesim.core.errors import TraceError
from acmesim.jobs.fields import BY_NAME
from acmesim.results.schema import JOBS
from acmesim.run.simulate import simulate

ROWS = [factories.job(0, 10.0, start=30.0, job_id="a"), factories.job(5, 20.0, 8, job_id="b")]


def _replay(frame):
    """The jobs table and each job's ``queue_time`` as a policy reads it on arrival."""
    seen: dict[str, float] = {}

    def read(job: JobInfo) -> None:
        seen[job.job_id] = job.queue_time

    result = simulate(frame, cluster=factories.cluster(2),
                      extensions=[factories.OnArrival(read)])
    return factories.by_id(result.jobs), seen


def test_the_recorded_queue_time_reaches_the_view_and_jobs_csv():
    jobs, seen = _replay(factories.frame(ROWS))
    assert seen == {"a": 30.0, "b": 0.0}
    assert {k: jobs[k]["recorded_queue_delay"] for k in "ab"} == {"a": 30.0, "b": 0.0}
    # scheduled mode: the simulated queue delay is the replay's own, not the trace's
    assert jobs["a"]["queue_delay"] == 0.0
    assert "recorded_queue_delay" in JOBS.names
    assert BY_NAME["queue_time"].origin == "recorded"


def test_a_table_without_the_column_replays_with_empty_recorded_queue_times():
    jobs, seen = _replay(factories.frame(ROWS).drop(columns="queue_time"))
    assert all(np.isnan(v) for v in seen.values())
    assert all(np.isnan(jobs[k]["recorded_queue_delay"]) for k in "ab")


def test_a_queue_time_that_is_no_number_names_its_row_and_column():
    frame = factories.frame(ROWS).astype({"queue_time": object})
    frame.loc[1, "queue_time"] = "soon"
    with pytest.raises(TraceError) as error:
        _replay(frame)
    assert (error.value.column, error.value.value) == ("queue_time", "soon")
    assert error.value.reason.startswith("row 1 (job_id 'b')")
