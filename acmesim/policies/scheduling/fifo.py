"""FIFO: strict head-of-line order, the baseline of the Acme clusters' schedulers.

In each resource pool the oldest pending job starts as soon as it fits; while it does not fit,
nothing behind it starts (head-of-line blocking). A pass costs O(jobs started + pools); the
decision is made once per view (its ``start`` draws the heads afresh each time it is iterated),
since a pass is run at nearly every timestamp of a replay.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from acmesim.cluster.view import JobInfo, SchedulerView
from acmesim.policies.scheduling import SCHEDULERS
from acmesim.policies.scheduling.base import Decision, Scheduler


@SCHEDULERS.register("fifo")
class Fifo(Scheduler):
    """First in, first out; the head of each pool's queue blocks the rest."""

    idle_without_pending = True  # with no job pending there is no head to start

    def __init__(self, config: Any = None) -> None:
        super().__init__(config)
        self._decision: tuple[SchedulerView | None, Decision] = (None, Decision())

    def schedule(self, view: SchedulerView) -> Decision:
        """Start queue heads while they fit (the same decision for every pass of one view)."""
        seen, decision = self._decision
        if seen is not view:
            decision = Decision(start=_Heads(view))
            self._decision = (view, decision)
        return decision

    @staticmethod
    def _heads(view: SchedulerView) -> Iterable[JobInfo]:
        """The heads FIFO starts in ``view``, for schedulers that start them too."""
        return _Heads(view)


class _Heads(Iterable[JobInfo]):
    """Each pool's head while it fits, drawn anew on every iteration (the engine starts each
    head before drawing the next)."""

    __slots__ = ("_view",)

    def __init__(self, view: SchedulerView) -> None:
        self._view = view

    def __iter__(self) -> Iterator[JobInfo]:
        view = self._view
        fits = view.fits
        for queue in view.queues.values():
            peek = queue.peek
            while (head := peek()) is not None and fits(head):
                yield head
