"""FIFO: strict head-of-line order, the baseline of the Acme clusters' schedulers.

In each resource pool the oldest pending job starts as soon as it fits; while it does not fit,
nothing behind it starts (head-of-line blocking). A pass costs O(jobs started + pools).
"""

from __future__ import annotations

from collections.abc import Iterator

from acmesim.cluster.view import JobInfo, SchedulerView
from acmesim.policies.scheduling import SCHEDULERS
from acmesim.policies.scheduling.base import NOTHING, Decision, Scheduler


@SCHEDULERS.register("fifo")
class Fifo(Scheduler):
    """First in, first out; the head of each pool's queue blocks the rest."""

    def schedule(self, view: SchedulerView) -> Decision:
        """Start queue heads while they fit."""
        if not view.pending:
            return NOTHING
        return Decision(start=self._heads(view))

    @staticmethod
    def _heads(view: SchedulerView) -> Iterator[JobInfo]:
        """Yield each pool's head while it fits (the engine starts it before the next draw)."""
        fits = view.fits
        for queue in view.queues.values():
            while queue:
                head = queue.head()
                if not fits(head):
                    break
                yield head
