"""Per-request and per-dataset results of a replay with evaluation requests, from its jobs table.

For each trace Eval job (a dataset), its predictions are ready when the last of its shards has
finished inference: for a shard, the end of the trial running it minus the work the trial still
had after it (exact when the trial ran uninterrupted, as every trial does without failures or
preemption). Coupled, the job's end is both (its metric ran inside it). Decoupled, the metric
then runs as a CPU job on the node of that trial (``metric_queue``); its end is the result.
A request's makespan is its submission to its last result; its queue delay is its submission to
its first engine job's start. Trials the replay skipped (oversize) leave their request's times
empty.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from operator import itemgetter
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from acmesim.evaluation.batches import TraceColumns
from acmesim.evaluation.metric_queue import fifo_starts
from acmesim.evaluation.replay_trials import ReplayRequest
from acmesim.results.schema import EVAL_JOBS, EVAL_REQUESTS

NAN = math.nan


@dataclasses.dataclass(frozen=True)
class _Trials:
    """The jobs-table rows of every request's engine jobs, flat in request then plan order:
    request ``r``'s are ``offsets[r]:offsets[r + 1]``. A trial the replay did not simulate has
    NaN times, no GPU time held and no node."""

    submit: np.ndarray
    start: np.ndarray
    end: np.ndarray
    held: np.ndarray
    node: np.ndarray
    offsets: np.ndarray


def _offsets(sizes: list[int]) -> np.ndarray:
    """Start of each group in a flat array of groups of ``sizes`` (length ``len + 1``)."""
    return np.concatenate(([0], np.cumsum(sizes, dtype=np.int64)))


def _trial_rows(frame: pd.DataFrame, requests: list[ReplayRequest]) -> _Trials:
    """The rows of every request's trial job ids (the first row of a repeated id), by one hash
    lookup of all ids."""
    wanted = [t.job_id for t in itertools.chain.from_iterable(req.trials for req in requests)]
    found = _first_rows(frame["job_id"], wanted)
    hit = found >= 0
    rows = found[hit]

    def column(name: str) -> np.ndarray:
        out = np.full(len(wanted), NAN)
        out[hit] = frame[name].to_numpy(dtype=float)[rows]
        return out

    held = np.zeros(len(wanted))
    held[hit] = (frame["run_time"].to_numpy(dtype=float)[rows]
                 * frame["gpu_num"].to_numpy(dtype=float)[rows])
    node = np.full(len(wanted), "", dtype=object)
    node[hit] = _first_nodes(frame["nodes"].iloc[rows])
    return _Trials(column("submit_time"), column("start_time"), column("end_time"),
                   held, node, _offsets([len(req.trials) for req in requests]))


def ordered_sums(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """The sum of each group ``values[offsets[g]:offsets[g + 1]]`` added left to right from 0,
    as ``sum()`` of its floats (the same value to the last bit; numpy's own reductions add
    pairwise). One array operation per position within a group, over the groups that long:
    longest first, so those are a prefix, and the work is one addition per value."""
    sizes = np.diff(offsets)
    by_size = np.argsort(-sizes, kind="stable")
    firsts = offsets[:-1][by_size]
    longer = np.searchsorted(-sizes[by_size], -np.arange(int(sizes.max(initial=0))))
    sums = np.zeros(len(sizes))
    for position, count in enumerate(longer.tolist()):  # groups longer than position
        sums[:count] += values[firsts[:count] + position]
    out = np.empty(len(sizes))
    out[by_size] = sums
    return out


def _first_rows(ids: pd.Series, wanted: list[str]) -> np.ndarray:
    """The row of the first occurrence of each wanted id in ``ids`` (-1 when absent): one
    arrow hash lookup (``index_in`` gives a value's first position in the value set)."""
    value_set = pa.array(ids.astype(str))
    found = pc.index_in(pa.array(wanted, type=value_set.type), value_set=value_set)
    return pc.fill_null(found, -1).to_numpy().astype(np.int64)


def _first_nodes(nodes: pd.Series) -> list[str]:
    """``str(n).partition(";")[0]`` of each value (a Python pass only over those with a ``;``
    when the column is text)."""
    if not pd.api.types.is_string_dtype(nodes.dtype) or nodes.dtype == object or nodes.hasnans:
        return [str(n).partition(";")[0] for n in nodes.tolist()]
    values = nodes.tolist()
    for i in np.flatnonzero(nodes.str.contains(";", regex=False).to_numpy(dtype=bool)).tolist():
        values[i] = values[i].partition(";")[0]
    return values


@dataclasses.dataclass
class _Datasets:
    """Every request's datasets, flat in request then suite order: when and where its
    predictions became ready (NaN when a shard was not simulated), the trials running its
    shards (their count and their ``;``-joined job ids, in plan order) and its metric job."""

    ready: np.ndarray
    node: np.ndarray
    shards: np.ndarray
    trials: list[str]
    metric_start: np.ndarray
    metric_end: np.ndarray
    offsets: np.ndarray


def _datasets(requests: list[ReplayRequest], trials: _Trials) -> _Datasets:
    """Every dataset's ready time and node: the shard that finished it last (the first such
    in plan order), NaN when any of its shards was not simulated (the node is kept)."""
    offsets = _offsets([len(req.job_ids) for req in requests])
    count = int(offsets[-1])
    flat = list(itertools.chain.from_iterable(req.trials for req in requests))
    finishes = list(map(itemgetter(4), flat))  # ReplayTrial.finishes
    pairs = list(itertools.chain.from_iterable(finishes))  # every shard, in plan order
    trial_of = np.repeat(np.arange(len(flat)), np.fromiter(map(len, finishes), dtype=np.int64,
                                                           count=len(finishes)))
    base = np.repeat(offsets[:-1], np.diff(trials.offsets))  # each trial's first dataset
    dataset = base[trial_of] + np.fromiter(map(itemgetter(0), pairs), dtype=np.int64,
                                           count=len(pairs))
    done = trials.end[trial_of] - np.fromiter(map(itemgetter(1), pairs), dtype=float,
                                              count=len(pairs))
    unknown = np.isnan(done)
    # per dataset: known shards first, latest first, then plan order
    order = np.lexsort((np.arange(len(done)), -done, unknown, dataset))
    firsts = order[np.r_[True, dataset[order][1:] != dataset[order][:-1]]] if len(order) else order
    ready = np.full(count, NAN)
    node = np.full(count, "", dtype=object)
    chosen = firsts[~unknown[firsts]]  # one shard per dataset
    ready[dataset[chosen]] = done[chosen]
    node[dataset[chosen]] = trials.node[trial_of[chosen]]
    ready[dataset[unknown]] = NAN
    shards, labels = _shard_trials(dataset, trial_of, [t.job_id for t in flat], count)
    return _Datasets(ready, node, shards, labels, np.full(count, NAN), np.full(count, NAN),
                     offsets)


def _shard_trials(dataset: np.ndarray, trial_of: np.ndarray, job_ids: list[str],
                  count: int) -> tuple[np.ndarray, list[str]]:
    """Per dataset: how many shards it has and the ``;``-joined job ids of the trials running
    them, in plan order (``""`` for none); a Python join only for the datasets of several."""
    shards = np.bincount(dataset, minlength=count)
    ids = np.array(job_ids, dtype=object)[trial_of[np.argsort(dataset, kind="stable")]]
    begins = np.cumsum(shards) - shards
    labels = np.full(count, "", dtype=object)
    single = shards == 1
    labels[single] = ids[begins[single]]
    for d in np.flatnonzero(shards > 1).tolist():
        labels[d] = ";".join(ids[begins[d]:begins[d] + shards[d]].tolist())
    return shards, labels.tolist()


def _run_metrics(datasets: _Datasets, requests: list[ReplayRequest], slots: int) -> np.ndarray:
    """Metric start/end of every dataset: FIFO per node for CPU metrics, none when coupled;
    returns each dataset's metric duration (NaN when coupled)."""
    counts = np.diff(datasets.offsets)
    request = np.repeat(np.arange(len(requests)), counts)
    index = np.arange(len(request)) - np.repeat(datasets.offsets[:-1], counts)
    on_cpu = np.repeat([req.metrics_on_cpu for req in requests], counts).astype(bool)
    metric_s = np.array([s for req in requests for s in req.metric_s], dtype=float)
    ready = datasets.ready
    known = ~np.isnan(ready)
    coupled = known & ~on_cpu
    datasets.metric_end[coupled] = ready[coupled]
    queued = np.flatnonzero(known & on_cpu)
    node = pd.factorize(datasets.node)[0]  # a number per node: the queues are independent
    queued = queued[np.lexsort((index[queued], request[queued], ready[queued], node[queued]))]
    nodes = node[queued]
    cuts = np.flatnonzero(nodes[1:] != nodes[:-1]) + 1 if len(queued) else np.array([], int)
    for group in np.split(queued, cuts) if len(queued) else []:
        durations = metric_s[group].tolist()
        starts = fifo_starts(ready[group].tolist(), durations, slots)
        datasets.metric_start[group] = starts
        datasets.metric_end[group] = [s + d for s, d in zip(starts, durations, strict=True)]
    return np.where(on_cpu, metric_s, NAN)


def _request_table(requests: list[ReplayRequest], cols: TraceColumns, trials: _Trials,
                   datasets: _Datasets) -> pd.DataFrame:
    """``eval_requests.csv``: one row per request, reduced over its trials and datasets."""
    members = np.array([r for req in requests for r in req.batch.rows], dtype=np.int64)
    member_offsets = datasets.offsets  # one trace job per dataset, in the same order
    starts = member_offsets[:-1]
    submit_ns = np.minimum.reduceat(cols.submit_ns[members], starts)
    recorded_end = np.maximum.reduceat(
        (cols.start_ns[members] - np.repeat(submit_ns, np.diff(member_offsets))) / 1e9
        + cols.recorded_run_time[members], starts)
    first = trials.offsets[:-1]
    known = np.where(np.isnan(trials.submit), len(trials.submit), np.arange(len(trials.submit)))
    first_known = np.minimum.reduceat(known, first)
    padded = np.append(trials.submit, NAN)
    submit = padded[first_known]
    first_start = np.minimum.reduceat(trials.start, first)  # NaN if any is NaN
    gpu_end = np.maximum.reduceat(trials.end, first)
    results_end = np.maximum.reduceat(datasets.metric_end, starts)
    run_times = np.fromiter(itertools.chain.from_iterable(
        req.recorded_run_times for req in requests), dtype=float, count=len(members))
    gpu_nums = np.array([req.batch.gpu_num for req in requests], dtype=np.int64)
    metric_s = np.fromiter(itertools.chain.from_iterable(req.metric_s for req in requests),
                           dtype=float, count=len(members))
    on_cpu = np.array([req.metrics_on_cpu for req in requests], dtype=bool)
    return pd.DataFrame({
        "request_id": [req.batch.request_id for req in requests],
        "user": [req.batch.user for req in requests], "submit_time": submit,
        "gpu_num": gpu_nums,
        "jobs": np.diff(member_offsets), "trials": np.diff(trials.offsets),
        "first_start": first_start, "gpu_end": gpu_end, "results_end": results_end,
        "queue_delay": first_start - submit, "makespan": results_end - submit,
        "recorded_makespan": recorded_end,
        "recorded_gpu_time": ordered_sums(run_times, member_offsets) * gpu_nums,
        "gpu_time_held": ordered_sums(trials.held, trials.offsets),
        "metric_cpu_time": np.where(on_cpu, ordered_sums(metric_s, member_offsets), 0.0),
    }, columns=EVAL_REQUESTS.names)


def _job_table(requests: list[ReplayRequest], datasets: _Datasets,
               metric_s: np.ndarray) -> pd.DataFrame:
    """``eval_jobs.csv``: one row per dataset (trace Eval job)."""
    counts = np.diff(datasets.offsets)
    on_cpu = ~np.isnan(metric_s)
    return pd.DataFrame({
        "job_id": [j for req in requests for j in req.job_ids],
        "request_id": np.repeat(np.array([req.batch.request_id for req in requests],
                                         dtype=object), counts),
        "gpu_num": np.repeat(np.array([req.batch.gpu_num for req in requests],
                                      dtype=np.int64), counts),
        "recorded_run_time": [t for req in requests for t in req.recorded_run_times],
        "shards": datasets.shards.astype(np.int64),
        "trials": datasets.trials,
        "predictions_end": datasets.ready, "metric_s": metric_s,
        "metric_node": np.where(on_cpu, datasets.node, "").tolist(),
        "metric_start": datasets.metric_start,
        "metric_end": np.where(on_cpu, datasets.metric_end, NAN),
        "result_time": datasets.metric_end,
    }, columns=EVAL_JOBS.names)


def replay_tables(requests: list[ReplayRequest], cols: TraceColumns, frame: pd.DataFrame,
                  metric_slots: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``eval_requests.csv`` and ``eval_jobs.csv`` of a finished replay's jobs table."""
    if not requests:
        return (pd.DataFrame([], columns=EVAL_REQUESTS.names),
                pd.DataFrame([], columns=EVAL_JOBS.names))
    trials = _trial_rows(frame, requests)
    datasets = _datasets(requests, trials)
    metric_s = _run_metrics(datasets, requests, metric_slots)
    return (_request_table(requests, cols, trials, datasets),
            _job_table(requests, datasets, metric_s))


def _mean_p95(values: np.ndarray) -> tuple[float, float]:
    """Mean and 95th percentile of the finite values (NaN when none)."""
    values = values[np.isfinite(values)]
    if not len(values):
        return NAN, NAN
    return float(values.mean()), float(np.percentile(values, 95))


def replay_summary(requests: pd.DataFrame) -> dict[str, Any]:
    """The summary.csv fields of the evaluation requests (see ``SUMMARY``'s eval_* columns)."""
    makespan = _mean_p95(requests["makespan"].to_numpy(dtype=float))
    queue = _mean_p95(requests["queue_delay"].to_numpy(dtype=float))
    return {
        "eval_requests": len(requests),
        "eval_recorded_gpu_time": float(requests["recorded_gpu_time"].sum()),
        "eval_gpu_time": float(requests["gpu_time_held"].sum()),
        "eval_metric_cpu_time": float(requests["metric_cpu_time"].sum()),
        "eval_request_makespan_mean": makespan[0], "eval_request_makespan_p95": makespan[1],
        "eval_request_queue_delay_mean": queue[0], "eval_request_queue_delay_p95": queue[1],
    }
