"""Failure injection into a running simulation: faults, checkpoints, recovery, failures table.

An ``Extension`` (``acmesim.sim.extension``): the run lifecycle attaches the one of its
``failure``/``checkpoint``/``recovery`` choices (``acmesim.faults.build``), or
``simulate(..., extensions=[injector])``. It acts on the engine only through the
``SimulationAPI`` control API. Faults come from the failure model in
windows (one callback at a time, so the event queue stays small), each ``[start, end)`` drawn
from its own random stream by the model's ``window_events``, following the windowing rule of
the failure-model contract (``acmesim.policies.failure.windows.FaultWindows``). The first
window lasts ``window`` seconds (default: the trace span, at least a day) and usually covers
the whole run.

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
from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd

from acmesim.cluster.topology import leaf_name
from acmesim.core.errors import AcmesimError, ConfigError
from acmesim.faults.jobs import JobPreparer
from acmesim.faults.nodes import NodeLifecycle
from acmesim.faults.table import FailureLog, sources_fields
from acmesim.policies.checkpoint.base import CheckpointPolicyProtocol
from acmesim.policies.failure.base import FailureModelProtocol
from acmesim.policies.failure.events import ClusterInfo, FailureEvent
from acmesim.policies.failure.windows import DAY, RUNAWAY_FACTOR, FaultWindows, RunawayFaults
from acmesim.policies.recovery.base import RecoveryPlan, RecoveryPolicy
from acmesim.sim.extension import Extension, SimulationAPI
from acmesim.sim.job import Job

RecoveryFactory = Callable[[float], RecoveryPolicy]
"""Builds the recovery policy once the trace start (``epoch_unix``) is known."""


class FaultInjector(Extension):
    """Injects a failure model's faults, checkpoints jobs and recovers them in one simulation."""

    sim: SimulationAPI
    """The simulation it is attached to (set by ``attach``)."""
    inert_hooks: frozenset[str] = frozenset()
    """``{"on_arrival"}`` once attached to a run whose job preparation changes no job
    (``JobPreparer.inert``): the engine then skips the hook (``acmesim.sim.extension``)."""

    def __init__(self, failure_model: FailureModelProtocol,
                 checkpoint_policy: CheckpointPolicyProtocol,
                 recovery: RecoveryPolicy | RecoveryFactory, *, window: float | None = None
                 ) -> None:
        if window is not None and not window > 0:
            raise ValueError(f"window must be > 0 seconds, got {window!r}")
        self.failure_model = failure_model
        self.checkpoint_policy = checkpoint_policy
        self._recovery = recovery
        self._window_length = window
        self.log = FailureLog()

    # ------------------------------------------------------------------ setup
    def attach(self, sim: SimulationAPI) -> None:
        """Prepare ``sim`` before it runs: spares, job preparation, the first fault window."""
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
        self.inert_hooks = frozenset({"on_arrival"}) if self.preparer.inert else frozenset()
        topology = sim.cluster.topology
        self.info = ClusterInfo(topology.node_names, sim.cluster.gpus_per_node,
                                tuple(leaf_name(leaf) for leaf in topology.leaf_of))
        self.fault_windows = FaultWindows.for_run(self.failure_model, self.info,
                                                  sim.table.span, self._window_length)
        self._faults: deque[FailureEvent] = deque()
        if self.failure_model.sources.hardware:
            self._open_window()

    def on_arrival(self, job: Job) -> None:
        """Set the arriving job's checkpoint pace, final state and modeled failure."""
        self.preparer(job)

    # ------------------------------------------------------------------ fault stream
    @property
    def windows(self) -> list[tuple[float, float]]:
        """``[start, end)`` of every fault window drawn so far, in order."""
        return self.fault_windows.windows

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
        if not self.fault_windows.may_open(other_events_pending=self.sim.has_pending_events()):
            return
        try:
            self._faults = deque(self.fault_windows.open(self.sim.rng.fresh))
        except RunawayFaults:
            raise self._runaway_error() from None
        self._schedule_next()

    def _runaway_error(self) -> AcmesimError:
        """Why the run stops: it has outlasted its trace ``RUNAWAY_FACTOR`` times over."""
        sim = self.sim
        widest = max(sim.live_jobs(), key=lambda job: job.nodes_needed, default=None)
        example = ("" if widest is None else f" (the widest, job {widest.job_id!r}, needs "
                   f"{widest.nodes_needed} of {sim.cluster.num_nodes} nodes)")
        return AcmesimError(
            f"stopped at t={sim.now:.6g} s ({sim.now / DAY:.1f} days, "
            f"{RUNAWAY_FACTOR:g} x the trace's span): {sim.unfinished} job(s) "
            f"have not ended{example}; the faults leave them too little capacity to ever end "
            f"(lower the failure rate, shorten repairs or skip the largest jobs)")

    def _schedule_next(self) -> None:
        """Schedule the next fault, or the next window while any job has not ended."""
        sim = self.sim
        if self._faults:
            fault = self._faults.popleft()
            sim.call_at(fault.time, lambda: self._strike(fault))
        else:
            due = self.fault_windows.next_due(jobs_unfinished=bool(sim.unfinished))
            if due is not None:
                sim.call_at(due, self._open_window)

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
        plan = self.recovery.plan(fault, job, sim.now, self.rng,
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
        row.hit(job, job.gpu_num * (progress - job.work_done))

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
        computing = sim.now - job.last_start - job.overhead
        if computing <= 0:
            return
        work = job.pace.persisted(job.work_done, job.work, computing)
        if work is not None:
            sim.record_checkpoint(job, work)

    # ------------------------------------------------------------------ results
    def failures_table(self) -> pd.DataFrame:
        """The ``failures.csv`` table of the run so far."""
        return self.log.frame()

    def tables(self, done: Mapping[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
        """The ``failures`` table."""
        return {"failures": self.failures_table()}

    def summary_fields(self) -> dict[str, Any]:
        """The summary fields of failure injection (call after the run)."""
        sim = self.sim
        self.nodes.close(float(sim.now))
        fields: dict[str, Any] = sources_fields(self.failure_model.sources)
        fields.update({
            "failure_events": len(self.log),
            "job_failures_modeled": len(self.preparer.failed),
            "node_downtime_hours": self.nodes.downtime / 3600.0,
        })
        return fields


def _check_spares_leave_room(sim: SimulationAPI, spares: int) -> None:
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
