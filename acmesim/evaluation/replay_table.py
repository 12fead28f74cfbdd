"""Rewrite a job table: each decoupled request's trace Eval jobs become its planned trials.

A trial row copies the request's first trace job (user, type ``Eval``, GPU, node and CPU
counts) and sets: ``job_id`` ``<request id>/t000``..., ``state`` (``replay_trials.trial_state``),
``submit_time`` the request's earliest submission, ``start_time`` its earliest recorded start
(used only by the recorded mode, which replays the trace unchanged anyway), ``run_time`` the
trial's duration, ``end_time``/``queue_time`` to match, and ``gpu_util`` (when the table has
it) the share of the trial spent in GPU inference. Source-specific extra columns are left empty
on trial rows (the missing value of the column's own dtype: NaN, NaT). Trial rows take the
place of the request's first job, in plan order; every other row is kept as it is.
"""

from __future__ import annotations

import functools
import itertools
from operator import itemgetter
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
import pyarrow as pa

from acmesim.core.errors import AcmesimError
from acmesim.evaluation.batches import TraceColumns
from acmesim.evaluation.replay_trials import ReplayRequest
from acmesim.trace.gpu_util import COLUMN as GPU_UTIL
from acmesim.trace.gpu_util import DECIMALS
from acmesim.trace.schema import NORMALIZED_COLUMNS


def _timestamps(ns: np.ndarray, like: pd.Series) -> pd.Series:
    """Int nanoseconds since the epoch as a UTC timestamp column of ``like``'s dtype."""
    return pd.Series(pd.to_datetime(ns, unit="ns", utc=True)).astype(like.dtype)


def _text_column(values: list[str]) -> Any:
    """A column of ``str`` values as assigning the list would type it: pandas' arrow text
    dtype built through arrow (without inferring it value by value) when that is what pandas
    infers for text."""
    if _inferred_text() != TEXT:
        return values
    return pd.array(pa.array(values, type=pa.large_string()), dtype=TEXT)


TEXT = pd.StringDtype("pyarrow", na_value=np.nan)
"""pandas' default dtype for a list of ``str`` (since pandas 3)."""


@functools.cache
def _inferred_text() -> Any:
    """The dtype pandas gives a column assigned a list of ``str``."""
    return pd.Series(["text"]).dtype


class _Flat(NamedTuple):
    """Every request's trials as columns, in request then plan order."""

    job_id: list[str]
    run_time: np.ndarray
    inference_s: np.ndarray
    state: list[str]
    counts: np.ndarray
    """Trials per request."""
    anchor: np.ndarray
    """The row of each trial's request's first trace job (where its rows go)."""


def _flat(requests: list[ReplayRequest]) -> _Flat:
    """The trials of ``requests`` as columns (``ReplayTrial`` fields by position)."""
    trials = list(itertools.chain.from_iterable(req.trials for req in requests))
    counts = np.fromiter((len(req.trials) for req in requests), dtype=np.int64,
                         count=len(requests))
    firsts = np.fromiter((req.batch.first_row for req in requests), dtype=np.int64,
                         count=len(requests))
    def floats(field: int) -> np.ndarray:
        return np.fromiter(map(itemgetter(field), trials), dtype=np.float64, count=len(trials))

    return _Flat(list(map(itemgetter(0), trials)), floats(1), floats(2),
                 list(map(itemgetter(3), trials)), counts, np.repeat(firsts, counts))


def _trial_values(frame: pd.DataFrame, requests: list[ReplayRequest], cols: TraceColumns,
                  flat: _Flat) -> dict[str, Any]:
    """The columns a trial row sets, one value per trial (see the module docstring)."""
    members = np.fromiter(itertools.chain.from_iterable(req.batch.rows for req in requests),
                          dtype=np.int64)
    sizes = np.fromiter((len(req.batch.rows) for req in requests), dtype=np.int64,
                        count=len(requests))
    begins = np.cumsum(sizes) - sizes
    earliest = np.minimum.reduceat
    submit = np.repeat(earliest(cols.submit_ns[members], begins), flat.counts).astype(np.int64)
    start = np.repeat(earliest(cols.start_ns[members], begins), flat.counts).astype(np.int64)
    run = flat.run_time
    values: dict[str, Any] = {
        "job_id": _text_column(flat.job_id), "state": _text_column(flat.state),
        "submit_time": _timestamps(submit, frame["submit_time"]),
        "start_time": _timestamps(start, frame["start_time"]), "run_time": run,
    }
    if "end_time" in frame.columns:
        end = start + np.round(run * 1e9).astype(np.int64)
        values["end_time"] = _timestamps(end, frame["end_time"])
    if "queue_time" in frame.columns:
        values["queue_time"] = (start - submit) / 1e9
    if GPU_UTIL in frame.columns:
        util = np.divide(flat.inference_s, run, out=np.full_like(run, np.nan), where=run > 0)
        values[GPU_UTIL] = np.round(util, DECIMALS)
    return values


class _Layout(NamedTuple):
    """Where the result's rows come from: ``copied_from[i]`` is the table row result row ``i``
    is (or, for a trial row, copies); ``picked`` is the same with each trial row pointing past
    the table, at its trial's value; ``at`` are the trial rows of the result."""

    copied_from: np.ndarray
    picked: np.ndarray
    at: np.ndarray


def _layout(rows: int, kept: np.ndarray, anchor: np.ndarray) -> _Layout:
    """The rows kept and the trials in place: a request's trials share its first row and follow
    each other in plan order, so a stable sort by row alone puts them there (the rows kept are
    none of the anchors)."""
    sources = np.concatenate([kept, anchor])
    order = np.argsort(sources, kind="stable")
    copied_from = sources[order]
    at = np.flatnonzero(order >= len(kept))
    picked = copied_from.copy()
    picked[at] = rows + order[at] - len(kept)
    return _Layout(copied_from, picked, at)


def rewritten_table(jobs: pd.DataFrame, requests: list[ReplayRequest],
                    cols: TraceColumns) -> pd.DataFrame:
    """``jobs`` with every request's trace Eval jobs replaced by its trial rows.

    One take per column: a trial row copies its request's first job, and each column a trial
    sets is taken from the table's column followed by the trials' values.
    """
    frame = jobs.reset_index(drop=True)
    if not requests:
        return frame
    replaced = np.zeros(len(frame), dtype=bool)
    replaced[np.fromiter(itertools.chain.from_iterable(req.batch.rows for req in requests),
                         dtype=np.int64)] = True  # one fancy index, not one per request
    flat = _flat(requests)
    kept = np.flatnonzero(~replaced)
    _check_new_ids(flat.job_id, frame["job_id"], kept)
    layout = _layout(len(frame), kept, flat.anchor)
    values = _trial_values(frame, requests, cols, flat)
    table = frame.drop(columns=list(values)).take(layout.copied_from).reset_index(drop=True)
    for column, trial_values in values.items():
        both = pd.concat([frame[column], pd.Series(trial_values)], ignore_index=True)
        table[column] = both.take(layout.picked).reset_index(drop=True)
    is_trial = np.zeros(len(table), dtype=bool)
    is_trial[layout.at] = True
    for column in frame.columns:
        if column not in NORMALIZED_COLUMNS and column != GPU_UTIL:  # empty, of its own dtype
            table[column] = table[column].where(~is_trial)
    return table[list(frame.columns)]


def _check_new_ids(trial_ids: list[str], ids: pd.Series, kept: np.ndarray) -> None:
    """Trial job ids must not collide with a job id the table keeps (``kept`` rows of ``ids``;
    a trial id has a ``/``, so only the kept ids with one are compared, found column-wise)."""
    with_slash = np.zeros(len(ids), dtype=bool)
    with_slash[kept] = True
    with_slash &= ids.astype(str).str.contains("/", regex=False).to_numpy(dtype=bool)
    kept_ids = set(ids[with_slash].tolist())
    if kept_ids.isdisjoint(trial_ids):
        return
    clash = [job_id for job_id in trial_ids if job_id in kept_ids]
    raise AcmesimError(f"trial job id(s) {clash[:5]} already name jobs of the table; "
                       f"rename those jobs to replay decoupled evaluation")
