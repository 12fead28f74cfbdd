"""Pending jobs grouped by gang shape, so a pass looks at a handful of queue heads, not every job.

Whether a GPU job fits the cluster right now depends only on its shape: a single-node job of
``k`` GPUs fits iff some node has ``k`` free GPUs, a multi-node job of ``n`` nodes iff ``n``
whole nodes are free (the shipped placements always find nodes when the counts allow). A pass
only ever *takes* GPUs, so a shape that does not fit stays unfitting for the rest of the pass.
``ShapeQueues`` keeps one priority heap per (lane, shape); a pass compares the heads of the
shapes that fit and starts the best, costing O(shapes) per start instead of O(pending jobs).
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Hashable
from typing import Any

from acmesim.cluster.view import ClusterView, JobInfo, SchedulerView

Shape = tuple[Hashable, str, int, int, int]
"""(lane, pool, nodes needed, GPUs per node, GPUs requested)."""


class Capacity:
    """What the cluster can still hold now: largest free count on one node, whole free nodes."""

    __slots__ = ("max_single", "whole", "gpus_per_node")

    def __init__(self, cluster: ClusterView) -> None:
        self.gpus_per_node = cluster.gpus_per_node
        self.refresh(cluster)

    def refresh(self, cluster: ClusterView) -> None:
        """Re-read the cluster (O(GPUs per node); O(1) while a whole node is free)."""
        by_count = cluster.free_by_count
        gpus = self.gpus_per_node
        whole = self.whole = len(by_count[gpus])
        if whole:
            self.max_single = gpus
            return
        for count in range(gpus - 1, 0, -1):
            if by_count[count]:
                self.max_single = count
                return
        self.max_single = 0

    def admits(self, job: JobInfo) -> bool:
        """Whether ``job``'s shape can fit now (CPU jobs: always try)."""
        if job.pool != "gpu":
            return True
        if job.nodes_needed == 1:
            return job.per_node <= self.max_single
        return job.nodes_needed <= self.whole

    def admits_shape(self, shape: Shape) -> bool:
        """``admits`` for every job of a queue shape."""
        if shape[1] != "gpu":
            return True
        if shape[2] == 1:
            return shape[3] <= self.max_single
        return shape[2] <= self.whole

    @property
    def empty(self) -> bool:
        """No GPU free on any schedulable node."""
        return self.max_single == 0


def shape_of(job: JobInfo, lane: Hashable = None) -> Shape:
    """The queue a pending job belongs to."""
    return (lane, job.pool, job.nodes_needed, job.per_node, job.gpu_num)


class ShapeQueues:
    """Pending jobs in one heap per shape, ordered by a key (lowest first), lazy deletion.

    ``peek`` and ``in_order`` read the best jobs whatever their shape from the shapes' heaps
    themselves (the lowest of their heads; a best-first walk of the heaps for ``in_order``),
    so an entry is pushed onto one heap only. When the last pending job is removed every heap
    is emptied at once.

    A job queued while no other is pending is kept out of the heaps (``lone``) until a second
    one is queued or ``best`` needs them: most jobs of a replay arrive to an empty queue and
    start at the next pass, so they are never pushed onto a heap or popped from one.
    """

    def __init__(self) -> None:
        self.heaps: dict[Shape, list[list[Any]]] = {}
        self.entries: dict[int, list[Any]] = {}
        self._pushes = itertools.count()
        self._version = 0
        """Bumped by every push and removal (``in_order`` is kept until it changes)."""
        self._in_order: tuple[int, int, list[JobInfo]] = (-1, 0, [])
        self._peeked: tuple[int, JobInfo | None] = (-1, None)
        """(version, ``peek``'s answer) of the last ``peek`` of the heaps."""
        self.lone: tuple[list[Any], Hashable] | None = None
        """(entry, lane) of the only pending job while it is kept out of the heaps."""

    def __len__(self) -> int:
        return len(self.entries)

    def __bool__(self) -> bool:
        return bool(self.entries)

    def __contains__(self, job: JobInfo) -> bool:
        return job.index in self.entries

    def push(self, job: JobInfo, key: Any, lane: Hashable = None) -> None:
        """Add (or re-key) a pending job."""
        index = job.index
        entries = self.entries
        old = entries.pop(index, None)
        if old is not None:
            old[3] = None  # what ``remove`` does, inlined: called for every arrival
        self._version += 1
        entry = [key, index, next(self._pushes), job]
        if not entries:  # the only pending job: kept out of the heaps (every entry is stale)
            self.heaps.clear()
            entries[index] = entry
            self.lone = (entry, lane)
            return
        if self.lone is not None:
            self._spill()
        entries[index] = entry
        self._heap_push(entry, job, lane)

    def _spill(self) -> None:
        """Put the lone pending job's entry on the heaps (another job is queued, or ``best``
        compares the heaps)."""
        lone = self.lone
        assert lone is not None
        self.lone = None
        entry, lane = lone
        self._heap_push(entry, entry[3], lane)

    def _heap_push(self, entry: list[Any], job: JobInfo, lane: Hashable) -> None:
        """Push a pending job's entry onto its shape's heap."""
        shape = (lane, job.pool, job.nodes_needed, job.per_node, job.gpu_num)  # shape_of
        heap = self.heaps.get(shape)
        if heap is None:
            heap = self.heaps[shape] = []
        heapq.heappush(heap, entry)

    def remove(self, job: JobInfo) -> None:
        """Forget a job (it started or left); its heap entry is dropped lazily, or with every
        other one when no job is left pending (no heap entry is then a pending job's: most
        starts of a replay empty the queue, whose entries are then never popped one by one)."""
        entries = self.entries
        entry = entries.pop(job.index, None)
        if entry is not None:
            entry[3] = None
            self._version += 1
            if not entries:
                self.lone = None
                self.heaps.clear()

    def key_of(self, job: JobInfo) -> Any:
        """The key ``job`` is queued with."""
        return self.entries[job.index][0]

    def best(self, view: SchedulerView, capacity: Capacity, strict: bool = False,
             admit: Callable[[JobInfo], bool] | None = None) -> JobInfo | None:
        """The lowest-key pending job that can start now, or None.

        ``strict``: only the lowest-key job overall may start (head-of-line blocking).
        ``admit``: a policy rule (quota, ...) a job must also pass; shapes whose head fails
        it are skipped this time.
        """
        if strict:
            job = self.peek()
            if job is None or not capacity.admits(job) or (admit is not None
                                                           and not admit(job)):
                return None
            return job if view.fits(job) else None
        if self.lone is not None:
            self._spill()
        skipped: set[Shape] | None = None
        while True:
            best_shape, best_entry = self._best_head(capacity, admit, skipped)
            if best_entry is None or best_shape is None:  # both None together
                return None
            job = best_entry[3]
            if view.fits(job):
                return job
            if skipped is None:
                skipped = set()
            skipped.add(best_shape)  # the placement refused what the counts allow

    def _best_head(self, capacity: Capacity, admit: Callable[[JobInfo], bool] | None,
                   skipped: set[Shape] | None) -> tuple[Shape | None, list[Any] | None]:
        """The lowest-key head among shapes that fit the counts and pass ``admit``."""
        best_shape, best_entry = None, None
        empty: list[Shape] = []
        max_single, whole = capacity.max_single, capacity.whole
        heappop = heapq.heappop
        for shape, heap in self.heaps.items():
            if shape[1] == "gpu" and (shape[3] > max_single if shape[2] == 1
                                      else shape[2] > whole):
                continue  # the counts say no job of this shape fits (Capacity.admits_shape)
            if skipped and shape in skipped:
                continue
            while heap and heap[0][3] is None:
                heappop(heap)
            if not heap:
                empty.append(shape)
                continue
            entry = heap[0]
            # entries [key, index, ...] compare by (key, index): no two share an index
            if best_entry is not None and entry >= best_entry:
                continue
            if admit is not None and not admit(entry[3]):
                continue
            best_shape, best_entry = shape, entry
        for shape in empty:
            del self.heaps[shape]
        return best_shape, best_entry

    def peek(self) -> JobInfo | None:
        """The lowest-key pending job whatever its shape (None when empty): the lowest head
        (kept until the queues change)."""
        lone = self.lone
        if lone is not None:
            return lone[0][3]
        version, job = self._peeked
        if version != self._version:
            heads = self._live_heads()
            job = min(heads)[3] if heads else None
            self._peeked = (self._version, job)
        return job

    def _live_heads(self) -> list[list[Any]]:
        """Each shape's lowest pending entry (removed entries above it popped, shapes left
        without a pending job dropped)."""
        heads: list[list[Any]] = []
        empty: list[Shape] = []
        heappop = heapq.heappop
        for shape, heap in self.heaps.items():
            while heap and heap[0][3] is None:
                heappop(heap)
            if heap:
                heads.append(heap[0])
            else:
                empty.append(shape)
        for shape in empty:
            del self.heaps[shape]
        return heads

    def in_order(self, limit: int) -> list[JobInfo]:
        """Up to ``limit`` pending jobs in key order (the queues are left as they were; the
        list is shared until the queues change: do not modify it)."""
        version, size, jobs = self._in_order
        if version == self._version and size == limit:
            return jobs
        jobs = self._sorted_heads(limit)
        self._in_order = (self._version, limit, jobs)
        return jobs

    def _sorted_heads(self, limit: int) -> list[JobInfo]:
        """``in_order`` read from the shapes' heaps by a best-first walk (``sorted_entries``)."""
        if self.lone is not None:
            return [self.lone[0][3]][:limit]
        return [entry[3] for entry in sorted_entries(list(self.heaps.values()), limit)]


def sorted_entries(heaps: list[list[list[Any]]], limit: int) -> list[list[Any]]:
    """The ``limit`` lowest pending entries of several heaps (removed ones, ``entry[3] is
    None``, skipped), lowest first; the heaps are left as they were.

    A best-first walk of the heaps' trees: a node is no lower than its parent, so taking the
    lowest of the frontier (every heap's root, then the children of each node taken) gives the
    entries in order, after reading about ``2 * limit`` nodes plus the removed ones on the way.
    """
    frontier = [(heap[0], which, 0) for which, heap in enumerate(heaps) if heap]
    heapq.heapify(frontier)
    heappop, heappush = heapq.heappop, heapq.heappush
    taken: list[list[Any]] = []
    while frontier and len(taken) < limit:
        entry, which, at = heappop(frontier)  # entries never tie: (key, index, push number)
        if entry[3] is not None:
            taken.append(entry)
        heap = heaps[which]
        child = 2 * at + 1
        if child < len(heap):
            heappush(frontier, (heap[child], which, child))
            if child + 1 < len(heap):
                heappush(frontier, (heap[child + 1], which, child + 1))
    return taken
