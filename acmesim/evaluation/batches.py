"""Group a job table's trace Eval jobs into evaluation requests (one checkpoint x many datasets).

Rule: the GPU jobs of type ``Eval`` that one user submitted in the same whole second with the same
GPU count form one request; each job is one dataset of it. A burst of Eval jobs submitted
together is how an evaluation of one checkpoint on a benchmark suite shows up in the trace
(acme_facts.md §5: each checkpoint is evaluated on about 60 datasets). Jobs of one burst with
different GPU counts evaluate differently sized models, so they become separate requests.

A request's id is the job id of its first job (in table order), so it can be traced back.
CPU-only Eval jobs (``gpu_num = 0``) are not grouped: they stay ordinary jobs.
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

import numpy as np
import pandas as pd

from acmesim.jobs.table import floats, ints, texts, times_ns, validated

EVAL_TYPE = "Eval"
"""The job type of evaluation jobs (acmesim.trace.schema.JOB_TYPES)."""

NS_PER_S = 1_000_000_000


class EvalBatch(NamedTuple):
    """The trace Eval jobs of one request: their row positions in the table, in table order.

    A named tuple (as the replay's requests and trials): a trace has one per Eval request,
    about 100,000 on 60 days of Seren, built in under half the time of a frozen dataclass.
    """

    request_id: str
    user: str
    gpu_num: int
    rows: tuple[int, ...]

    @property
    def first_row(self) -> int:
        """Position of the request's first job (where its replayed jobs are put)."""
        return self.rows[0]


@dataclasses.dataclass(frozen=True)
class TraceColumns:
    """The validated columns grouping and expansion read (times as int ns since the epoch)."""

    job_id: np.ndarray
    user: np.ndarray
    state: np.ndarray
    submit_ns: np.ndarray
    start_ns: np.ndarray
    recorded_run_time: np.ndarray
    gpu_num: np.ndarray


def read_columns(jobs: pd.DataFrame) -> TraceColumns:
    """The columns grouping needs, of the table validated once (``acmesim.jobs.table``: errors
    name row, job, column and value)."""
    frame = validated(jobs)
    return TraceColumns(
        job_id=texts(frame, "job_id"), user=texts(frame, "user"), state=texts(frame, "state"),
        submit_ns=times_ns(frame, "submit_time"), start_ns=times_ns(frame, "start_time"),
        recorded_run_time=floats(frame, "run_time"), gpu_num=ints(frame, "gpu_num"),
    )


def group_eval_jobs(jobs: pd.DataFrame, columns: TraceColumns | None = None) -> list[EvalBatch]:
    """The table's GPU Eval jobs grouped into requests, in order of each request's first job."""
    cols = read_columns(jobs) if columns is None else columns
    evals = (jobs["type"].astype(str) == EVAL_TYPE).to_numpy(dtype=bool, na_value=False)
    rows = np.flatnonzero(evals & (cols.gpu_num > 0))
    if not len(rows):
        return []
    keys = pd.DataFrame({
        "user": cols.user[rows],
        "second": cols.submit_ns[rows] // NS_PER_S,
        "gpu_num": cols.gpu_num[rows],
    })
    group = keys.groupby(["user", "second", "gpu_num"], sort=False).ngroup().to_numpy()
    order = np.argsort(group, kind="stable")  # by request (first seen first), rows ascending
    order = order[group[order] >= 0]  # a missing key (-1) is in no request, as groupby drops it
    members = rows[order]
    begins = np.flatnonzero(np.r_[True, np.diff(group[order]) != 0]) if len(order) else order
    firsts = members[begins]
    bounds = [*begins.tolist(), len(members)]
    members_list = members.tolist()
    batches = [EvalBatch(str(job_id), str(user), int(gpus), tuple(members_list[begin:end]))
               for job_id, user, gpus, begin, end in zip(
                   cols.job_id[firsts].tolist(), cols.user[firsts].tolist(),
                   cols.gpu_num[firsts].tolist(), bounds[:-1], bounds[1:], strict=True)]
    batches.sort(key=lambda b: b.first_row)
    return batches
