"""The power extension of a simulation: job loads given to the engine, closed intervals noted.

An ``Extension`` (``acmesim.sim.extension``) the run lifecycle attaches with
``simulate(..., power=model)``. Two sources, both the engine's own:

- **which GPUs are held by running jobs, and their draw if computing**: every job has a power
  load (its GPUs' running draw above idle, in mW), handed to the engine once as
  ``SimulationAPI.job_loads`` when the accounting attaches (no arrival hook, so arrivals keep
  the engine's fast path); the engine sums the loads of running jobs as it sums their GPUs,
  and records the sum in the same utilization step curve as
  ``busy_gpus`` (``StepRecorder.busy_load``). Power follows exactly the steps utilization does.
- **when a held GPU waits instead of computing**: as the engine closes a running interval, the
  accounting notes it (five numbers: the job, when the interval began and closed, its
  overhead, whether a failure stopped the one before; two more for a job that checkpoints:
  its work saved and its checkpoint stalls so far). After the run,
  ``acmesim.energy.waiting`` works out with numpy each interval's overhead (its first
  ``overhead`` seconds: the start-up latency of a first start; failure detection on the job's
  own nodes, restart, checkpoint restore) and its checkpoint stalls (``CheckpointPace``), per
  utilization interval (GPU-seconds waiting, and the draw they did not spend computing) and
  per job (restart and stall seconds).

The engine adds no event for either, and the loop does no arithmetic for power beyond the
running sum of loads; with ``power=none`` nothing is attached. The tables and summary fields
made from what this collects are ``acmesim.energy.extension.PowerExtension``'s.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from acmesim.cluster.spec import ClusterSpec
from acmesim.energy.job_util import job_utilization, trace_utilization
from acmesim.energy.waiting import CLOSED, PACED, Paced, Waiting, waiting_parts
from acmesim.policies.power.base import PowerModel, job_factor
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
        self._closed: list[Any] = []
        """The ``CLOSED`` numbers of every closed running interval, one after the other, in
        closing order (a flat list: extending it with a tuple is the cheapest note)."""
        self._note = self._closed.extend
        self._paced: list[Any] = []
        """The ``PACED`` numbers of the intervals of checkpointing jobs, likewise."""
        self._note_paced = self._paced.extend
        self._paces: dict[int, tuple[Any, float]] = {}
        """The ``CheckpointPace`` and work of every job that closed an interval with one."""
        self._waiting: Waiting | None = None
        self._waiting_rows = 0
        self.state_energy: tuple[Any, Waiting, Any] | None = None
        """The power tables' energy by state and utilization interval, with what it was
        worked out for (``acmesim.energy.tables``: the table and the summary share it)."""

    # ------------------------------------------------------------------ setup
    def rewrite(self, jobs: pd.DataFrame, spec: ClusterSpec) -> pd.DataFrame:
        """Keep the replayed table (its ``gpu_util``) unless one was given; ``jobs`` unchanged."""
        if self.frame is None:
            self.frame = jobs
        return jobs

    def attach(self, sim: SimulationAPI) -> None:
        """Set every job's load from its utilization (``sim.job_loads``); listen to interval
        closes."""
        self.sim = sim
        table = sim.table
        n = len(table)
        given = (trace_utilization(self.frame, table.job_id) if self.frame is not None
                 else np.full(n, np.nan))
        self.util, self.drawn_utilization = job_utilization(given, sim.rng.stream("power.gpu_util"))
        self.servers = np.maximum(1, np.asarray(table.nodes_needed, dtype=np.int64))
        """GPU servers of each job, one ``power.factor`` draw each."""
        factors = self.model.draw_factor(sim.rng.stream("power.factor"), self.servers)
        factor = None if factors is None else job_factor(factors, self.servers)
        run_w = np.asarray(self.model.running_w(self.util, factor), dtype=np.float64)
        per_gpu = np.round((run_w - self.model.idle_w) * MILLI).astype(np.int64)
        self.run_w = self.model.idle_w + per_gpu / MILLI
        """Each job's computing draw per GPU, to the milliwatt its load carries."""
        self.gpu_num = np.asarray(table.gpu_num, dtype=np.int64)
        gpu = np.asarray(table.pool, dtype=object) == "gpu"  # no Python loop over the jobs
        self.gpu_num = np.where(gpu, self.gpu_num, 0)
        self.loads = (per_gpu * self.gpu_num).tolist()
        sim.job_loads = self.loads
        self.saving_w = self.run_w - self.model.waiting_w
        """Per job: watts a GPU draws less waiting than computing."""

    # ------------------------------------------------------------------ intervals
    def on_close(self, job: Job, now: float) -> None:
        """Note the running interval closing now (worked out after the run: ``waiting``)."""
        self._note((job.index, job.last_start, now, job.overhead, job.stop_cause == "failure"))
        if job.pace is not None:
            self._paces[job.index] = (job.pace, job.work)
            self._note_paced((job.work_done, job.checkpoint_overhead))

    @property
    def waiting(self) -> Waiting:
        """The waiting parts of every interval closed so far (per job, per utilization
        interval), computed once the run is over (again if more intervals closed since)."""
        if self._waiting is None or self._waiting_rows != len(self._closed):
            if self.sim is None:
                raise RuntimeError("power accounting read before it was attached")
            rows = np.array(self._closed, dtype=np.float64).reshape(-1, len(CLOSED))
            paced = Paced(self._paces, np.array(self._paced, dtype=np.float64
                                                ).reshape(-1, len(PACED)))
            self._waiting = waiting_parts(rows, paced, self.sim.jobs.column("start"),
                                          self.gpu_num, self.saving_w, self.interval)
            self._waiting_rows = len(self._closed)
        return self._waiting
