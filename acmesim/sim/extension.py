"""The Extension protocol: how faults, energy and evaluation join a replay without side doors.

An extension is attached to one run by the lifecycle (``acmesim.run.lifecycle``), which calls
its five stages in this order:

1. ``rewrite(jobs, spec)``: before the engine is built, the normalized job table to replay
   (return ``jobs`` unchanged to keep it; the evaluation extension replaces Eval jobs by trials);
2. ``attach(sim)``: once the ``Simulation`` exists, before it runs: draw from ``sim.rng``,
   schedule callbacks (``sim.call_at``), keep ``sim`` for later;
3. ``on_arrival(job)`` with each job as it arrives, before it is queued (it may set the job's
   ``pace``, power ``load``, or its modeled ``work`` and ``outcome``; its recorded fields,
   ``recorded_run_time``, ``trace_state``..., are read-only), and
   ``on_close(job, now)`` as each running interval of a job closes, once the engine has
   accounted it (``job.last_start``, ``job.overhead``, ``job.work_done`` still describe it);
4. ``tables(done)`` after the run, with the result tables built so far by name (``jobs``,
   ``utilization``, and those of earlier extensions): the tables it adds or replaces, by name
   (a name of ``acmesim.results.schema.TABLES`` without ``.csv``; replacing ``jobs`` or
   ``utilization`` adds columns to them);
5. ``summary_fields()`` last: its fields of ``summary.csv`` (names of ``SUMMARY``).

The engine calls only ``attach``, ``on_arrival`` and ``on_close`` (``Simulation.extensions``);
the lifecycle calls the others. Subclassing ``Extension`` inherits a no-op for every stage, so an
extension writes only the ones it needs, and the engine skips the hooks it does not override, and
those its ``attach`` names in an attribute ``inert_hooks`` (optional, not a member of the
protocol: a set of the hook names, ``on_arrival`` or ``on_close``, that it overrides but that do
nothing in this run, e.g. the fault layer's ``on_arrival`` without failures or checkpoints).

What an extension may read and do while the loop runs is ``SimulationAPI``: the small public
API of ``Simulation`` (the control methods that stop, restart and end jobs and change node
health, callbacks on the engine's clock, and read-only state). Extensions never touch the
engine's private state.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:  # annotations only: plug-in registries import this module without pandas
    import pandas as pd
    from simpy.events import Event

    from acmesim.cluster.cluster import Allocation, Cluster
    from acmesim.cluster.health import NodeHealth
    from acmesim.cluster.spec import ClusterSpec
    from acmesim.cluster.view import JobInfo
    from acmesim.core.rng import RngStreams
    from acmesim.results.recorders import JobRecorder, StepRecorder
    from acmesim.sim.job import Job
    from acmesim.sim.trace_input import JobTable


@runtime_checkable
class SimulationAPI(Protocol):
    """What an extension may use of a running simulation (``Simulation`` implements it).

    State (read only): ``now``, the job ``table`` being replayed, the cluster ``spec`` and
    ``cluster`` state, the jobs ``running`` and ``held`` (stopped by a failure, waiting to
    requeue), the recorders ``jobs`` (outcomes) and ``steps`` (the utilization curve), the named
    random streams ``rng``. Control: the methods below; each says what it does to the job.
    """

    table: JobTable
    spec: ClusterSpec
    cluster: Cluster
    rng: RngStreams
    running: dict[int, Job]
    held: dict[int, Job]
    jobs: JobRecorder
    steps: StepRecorder
    job_loads: list[int] | None
    """Writable: each job's power load by engine index (mW above idle over its GPUs while
    computing), summed over running GPU jobs into ``busy_load``; ``None`` (the default) when no
    extension accounts power, so the curve's load stays 0."""

    @property
    def now(self) -> float:
        """The current simulated time (s)."""

    @property
    def unfinished(self) -> int:
        """Jobs of the table that have not ended yet."""

    def has_pending_events(self) -> bool:
        """Whether anything else is scheduled to happen."""

    def live_jobs(self) -> list[JobInfo]:
        """Every arrived job that has not ended."""

    def job(self, index: int) -> JobInfo | None:
        """The live job with engine index ``index`` if pending or running."""

    def progress(self, job: JobInfo) -> float:
        """Work a job has done as of now."""

    def preempt(self, job: JobInfo) -> None:
        """Preempt a running job (roll back, requeue)."""

    def interrupt(self, job: JobInfo, *, requeue_after: float = 0.0,
                  overhead: float | None = None) -> None:
        """Interrupt a running job by a failure (roll back, hold, requeue)."""

    def relaunch(self, job: JobInfo, allocation: Allocation, *, wait: float = 0.0,
                 overhead: float = 0.0) -> None:
        """Interrupt a running job by a failure and restart it at once on ``allocation``."""

    def terminate(self, job: JobInfo, state: str) -> None:
        """End a running or held job now with final ``state``."""

    def set_node_health(self, node: int, health: NodeHealth | str) -> list[JobInfo]:
        """Change a GPU node's health (jobs on a failed node are interrupted)."""

    def set_switch_health(self, switch: str, health: NodeHealth | str) -> list[JobInfo]:
        """Set every node under ``switch`` to ``health``."""

    def record_checkpoint(self, job: JobInfo, work: float | None = None) -> None:
        """Mark the running job's work as safely checkpointed."""

    def call_at(self, time: float, callback: Callable[[], None]) -> Event:
        """Run ``callback()`` at absolute simulated ``time``."""

    def call_later(self, delay: float, callback: Callable[[], None]) -> Event:
        """Run ``callback()`` ``delay`` seconds from now."""


@runtime_checkable
class Extension(Protocol):
    """Something a run attaches to the event loop: faults, power accounting, evaluation."""

    def rewrite(self, jobs: pd.DataFrame, spec: ClusterSpec) -> pd.DataFrame:
        """The job table to replay instead of ``jobs`` (default: ``jobs`` unchanged)."""
        return jobs

    def attach(self, sim: SimulationAPI) -> None:
        """Prepare ``sim`` before it runs (default: nothing)."""
        return None

    def on_arrival(self, job: Job) -> None:
        """Adjust ``job`` as it arrives, before it is queued (default: nothing)."""
        return None

    def on_close(self, job: Job, now: float) -> None:
        """Account one running interval of ``job`` closing at ``now`` (default: nothing)."""
        return None

    def tables(self, done: Mapping[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
        """Result tables to add or replace, by name, given those built so far (default: none)."""
        return {}

    def summary_fields(self) -> dict[str, Any]:
        """This extension's ``summary.csv`` fields, after ``tables`` (default: none)."""
        return {}


def overrides(extension: object, hook: str) -> bool:
    """Whether ``extension`` does something in ``hook``: not ``Extension``'s no-op, and not
    among its ``inert_hooks`` (read once it is attached)."""
    own = getattr(type(extension), hook, None)
    return (own is not None and own is not getattr(Extension, hook)
            and hook not in getattr(extension, "inert_hooks", ()))


__all__ = ["Extension", "SimulationAPI", "overrides"]
