"""The node-level packer (hand-worked schedules) and the feasibility checker."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acmesim.core.errors import AcmesimError
from acmesim.synth import check_feasibility
from acmesim.synth.packer import PackerSettings, pack

T0 = pd.Timestamp("2023-03-01", tz="UTC")


def run(settings_, jobs, horizon=10**9, successor=None, gap=None, deferred=None):
    """Pack ``jobs`` = list of (submit, latency, work, gpus, klass)."""
    submit, latency, work, gpus, klass = (np.array(c, dtype=np.int64)
                                          for c in zip(*jobs, strict=True))
    n = len(jobs)
    successor = np.full(n, -1) if successor is None else np.array(successor)
    gap = np.zeros(n, dtype=np.int64) if gap is None else np.array(gap)
    return pack(settings_, submit, latency, work, gpus, klass.astype(np.int8), successor, gap,
                horizon, deferred)


TWO_NODES = PackerSettings(nodes=2, gpus_per_node=8, quota=16, lookahead=8)


def test_a_job_waits_until_gpus_free_up():
    out = run(TWO_NODES, [(0, 0, 100, 8, 1), (0, 0, 50, 8, 1), (5, 0, 10, 1, 1)])
    assert out.start.tolist() == [0, 0, 50]
    assert out.end.tolist() == [100, 50, 60]


def test_single_node_jobs_go_best_fit():
    # node A gets 5 GPUs busy; a 2-GPU job must go to A (3 free), leaving node B whole for 8
    out = run(TWO_NODES, [(0, 0, 100, 5, 1), (1, 0, 100, 2, 1), (2, 0, 100, 8, 1)])
    assert out.start.tolist() == [0, 1, 2]


def test_worst_fit_would_be_needed_to_fail_this():
    # both nodes partly busy: a 4-GPU job fits only where 4 are free
    out = run(TWO_NODES, [(0, 0, 100, 5, 1), (0, 0, 100, 4, 1), (1, 0, 10, 4, 1)])
    assert out.start.tolist() == [0, 0, 1]


def test_multi_node_jobs_take_whole_free_nodes():
    out = run(TWO_NODES, [(0, 0, 30, 1, 1), (1, 0, 10, 16, 1)])
    assert out.start.tolist() == [0, 30]  # needs both nodes whole


def test_an_end_frees_gpus_for_a_start_at_the_same_second():
    out = run(TWO_NODES, [(0, 0, 10, 16, 1), (10, 0, 5, 16, 1)])
    assert out.start.tolist() == [0, 10]


def test_class_zero_is_served_before_class_one():
    jobs = [(0, 0, 100, 16, 1), (1, 0, 5, 8, 1), (2, 0, 5, 8, 0)]
    out = run(TWO_NODES, jobs)
    assert out.start[2] == 100 and out.start[1] == 100  # both start when the cluster frees
    one_node = PackerSettings(nodes=1, gpus_per_node=8, quota=8, lookahead=8)
    out = run(one_node, [(0, 0, 100, 8, 1), (1, 0, 5, 8, 1), (2, 0, 5, 8, 0)])
    assert out.start.tolist() == [0, 105, 100]


def test_low_priority_class_respects_its_quota():
    settings_ = PackerSettings(nodes=2, gpus_per_node=8, quota=2, lookahead=8)
    out = run(settings_, [(0, 0, 10, 1, 2), (0, 0, 10, 1, 2), (0, 0, 10, 1, 2)])
    assert out.start.tolist() == [0, 0, 10]


def test_reserved_class_waits_for_its_own_jobs_beyond_its_reservation():
    # 4 nodes, pretraining reserved 16 GPUs: the second 16-GPU run waits for the first to end
    # (t = 100) although two nodes stay free; a class-1 job takes a free node meanwhile
    reserved = PackerSettings(nodes=4, gpus_per_node=8, quota=32, lookahead=8,
                              reserved_quota=16)
    out = run(reserved, [(0, 0, 100, 16, 0), (5, 0, 10, 16, 0), (6, 0, 10, 8, 1)],
              deferred=[True, True, False])
    assert out.start.tolist() == [0, 100, 6]
    assert out.submit.tolist() == [0, 100, 6]  # the deferred run is submitted when admitted
    unlimited = PackerSettings(nodes=4, gpus_per_node=8, quota=32, lookahead=8)
    out = run(unlimited, [(0, 0, 100, 16, 0), (5, 0, 10, 16, 0), (6, 0, 10, 8, 1)])
    assert out.start.tolist() == [0, 5, 15]  # the four nodes are all pretraining's until 15


def test_a_reserved_job_larger_than_the_reservation_is_an_error():
    reserved = PackerSettings(nodes=4, gpus_per_node=8, quota=32, lookahead=8,
                              reserved_quota=16)
    with pytest.raises(AcmesimError, match="asks for 24 GPUs, more than the class's "
                                           "reservation of 16"):
        run(reserved, [(0, 0, 10, 24, 0)])


def test_ready_time_is_submit_plus_latency():
    out = run(TWO_NODES, [(100, 7, 10, 1, 1)])
    assert out.start.tolist() == [107]


def test_successor_is_submitted_gap_seconds_after_its_predecessor_ends():
    out = run(TWO_NODES, [(0, 0, 50, 8, 0), (-1, 3, 20, 8, 0)], successor=[1, -1], gap=[600, 0])
    assert out.submit.tolist() == [0, 650]
    assert out.start.tolist() == [0, 653]


def test_successor_past_the_horizon_is_never_submitted():
    out = run(TWO_NODES, [(0, 0, 50, 8, 0), (-1, 0, 20, 8, 0)], horizon=600,
              successor=[1, -1], gap=[600, 0])
    assert out.submit.tolist() == [0, -1] and out.start.tolist() == [0, -1]


def test_duration_from_submission_mode_keeps_end_minus_submit():
    kalos_like = PackerSettings(2, 8, 16, 8, duration_includes_queue=True, min_run=1)
    out = run(kalos_like, [(0, 0, 100, 16, 1), (0, 5, 30, 8, 1), (0, 5, 500, 8, 1)])
    # job 1 waits until 100 > its 30 s: it runs min_run; job 2 still ends at submit + 500
    assert out.start.tolist() == [0, 100, 100]
    assert out.end.tolist() == [100, 101, 500]


def test_deferred_job_records_its_submission_at_start_minus_latency():
    out = run(TWO_NODES, [(0, 0, 100, 16, 1), (10, 4, 50, 16, 0)], deferred=[False, True])
    assert out.start.tolist() == [0, 100]
    assert out.submit.tolist() == [0, 96]


def test_oversized_job_is_an_error():
    with pytest.raises(AcmesimError, match="asks for 24 GPUs; the cluster has 16"):
        run(TWO_NODES, [(0, 0, 10, 24, 1)])
    small_quota = PackerSettings(nodes=2, gpus_per_node=8, quota=4, lookahead=8)
    with pytest.raises(AcmesimError, match="asks for 8 GPUs, more than the class's quota of 4"):
        run(small_quota, [(0, 0, 10, 8, 2)])


def _table(start, end, gpus, nodes=None, submit=None):
    start, end = np.asarray(start), np.asarray(end)
    gpus = np.asarray(gpus)
    nodes = np.where(gpus > 8, -(-gpus // 8), 1) if nodes is None else np.asarray(nodes)
    submit = start if submit is None else np.asarray(submit)
    to_time = lambda s: T0 + pd.to_timedelta(s, unit="s")  # noqa: E731
    return pd.DataFrame({"submit_time": to_time(submit), "start_time": to_time(start),
                         "end_time": to_time(end), "gpu_num": gpus, "node_num": nodes})


def test_checker_accepts_a_full_but_feasible_schedule():
    jobs = _table([0, 0, 10, 10], [10, 10, 20, 20], [16, 8, 8, 16])
    report = check_feasibility(jobs, nodes=3)
    assert report.ok and report.peak_gpus == 24 and report.peak_nodes == 3


def test_checker_catches_too_many_gpus():
    report = check_feasibility(_table([0, 5], [10, 15], [16, 1]), nodes=2)
    assert not report.ok
    assert report.violation_time == T0 + pd.Timedelta(seconds=5)
    assert "17 GPUs busy of 16" in report.message


def test_checker_catches_too_many_nodes_with_spare_gpus():
    # 3 nodes = 24 GPUs; a 2-node job of 9 GPUs plus two 5-GPU jobs is 19 GPUs but 4 nodes
    report = check_feasibility(_table([0, 0, 0], [10, 10, 10], [9, 5, 5], nodes=[2, 1, 1]),
                               nodes=3)
    assert not report.ok and "4 nodes needed of 3" in report.message


def test_checker_catches_fragmentation_of_single_node_jobs():
    # 17 single GPUs cannot fit into 2 nodes of 8
    report = check_feasibility(_table([0] * 17, [10] * 17, [1] * 17), nodes=3)
    assert report.ok
    report = check_feasibility(_table([0] * 17, [10] * 17, [1] * 17), nodes=2)
    assert not report.ok


def test_checker_rejects_a_job_ending_before_it_starts():
    jobs = _table([0, 10], [3, 5], [1, 1]).assign(job_id=["a", "b"])
    report = check_feasibility(jobs, nodes=1)
    assert not report.ok and report.message == "job b ends before it starts"


job_strategy = st.tuples(st.integers(0, 500), st.integers(0, 20), st.integers(0, 300),
                         st.sampled_from([1, 1, 2, 4, 8, 16, 24]), st.integers(0, 2))


@given(st.lists(job_strategy, min_size=1, max_size=60))
@settings(max_examples=60, deadline=None)
def test_packed_schedules_are_always_feasible(jobs):
    settings_ = PackerSettings(nodes=3, gpus_per_node=8, quota=24, lookahead=4)
    out = run(settings_, jobs)
    submit = np.array([j[0] for j in jobs])
    latency = np.array([j[1] for j in jobs])
    assert (out.start >= submit + latency).all()
    assert (out.end - out.start == np.array([j[2] for j in jobs])).all()
    table = _table(out.start, out.end, [j[3] for j in jobs])
    assert check_feasibility(table, nodes=3).ok
