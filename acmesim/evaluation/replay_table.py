"""Rewrite a job table: each decoupled request's trace Eval jobs become its planned trials.

A trial row copies the request's first trace job (user, type ``Eval``, GPU, node and CPU
counts) and sets: ``job_id`` ``<request id>/t000``..., ``state`` (``replay_trials.trial_state``),
``submit_time`` the request's earliest submission, ``start_time`` its earliest recorded start
(used only by the recorded mode, which replays the trace unchanged anyway), ``run_time`` the
trial's duration, ``end_time``/``queue_time`` to match, and ``gpu_util`` (when the table has
it) the share of the trial spent in GPU inference. Source-specific extra columns are left empty
on trial rows. Trial rows take the place of the request's first job, in plan order; every other
row is kept as it is.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from acmesim.core.errors import AcmesimError
from acmesim.evaluation.batches import TraceColumns
from acmesim.evaluation.replay_trials import ReplayRequest
from acmesim.trace.gpu_util import COLUMN as GPU_UTIL
from acmesim.trace.gpu_util import DECIMALS
from acmesim.trace.schema import NORMALIZED_COLUMNS


def _timestamps(ns: np.ndarray, like: pd.Series) -> pd.Series:
    """Int nanoseconds since the epoch as a UTC timestamp column of ``like``'s dtype."""
    return pd.Series(pd.to_datetime(ns, unit="ns", utc=True)).astype(like.dtype)


def _trial_rows(frame: pd.DataFrame, requests: list[ReplayRequest],
                cols: TraceColumns) -> pd.DataFrame:
    """One row per trial of every request (see the module docstring)."""
    trials = [t for req in requests for t in req.trials]
    counts = [len(req.trials) for req in requests]
    members = np.array([r for req in requests for r in req.batch.rows], dtype=np.int64)
    begins = np.cumsum([0] + [len(req.batch.rows) for req in requests[:-1]], dtype=np.int64)
    anchor = np.repeat([req.batch.first_row for req in requests], counts)
    rows = frame.iloc[anchor].reset_index(drop=True)
    earliest = np.minimum.reduceat
    submit = np.repeat(earliest(cols.submit_ns[members], begins), counts).astype(np.int64)
    start = np.repeat(earliest(cols.start_ns[members], begins), counts).astype(np.int64)
    run = np.array([t.run_time for t in trials], dtype=np.float64)
    for column in rows.columns:
        if column not in NORMALIZED_COLUMNS and column != GPU_UTIL:
            rows[column] = np.nan
    rows["job_id"] = [t.job_id for t in trials]
    rows["state"] = [t.state for t in trials]
    rows["submit_time"] = _timestamps(submit, frame["submit_time"])
    rows["start_time"] = _timestamps(start, frame["start_time"])
    rows["run_time"] = run
    if "end_time" in rows.columns:
        end = start + np.round(run * 1e9).astype(np.int64)
        rows["end_time"] = _timestamps(end, frame["end_time"])
    if "queue_time" in rows.columns:
        rows["queue_time"] = (start - submit) / 1e9
    if GPU_UTIL in rows.columns:
        inference = np.array([t.inference_s for t in trials], dtype=np.float64)
        util = np.divide(inference, run, out=np.full_like(run, np.nan), where=run > 0)
        rows[GPU_UTIL] = np.round(util, DECIMALS)
    return rows


def rewritten_table(jobs: pd.DataFrame, requests: list[ReplayRequest],
                    cols: TraceColumns) -> pd.DataFrame:
    """``jobs`` with every request's trace Eval jobs replaced by its trial rows."""
    frame = jobs.reset_index(drop=True)
    if not requests:
        return frame
    replaced = np.zeros(len(frame), dtype=bool)
    replaced[np.fromiter(itertools.chain.from_iterable(req.batch.rows for req in requests),
                         dtype=np.int64)] = True  # one fancy index, not one per request
    _check_new_ids(requests, set(cols.job_id[~replaced].tolist()))
    kept = np.flatnonzero(~replaced)
    trial_rows = _trial_rows(frame, requests, cols)
    anchor = np.array([req.batch.first_row for req in requests for _ in req.trials])
    sub = np.array([k + 1 for req in requests for k in range(len(req.trials))])
    position = np.concatenate([kept, anchor])
    within = np.concatenate([np.zeros(len(kept), dtype=np.int64), sub])
    combined = pd.concat([frame.iloc[kept].reset_index(drop=True), trial_rows],
                         ignore_index=True)
    return combined.iloc[np.lexsort((within, position))].reset_index(drop=True)


def _check_new_ids(requests: list[ReplayRequest], kept_ids: set[str]) -> None:
    """Trial job ids must not collide with a job id the table keeps."""
    clash = [t.job_id for req in requests for t in req.trials if t.job_id in kept_ids]
    if clash:
        raise AcmesimError(f"trial job id(s) {clash[:5]} already name jobs of the table; "
                           f"rename those jobs to replay decoupled evaluation")
