"""A fast node-level packer that gives synthetic jobs feasible start times on a cluster.

Model: ``nodes`` nodes of ``gpus_per_node`` GPUs. A job of at most one node's GPUs goes best-fit
into one node (the fullest node that still has room); a larger job takes ``ceil(gpus / per
node)`` whole free nodes. Jobs become eligible at their *ready* time (submission plus scheduling
latency) and wait in one of three FIFO queues by scheduling class:

- class 0 (pretraining, reserved capacity in Acme): served first, FIFO with backfilling over
  the first ``lookahead`` queued jobs, while the class holds at most ``reserved_quota`` GPUs
  (its reservation; the whole cluster when unset);
- class 1 (normal): the same, after class 0;
- class 2 (low priority, evaluation): strict FIFO, only while the class holds at most ``quota``
  GPUs (evaluation runs on spare capacity, acme_facts.md §2.5).

Restart chains: a job may name a successor, submitted ``gap`` seconds after it ends, so
resubmissions follow the recorded end times. A *deferred* job (pretraining runs, submitted into
a reserved quota) records its submission at its start minus its latency: its waiting for nodes
is the team waiting to launch, not queueing. Free GPUs per node are kept as one bit mask of
nodes per free-GPU level, so best fit is a lowest-set-bit lookup.

There is no node reservation for a waiting large job: on the 59 %-loaded Seren profile,
reserving whole nodes for a blocked pretraining head stalled every 8-GPU job for hours (mean
queueing ~16,000 s against the published 446 s), while plain priority gives ~570 s.
"""

from __future__ import annotations

import dataclasses
import heapq
from array import array
from collections import deque

import numpy as np

from acmesim.core.errors import AcmesimError


@dataclasses.dataclass(frozen=True)
class PackerSettings:
    """The cluster and queue rules of one packing run."""

    nodes: int
    gpus_per_node: int
    quota: int
    lookahead: int
    """How many queued jobs of class 0 or 1 each pass looks at (backfilling depth)."""
    duration_includes_queue: bool = False
    min_run: int = 0
    reserved_quota: int | None = None
    """GPUs class 0 (pretraining) may hold at once: its reservation (None: the whole cluster).
    A class-0 job that would exceed it waits for the class's own jobs to end."""


@dataclasses.dataclass
class PackedJobs:
    """Packer output, aligned with its input arrays (``-1`` for jobs never submitted)."""

    submit: np.ndarray
    start: np.ndarray
    end: np.ndarray


class _Nodes:
    """Per-node free GPUs with one bit mask of nodes per free-GPU level."""

    def __init__(self, nodes: int, per_node: int) -> None:
        self.per_node = per_node
        self.free = [per_node] * nodes
        self.levels = [0] * (per_node + 1)
        self.levels[per_node] = (1 << nodes) - 1

    def take_single(self, gpus: int) -> int:
        """Best-fit ``gpus`` into one node; the node index, or -1 when none fits."""
        levels = self.levels
        for level in range(gpus, self.per_node + 1):
            mask = levels[level]
            if mask:
                bit = mask & -mask
                node = bit.bit_length() - 1
                levels[level] = mask ^ bit
                levels[level - gpus] |= bit
                self.free[node] = level - gpus
                return node
        return -1

    def release_single(self, node: int, gpus: int) -> None:
        """Give ``gpus`` back to ``node``."""
        bit = 1 << node
        level = self.free[node]
        self.levels[level] ^= bit
        self.levels[level + gpus] |= bit
        self.free[node] = level + gpus

    def whole_free(self) -> int:
        """How many nodes are entirely free."""
        return self.levels[self.per_node].bit_count()

    def take_whole(self, count: int) -> int:
        """Take ``count`` whole free nodes (lowest indices); their bit mask, or 0 if too few."""
        mask = self.levels[self.per_node]
        if mask.bit_count() < count:
            return 0
        taken = 0
        for _ in range(count):
            bit = mask & -mask
            mask ^= bit
            taken |= bit
        self.levels[self.per_node] = mask
        self.levels[0] |= taken
        return taken

    def release_whole(self, taken: int) -> None:
        """Give the whole nodes of mask ``taken`` back."""
        self.levels[0] ^= taken
        self.levels[self.per_node] |= taken


def pack(
    settings: PackerSettings,
    submit: np.ndarray,
    latency: np.ndarray,
    work: np.ndarray,
    gpus: np.ndarray,
    klass: np.ndarray,
    successor: np.ndarray,
    gap: np.ndarray,
    horizon: int,
    deferred: np.ndarray | None = None,
) -> PackedJobs:
    """Start (and possibly moved submit) times for GPU jobs, per the module's rules.

    Arrays are aligned per job (integer seconds): ``submit`` (ignored for jobs that are some
    job's successor), ``latency`` (ready = submit + latency), ``work`` (run time, or end -
    submit when ``duration_includes_queue``), ``gpus``, ``klass`` (0/1/2), ``successor`` (index
    or -1) and ``gap`` (seconds from this job's end to its successor's submission). Jobs whose
    submission would fall at or after ``horizon`` are never submitted (their outputs stay -1).
    ``deferred`` (bool per job, default none) marks jobs whose recorded submission moves to
    their start minus their latency. Submit times may be negative (a warm-up before the window).
    """
    n = len(gpus)
    per_node = settings.gpus_per_node
    capacity = settings.nodes * per_node
    if n and int(np.max(gpus)) > capacity:
        raise AcmesimError(f"a job asks for {int(np.max(gpus))} GPUs; the cluster has {capacity}")
    low = gpus[klass == 2]
    if low.size and int(low.max()) > settings.quota:
        raise AcmesimError(f"a low-priority job asks for {int(low.max())} GPUs, more than the "
                           f"class's quota of {settings.quota}")
    top = gpus[klass == 0]
    if (settings.reserved_quota is not None and top.size
            and int(top.max()) > settings.reserved_quota):
        raise AcmesimError(f"a reserved-class job asks for {int(top.max())} GPUs, more than the "
                           f"class's reservation of {settings.reserved_quota}")
    is_successor = np.zeros(n, dtype=bool)
    is_successor[successor[successor >= 0]] = True
    sub = np.where(is_successor, -1, submit).astype(np.int64)
    static = np.flatnonzero(~is_successor & (sub < horizon))
    ready_static = sub[static] + latency[static]
    order = static[np.lexsort((static, ready_static))]
    defer = np.zeros(n, dtype=bool) if deferred is None else np.asarray(deferred, dtype=bool)
    out = _Loop(settings, _ints(sub), _ints(latency), _ints(work), _ints(gpus), _ints(klass),
                _ints(successor), _ints(gap), horizon, bytearray(defer.astype(np.uint8)))
    out.run(_ints(order), _ints(sub[order] + latency[order]))
    return PackedJobs(_array(out.sub), _array(out.start), _array(out.end))


def _ints(values: np.ndarray) -> array:
    """``values`` as a Python ``array('q')``: indexed as fast as a list, 8 bytes per job (a list
    holds a pointer and, above 256, an int object per job: ~40 bytes, gigabytes at scale)."""
    out = array("q")
    out.frombytes(np.ascontiguousarray(values, dtype=np.int64).tobytes())
    return out


def _array(values: array) -> np.ndarray:
    """An ``array('q')`` as an int64 numpy array (a copy)."""
    return np.frombuffer(values, dtype=np.int64).copy()


class _Loop:
    """The event loop of one packing run (Python int arrays: list speed, 8 bytes per value)."""

    def __init__(self, settings: PackerSettings, sub: array, latency: array, work: array,
                 gpus: array, klass: array, successor: array, gap: array, horizon: int,
                 deferred: bytearray) -> None:
        self.s = settings
        self.deferred = deferred
        self.sub, self.latency, self.work, self.gpus = sub, latency, work, gpus
        self.klass, self.successor, self.gap, self.horizon = klass, successor, gap, horizon
        n = len(gpus)
        self.start, self.end = _ints(np.full(n, -1)), _ints(np.full(n, -1))
        self.placed: list[int] = [0] * n  # a node, or a bit mask of whole nodes (any size)
        self.nodes = _Nodes(settings.nodes, settings.gpus_per_node)
        self.queues: tuple[deque, deque, deque] = (deque(), deque(), deque())
        self.ends: list[tuple[int, int]] = []
        self.dynamic: list[tuple[int, int]] = []
        self.low_used = 0
        self.reserved_used = 0
        self.reserved_quota = (settings.nodes * settings.gpus_per_node
                               if settings.reserved_quota is None else settings.reserved_quota)
        self.releases = 0
        # per queue: (releases, length) after its last scan; with no release since, the jobs
        # scanned then still cannot start (capacity only shrank), so only newer ones are tried
        self.scanned = [(-1, 0), (-1, 0)]

    def run(self, order: array, ready: array) -> None:
        """Process every arrival and end event in time order until all queues are empty."""
        ends, dynamic, queues = self.ends, self.dynamic, self.queues
        pointer, total = 0, len(order)
        big = 1 << 62
        while True:
            t = ready[pointer] if pointer < total else big
            if dynamic and dynamic[0][0] < t:
                t = dynamic[0][0]
            if ends and ends[0][0] < t:
                t = ends[0][0]
            if t == big:
                break
            while ends and ends[0][0] == t:
                self._release(heapq.heappop(ends)[1])
            while pointer < total and ready[pointer] == t:
                job = order[pointer]
                queues[self.klass[job]].append(job)
                pointer += 1
            while dynamic and dynamic[0][0] == t:
                job = heapq.heappop(dynamic)[1]
                queues[self.klass[job]].append(job)
            self._schedule(t)
        if any(queues):
            raise AcmesimError("packer stopped with queued jobs that can never start")

    def _schedule(self, t: int) -> None:
        """Start every queued job that may start at ``t``, class by class."""
        queues = self.queues
        if queues[0]:
            self._backfill(0, t)
        if queues[1]:
            self._backfill(1, t)
        low, quota = queues[2], self.s.quota
        while low and self.low_used + self.gpus[low[0]] <= quota and self._try_start(low[0], t):
            low.popleft()

    def _backfill(self, klass: int, t: int) -> None:
        """Start fitting jobs among the first ``lookahead`` of a queue, keeping FIFO order."""
        queue = self.queues[klass]
        releases, scanned = self.scanned[klass]
        index = scanned if releases == self.releases else 0
        limit = self.s.lookahead
        smallest_failed = 1 << 30
        gpus = self.gpus
        room = self.reserved_quota - self.reserved_used if klass == 0 else 1 << 62
        while index < len(queue) and index < limit:
            job = queue[index]
            size = gpus[job]
            if size < smallest_failed and size <= room:
                if self._try_start(job, t):
                    del queue[index]
                    limit -= 1
                    if klass == 0:
                        room -= size
                    continue
                smallest_failed = size
            index += 1
        self.scanned[klass] = (self.releases, len(queue))

    def _try_start(self, job: int, t: int) -> bool:
        """Place ``job`` at ``t`` if it fits; record its start and end, submit its successor."""
        size = self.gpus[job]
        per_node = self.s.gpus_per_node
        if size <= per_node:
            node = self.nodes.take_single(size)
            if node < 0:
                return False
            self.placed[job] = node
        else:
            taken = self.nodes.take_whole(-(-size // per_node))
            if not taken:
                return False
            self.placed[job] = taken
        self.start[job] = t
        if self.deferred[job]:
            self.sub[job] = max(self.sub[job], t - self.latency[job])
        if self.s.duration_includes_queue:
            finish = max(self.sub[job] + self.work[job], t + self.s.min_run)
        else:
            finish = t + self.work[job]
        self.end[job] = finish
        heapq.heappush(self.ends, (finish, job))
        if self.klass[job] == 2:
            self.low_used += size
        elif self.klass[job] == 0:
            self.reserved_used += size
        nxt = self.successor[job]
        if nxt >= 0:
            submitted = finish + self.gap[job]
            if submitted < self.horizon:
                self.sub[nxt] = submitted
                heapq.heappush(self.dynamic, (submitted + self.latency[nxt], nxt))
        return True

    def _release(self, job: int) -> None:
        """Free the GPUs of a job that ended."""
        self.releases += 1
        size = self.gpus[job]
        if size <= self.s.gpus_per_node:
            self.nodes.release_single(self.placed[job], size)
        else:
            self.nodes.release_whole(self.placed[job])
        if self.klass[job] == 2:
            self.low_used -= size
        elif self.klass[job] == 0:
            self.reserved_used -= size
