"""FIFO with EASY backfilling (Lifka, "The ANL/IBM SP scheduling system", JSSPP '95).

The oldest pending job (the head) starts as soon as it fits, as in strict FIFO. While it does
not fit, it holds a *reservation*: the earliest time (the shadow time) at which enough GPUs
free up for it, computed by releasing the running jobs in order of their expected ends. Later
jobs may jump ahead (backfill) if they fit now and do not delay that reservation, either
because they end before the shadow time or because they take only GPUs the head will not need
then. Backfill candidates are tried in arrival order.

GPUs sit in nodes, so the reservation is node-aware: the head needs one node with enough free
GPUs (single-node job) or enough whole free nodes (multi-node job) at the shadow time, and a
backfilled job that runs past the shadow time may start only if, with its actual placement
(``SchedulerView.placement``) taken out of the nodes free at the shadow time, the head still
fits.

Run times (the running jobs' ends and the candidates' lengths) come from a predictor: the
oracle by default, i.e. the recorded run times (as with exact user estimates); a history
predictor makes reservations miss, which delays the head, as inaccurate estimates do in real
EASY schedulers. CPU-only jobs (when replayed) queue strictly FIFO.

Cost: pending jobs are grouped by shape with their smallest estimated length at hand, so a pass
looks only at the shapes that fit now and at jobs that can actually backfill.
"""

from __future__ import annotations

import bisect
import dataclasses
import heapq
import math
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from typing import Any

from acmesim.cluster.view import JobInfo, SchedulerView
from acmesim.policies.scheduling import SCHEDULERS
from acmesim.policies.scheduling._preempt import usable_free
from acmesim.policies.scheduling._priority import Estimates
from acmesim.policies.scheduling._shapes import Capacity, Shape, shape_of
from acmesim.policies.scheduling.base import NOTHING, Decision, Scheduler

END_TOLERANCE = 1e-6
"""Seconds by which a job may end off its estimate and still count as on time."""


class ShapeBucket:
    """Pending jobs of one shape: arrival order, and a heap of their estimated lengths."""

    __slots__ = ("jobs", "lengths")

    def __init__(self) -> None:
        self.jobs: OrderedDict[int, JobInfo] = OrderedDict()
        self.lengths: list[tuple[float, int, int]] = []

    def add(self, job: JobInfo, length: float) -> None:
        """Append a job that entered the queue."""
        self.jobs[job.index] = job
        heapq.heappush(self.lengths, (length, job.index, job.arrival_seq))

    def shortest(self) -> float:
        """The smallest estimated length among the bucket's jobs (inf when empty)."""
        heap = self.lengths
        while heap:
            _, index, seq = heap[0]
            job = self.jobs.get(index)
            if job is not None and job.arrival_seq == seq:
                return heap[0][0]
            heapq.heappop(heap)
        return math.inf


class Reservation:
    """The head's reserved start (shadow time) and the free GPUs per node at that time."""

    __slots__ = ("head", "shadow", "free", "whole", "need", "gpus_per_node", "slots")

    def __init__(self, head: JobInfo, free: list[int], gpus_per_node: int) -> None:
        self.head = head.index
        self.shadow = math.inf
        self.free = free
        self.gpus_per_node = gpus_per_node
        self.whole = head.nodes_needed > 1
        self.need = head.nodes_needed if self.whole else head.per_node
        self.slots = sum(1 for count in free if self.serves(count))
        """Nodes that can serve the head (fit it, or are whole free nodes for a gang)."""

    def serves(self, count: int) -> bool:
        """Whether a node with ``count`` free GPUs serves the head."""
        return count == self.gpus_per_node if self.whole else count >= self.need

    @property
    def met(self) -> bool:
        """Whether the head fits in ``free``."""
        return self.slots >= (self.need if self.whole else 1)

    def change(self, node: int, gpus: int) -> None:
        """Add ``gpus`` (negative: take) to a node's free GPUs at the shadow time."""
        before = self.serves(self.free[node])
        self.free[node] += gpus
        self.slots += self.serves(self.free[node]) - before

    def release(self, job: JobInfo) -> None:
        """A running job ends before the shadow time: its GPUs are free then."""
        for node, mask in job.grants:
            self.change(node, mask.bit_count())

    def spares(self, allocation: tuple[tuple[int, int], ...]) -> bool:
        """Whether the head still fits at the shadow time with ``allocation`` taken out."""
        lost = sum(1 for node, gpus in allocation
                   if self.serves(self.free[node]) and not self.serves(self.free[node] - gpus))
        return self.slots - lost >= (self.need if self.whole else 1)

    def take(self, allocation: tuple[tuple[int, int], ...]) -> None:
        """A job running past the shadow time took ``allocation``."""
        for node, gpus in allocation:
            self.change(node, -gpus)


@SCHEDULERS.register("easy_backfill", "easy", "backfill")
class EasyBackfill(Scheduler):
    """FIFO whose blocked head reserves its start; later jobs backfill around it."""

    idle_without_pending = True  # with no job pending a pass returns at once

    @dataclasses.dataclass(frozen=True)
    class Config:
        """Run-time predictor for running jobs' ends and backfill candidates' lengths."""

        predictor: str = "oracle"
        """Run-time predictor: oracle (recorded run time), user_history, type_history."""

    def __init__(self, config: Config | None = None) -> None:
        super().__init__(config or self.Config())
        self.estimates = Estimates(self.config.predictor)
        self.buckets: dict[Shape, ShapeBucket] = {}
        self.ends: list[tuple[float, int]] = []
        """(estimated end, index) of running GPU jobs, sorted."""
        self.end_of: dict[int, float] = {}
        self.reservation: Reservation | None = None

    # ------------------------------------------------------------------ callbacks
    def on_arrival(self, job: JobInfo, view: SchedulerView) -> None:
        """File the job under its shape."""
        self._file(job)

    def on_arrivals(self, jobs: Sequence[JobInfo], view: SchedulerView) -> None:
        """File each job under its shape, in submission order."""
        for job in jobs:
            self._file(job)

    def on_requeue(self, job: JobInfo, view: SchedulerView) -> None:
        """A stopped job: forget its end, file it again, recompute the reservation."""
        self._forget_end(job)
        self.reservation = None
        self._file(job)

    def on_start(self, job: JobInfo, view: SchedulerView) -> None:
        """Unfile the job and remember its estimated end."""
        if job.pool != "gpu":
            return
        bucket = self.buckets[shape_of(job)]
        del bucket.jobs[job.index]
        end = job.last_start + job.overhead + self.estimates.remaining(job)
        self.end_of[job.index] = end
        bisect.insort(self.ends, (end, job.index))

    def on_finish(self, job: JobInfo, view: SchedulerView) -> None:
        """Forget its end; an end off its estimate invalidates the reservation."""
        if job.pool == "gpu":
            end = self._forget_end(job)
            if end is None or abs(end - view.now) > END_TOLERANCE:
                self.reservation = None
        self.estimates.finished(job)

    def _file(self, job: JobInfo) -> None:
        """Put a pending GPU job in its shape bucket."""
        if job.pool != "gpu":
            return
        bucket = self.buckets.get(shape_of(job))
        if bucket is None:
            bucket = self.buckets[shape_of(job)] = ShapeBucket()
        bucket.add(job, self.estimates.remaining(job))

    def _forget_end(self, job: JobInfo) -> float | None:
        """Drop a running job's estimated end; returns it."""
        end = self.end_of.pop(job.index, None)
        if end is not None:
            pos = bisect.bisect_left(self.ends, (end, job.index))
            del self.ends[pos]
        return end

    # ------------------------------------------------------------------ passes
    def schedule(self, view: SchedulerView) -> Decision:
        """Start the head while it fits, then backfill around its reservation."""
        if not view.pending:
            return NOTHING
        return Decision(start=self._starts(view))

    def _starts(self, view: SchedulerView) -> Iterator[JobInfo]:
        """Yield FIFO heads while they fit, then backfill candidates."""
        for pool, other in view.queues.items():
            if pool != "gpu":
                while other and view.fits(other.head()):
                    yield other.head()
        queue = view.queues.get("gpu")
        if not queue:
            return
        capacity = Capacity(view.cluster)
        while queue:
            head = queue.head()
            if not (capacity.admits(head) and view.fits(head)):
                break
            yield head
            capacity.refresh(view.cluster)
        if not queue or capacity.empty:
            return
        reservation = self._reservation(view, head)
        while not capacity.empty:
            found = self._candidate(view, capacity, reservation)
            if found is None:
                return
            job, allocation = found
            if allocation is not None:
                reservation.take(allocation)
            yield job
            capacity.refresh(view.cluster)

    def _reservation(self, view: SchedulerView, head: JobInfo) -> Reservation:
        """The head's reservation (reused while still valid)."""
        cached = self.reservation
        if cached is not None and cached.head == head.index and view.now < cached.shadow:
            return cached
        cluster = view.cluster
        reservation = Reservation(head, usable_free(cluster), cluster.gpus_per_node)
        running = view.running
        for end, index in self.ends:
            job = running.get(index)
            if job is None:
                continue  # stopped and held: its GPUs are already free
            reservation.release(job)
            if reservation.met:
                reservation.shadow = max(end, view.now)
                break
        self.reservation = reservation
        return reservation

    def _candidate(self, view: SchedulerView, capacity: Capacity, reservation: Reservation
                   ) -> tuple[JobInfo, Any] | None:
        """The earliest-arrived job that may backfill now, with its allocation if it runs
        past the shadow time (None if it ends before)."""
        slack = reservation.shadow - view.now
        best: tuple[JobInfo, Any] | None = None
        for shape in list(self.buckets):
            bucket = self.buckets[shape]
            if not bucket.jobs:
                del self.buckets[shape]
                continue
            first = next(iter(bucket.jobs.values()))
            if first.index == reservation.head:
                if len(bucket.jobs) == 1:
                    continue
                first = list(bucket.jobs.values())[1]
            if best is not None and first.arrival_seq > best[0].arrival_seq:
                continue
            if not capacity.admits(first):
                continue
            found = self._in_bucket(view, bucket, first, slack, reservation)
            if found is not None and (best is None
                                      or found[0].arrival_seq < best[0].arrival_seq):
                best = found
        return best

    def _in_bucket(self, view: SchedulerView, bucket: ShapeBucket, first: JobInfo,
                   slack: float, reservation: Reservation) -> tuple[JobInfo, Any] | None:
        """The bucket's earliest job that may backfill, or None."""
        allocation = view.placement(first)
        if allocation is None:
            return None
        if self.estimates.remaining(first) <= slack:
            return first, None
        if reservation.spares(allocation):
            return first, allocation
        if bucket.shortest() > slack:
            return None
        for job in bucket.jobs.values():
            if job.index != reservation.head and self.estimates.remaining(job) <= slack:
                return job, None
        return None

    def summary_fields(self) -> dict[str, Any]:
        """Prediction-error fields for the run's summary."""
        return self.estimates.summary()
