"""Evaluation requests inside a full cluster replay: rewrite the job table, report the requests.

``EvalReplay`` is what the evaluation modes ``eval=coupled|decoupled`` (``modes``) use:

1. ``rewrite(jobs, spec)`` before the replay: group the trace Eval jobs into requests
   (``batches``), expand each coupled (unchanged) or decoupled (re-planned trials,
   ``replay_trials``) and return the job table the engine replays (``replay_table``).
2. ``tables(frame)`` after it: ``eval_requests.csv`` and ``eval_jobs.csv`` from the jobs table,
   with the CPU metric jobs queued on their nodes (``replay_results``), and
   ``summary_fields()`` for summary.csv.

GPU-time accounting: ``eval_recorded_gpu_time`` is the trace's own GPU time of the Eval jobs
(recorded run time x GPUs), ``eval_gpu_time`` the GPU time the replayed engine jobs held. They
agree for a coupled replay without preemption or failures; decoupled, the replayed GPU time is
lower because metrics leave the GPU (their time is reported as ``eval_metric_cpu_time``) and
merged trials load the model once, and higher by one load per extra shard.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator
from typing import Any

import pandas as pd

from acmesim.cluster.spec import ClusterSpec
from acmesim.core.errors import AcmesimError
from acmesim.evaluation.batches import TraceColumns, group_eval_jobs, read_columns
from acmesim.evaluation.replay_results import replay_summary, replay_tables
from acmesim.evaluation.replay_table import rewritten_table
from acmesim.evaluation.replay_trials import ReplayRequest, coupled_request, decoupled_requests
from acmesim.evaluation.schedulers import EvalScheduler
from acmesim.evaluation.spec import EvalCluster
from acmesim.results.schema import EVAL_JOBS, EVAL_REQUESTS, TableSchema


def eval_cluster(spec: ClusterSpec) -> EvalCluster:
    """The evaluation model's view of a cluster's GPU nodes (NIC and CPU threads per node)."""
    return EvalCluster(nodes=spec.nodes, gpus_per_node=spec.gpus_per_node,
                       cpu_threads_per_node=spec.cpus_per_node)


def promote_young_objects() -> None:
    """Move every object the collector tracks into its oldest generation without scanning it
    (``gc.freeze`` then ``gc.unfreeze``), unless objects are frozen already (a caller's own
    ``gc.freeze`` is never undone here).

    A decoupled rewrite leaves millions of young objects (its requests, plans and trials) that
    live until the result tables are built; left in the young generations, the first collection
    after the rewrite scanned them all (0.28 s, 2.6 % of a decoupled replay of 30 days of 4x
    Seren) and the next generation's again. In the oldest generation only a full collection
    looks at them, as at every other long-lived object.
    """
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()


@contextlib.contextmanager
def collector_paused(promote: bool = False) -> Iterator[None]:
    """The garbage collector off for the block (back on after it if it was on); with
    ``promote``, what the block left alive is moved to the oldest generation first
    (``promote_young_objects``).

    Requests, plans and the result tables' columns make no reference cycles, so collections
    there would only rescan the trace's and the replay's objects, once per so many new ones
    (on 60 days of Seren: about 0.3 s of building the result tables, half of them).
    """
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            if promote:
                promote_young_objects()
            gc.enable()


def metric_slots(cluster: EvalCluster) -> int:
    """Metric CPU jobs one node runs at once (spare threads / threads per metric job)."""
    return cluster.metric_cpu_threads_per_node // cluster.metric_cpu_threads


class EvalReplay:
    """Replays a table's trace Eval jobs as requests, coupled (no planner) or decoupled."""

    def __init__(self, planner: EvalScheduler | None = None, request_gpus: int = 0) -> None:
        self.planner = planner
        self.request_gpus = request_gpus
        self.requests: list[ReplayRequest] = []
        self._columns: TraceColumns | None = None
        self._slots = 1
        self._summary: dict[str, Any] = {}

    def rewrite(self, jobs: pd.DataFrame, spec: ClusterSpec) -> pd.DataFrame:
        """The job table to replay: unchanged when coupled, Eval jobs -> trials when decoupled
        (what it leaves alive then in the collector's oldest generation:
        ``promote_young_objects``)."""
        with collector_paused(promote=True):
            return self._rewrite(jobs, spec)

    def _rewrite(self, jobs: pd.DataFrame, spec: ClusterSpec) -> pd.DataFrame:
        """``rewrite`` (with the garbage collector paused)."""
        cols = read_columns(jobs)
        batches = group_eval_jobs(jobs, cols)
        self._columns, self._summary = cols, {}
        if self.planner is None:
            self.requests = [coupled_request(b, cols) for b in batches]
            return jobs
        cluster = eval_cluster(spec)
        self._slots = metric_slots(cluster)
        self.requests = decoupled_requests(batches, cols, self.planner, cluster,
                                           self.request_gpus)
        return rewritten_table(jobs, self.requests, cols)

    def tables(self, frame: pd.DataFrame) -> list[tuple[TableSchema, pd.DataFrame]]:
        """``eval_requests.csv`` and ``eval_jobs.csv`` from the jobs table of the replay."""
        if self._columns is None:
            raise AcmesimError("evaluation results asked before the job table was rewritten "
                               "(call rewrite() before the replay)")
        with collector_paused():
            requests, jobs = replay_tables(self.requests, self._columns, frame, self._slots)
        self._summary = replay_summary(requests)
        return [(EVAL_REQUESTS, requests), (EVAL_JOBS, jobs)]

    def summary_fields(self) -> dict[str, Any]:
        """The eval_* summary.csv fields (empty until ``tables`` ran)."""
        return dict(self._summary)
