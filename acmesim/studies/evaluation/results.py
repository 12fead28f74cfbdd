"""What an evaluation run produces: per-trial, per-dataset and per-request rows, and summaries.

Columns are declared once here (name -> meaning and unit). All times are simulated seconds.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import pandas as pd

TRIAL_COLUMNS: dict[str, str] = {
    "request_id": "request the trial belongs to",
    "trial_id": "trial id within its request, in dispatch order (t000, t001, ...)",
    "datasets": "';'-separated shards; name[i/k] is part i of k of a split dataset",
    "gpu_num": "GPUs the trial holds",
    "node": "node index",
    "gpu": "first GPU index on the node",
    "inference_s": "GPU inference seconds of the trial's shards",
    "load_start": "GPU acquired and model loading begins, s",
    "load_end": "model loaded (remote through the NIC, or from the node's host copy), s",
    "inference_end": "last shard's GPU inference done, s",
    "metric_end": "last metric of the datasets this trial completes, s (empty if none)",
    "released": "GPU released, s",
}

DATASET_COLUMNS: dict[str, str] = {
    "request_id": "request the dataset belongs to",
    "dataset": "dataset name",
    "shards": "trials the dataset was split into",
    "inference_end": "last shard's inference done, s",
    "metric_mode": "'gpu' (inside the trial, GPU held) or 'cpu' (separate CPU job)",
    "metric_node": "node the metric ran on",
    "metric_start": "metric computation begins, s (after any wait for CPU threads)",
    "metric_end": "metric done: the dataset's result is available, s",
}

PREFETCH_COLUMNS: dict[str, str] = {
    "model": "checkpoint name",
    "node": "node index",
    "start": "copy to host memory begins, s",
    "end": "copy to host memory done, s",
}

REQUEST_COLUMNS: dict[str, str] = {
    "request_id": "request id",
    "scheduler": "evaluation scheduler plug-in name",
    "submit_time": "submission time, s",
    "trials": "trials the request was cut into",
    "makespan_s": "submission to last metric result, s",
    "time_to_first_result_s": "submission to first metric result, s",
    "gpu_time_held_s": "sum over trials of (released - load_start) x gpu_num, GPU-s",
    "gpu_inference_s": "sum over trials of inference time x gpu_num, GPU-s",
    "gpu_idle_held_s": "GPU time held but not inferring (loading, prep, metric, waits), GPU-s",
}


@dataclass
class TrialRecord:
    """Timeline of one trial (filled in as the simulation runs)."""

    request_id: str
    trial_id: str
    datasets: str
    gpu_num: int
    node: int
    gpu: int
    inference_s: float
    load_start: float
    load_end: float = math.nan
    inference_end: float = math.nan
    metric_end: float = math.nan
    released: float = math.nan


@dataclass
class DatasetRecord:
    """When one dataset's predictions and its metric result became available."""

    request_id: str
    dataset: str
    shards: int
    inference_end: float = math.nan
    metric_mode: str = ""
    metric_node: int = -1
    metric_start: float = math.nan
    metric_end: float = math.nan


@dataclass
class PrefetchRecord:
    """One copy of a checkpoint from remote storage into a node's host memory."""

    model: str
    node: int
    start: float
    end: float = math.nan


@dataclass(frozen=True)
class RequestSummary:
    """The per-request figures of merit."""

    request_id: str
    scheduler: str
    submit_time: float
    trials: int
    makespan_s: float
    time_to_first_result_s: float
    gpu_time_held_s: float
    gpu_inference_s: float
    gpu_idle_held_s: float


def _frame(rows: list, columns: dict[str, str]) -> pd.DataFrame:
    """A DataFrame of dataclass rows with exactly ``columns``, in that order."""
    return pd.DataFrame([asdict(r) for r in rows], columns=list(columns))


@dataclass
class EvalResult:
    """Everything one evaluation run recorded, with summaries and DataFrame views."""

    trials: list[TrialRecord]
    datasets: list[DatasetRecord]
    prefetches: list[PrefetchRecord]
    requests: list[RequestSummary]

    def summary(self, request_id: str | None = None) -> RequestSummary:
        """The summary of ``request_id`` (or of the only request)."""
        if request_id is None:
            if len(self.requests) != 1:
                raise ValueError("several requests: pass request_id")
            return self.requests[0]
        for summary in self.requests:
            if summary.request_id == request_id:
                return summary
        known = ", ".join(r.request_id for r in self.requests)
        raise KeyError(f"no request {request_id!r}; requests: {known}")

    def trials_frame(self) -> pd.DataFrame:
        """One row per trial (``TRIAL_COLUMNS``)."""
        return _frame(self.trials, TRIAL_COLUMNS)

    def datasets_frame(self) -> pd.DataFrame:
        """One row per dataset (``DATASET_COLUMNS``)."""
        return _frame(self.datasets, DATASET_COLUMNS)

    def prefetches_frame(self) -> pd.DataFrame:
        """One row per host-memory prefetch (``PREFETCH_COLUMNS``)."""
        return _frame(self.prefetches, PREFETCH_COLUMNS)

    def requests_frame(self) -> pd.DataFrame:
        """One row per request (``REQUEST_COLUMNS``)."""
        return _frame(self.requests, REQUEST_COLUMNS)


def summarize(
    request_id: str,
    scheduler: str,
    submit_time: float,
    trials: list[TrialRecord],
    datasets: list[DatasetRecord],
) -> RequestSummary:
    """Per-request figures from its trial and dataset records."""
    held = sum((t.released - t.load_start) * t.gpu_num for t in trials)
    inference = sum(t.inference_s * t.gpu_num for t in trials)
    ends = [d.metric_end for d in datasets]
    return RequestSummary(
        request_id=request_id,
        scheduler=scheduler,
        submit_time=submit_time,
        trials=len(trials),
        makespan_s=max(ends) - submit_time,
        time_to_first_result_s=min(ends) - submit_time,
        gpu_time_held_s=held,
        gpu_inference_s=inference,
        gpu_idle_held_s=held - inference,
    )

