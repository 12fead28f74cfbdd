"""The power extension of a simulation: job loads on arrival, waiting time as intervals close.

An ``Extension`` (``acmesim.sim.extension``) the run lifecycle attaches with
``simulate(..., power=model)``. Two sources, both the engine's own:

- **which GPUs are held by running jobs, and their draw if computing**: every job gets a power
  ``load`` on arrival (its GPUs' running draw above idle, in mW); the engine sums the loads of
  running jobs as it sums their GPUs, and records the sum in the same utilization step curve as
  ``busy_gpus`` (``StepRecorder.busy_load``). Power follows exactly the steps utilization does.
- **when a held GPU waits instead of computing**: as the engine closes a running interval, the
  interval's overhead (its first ``overhead`` seconds: the start-up latency of a first start;
  failure detection on the job's own nodes, restart, checkpoint restore) and its checkpoint
  stalls (``CheckpointPace``) are
  added per utilization interval (GPU-seconds waiting, and the draw they did not spend
  computing) and per job (restart and stall seconds).

The engine adds no event for either; with ``power=none`` nothing is attached. The tables and
summary fields made from what this collects are ``acmesim.energy.extension.PowerExtension``'s.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from acmesim.cluster.spec import ClusterSpec
from acmesim.energy.job_util import job_utilization, trace_utilization
from acmesim.policies.power.base import PowerModel
from acmesim.sim.extension import Extension, SimulationAPI
from acmesim.sim.job import Job

MILLI = 1000.0
"""Loads are integer milliwatts, so the engine's running sum is exact."""


class PowerAccounting(Extension):
    """Collects what the power tables need from one simulation (``attach`` before it runs).

    ``frame`` is the trace table whose ``gpu_util`` column sets each job's utilization (default:
    the table the run replays, seen in ``rewrite``).
    """

    def __init__(self, model: PowerModel, interval: float, frame: pd.DataFrame | None = None
                 ) -> None:
        if not interval > 0:
            raise ValueError(f"utilization_interval must be > 0 seconds, got {interval!r}")
        self.model = model
        self.interval = float(interval)
        self.frame = frame
        self.sim: SimulationAPI | None = None
        self.drawn_utilization = 0
        self.wait_gpu_s: list[float] = []
        """Per utilization interval: GPU-seconds held by running jobs but waiting."""
        self.wait_saving: list[float] = []
        """Per utilization interval: joules the waiting GPUs drew less than if computing."""

    # ------------------------------------------------------------------ setup
    def rewrite(self, jobs: pd.DataFrame, spec: ClusterSpec) -> pd.DataFrame:
        """Keep the replayed table (its ``gpu_util``) unless one was given; ``jobs`` unchanged."""
        if self.frame is None:
            self.frame = jobs
        return jobs

    def attach(self, sim: SimulationAPI) -> None:
        """Set every job's load from its utilization; listen to interval closes."""
        self.sim = sim
        table = sim.table
        n = len(table)
        given = (trace_utilization(self.frame, table.job_id) if self.frame is not None
                 else np.full(n, np.nan))
        self.util, self.drawn_utilization = job_utilization(given, sim.rng.stream("power.gpu_util"))
        factor = self.model.draw_factor(sim.rng.stream("power.factor"), n)
        run_w = np.asarray(self.model.running_w(self.util, factor), dtype=np.float64)
        per_gpu = np.round((run_w - self.model.idle_w) * MILLI).astype(np.int64)
        self.run_w = self.model.idle_w + per_gpu / MILLI
        """Each job's computing draw per GPU, to the milliwatt its load carries."""
        self.gpu_num = np.asarray(table.gpu_num, dtype=np.int64)
        gpu = np.asarray([p == "gpu" for p in table.pool], dtype=bool)
        self.gpu_num = np.where(gpu, self.gpu_num, 0)
        self.loads = (per_gpu * self.gpu_num).tolist()
        self.restart_s = [0.0] * n
        """Per job: seconds of restart overhead over its intervals (lists: cheap to update)."""
        self.failure_restart_s = [0.0] * n
        """Per job: the part of ``restart_s`` that followed failure stops."""
        self.startup_s = [0.0] * n
        """Per job: the part of ``restart_s`` that was start-up latency (held GPUs the jobs
        table's ``run_time`` leaves out)."""
        self.stall_s = [0.0] * n
        """Per job: seconds of checkpoint stalls."""
        self.seen_stall = [0.0] * n
        """Each job's ``checkpoint_overhead`` as of its last closed interval."""
        self.gpu_list = self.gpu_num.tolist()
        self.saving_w = (self.run_w - self.model.waiting_w).tolist()
        """Per job: watts a GPU draws less waiting than computing."""

    def on_arrival(self, job: Job) -> None:
        """Give the arriving job its load (mW above idle over its GPUs while computing)."""
        job.load = self.loads[job.index]

    # ------------------------------------------------------------------ intervals
    def on_close(self, job: Job, now: float) -> None:
        """Account the waiting parts of the running interval closing now."""
        i = job.index
        gpus = self.gpu_list[i]
        if not gpus:
            return
        start = job.last_start
        held = now - start
        restart = job.overhead if job.overhead < held else held
        stalled = job.checkpoint_overhead - self.seen_stall[i]
        if restart <= 0 and stalled <= 0:
            return
        saving = self.saving_w[i]
        if restart > 0:
            self.restart_s[i] += restart
            if job.stop_cause == "failure":
                self.failure_restart_s[i] += restart
            elif job.restarts == 0:  # the first interval: its overhead is start-up latency
                startup = job.start_time - start
                self.startup_s[i] += startup if startup < restart else restart
            k = math.floor(start / self.interval)
            if start + restart <= (k + 1) * self.interval and k < len(self.wait_gpu_s):
                gpu_s = restart * gpus  # the common case, inline: one utilization interval
                self.wait_gpu_s[k] += gpu_s
                self.wait_saving[k] += gpu_s * saving
            else:
                self._add_span(start, start + restart, gpus, saving)
        if stalled > 0:
            self.seen_stall[i] = job.checkpoint_overhead
            self.stall_s[i] += stalled
            self._add_stalls(job, start + restart, now, stalled, gpus, saving)

    def _add_stalls(self, job: Job, begin: float, end: float, total: float, gpus: int,
                    saving: float) -> None:
        """Spread the interval's ``total`` stall seconds (computing from ``begin`` to ``end``)
        over the utilization intervals it spans: exact stalls before each interval edge."""
        pace: Any = job.pace  # a CheckpointPace (set on arrival by the fault extension)
        done, work = job.work_done, job.work
        step = self.interval
        k = math.floor(begin / step)
        before = 0.0
        edge = (k + 1) * step
        while edge < end:
            stalled = pace.advance(done, work, edge - begin)[1]
            self._add(k, (stalled - before) * gpus, saving)
            before = stalled
            k += 1
            edge = (k + 1) * step
        self._add(k, (total - before) * gpus, saving)

    def _add_span(self, a: float, b: float, gpus: int, saving: float) -> None:
        """Add ``gpus`` waiting GPUs over [a, b) to the utilization intervals it overlaps."""
        step = self.interval
        k = math.floor(a / step)
        while a < b:
            edge = min(b, (k + 1) * step)
            self._add(k, (edge - a) * gpus, saving)
            a = edge
            k += 1

    def _add(self, k: int, gpu_s: float, saving_w: float) -> None:
        """Add ``gpu_s`` waiting GPU-seconds to interval ``k`` (saving ``saving_w`` per GPU)."""
        if gpu_s <= 0:
            return
        grow = k + 1 - len(self.wait_gpu_s)
        if grow > 0:  # at least doubled, so growing is rare (the tables pad or cut to size)
            grow = max(grow, len(self.wait_gpu_s))
            self.wait_gpu_s.extend([0.0] * grow)
            self.wait_saving.extend([0.0] * grow)
        self.wait_gpu_s[k] += gpu_s
        self.wait_saving[k] += gpu_s * saving_w
