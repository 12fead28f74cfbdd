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
import math
from collections import defaultdict
from typing import Any

import numpy as np
import pandas as pd

from acmesim.evaluation.batches import TraceColumns
from acmesim.evaluation.metric_queue import fifo_starts
from acmesim.evaluation.replay_trials import ReplayRequest
from acmesim.results.schema import EVAL_JOBS, EVAL_REQUESTS

NAN = math.nan


@dataclasses.dataclass
class _Trial:
    """A trial's row of the jobs table (NaN times when it was not simulated)."""

    submit: float = NAN
    start: float = NAN
    end: float = NAN
    held: float = 0.0
    node: str = ""


def _rows_by_id(frame: pd.DataFrame, wanted: set[str]) -> dict[str, _Trial]:
    """The jobs table's rows of the ``wanted`` job ids, by id (first row of a repeated id)."""
    first = frame.drop_duplicates("job_id")
    first = first[first["job_id"].astype(str).isin(wanted)]
    nodes = first["nodes"].astype(str).str.split(";").str[0]
    columns = [first[c].tolist() for c in ("job_id", "submit_time", "start_time", "end_time",
                                           "run_time", "gpu_num")]  # Python scalars, not NumPy's
    return {
        str(j): _Trial(float(s), float(b), float(e), float(h) * float(g), str(n))
        for j, s, b, e, h, g, n in zip(*columns, nodes.tolist(), strict=True)
    }


@dataclasses.dataclass
class _Dataset:
    """Where and when one dataset's predictions became ready, and its metric."""

    request: int
    index: int
    ready: float = NAN
    node: str = ""
    metric_start: float = NAN
    metric_end: float = NAN


def _datasets(requests: list[ReplayRequest], trials: dict[str, _Trial]) -> list[_Dataset]:
    """Every dataset's ready time and node (the trial whose shard finished it last)."""
    out = []
    for r, req in enumerate(requests):
        found = [_Dataset(r, i) for i in range(len(req.job_ids))]
        missing: set[int] = set()
        for trial in req.trials:
            row = trials.get(trial.job_id, _Trial())
            for index, tail in trial.finishes:
                done = row.end - tail
                if math.isnan(done):
                    missing.add(index)
                elif math.isnan(found[index].ready) or done > found[index].ready:
                    found[index].ready, found[index].node = done, row.node
        for index in missing:
            found[index].ready = NAN
        out.extend(found)
    return out


def _run_metrics(datasets: list[_Dataset], requests: list[ReplayRequest], slots: int) -> None:
    """Metric start/end of every dataset: FIFO per node for CPU metrics, none when coupled."""
    queues: dict[str, list[_Dataset]] = defaultdict(list)
    for d in datasets:
        if math.isnan(d.ready):
            continue
        if requests[d.request].metrics_on_cpu:
            queues[d.node].append(d)
        else:
            d.metric_end = d.ready
    for node in sorted(queues):
        queue = sorted(queues[node], key=lambda d: (d.ready, d.request, d.index))
        durations = [requests[d.request].metric_s[d.index] for d in queue]
        starts = fifo_starts([d.ready for d in queue], durations, slots)
        for d, start, duration in zip(queue, starts, durations, strict=True):
            d.metric_start, d.metric_end = start, start + duration


def _nan_max(values: list[float]) -> float:
    """Largest value, NaN if any is NaN or there are none."""
    return NAN if not values or any(math.isnan(v) for v in values) else max(values)


def _request_row(req: ReplayRequest, cols: TraceColumns, rows: list[_Trial],
                 results: list[float]) -> dict[str, Any]:
    """One row of ``eval_requests.csv``."""
    members = list(req.batch.rows)
    submit_ns = int(cols.submit_ns[members].min())
    recorded_end = max((cols.start_ns[r] - submit_ns) / 1e9 + cols.recorded_run_time[r]
                       for r in members)
    submit = next((t.submit for t in rows if not math.isnan(t.submit)), NAN)
    first_start = NAN if any(math.isnan(t.start) for t in rows) else min(t.start for t in rows)
    results_end = _nan_max(results)
    return {
        "request_id": req.batch.request_id, "user": req.batch.user, "submit_time": submit,
        "gpu_num": req.batch.gpu_num, "jobs": len(req.job_ids), "trials": len(req.trials),
        "first_start": first_start, "gpu_end": _nan_max([t.end for t in rows]),
        "results_end": results_end, "queue_delay": first_start - submit,
        "makespan": results_end - submit, "recorded_makespan": float(recorded_end),
        "recorded_gpu_time": req.recorded_gpu_time,
        "gpu_time_held": float(sum(t.held for t in rows)),
        "metric_cpu_time": float(sum(req.metric_s)) if req.metrics_on_cpu else 0.0,
    }


def _job_rows(req: ReplayRequest, found: list[_Dataset]) -> list[dict[str, Any]]:
    """Rows of ``eval_jobs.csv`` for the datasets of one request."""
    trials_of: dict[int, list[str]] = defaultdict(list)
    for trial in req.trials:
        for index, _ in trial.finishes:
            trials_of[index].append(trial.job_id)
    cpu = req.metrics_on_cpu
    return [{
        "job_id": req.job_ids[d.index], "request_id": req.batch.request_id,
        "gpu_num": req.batch.gpu_num, "recorded_run_time": req.recorded_run_times[d.index],
        "shards": len(trials_of[d.index]), "trials": ";".join(trials_of[d.index]),
        "predictions_end": d.ready, "metric_s": req.metric_s[d.index] if cpu else NAN,
        "metric_node": d.node if cpu else "", "metric_start": d.metric_start,
        "metric_end": d.metric_end if cpu else NAN, "result_time": d.metric_end,
    } for d in found]


def replay_tables(requests: list[ReplayRequest], cols: TraceColumns, frame: pd.DataFrame,
                  metric_slots: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``eval_requests.csv`` and ``eval_jobs.csv`` of a finished replay's jobs table."""
    trials = _rows_by_id(frame, {t.job_id for req in requests for t in req.trials})
    datasets = _datasets(requests, trials)
    _run_metrics(datasets, requests, metric_slots)
    request_rows, job_rows = [], []
    start = 0
    for req in requests:
        found = datasets[start:start + len(req.job_ids)]
        start += len(req.job_ids)
        rows = [trials.get(t.job_id, _Trial()) for t in req.trials]
        request_rows.append(_request_row(req, cols, rows, [d.metric_end for d in found]))
        job_rows.extend(_job_rows(req, found))
    return (pd.DataFrame(request_rows, columns=EVAL_REQUESTS.names),
            pd.DataFrame(job_rows, columns=EVAL_JOBS.names))


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
