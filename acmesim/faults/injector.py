"""Failure injection into a running simulation: faults, checkpoints, recovery, failures table.

Attach with ``simulate(..., setup=injector.attach)``. Faults come from the failure model in
windows (one callback at a time, so the event queue stays small), each ``[start, end)`` drawn
from its own random stream. The first window lasts ``window`` seconds (default: the trace span,
at least a day) and usually covers the whole run. A later one takes the model's
``window_events`` (renewal models: processes restarted at ``start``, exact for memoryless
faults and a fresh sample for Weibull renewals; a failure trace: its faults in the window), else
the faults at or after ``start`` of ``events(cluster, end)``. A window that drew no fault is
followed by one twice as long, so a long quiet spell (past a failure trace's last fault) takes
few windows. Windows keep coming while any job has not ended, queued jobs included (nodes fail
while every job waits); the stream stops only when nothing else is left to happen, so a run
whose jobs can never start still ends with the engine's error.

A fault strikes its node (``gpu``/``node`` scope) or every node under its leaf switch
(``switch`` scope). Every job running there is interrupted at the fault time: its work rolls back
to its last persisted checkpoint (computed from its progress, ``CheckpointPace``), and the
recovery policy's ``RecoveryPlan`` decides how it resumes (timeline in
``acmesim.policies.recovery.base``):

- *in place* (the plan keeps the job's nodes and needs none from the scheduler: a transient
  fault under automatic recovery, or a failed node swapped for a hot spare): the job restarts at
  once on its healthy nodes plus spares, holding them through ``wait`` seconds of detection and
  diagnosis, then ``restart_overhead`` plus its checkpoint ``restore``;
- *requeued* (manual recovery, or replacement nodes needed): it gives back its nodes, is held
  for ``wait`` seconds, then re-enters the pending queue and pays ``restart_overhead`` plus
  ``restore`` when the scheduler starts it again.

Then the nodes the recovery policy cordons (``RecoveryPolicy.cordon``: by default the faulty
node or switch, nothing for a transient fault) leave service until repaired
(``NodeLifecycle``); a job running on a cordoned node is interrupted and recovered too, and every
plan must state that same cordon. Job-level failures are set when jobs arrive (``JobPreparer``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

import pandas as pd

from acmesim.cluster.topology import leaf_name
from acmesim.core.errors import AcmesimError, ConfigError
from acmesim.faults.jobs import JobPreparer
from acmesim.faults.nodes import NodeLifecycle
from acmesim.faults.table import FailureLog, sources_fields
from acmesim.policies.failure.events import ClusterInfo, FailureEvent
from acmesim.policies.recovery.base import RecoveryPlan, RecoveryPolicy
from acmesim.sim.job import Job
from acmesim.sim.simulation import Simulation

DAY = 86_400.0
RUNAWAY_FACTOR = 100.0
"""A run under faults that has lasted this many times the trace's span (at least a day) with
jobs still unfinished is stopped with an error: the faults leave its jobs too little capacity
to end (say, gangs of every node with node MTBFs of hours). **Chosen**: far beyond any sane
slowdown, small enough to stop in seconds instead of simulating centuries."""

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
        self._length = self._window_length or max(sim.table.span, DAY)
        self._runaway = RUNAWAY_FACTOR * max(sim.table.span, DAY)
        self.windows: list[tuple[float, float]] = []
        """``[start, end)`` of every fault window drawn so far, in order."""
        self._faults: deque[FailureEvent] = deque()
        if self.failure_model.sources.hardware:
            self._open_window()

    # ------------------------------------------------------------------ fault stream
    @property
    def undelivered(self) -> tuple[FailureEvent, ...]:
        """Faults drawn for the open window that have not struck yet (at the run's end: none
        before its last time)."""
        return tuple(self._faults)

    def _open_window(self) -> None:
        """Draw the faults of the next window and schedule the first (or the next window).

        Nothing is drawn when no other event is pending: jobs are left that nothing but faults
        could ever change, and the engine reports them as stuck.
        """
        if self.windows and not self.sim.env.pending():
            return
        k = len(self.windows)
        stream = "failures.hardware" if k == 0 else f"failures.hardware.{k}"
        start = self.windows[-1][1] if self.windows else 0.0
        if start >= self._runaway:
            self._stop_runaway()
        end = start + self._length
        self.windows.append((start, end))
        self._faults = deque(self._window_events(start, end, self.sim.rng.fresh(stream)))
        if not self._faults:
            self._length *= 2  # a long quiet spell (a trace's end) is crossed in few windows
        self._schedule_next()

    def _stop_runaway(self) -> None:
        """Refuse to go on: the run has outlasted its trace ``RUNAWAY_FACTOR`` times over."""
        sim = self.sim
        live = (sim.job(index) for index in range(len(sim.table)))
        left = [*sim.held.values(), *(job for job in live if job is not None)]
        widest = max(left, key=lambda job: job.nodes_needed, default=None)
        example = ("" if widest is None else f" (the widest, job {widest.job_id!r}, needs "
                   f"{widest.nodes_needed} of {sim.cluster.num_nodes} nodes)")
        raise AcmesimError(
            f"stopped at t={sim.env.now:.6g} s ({sim.env.now / DAY:.1f} days, "
            f"{RUNAWAY_FACTOR:g} x the trace's span): {len(sim.table) - sim.jobs.ended} job(s) "
            f"have not ended{example}; the faults leave them too little capacity to ever end "
            f"(lower the failure rate, shorten repairs or skip the largest jobs)")

    def _window_events(self, start: float, end: float, rng) -> Iterator[FailureEvent]:
        """The model's faults in ``[start, end)`` (its ``window_events`` when it has one)."""
        model = self.failure_model
        if hasattr(model, "window_events"):
            return model.window_events(self.info, start, end, rng)
        return (e for e in model.events(self.info, end, rng) if e.time >= start)

    def _schedule_next(self) -> None:
        """Schedule the next fault, or the next window while any job has not ended."""
        sim = self.sim
        if self._faults:
            fault = self._faults.popleft()
            sim.call_at(fault.time, lambda: self._strike(fault))
        elif sim.jobs.ended < len(sim.table):
            sim.call_at(self.windows[-1][1], self._open_window)

    # ------------------------------------------------------------------ one fault
    def _strike(self, fault: FailureEvent) -> None:
        """Interrupt the jobs on the struck and cordoned nodes, then take the cordon down."""
        sim = self.sim
        nodes = self._struck_nodes(fault)
        cordoned = self._cordoned_nodes(fault)
        hit = dict.fromkeys(nodes + cordoned)
        victims = sorted({j for node in hit for j in sim.cluster.jobs_on_node[node]})
        row = self.log.start(fault, [sim.cluster.topology.node_names[n] for n in nodes])
        self.nodes.withdraw_spares(cordoned)
        for index in victims:
            job = sim.running[index]
            self._recover(fault, job, set(cordoned), row)
        if cordoned:
            row.nodes_down = self.nodes.take_down(cordoned, fault.detection_delay,
                                                  fault.repair_time)
        self._schedule_next()

    def _struck_nodes(self, fault: FailureEvent) -> list[int]:
        """Node indices a fault takes: its node, or every node under its switch."""
        topology = self.sim.cluster.topology
        if fault.scope == "switch":
            return topology.nodes_under(fault.target)
        return [topology.node_index(fault.target)]

    def _cordoned_nodes(self, fault: FailureEvent) -> list[int]:
        """Node indices the recovery policy takes out of service for ``fault``."""
        topology = self.sim.cluster.topology
        names, switch = self.recovery.cordon(fault)
        nodes = [topology.node_index(name) for name in names]
        if switch is not None:
            nodes += topology.nodes_under(switch)
        return list(dict.fromkeys(nodes))

    def _recover(self, fault: FailureEvent, job: Job, cordoned: set[int], row: Any) -> None:
        """Roll ``job`` back to its persisted checkpoint and restart it per the recovery plan."""
        sim = self.sim
        own = [node for node, _ in job.grants]
        lost = [node for node in own if node in cordoned]
        plan = self.recovery.plan(fault, job, sim.env.now, self.rng,
                                  spares_free=len(self.nodes.spares), nodes_lost=len(lost))
        self._check_cordon(fault, plan)
        self._record_persisted_checkpoint(job)
        progress = sim.progress(job)
        checkpoint = self.preparer.plans.get(job.index)
        overhead = plan.restart_overhead + (checkpoint.restore if checkpoint else 0.0)
        if plan.release_nodes or plan.needs_new_nodes:
            sim.interrupt(job, requeue_after=plan.wait, overhead=overhead)
            row.jobs_requeued += 1
        else:
            keep = [node for node in own if node not in cordoned]
            spares = self.nodes.use_spares(plan.spare_nodes)
            allocation = tuple((node, job.per_node) for node in keep + spares)
            sim.relaunch(job, allocation, wait=plan.wait, overhead=overhead)
            row.spare_nodes_used += len(spares)
        row.hit(job, job.gpu_num * (progress - job.done_work))

    def _check_cordon(self, fault: FailureEvent, plan: RecoveryPlan) -> None:
        """Refuse a plan whose cordon is not the one its policy applies for ``fault``."""
        applied = self.recovery.cordon(fault)
        if (plan.cordon_nodes, plan.cordon_switch) != applied:
            raise AcmesimError(
                f"recovery policy {getattr(self.recovery, 'registry_name', '?')!r} planned "
                f"cordon {plan.cordon_nodes}/{plan.cordon_switch} for a {fault.kind} at "
                f"t={fault.time:g}s but its cordon() takes {applied[0]}/{applied[1]}")

    def _record_persisted_checkpoint(self, job: Job) -> None:
        """Mark the last checkpoint persisted by now in the job's current interval."""
        if job.pace is None:
            return
        sim = self.sim
        computing = sim.env.now - job.last_start - job.overhead
        if computing <= 0:
            return
        work = job.pace.persisted(job.done_work, job.work, computing)
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
