"""The job recorder keeps each outcome exactly, and never touches an amount nobody changed."""

import math

import factories
import pytest

from acmesim.cluster import cluster_spec
from acmesim.jobs.fields import ZERO
from acmesim.results.recorders import JobRecorder
from acmesim.sim.job import job_maker
from acmesim.sim.trace_input import prepare_jobs


def _jobs(count):
    frame = factories.frame([factories.job(10 * k, 100.0, 8) for k in range(count)])
    table = prepare_jobs(frame, cluster_spec("seren"))
    make = job_maker(table)
    return [make(i) for i in range(count)]


def test_amounts_are_recorded_with_their_sign_of_zero():
    first, second, third = _jobs(3)
    assert first.lost_gpu_time is ZERO and first.recovery_wait is ZERO
    first.start_time, first.held_time, first.work_done = 5.0, 100.0, 100.0
    second.start_time, second.lost_gpu_time, second.recovery_wait = 6.0, -0.0, 0.0 * 2
    third.start_time, third.checkpoint_overhead, third.restarts = 7.0, 2.5, 3
    recorder = JobRecorder(3)
    for job, end in ((first, 105.0), (second, 106.0), (third, 107.0)):
        recorder.record(job, end, "COMPLETED", ((4, 0xFF),))
    lost, wait = recorder.column("lost_gpu_time"), recorder.column("recovery_wait")
    assert math.copysign(1.0, lost[1]) == -1.0  # -0.0 written
    assert math.copysign(1.0, lost[0]) == 1.0 and math.copysign(1.0, wait[1]) == 1.0
    assert recorder.column("checkpoint_overhead").tolist() == [0.0, 0.0, 2.5]
    assert recorder.column("restarts").tolist() == [0, 0, 3]
    assert recorder.column("start").tolist() == [5.0, 6.0, 7.0]
    assert recorder.column("end").tolist() == [105.0, 106.0, 107.0]
    assert recorder.column("held_time").tolist() == [100.0, 0.0, 0.0]
    assert list(recorder.node) == [4, 4, 4] and recorder.ended == 3


def test_a_job_on_several_nodes_and_a_second_end_are_recorded_as_such():
    (job,) = _jobs(1)
    recorder = JobRecorder(1)
    recorder.record(job, 1.0, "FAILED", ((2, 0xFF), (3, 0xFF)))
    assert recorder.nodes_multi == {0: (2, 3)} and list(recorder.node) == [-1]
    assert recorder.state == ["FAILED"]
    with pytest.raises(RuntimeError, match="ended twice"):
        recorder.record(job, 2.0, "COMPLETED", ())
    assert recorder.ended == 1
