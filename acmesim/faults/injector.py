"""Failure injection into a running simulation: faults, checkpoints, recovery, failures table.

Attach with ``simulate(..., setup=injector.attach)``. Faults come from the failure model in
windows of ``window`` seconds (one callback at a time, so the event queue stays small): window
``k`` keeps the faults in ``[k·window, (k+1)·window)`` of ``events(cluster, (k+1)·window)``
drawn from its own random stream. Window 0 usually covers the whole run; a run that outlasts it
draws the next from a process restarted at time 0, which is exact for a failure trace and for
memoryless (exponential) faults, and a fresh sample for Weibull renewals.

A fault strikes its node (``gpu``/``node`` scope) or every node under its leaf switch
(``switch`` scope). Every job running there is interrupted at the fault time: its work rolls back
to its last persisted checkpoint (computed from its progress, ``CheckpointPace``), and the
recovery policy's ``RecoveryPlan`` decides how it resumes (timeline in
``acmesim.reliability.recovery``):

- *in place* (the plan keeps the job's nodes and needs none from the scheduler: a transient
  fault under automatic recovery, or a failed node swapped for a hot spare): the job restarts at
  once on its healthy nodes plus spares, holding them through ``wait`` seconds of detection and
  diagnosis, then ``restart_overhead`` plus its checkpoint ``restore``;
- *requeued* (manual recovery, or replacement nodes needed): it gives back its nodes, is held
  for ``wait`` seconds, then re-enters the pending queue and pays ``restart_overhead`` plus
  ``restore`` when the scheduler starts it again.

Then the struck nodes leave service until repaired (``NodeLifecycle``), unless the fault is
transient. Job-level failures are set when jobs arrive (``JobPreparer``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

import pandas as pd

from acmesim.core.errors import ConfigError
from acmesim.engine.job import Job
from acmesim.engine.simulation import Simulation
from acmesim.faults.jobs import JobPreparer
from acmesim.faults.nodes import NodeLifecycle
from acmesim.faults.table import FailureLog, sources_fields
from acmesim.model.topology import leaf_name
from acmesim.reliability.events import ClusterInfo, FailureEvent
from acmesim.reliability.recovery import RecoveryPolicy

DAY = 86_400.0

RecoveryFactory = Callable[[float], RecoveryPolicy]
"""Builds the recovery policy once the trace start (``epoch_unix``) is known."""


class FaultInjector:
    """Injects a failure model's faults, checkpoints jobs and recovers them in one simulation."""

    def __init__(self, failure_model: Any, checkpoint_policy: Any,
                 recovery: RecoveryPolicy | RecoveryFactory, *, window: float | None = None
                 ) -> None:
        if window is not None and not window > 0:
            raise ValueError(f"window must be > 0 seconds, got {window!r}")
        self.failure_model = failure_model
        self.checkpoint_policy = checkpoint_policy
        self._recovery = recovery
        self._window_length = window
        self.log = FailureLog()
        self.sim: Simulation | None = None

    # ------------------------------------------------------------------ setup
    def attach(self, sim: Simulation) -> None:
        """Prepare ``sim`` before it runs (the ``setup`` callback of ``simulate``)."""
        self.sim = sim
        origin = sim.table.origin
        epoch = origin.timestamp() if origin is not None else 0.0
        self.recovery = (self._recovery if isinstance(self._recovery, RecoveryPolicy)
                         else self._recovery(epoch))
        self.rng = sim.rng.stream("recovery")
        spares = self.recovery.reserved_nodes(sim.cluster.num_nodes)
        _check_spares_leave_room(sim, spares)
        self.nodes = NodeLifecycle(sim, spares)
        self.preparer = JobPreparer(self.failure_model, self.checkpoint_policy,
                                    sim.rng.stream("failures.jobs"))
        sim.arrival_hooks.append(self.preparer)
        topology = sim.cluster.topology
        self.info = ClusterInfo(topology.node_names, sim.cluster.gpus_per_node,
                                tuple(leaf_name(leaf) for leaf in topology.leaf_of))
        self.window = self._window_length or max(sim.table.span, DAY)
        self._next_window = 0
        self._faults: deque[FailureEvent] = deque()
        if self.failure_model.sources.hardware:
            self._open_window()

    # ------------------------------------------------------------------ fault stream
    def _open_window(self) -> None:
        """Draw the faults of the next window and schedule the first."""
        k = self._next_window
        self._next_window += 1
        stream = "failures.hardware" if k == 0 else f"failures.hardware.{k}"
        start = k * self.window
        events = self.failure_model.events(self.info, start + self.window,
                                           self.sim.rng.fresh(stream))
        self._faults = deque(e for e in events if e.time >= start)
        self._schedule_next()

    def _schedule_next(self) -> None:
        """Schedule the next fault, or the next window while jobs can still be hit."""
        sim = self.sim
        if self._faults:
            fault = self._faults.popleft()
            sim.call_at(fault.time, lambda: self._strike(fault))
        elif sim.running or sim.held or self._arrivals_ahead():
            sim.call_at(self._next_window * self.window, self._open_window)

    def _arrivals_ahead(self) -> bool:
        """Whether jobs are still to arrive."""
        sim = self.sim
        seen = sim.jobs.ended + len(sim.running) + len(sim.held) + sim.queued_jobs
        return seen < len(sim.table)

    # ------------------------------------------------------------------ one fault
    def _strike(self, fault: FailureEvent) -> None:
        """Interrupt the jobs on the struck nodes, then take the nodes out of service."""
        sim = self.sim
        nodes = self._struck_nodes(fault)
        struck = set(nodes)
        victims = sorted({j for node in nodes for j in sim.cluster.jobs_on_node[node]})
        row = self.log.start(fault, [sim.cluster.topology.node_names[n] for n in nodes])
        if not fault.transient:
            self.nodes.withdraw_spares(nodes)
        for index in victims:
            job = sim.running[index]
            self._recover(fault, job, struck, row)
        if not fault.transient:
            row.nodes_down = self.nodes.take_down(nodes, fault.detection_delay,
                                                  fault.repair_time)
        self._schedule_next()

    def _struck_nodes(self, fault: FailureEvent) -> list[int]:
        """Node indices a fault takes: its node, or every node under its switch."""
        topology = self.sim.cluster.topology
        if fault.scope == "switch":
            return topology.nodes_under(fault.target)
        return [topology.node_index(fault.target)]

    def _recover(self, fault: FailureEvent, job: Job, struck: set[int], row: Any) -> None:
        """Roll ``job`` back to its persisted checkpoint and restart it per the recovery plan."""
        sim = self.sim
        own = [node for node, _ in job.grants]
        lost = [node for node in own if node in struck]
        plan = self.recovery.plan(fault, job, sim.env.now, self.rng,
                                  spares_free=len(self.nodes.spares), nodes_lost=len(lost))
        self._record_persisted_checkpoint(job)
        progress = sim.progress(job)
        checkpoint = self.preparer.plans.get(job.index)
        overhead = plan.restart_overhead + (checkpoint.restore if checkpoint else 0.0)
        if plan.release_nodes or plan.needs_new_nodes:
            sim.interrupt(job, requeue_after=plan.wait, overhead=overhead)
            row.jobs_requeued += 1
        else:
            keep = [node for node in own if node not in struck or fault.transient]
            spares = self.nodes.use_spares(plan.spare_nodes)
            allocation = tuple((node, job.per_node) for node in keep + spares)
            sim.relaunch(job, allocation, wait=plan.wait, overhead=overhead)
            row.spare_nodes_used += len(spares)
        row.hit(job, job.gpu_num * (progress - job.done_work))

    def _record_persisted_checkpoint(self, job: Job) -> None:
        """Mark the last checkpoint persisted by now in the job's current interval."""
        if job.pace is None:
            return
        sim = self.sim
        computing = sim.env.now - job.last_start - job.overhead
        if computing <= 0:
            return
        work = job.pace.persisted(job.done_work, job.run_time, computing)
        if work is not None:
            sim.record_checkpoint(job, work)

    # ------------------------------------------------------------------ results
    def failures_table(self) -> pd.DataFrame:
        """The ``failures.csv`` table of the run so far."""
        return self.log.frame()

    def summary_fields(self) -> dict[str, Any]:
        """The summary fields of failure injection (call after the run)."""
        sim = self.sim
        self.nodes.close(float(sim.env.now))
        fields = sources_fields(self.failure_model.sources)
        fields.update({
            "failure_events": len(self.log),
            "job_failures_modeled": len(self.preparer.failed),
            "node_downtime_hours": self.nodes.downtime / 3600.0,
        })
        return fields


def _check_spares_leave_room(sim: Simulation, spares: int) -> None:
    """Refuse a spare pool that leaves too few nodes for the largest GPU job."""
    if not spares:
        return
    table, usable = sim.table, sim.cluster.num_nodes - spares
    needs = [(n, i) for i, (n, pool) in enumerate(zip(table.nodes_needed, table.pool,
                                                      strict=True)) if pool == "gpu"]
    if needs and max(needs)[0] > usable:
        nodes, index = max(needs)
        raise ConfigError(f"the recovery policy holds {spares} of {sim.cluster.num_nodes} nodes "
                          f"as hot spares, leaving {usable}; job {table.job_id[index]!r} needs "
                          f"{nodes} and could never start (lower recovery.spare_fraction)")
