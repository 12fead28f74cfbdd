"""The bulk paths of an evaluation replay agree with their plain definitions.

``decoupled_requests`` builds one-job requests without planning: it must give exactly the
requests ``decoupled_request`` plans one by one, and the planner must keep the promise that
lets it (``single_dataset_whole``). ``replay_tables`` reduces the jobs table with arrays: its
rows must be what the module docstring defines, shard by shard, trial by trial, including
trials the replay did not simulate.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acmesim.core.errors import ConfigError
from acmesim.evaluation.batches import EvalBatch, TraceColumns
from acmesim.evaluation.metric_queue import fifo_starts
from acmesim.evaluation.plan import Shard, Trial
from acmesim.evaluation.replay_results import replay_tables
from acmesim.evaluation.replay_trials import (
    ReplayRequest,
    ReplayTrial,
    decoupled_request,
    decoupled_requests,
)
from acmesim.evaluation.schedulers.decoupled import DecoupledEvalScheduler
from acmesim.evaluation.spec import EvalCluster
from acmesim.evaluation.trace import request_from_eval_jobs

configs = st.builds(DecoupledEvalScheduler.Config, decouple_loading=st.booleans(),
                    prior_packing=st.booleans(), long_metrics_first=st.booleans(),
                    merge_below=st.sampled_from([0.0, 0.3, 1.0]),
                    min_trial_s=st.sampled_from([0.0, 30.0, 600.0]))
run_times = st.floats(0, 20000, allow_nan=False)


def columns(jobs: list[tuple[int, float, str]]) -> TraceColumns:
    """Trace columns of jobs ``(gpu_num, run_time, state)``, ids ``j0, j1, ...``."""
    n = len(jobs)
    return TraceColumns(
        job_id=np.array([f"j{i}" for i in range(n)], dtype=object),
        user=np.array(["u"] * n, dtype=object),
        state=np.array([s for _, _, s in jobs], dtype=object),
        submit_ns=np.arange(n, dtype=np.int64) * 10**9,
        start_ns=np.arange(n, dtype=np.int64) * 2 * 10**9,
        recorded_run_time=np.array([r for _, r, _ in jobs], dtype=float),
        gpu_num=np.array([g for g, _, _ in jobs], dtype=np.int64))


@st.composite
def batches(draw) -> tuple[list[EvalBatch], TraceColumns]:
    """Requests of 1-4 jobs each (most of one job), one GPU count per request."""
    jobs: list[tuple[int, float, str]] = []
    out = []
    for size in draw(st.lists(st.sampled_from([1, 1, 1, 2, 4]), min_size=1, max_size=6)):
        gpus = draw(st.sampled_from([1, 2, 4, 8]))
        rows = tuple(range(len(jobs), len(jobs) + size))
        jobs += [(gpus, draw(run_times), draw(st.sampled_from(["COMPLETED", "FAILED"])))
                 for _ in rows]
        out.append(EvalBatch(f"j{rows[0]}", "u", gpus, rows))
    return out, columns(jobs)


@settings(max_examples=60, deadline=None)
@given(batches(), configs, st.sampled_from([0, 1, 3, 8, 15, 16, 64]))
def test_bulk_requests_equal_the_requests_planned_one_by_one(given_batches, config, request_gpus):
    found, cols = given_batches
    planner = DecoupledEvalScheduler(config)
    cluster = EvalCluster(nodes=4)
    one_by_one = [decoupled_request(b, cols, planner, cluster, request_gpus) for b in found]
    assert decoupled_requests(found, cols, planner, cluster, request_gpus) == one_by_one


@settings(max_examples=30, deadline=None)
@given(batches(), st.sampled_from([-1.0, math.nan, math.inf]), st.data())
def test_bulk_requests_raise_the_first_error_of_the_one_by_one_requests(given_batches, bad, data):
    found, cols = given_batches
    row = data.draw(st.integers(0, len(cols.recorded_run_time) - 1))
    cols.recorded_run_time[row] = bad  # one invalid trace job, maybe in a one-job request
    planner = DecoupledEvalScheduler(DecoupledEvalScheduler.Config())
    cluster = EvalCluster(nodes=4)
    expected = None
    try:
        for batch in found:
            decoupled_request(batch, cols, planner, cluster)
    except ConfigError as error:
        expected = str(error)
    assert expected is not None and f"j{row}" in expected
    with pytest.raises(ConfigError) as raised:
        decoupled_requests(found, cols, planner, cluster)
    assert str(raised.value) == expected


@settings(max_examples=60, deadline=None)
@given(configs, st.sampled_from([1, 2, 4, 8]), run_times, st.integers(0, 15))
def test_a_one_dataset_request_with_one_slot_is_one_whole_trial(config, gpu_num, run, extra):
    gpus = max(1, min(gpu_num + extra, 2 * gpu_num - 1))  # fewer than two trial slots
    request = request_from_eval_jobs("r", [("j", gpu_num, run)])
    plan = DecoupledEvalScheduler(config).plan(request, gpus)
    dataset = request.datasets[0]
    whole = Shard("j", 0, 1, dataset.prep_s, dataset.inference_s)
    assert DecoupledEvalScheduler.single_dataset_whole
    assert plan.trials == (Trial("t000", (whole,), gpu_num),)
    assert plan.options == DecoupledEvalScheduler(config).execution_options()


# ---------------------------------------------------------------------- replay_tables
times = st.integers(0, 6).map(float)  # narrow: shards often tie


@st.composite
def replays(draw) -> tuple[list[ReplayRequest], TraceColumns, pd.DataFrame]:
    """Requests whose trials run shards of their datasets (every dataset at least once), and
    a jobs table holding the trials that were simulated (some are not)."""
    requests, rows, jobs = [], [], 0
    for r in range(draw(st.integers(1, 4))):
        size = draw(st.integers(1, 3))
        trials = []
        for t in range(draw(st.integers(1, 4))):
            finishes = draw(st.lists(st.tuples(st.integers(0, size - 1), times), min_size=1,
                                     max_size=3))
            trials.append(ReplayTrial(f"r{r}/t{t:03d}", 1.0, 0.0, "COMPLETED",
                                      tuple(finishes)))
        trials.append(ReplayTrial(f"r{r}/t{len(trials):03d}", 1.0, 0.0, "COMPLETED",
                                  tuple((i, 0.0) for i in range(size))))
        members = tuple(range(jobs, jobs + size))
        jobs += size
        ids = tuple(f"e{m}" for m in members)
        cpu = draw(st.booleans())
        metric = tuple(draw(times) for _ in members) if cpu else (0.0,) * size
        requests.append(ReplayRequest(EvalBatch(f"e{members[0]}", "u", 2, members), ids,
                                      (1.0,) * size, tuple(trials), metric, cpu))
        for trial in trials:
            if draw(st.integers(0, 4)):  # a fifth of the trials were not simulated
                start = draw(times)
                rows.append({"job_id": trial.job_id, "submit_time": 0.0, "start_time": start,
                             "end_time": start + draw(times), "run_time": draw(times),
                             "gpu_num": 2, "nodes": draw(st.sampled_from(["n1", "n2;n3"]))})
    frame = pd.DataFrame(rows, columns=["job_id", "submit_time", "start_time", "end_time",
                                        "run_time", "gpu_num", "nodes"])
    return requests, columns([(2, 1.0, "COMPLETED")] * jobs), frame


@settings(max_examples=80, deadline=None)
@given(replays(), st.integers(1, 3))
def test_tables_follow_the_shard_by_shard_definitions(replay, slots):
    requests, cols, frame = replay
    table, jobs = replay_tables(requests, cols, frame, slots)
    rows = {row.job_id: row for row in frame.itertuples()}
    assert len(table) == len(requests) and len(jobs) == sum(len(r.job_ids) for r in requests)
    position = 0
    for req, got in zip(requests, table.itertuples(), strict=True):
        ran = [rows.get(t.job_id) for t in req.trials]
        known = [row for row in ran if row is not None]
        assert _same(got.submit_time, known[0].submit_time if known else math.nan)
        whole = len(known) == len(ran)
        assert _same(got.first_start, min(r.start_time for r in known) if whole else math.nan)
        assert _same(got.gpu_end, max(r.end_time for r in known) if whole else math.nan)
        assert got.gpu_time_held == sum(r.run_time * r.gpu_num for r in known)
        assert got.trials == len(req.trials) and got.jobs == len(req.job_ids)
        for index, job_id in enumerate(req.job_ids):
            dataset = jobs.iloc[position]
            position += 1
            assert dataset.job_id == job_id
            shards = [(row, tail) for row, t in zip(ran, req.trials, strict=True)
                      for i, tail in t.finishes if i == index]
            done = [row.end_time - tail for row, tail in shards if row is not None]
            ready = max(done) if len(done) == len(shards) else math.nan
            assert _same(dataset.predictions_end, ready)
            assert dataset.shards == len(shards)
            assert dataset.trials == ";".join(t.job_id for t in req.trials
                                              for i, _ in t.finishes if i == index)
            if req.metrics_on_cpu and not math.isnan(ready):
                first = next(row for row, tail in shards if row.end_time - tail == ready)
                assert dataset.metric_node == first.nodes.split(";")[0]
                assert dataset.metric_start >= ready
                assert dataset.metric_end == dataset.metric_start + req.metric_s[index]
            elif not req.metrics_on_cpu:
                assert _same(dataset.result_time, ready) and dataset.metric_node == ""
                assert math.isnan(dataset.metric_start)


@settings(max_examples=80, deadline=None)
@given(replays(), st.integers(1, 3))
def test_metric_jobs_queue_fifo_per_node_by_name(replay, slots):
    """Each node's CPU metric jobs start as ``fifo_starts`` serves them in (ready, request,
    suite position) order, the queues formed by node name."""
    requests, cols, frame = replay
    _, jobs = replay_tables(requests, cols, frame, slots)
    queues: dict[str, list[tuple[float, int, int, float, int]]] = {}
    row = 0
    for r, req in enumerate(requests):
        for index in range(len(req.job_ids)):
            got = jobs.iloc[row]
            if req.metrics_on_cpu and not math.isnan(got.predictions_end):
                queues.setdefault(got.metric_node, []).append(
                    (got.predictions_end, r, index, req.metric_s[index], row))
            row += 1
    expected = np.full(len(jobs), np.nan)
    for queue in queues.values():
        queue.sort()
        starts = fifo_starts([q[0] for q in queue], [q[3] for q in queue], slots)
        expected[[q[4] for q in queue]] = starts
    np.testing.assert_array_equal(jobs.metric_start.to_numpy(), expected)


def _same(a: float, b: float) -> bool:
    """Equal, or both NaN."""
    return (math.isnan(a) and math.isnan(b)) or a == b
