"""Pack the unpacked jobs of one or more workload components onto one cluster, as one table.

A ``Plan`` is a component's jobs before start times exist: GPU jobs (with scheduling latencies
and restart/continuation links) and CPU-only jobs (already timed, they do not use GPU nodes).
``build_trace`` stacks the plans, gives the GPU jobs start times with the generator's node-level
packer (``packer.py``) on the cluster profile's nodes and queue rules, keeps the jobs submitted
inside the window, and writes the normalized table (``table.py``) plus the task columns of
``taskmeta.py``; jobs without a utilization get one from ``acmesim.trace.gpu_util``.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from acmesim.core.rng import RngStreams
from acmesim.synth.packer import PackerSettings, pack
from acmesim.synth.profiles import WorkloadProfile
from acmesim.synth.table import JobArrays, build_table
from acmesim.synth.taskmeta import TaskMeta
from acmesim.trace.gpu_util import with_gpu_util


@dataclasses.dataclass
class Plan:
    """One component's unpacked jobs; ``jobs.user`` indexes a pool of ``users`` users."""

    gpu: JobArrays
    gpu_meta: TaskMeta
    latency: np.ndarray
    cpu: JobArrays
    cpu_meta: TaskMeta
    users: int
    cpus_per_gpu: int
    deferred: np.ndarray | None = None
    """Per GPU job: its recorded submission moves to its start (``packer.pack``)."""

    def __post_init__(self) -> None:
        if self.deferred is None:
            self.deferred = np.zeros(len(self.gpu.gpus), dtype=bool)
        if self.gpu.cpus is None:
            self.gpu.cpus = np.full(len(self.gpu.gpus), -1, dtype=np.int64)
        per_gpu = self.gpu.gpus * self.cpus_per_gpu
        self.gpu.cpus = np.where(self.gpu.cpus >= 0, self.gpu.cpus, per_gpu).astype(np.int64)


def empty_jobs() -> JobArrays:
    """A ``JobArrays`` with no jobs."""
    z = np.zeros(0, dtype=np.int64)
    return JobArrays(type_code=z.astype(np.int16), gpus=z, submit=z, work=z,
                     state=z.astype(np.int8), user=z, klass=z.astype(np.int8), successor=z,
                     gap=z, start=z, end=z, cpus=z)


def build_trace(plans: list[Plan], cluster: WorkloadProfile, span: int,
                start_epoch: int, seed: int) -> pd.DataFrame:
    """The normalized job table of ``plans`` packed on ``cluster`` (window ``[0, span)``)."""
    gpu, gpu_meta, latency = _stack(plans, "gpu")
    cpu, cpu_meta, _ = _stack(plans, "cpu")
    deferred = np.concatenate([p.deferred for p in plans])
    q = cluster.queue
    settings = PackerSettings(cluster.nodes, cluster.gpus_per_node, q.low_priority_quota,
                              q.lookahead, q.duration_includes_queue, q.min_run)
    packed = pack(settings, gpu.submit, latency, gpu.work, gpu.gpus, gpu.klass,
                  gpu.successor, gpu.gap, span, deferred)
    gpu.submit, gpu.start, gpu.end = packed.submit, packed.start, packed.end
    jobs = JobArrays.concat([gpu, cpu])
    meta = TaskMeta.concat([gpu_meta, cpu_meta])
    keep = np.flatnonzero((jobs.submit >= 0) & (jobs.submit < span) & (jobs.start >= 0))
    jobs, meta = jobs.take(keep), meta.take(keep)
    order = np.lexsort((np.arange(len(jobs.submit)), jobs.submit))
    jobs, meta = jobs.take(order), meta.take(order)
    table_profile = dataclasses.replace(cluster, users=max(sum(p.users for p in plans), 1))
    frame = build_table(table_profile, jobs, start_epoch, RngStreams(seed))
    frame["type"] = meta.job_type.astype(str)
    assert jobs.cpus is not None  # JobArrays.concat fills every part's CPU counts
    frame["cpu_num"] = jobs.cpus.astype(np.int64)
    for name, values in meta.columns(frame["job_id"].to_numpy(dtype=object)).items():
        frame[name] = values
    for name in ("type", "workload", "task_group", "task_variant", "parent_id"):
        frame[name] = frame[name].astype(str)
    return with_gpu_util(frame, seed)


def _stack(plans: list[Plan], part: str) -> tuple[JobArrays, TaskMeta, np.ndarray]:
    """The ``gpu`` or ``cpu`` jobs of every plan, users renumbered into one pool."""
    arrays, metas, latencies, offset = [], [], [], 0
    for plan in plans:
        jobs = dataclasses.replace(getattr(plan, part))
        jobs.user = jobs.user + offset
        if part == "gpu":  # the type column comes from the task attributes
            jobs.type_code = np.zeros(len(jobs.gpus), dtype=np.int16)
        arrays.append(jobs)
        metas.append(getattr(plan, f"{part}_meta"))
        latencies.append(plan.latency if part == "gpu" else np.zeros(len(jobs.gpus), np.int64))
        offset += plan.users
    return JobArrays.concat(arrays), TaskMeta.concat(metas), np.concatenate(latencies)
