"""The column-wise paths of a decoupled replay's tables agree with their plain definitions.

``rewritten_table`` builds the trial rows of every request at once and puts them in place by
one stable sort; ``ordered_sums`` adds each request's values as ``sum()`` would;
``replay_tables`` finds the trials' rows by one arrow hash lookup and labels each dataset's
trials with arrays; ``EvalPlan`` checks a plan's coverage with sets. Each is compared here
with the row-by-row (or shard-by-shard) definition it replaces, on hand-made cases and random
ones.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from factories import frame, job
from hypothesis import given, settings
from hypothesis import strategies as st

from acmesim.core.errors import ConfigError
from acmesim.evaluation.batches import EvalBatch, read_columns
from acmesim.evaluation.plan import EvalPlan, ExecutionOptions, Shard, Trial
from acmesim.evaluation.replay_results import _first_rows, ordered_sums
from acmesim.evaluation.replay_table import rewritten_table
from acmesim.evaluation.replay_trials import ReplayRequest, ReplayTrial
from acmesim.evaluation.spec import Dataset, EvalRequest, ModelSpec
from acmesim.trace.schema import NORMALIZED_COLUMNS


# ---------------------------------------------------------------------- rewritten_table
def plain_rewritten(jobs: pd.DataFrame, requests: list[ReplayRequest]) -> pd.DataFrame:
    """The module docstring's definition, row by row: a kept row as it is, a request's first
    row replaced by its trial rows (copies of it with the trial's fields), its other rows
    dropped."""
    frame_ = jobs.reset_index(drop=True)
    first = {req.batch.first_row: req for req in requests}
    dropped = {r for req in requests for r in req.batch.rows}
    pieces = [frame_.iloc[:0]]  # the table's own dtypes take part even when no row is kept
    for row in range(len(frame_)):
        if row in first:
            pieces.append(_plain_trials(frame_, first[row]))
        elif row not in dropped:
            pieces.append(frame_.iloc[[row]])
    return pd.concat(pieces, ignore_index=True)


def _plain_trials(frame_: pd.DataFrame, req: ReplayRequest) -> pd.DataFrame:
    """One request's trial rows, one field at a time."""
    rows = frame_.iloc[[req.batch.first_row] * len(req.trials)].reset_index(drop=True)
    members = frame_.iloc[list(req.batch.rows)]
    submit, start = members["submit_time"].min(), members["start_time"].min()
    for column in rows.columns:
        if column not in NORMALIZED_COLUMNS and column != "gpu_util":  # empty, of its own kind
            rows[column] = rows[column].where(np.zeros(len(rows), dtype=bool))
    rows["job_id"] = [t.job_id for t in req.trials]
    rows["state"] = [t.state for t in req.trials]
    rows["submit_time"] = submit
    rows["start_time"] = start
    rows["run_time"] = [t.run_time for t in req.trials]
    rows["end_time"] = pd.Series([start + pd.Timedelta(round(t.run_time * 1e9), unit="ns")
                                  for t in req.trials]).astype(frame_["end_time"].dtype)
    rows["queue_time"] = (start - submit).total_seconds()
    if "gpu_util" in rows.columns:
        rows["gpu_util"] = [round(t.inference_s / t.run_time, 4) if t.run_time > 0 else np.nan
                            for t in req.trials]
    return rows


def _requests(jobs: pd.DataFrame, groups: list[list[int]], trials: list[int],
              states: list[str]) -> list[ReplayRequest]:
    """A request per group of Eval rows, with ``trials[i]`` trials of made-up times."""
    out = []
    for i, (rows, count) in enumerate(zip(groups, trials, strict=True)):
        rid = str(jobs.job_id[rows[0]])
        made = tuple(ReplayTrial(f"{rid}/t{k:03d}", 10.0 * (k + 1) + i, 4.0 * k,
                                 states[(i + k) % len(states)], ((0, 0.0),))
                     for k in range(count))
        out.append(ReplayRequest(EvalBatch(rid, "u1", 1, tuple(rows)),
                                 tuple(str(jobs.job_id[r]) for r in rows),
                                 (1.0,) * len(rows), made, (0.0,) * len(rows), True))
    return out


def test_rewritten_table_hand_worked():
    """Two requests, extra text and time columns and gpu_util: the rows in place, every dtype
    kept (an extra column is empty on trial rows, of its own dtype)."""
    jobs = frame([job(0, 50, job_id="o1"), job(5, 1000, type="Eval", job_id="e1", start=7),
                  job(6, 300, type="Eval", job_id="e2", start=9), job(6, 50, job_id="o2"),
                  job(8, 20, type="Eval", job_id="e3")])
    jobs["gpu_util"] = [0.5, 0.4, 0.4, 0.9, 0.1]
    jobs["queue"] = ["a", "b", "c", "d", "e"]  # a source-specific column: empty on trials
    jobs["stop_time"] = jobs["end_time"]
    requests = _requests(jobs, [[1, 2], [4]], [3, 1], ["COMPLETED", "FAILED"])
    table = rewritten_table(jobs, requests, read_columns(jobs))
    assert list(table.job_id) == ["o1", "e1/t000", "e1/t001", "e1/t002", "o2", "e3/t000"]
    assert list(table.state) == ["COMPLETED", "COMPLETED", "FAILED", "COMPLETED", "COMPLETED",
                                 "FAILED"]  # request i's trial k: states[(i + k) % 2]
    assert list(table.run_time) == [50, 10, 20, 30, 50, 11]
    assert table.queue.isna().tolist() == [False, True, True, True, False, True]
    assert table.queue[[0, 4]].tolist() == ["a", "d"]
    assert table.queue.dtype == jobs.queue.dtype and table.stop_time.dtype == jobs.end_time.dtype
    assert table.stop_time.isna().tolist() == table.queue.isna().tolist()
    assert table.gpu_util.tolist() == [0.5, 0.0, 0.2, round(8 / 30, 4), 0.9, 0.0]
    e1 = table.iloc[1]
    assert e1.submit_time == jobs.submit_time[1] and e1.start_time == jobs.start_time[1]
    assert e1.queue_time == 2.0 and e1.end_time == jobs.start_time[1] + pd.Timedelta(seconds=10)
    pd.testing.assert_frame_equal(table, plain_rewritten(jobs, requests))


@st.composite
def tables(draw) -> tuple[pd.DataFrame, list[ReplayRequest]]:
    """A table of Eval and other jobs, its Eval jobs in requests of 1-3, 1-4 trials each."""
    kinds = draw(st.lists(st.sampled_from(["Eval", "Eval", "Other"]), min_size=1, max_size=12))
    jobs = frame([job(draw(st.integers(0, 20)), draw(st.integers(0, 500)), type=kind,
                      start=None if draw(st.booleans()) else 30.0) for kind in kinds])
    if draw(st.booleans()):
        jobs["gpu_util"] = [0.5] * len(jobs)
    if draw(st.booleans()):
        jobs["extra"] = draw(st.sampled_from([list(range(len(jobs))),
                                              [f"x{i}" for i in range(len(jobs))],
                                              jobs["end_time"]]))
    evals = [i for i, kind in enumerate(kinds) if kind == "Eval"]
    groups, at = [], 0
    while at < len(evals):
        size = draw(st.integers(1, 3))
        groups.append(evals[at:at + size])
        at += size
    trials = [draw(st.integers(1, 4)) for _ in groups]
    return jobs, _requests(jobs, groups, trials, ["COMPLETED", "FAILED", "CANCELLED"])


@settings(max_examples=80, deadline=None)
@given(tables())
def test_rewritten_table_equals_the_row_by_row_definition(given_table):
    jobs, requests = given_table
    table = rewritten_table(jobs, requests, read_columns(jobs))
    if not requests:
        pd.testing.assert_frame_equal(table, jobs.reset_index(drop=True))
        return
    pd.testing.assert_frame_equal(table, plain_rewritten(jobs, requests))


def test_rewritten_table_refuses_a_trial_id_the_table_keeps():
    jobs = frame([job(0, 50, job_id="e1/t000"), job(5, 100, type="Eval", job_id="e1")])
    requests = _requests(jobs, [[1]], [1], ["COMPLETED"])
    with pytest.raises(Exception, match=r"e1/t000.*already name jobs"):
        rewritten_table(jobs, requests, read_columns(jobs))


def test_a_trial_id_may_name_a_replaced_job_or_differ_from_kept_ids_with_a_slash():
    """Only the ids the table keeps can clash: a replaced Eval job's id may be a trial's."""
    jobs = frame([job(0, 50, job_id="e1/t001"), job(5, 100, type="Eval", job_id="e1"),
                  job(6, 100, type="Eval", job_id="e1/t000", user="u2")])
    requests = _requests(jobs, [[1], [2]], [1, 1], ["COMPLETED"])
    table = rewritten_table(jobs, requests, read_columns(jobs))
    assert list(table.job_id) == ["e1/t001", "e1/t000", "e1/t000/t000"]


# ---------------------------------------------------------------------- ordered_sums
def test_ordered_sums_hand_worked():
    """Left to right from 0: (0.1 + 0.2) + 0.3 is not 0.1 + (0.2 + 0.3); empty groups are 0."""
    values = np.array([0.1, 0.2, 0.3, 5.0, 1e16, 1.0, -1e16])
    sums = ordered_sums(values, np.array([0, 3, 3, 4, 7]))
    assert sums.tolist() == [(0.1 + 0.2) + 0.3, 0.0, 5.0, (1e16 + 1.0) - 1e16]
    assert sums[0] != 0.1 + (0.2 + 0.3) and sums[3] == 0.0


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.floats(-1e12, 1e12, allow_nan=False), max_size=6), max_size=8))
def test_ordered_sums_equal_pythons_sum_to_the_last_bit(groups):
    values = np.array([v for g in groups for v in g], dtype=float)
    offsets = np.concatenate(([0], np.cumsum([len(g) for g in groups], dtype=np.int64)))
    assert ordered_sums(values, offsets).tolist() == [float(sum(g)) for g in groups]


# ---------------------------------------------------------------------- _first_rows
def plain_first_rows(ids: list[str], wanted: list[str]) -> list[int]:
    """The first row holding each wanted id, -1 when none does."""
    return [ids.index(w) if w in ids else -1 for w in wanted]


def test_first_rows_hand_worked():
    ids = pd.Series(["b", "a", "b", "c", "a"], dtype="str")
    assert _first_rows(ids, ["a", "b", "c", "z", "a"]).tolist() == [1, 0, 3, -1, 1]
    assert _first_rows(pd.Series([3, 7, 3], dtype=object), ["3", "7", "x"]).tolist() == [0, 1, -1]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "c", "a/t000", "é"]), max_size=12),
       st.lists(st.sampled_from(["a", "b", "c", "d", "a/t000", "é"]), max_size=8))
def test_first_rows_equal_the_first_occurrence(ids, wanted):
    got = _first_rows(pd.Series(ids, dtype="str"), wanted)
    assert got.tolist() == plain_first_rows(ids, wanted)


# ---------------------------------------------------------------------- plan coverage
def plain_coverage_ok(request: EvalRequest, trials: list[Trial]) -> bool:
    """Every dataset cut into shards 0..k-1 exactly once (k: its last shard's count)."""
    shards = [s for t in trials for s in t.shards]
    names = {d.name for d in request.datasets}
    if {s.dataset for s in shards} != names:
        return False
    for name in names:
        mine = [s for s in shards if s.dataset == name]
        if sorted(s.index for s in mine) != list(range(mine[-1].count)):
            return False
    return True


def _request(names: str) -> EvalRequest:
    return EvalRequest("r", ModelSpec("m"), tuple(Dataset(n, 1.0, 1.0, 1.0) for n in names))


def _plan(request: EvalRequest, trials: list[Trial]) -> bool:
    """Whether EvalPlan accepts the trials (False: it raised ConfigError)."""
    try:
        EvalPlan(request, tuple(trials), ExecutionOptions(), "test")
    except ConfigError:
        return False
    return True


def test_plan_coverage_hand_worked():
    request = _request("ab")
    whole_a, whole_b = Shard("a", 0, 1, 1.0, 1.0), Shard("b", 0, 1, 1.0, 1.0)
    half = [Shard("b", i, 2, 0.5, 0.5) for i in range(2)]
    assert _plan(request, [Trial("t000", (whole_a, half[0]), 1), Trial("t001", (half[1],), 1)])
    assert not _plan(request, [Trial("t000", (whole_a,), 1)])  # b missing
    assert not _plan(request, [Trial("t000", (whole_a, half[0], half[0]), 1)])  # b[1] missing
    assert not _plan(request, [Trial("t000", (whole_a, whole_b, whole_b), 1)])  # b twice
    assert not _plan(request, [Trial("t000", (whole_a, Shard("b", 1, 1, 1.0, 1.0)), 1)])
    assert not _plan(request, [Trial("t000", (whole_a, whole_b, Shard("c", 0, 1, 1, 1)), 1)])
    # indices compared as Python compares them: 1.0 is index 1, 0.5 is no index
    assert _plan(request, [Trial("t000", (whole_a, half[0], Shard("b", 1.0, 2, 0.5, 0.5)), 1)])
    assert not _plan(request, [Trial("t000", (whole_a, half[0], Shard("b", 0.5, 2, 0.5, 0.5)), 1)])


shards = st.builds(Shard, st.sampled_from("abc"), st.integers(-1, 3), st.integers(0, 3),
                   st.just(1.0), st.just(1.0))


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["a", "ab", "abc"]),
       st.lists(st.lists(shards, min_size=1, max_size=4), min_size=1, max_size=4))
def test_plan_coverage_equals_the_plain_check(names, groups):
    request = _request(names)
    trials = [Trial(f"t{i:03d}", tuple(g), 1) for i, g in enumerate(groups)]
    assert _plan(request, trials) == plain_coverage_ok(request, trials)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["a", "ab", "abc"]), st.lists(st.integers(1, 3), min_size=3, max_size=3),
       st.randoms(use_true_random=False))
def test_plan_coverage_accepts_every_valid_cut(names, counts, rng):
    request = _request(names)
    cut = [Shard(n, i, k, 1.0, 1.0) for n, k in zip(names, counts, strict=False) for i in range(k)]
    rng.shuffle(cut)
    trials = [Trial(f"t{i:03d}", (s,), 1) for i, s in enumerate(cut)]
    assert _plan(request, trials) and plain_coverage_ok(request, trials)
