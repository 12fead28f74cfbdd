"""The scheduler interface: a policy reads a ``SchedulerView`` and returns a ``Decision``.

The engine runs one *scheduling pass* per simulated timestamp, after every event at that time
(arrivals, completions, failures, ...) has been applied; it calls ``Scheduler.schedule(view)``
and then

1. preempts every job of ``decision.preempt`` (releasing its GPUs, requeueing it), and
2. draws the jobs of ``decision.start`` one at a time, placing and starting each before drawing
   the next. So a generator can look at the live view between its yields and sees the GPUs its
   earlier starts took. A job that cannot be placed stays pending.

If a pass makes new events due at the same time (a zero-length job ends at once), another pass
follows at that time. Schedulers never touch the simulation; they keep incremental state (e.g. a
priority queue) through the ``on_*`` callbacks, which the engine calls as things happen.

Arrivals come in batches: the jobs submitted at one timestamp enter their pending queues
together, in submission order, and the engine then hands them to ``on_arrivals`` in one call
(most timestamps have a single job). ``Scheduler.on_arrivals`` hands each job to
``on_arrival`` in turn, so a scheduler may write either: the per-job hook for clarity, the batch
hook to save a call per job (each Python call is a measurable part of a replay). A class that
overrides ``on_arrivals`` must keep ``on_arrival(job, view)`` meaning the same as
``on_arrivals((job,), view)``; a subclass that overrides only ``on_arrival`` below a class with
a batch hook would never be called, so that is refused when the class is defined.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar, Protocol, runtime_checkable

from acmesim.cluster.view import JobInfo, SchedulerView


@dataclasses.dataclass(frozen=True, slots=True)
class Decision:
    """A pass's outcome: running jobs to preempt (applied first) and pending jobs to start.

    ``start`` may be a generator; the engine consumes it lazily (see the module docstring).
    """

    start: Iterable[JobInfo] = ()
    preempt: Iterable[JobInfo] = ()


NOTHING = Decision()
"""The decision to do nothing this pass."""


@runtime_checkable
class SchedulerProtocol(Protocol):
    """What the engine calls on a scheduler (``scheduler=NAME``, registry ``SCHEDULERS``).

    Built as ``cls(config)``. ``schedule`` once per scheduling pass (see the module docstring
    for how the ``Decision`` is applied); the ``on_*`` callbacks as things happen, each with the
    live view; ``summary_fields`` once after the run. A scheduler never mutates the view or the
    jobs it is shown.
    """

    def schedule(self, view: SchedulerView) -> Decision:
        """Decide which running jobs to preempt and which pending jobs to start now."""
        ...

    def on_arrival(self, job: JobInfo, view: SchedulerView) -> None:
        """A job entered the pending queue for the first time."""
        ...

    def on_arrivals(self, jobs: Sequence[JobInfo], view: SchedulerView) -> None:
        """Jobs submitted at the same time entered the pending queues for the first time (all
        of them already queued, in submission order); what ``on_arrival`` does for each."""
        ...

    def on_start(self, job: JobInfo, view: SchedulerView) -> None:
        """A pending job started running."""
        ...

    def on_requeue(self, job: JobInfo, view: SchedulerView) -> None:
        """A running job went back to the pending queue (preempted or interrupted)."""
        ...

    def on_finish(self, job: JobInfo, view: SchedulerView) -> None:
        """A job ended for good (its GPUs are already released)."""
        ...

    def summary_fields(self) -> dict[str, Any]:
        """Extra ``summary.csv`` fields after a run (keys: summary columns)."""
        ...


class Scheduler(SchedulerProtocol):
    """Base class of every scheduler plug-in (register with ``SCHEDULERS.register``)."""

    registry_name: ClassVar[str] = "scheduler"

    idle_without_pending: ClassVar[bool] = False
    """True if ``schedule`` starts and preempts nothing, and changes nothing of its own, while
    no job is pending: the engine then skips the call in such a pass (about half of a replay's
    passes follow an end that leaves the queue empty). Read by the engine with a default of
    False, so a scheduler that does not subclass this one may say it too."""

    def __init__(self, config: Any = None) -> None:
        self.config = config

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Refuse a per-job ``on_arrival`` that an inherited batch ``on_arrivals`` would skip."""
        super().__init_subclass__(**kwargs)
        if ("on_arrival" in vars(cls) and "on_arrivals" not in vars(cls)
                and cls.on_arrivals is not Scheduler.on_arrivals):
            raise TypeError(
                f"{cls.__qualname__} overrides on_arrival but inherits a batch on_arrivals, "
                f"which the engine calls instead: override on_arrivals (the jobs submitted at "
                f"one time) too")

    def schedule(self, view: SchedulerView) -> Decision:
        """Decide which running jobs to preempt and which pending jobs to start now."""
        raise NotImplementedError

    def on_arrival(self, job: JobInfo, view: SchedulerView) -> None:
        """A job entered the pending queue for the first time."""

    def on_arrivals(self, jobs: Sequence[JobInfo], view: SchedulerView) -> None:
        """Jobs submitted at the same time entered the pending queues for the first time (all
        of them already queued, in submission order): each goes to ``on_arrival`` in turn."""
        on_arrival = self.on_arrival
        for job in jobs:
            on_arrival(job, view)

    def on_start(self, job: JobInfo, view: SchedulerView) -> None:
        """A pending job started running."""

    def on_requeue(self, job: JobInfo, view: SchedulerView) -> None:
        """A running job went back to the pending queue (preempted or interrupted)."""

    def on_finish(self, job: JobInfo, view: SchedulerView) -> None:
        """A job ended for good (its GPUs are already released)."""

    def summary_fields(self) -> dict[str, Any]:
        """Extra summary.csv fields the scheduler reports after a run (e.g. prediction error).

        Keys must be summary columns (``acmesim.results.schema.SUMMARY``); default: none.
        """
        return {}
