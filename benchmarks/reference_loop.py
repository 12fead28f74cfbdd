"""A minimal ``heapq`` event loop: FIFO + consolidating placement, the speed limit of a replay.

Written outside the package on purpose (it imports only ``heapq`` and ``math`` of the standard
library, nothing of acmesim, SimPy, numpy or pandas), it replays GPU jobs
under the rules acmesim's ``fifo`` scheduler and ``consolidate`` placement follow, so that its
start times are acmesim's *exactly* (``bench_scale.py`` checks every job) and its CPU time is
the cost of the same work with no framework around it.

Events: one arrival event per distinct submit time (read off the jobs in submission order), one
completion event per job (kept in a heap), and one scheduling pass per timestamp after every
other event at that time. Completions at one time
are applied in the order they were scheduled (they free nodes, and the order decides where a
node goes in its bucket); arrivals and completions commute (one only queues jobs, the other
only frees GPUs). A pass starts queue heads in arrival order while they fit (strict
head-of-line blocking). A job of duration zero ends at its start time after the pass, which
then runs again at the same time. Events are counted as acmesim counts them.

Gang shape: a job takes ``nodes = max(node_num, ceil(gpus / gpus_per_node), 1)`` nodes; one node
means ``gpus`` GPUs of one node, more means that many *whole* free nodes.

Placement (nodes under leaf switches of ``nodes_per_leaf``, leaves under spines of
``leaves_per_spine``). Free nodes are kept in *buckets* by free-GPU count, each bucket in the
order its nodes entered it, and every leaf keeps its whole free nodes in the order they became
whole. A job that asks for more GPUs than are free is refused at once.

- One node, ``g`` GPUs: the first node of the lowest bucket ``g .. gpus_per_node - 1``; else a
  whole free node: the leaf with the fewest whole free nodes (lowest leaf on ties), its oldest.
- ``k`` whole nodes (refused if fewer are free): if some leaf has at least ``k``, the one with
  the fewest such (lowest index on ties), its ``k`` lowest-numbered whole free nodes. Otherwise
  leaves ranked by whole free nodes (most first, lowest index on ties); the fewest leaves that
  gather ``k`` from the front of that ranking is the target; among spines whose own ranked
  leaves reach ``k`` in that many, the one with the fewest whole free nodes in total (lowest
  index on ties) gives its leaves in ranked order; with no such spine, the whole ranking does.
  Nodes are drained leaf by leaf, lowest-numbered first.

Start-up latency: each job's first start waits ``startup`` seconds (an input, drawn by the
caller) plus, with ``launch_interval > 0``, its turn at a launcher that starts one job per
interval. Its start time is the pass time plus that wait; it ends ``run`` seconds later. All
time arithmetic is done in the same order as acmesim's, so equal inputs give bit-equal floats.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterable, Iterator, Sequence
from typing import NamedTuple

RefJob = tuple[float, float, int, int, float]
"""One GPU job: ``(submit s, run s, GPUs, recorded nodes, start-up latency s)``."""

_NOWHERE: list[int] = []
"""The nodes of a job that has not started."""


class Replay(NamedTuple):
    """What ``replay_fifo`` returns, per job in input order, plus the events processed."""

    starts: list[float]
    nodes: list[list[int]]
    """The nodes each job ran on, in allocation order."""
    events: int


class _Cluster:
    """Free GPUs per node, nodes bucketed by free count, whole free nodes per leaf, and the
    leaves grouped by their count of whole free nodes (one bit set of leaf indices per count)."""

    def __init__(self, nodes: int, gpus_per_node: int, nodes_per_leaf: int,
                 leaves_per_spine: int) -> None:
        self.full = gpus_per_node
        self.free = [gpus_per_node] * nodes
        self.free_total = nodes * gpus_per_node
        self.buckets: list[dict[int, None]] = [{} for _ in range(gpus_per_node + 1)]
        self.buckets[gpus_per_node] = dict.fromkeys(range(nodes))
        self.leaf_of = [node // nodes_per_leaf for node in range(nodes)]
        leaves = -(-nodes // nodes_per_leaf)
        self.per_spine = leaves_per_spine
        self.whole: list[dict[int, None]] = [
            dict.fromkeys(range(leaf * nodes_per_leaf, min(nodes, (leaf + 1) * nodes_per_leaf)))
            for leaf in range(leaves)]
        self.by_count = [0] * (nodes_per_leaf + 1)
        """``by_count[k]``: bit ``leaf`` set iff the leaf has exactly ``k`` whole free nodes."""
        for leaf, members in enumerate(self.whole):
            self.by_count[len(members)] |= 1 << leaf

    def _fewest_at_least(self, count: int) -> int | None:
        """The leaf with the fewest whole free nodes >= ``count`` (lowest index on ties)."""
        by_count = self.by_count
        for have in range(count, len(by_count)):
            leaves = by_count[have]
            if leaves:
                return (leaves & -leaves).bit_length() - 1
        return None

    def _ranked(self, least: int) -> Iterator[int]:
        """Leaves with at least ``least`` whole free nodes, most first, lowest index on ties."""
        by_count = self.by_count
        for have in range(len(by_count) - 1, least - 1, -1):
            leaves = by_count[have]
            while leaves:
                low = leaves & -leaves
                leaves ^= low
                yield low.bit_length() - 1

    def pick_node(self, gpus: int) -> int | None:
        """Best fit for one node's ``gpus``; a whole node from the emptiest leaf."""
        buckets = self.buckets
        for count in range(gpus, self.full):
            for node in buckets[count]:
                return node
        if not buckets[self.full]:
            return None
        leaf = self._fewest_at_least(1)
        assert leaf is not None
        for node in self.whole[leaf]:
            return node
        return None

    def _fewest(self, count: int) -> tuple[int, int]:
        """``(f, r)``: ``f`` leaves at the least gather ``count`` (fullest first), and the
        ``f``-th must add ``r``, so each leaf of an ``f``-leaf choice has at least ``r``."""
        leaves = nodes = 0
        for have in range(len(self.by_count) - 1, 0, -1):
            many = self.by_count[have].bit_count()
            if nodes + many * have >= count:
                more = -(-(count - nodes) // have)
                return leaves + more, count - nodes - (more - 1) * have
            leaves += many
            nodes += many * have
        raise AssertionError("fewer whole free nodes than asked for")

    def pick_whole(self, count: int) -> list[int] | None:
        """``count`` whole free nodes under the fewest leaves (a single spine if possible).

        A spine that gathers ``count`` in ``f`` of its leaves has a leaf with at least ``r``
        and at least ``count / f`` (see ``_fewest``): only spines with such a leaf are read."""
        if len(self.buckets[self.full]) < count:
            return None
        if count < len(self.by_count):
            leaf = self._fewest_at_least(count)
            if leaf is not None:
                return self._take(count, [leaf])
        fewest, least = self._fewest(count)
        best = None
        if fewest <= self.per_spine:
            per, whole, seen = self.per_spine, self.whole, 0
            for have in range(len(self.by_count) - 1, max(least, -(-count // fewest)) - 1, -1):
                leaves = self.by_count[have] & ~seen
                while leaves:
                    spine = ((leaves & -leaves).bit_length() - 1) // per
                    first = spine * per
                    mask = ((1 << per) - 1) << first
                    leaves &= ~mask
                    seen |= mask
                    own = [(len(whole[leaf]), leaf)
                           for leaf in range(first, min(len(whole), first + per))]
                    ranked = sorted(((n, leaf) for n, leaf in own if n),
                                    key=lambda item: (-item[0], item[1]))
                    total = sum(n for n, _ in own)
                    if ((best is None or (total, spine) < best[:2])
                            and sum(n for n, _ in ranked[:fewest]) >= count):
                        best = (total, spine, [leaf for _, leaf in ranked])
        return self._take(count, best[2] if best is not None else self._ranked(least))

    def _take(self, count: int, leaves: Iterable[int]) -> list[int]:
        """Whole free nodes from ``leaves`` in order, lowest-numbered first."""
        chosen: list[int] = []
        for leaf in leaves:
            chosen.extend(sorted(self.whole[leaf])[: count - len(chosen)])
            if len(chosen) == count:
                break
        return chosen

    def allocate(self, nodes: list[int], gpus: int) -> None:
        """Take ``gpus`` GPUs on each of ``nodes`` (in that order)."""
        free, buckets, full, whole = self.free, self.buckets, self.full, self.whole
        for node in nodes:
            before = free[node]
            del buckets[before][node]
            buckets[before - gpus][node] = None
            free[node] = before - gpus
            if before == full:
                leaf = self.leaf_of[node]
                members = whole[leaf]
                bit, have = 1 << leaf, len(members)
                del members[node]
                self.by_count[have] ^= bit
                self.by_count[have - 1] ^= bit
        self.free_total -= gpus * len(nodes)

    def release(self, nodes: list[int], gpus: int) -> None:
        """Give back ``gpus`` GPUs on each of ``nodes`` (in that order)."""
        free, buckets, full, whole = self.free, self.buckets, self.full, self.whole
        for node in nodes:
            before = free[node]
            after = before + gpus
            del buckets[before][node]
            buckets[after][node] = None
            free[node] = after
            if after == full:
                leaf = self.leaf_of[node]
                members = whole[leaf]
                bit, have = 1 << leaf, len(members)
                members[node] = None
                self.by_count[have] ^= bit
                self.by_count[have + 1] ^= bit
        self.free_total += gpus * len(nodes)


def _shapes(jobs: Sequence[RefJob], nodes: int, per_node: int) -> tuple[list[int], list[int]]:
    """Nodes and GPUs per node of every job; a clear error for one that can never fit."""
    for row, (_, run, gpus, _, startup) in enumerate(jobs):
        if gpus < 1 or not run >= 0 or not startup >= 0:
            raise ValueError(f"job {row}: needs gpus >= 1, run >= 0 and startup >= 0, got "
                             f"gpus={gpus}, run={run}, startup={startup}")
    needed = [max(node_num, -(-gpus // per_node), 1) for _, _, gpus, node_num, _ in jobs]
    widest = max(needed, default=0)
    if widest > nodes:
        row = needed.index(widest)
        raise ValueError(f"job {row}: needs {widest} nodes, the cluster has {nodes}")
    return needed, [job[2] if n == 1 else per_node for job, n in zip(jobs, needed, strict=True)]


def replay_fifo(jobs: Sequence[RefJob], nodes: int, gpus_per_node: int = 8, *,
                nodes_per_leaf: int = 16, leaves_per_spine: int = 8,
                launch_interval: float = 0.0) -> Replay:
    """Start time and nodes of every job under FIFO + consolidate, and the events processed.

    Jobs are taken in submission order, ties in input order.
    """
    count = len(jobs)
    needed, per = _shapes(jobs, nodes, gpus_per_node)
    submit = [job[0] for job in jobs]
    order = sorted(range(count), key=submit.__getitem__)
    cluster = _Cluster(nodes, gpus_per_node, nodes_per_leaf, leaves_per_spine)
    pick_node, pick_whole = cluster.pick_node, cluster.pick_whole
    allocate, release = cluster.allocate, cluster.release
    starts = [math.nan] * count
    placed: list[list[int]] = [_NOWHERE] * count
    heap: list[tuple[float, int]] = []
    """Completions as ``(end time, queue position)``: FIFO starts jobs in queue order, so the
    position is also the order the completions were scheduled in (acmesim's tie-break)."""
    first = cursor = 0  # the pending queue is order[first:cursor]
    events = 0
    launcher_free = 0.0
    push, pop = heapq.heappush, heapq.heappop
    while True:
        arrival = submit[order[cursor]] if cursor < count else math.inf
        if heap and heap[0][0] <= arrival:
            now = heap[0][0]
        elif cursor < count:
            now = arrival
        else:
            break
        while heap and heap[0][0] == now:
            job = order[pop(heap)[1]]
            release(placed[job], per[job])
            events += 1
        if arrival == now:
            while cursor < count and submit[order[cursor]] == now:
                cursor += 1
            events += 1
        events += 1  # the pass, after every event at this time
        free = cluster.free_total
        while first < cursor:
            head = order[first]
            size = per[head]
            if needed[head] == 1:
                node = pick_node(size) if size <= free else None
                chosen = None if node is None else [node]
            else:
                chosen = pick_whole(needed[head]) if needed[head] * size <= free else None
            if chosen is None:
                break
            allocate(chosen, size)
            free = cluster.free_total
            placed[head] = chosen
            wait = 0.0
            if launch_interval > 0.0:
                begin = max(now, launcher_free)
                launcher_free = begin + launch_interval
                wait = begin - now
            startup = wait + jobs[head][4]
            starts[head] = now + startup
            push(heap, (now + startup + jobs[head][1], first))
            first += 1
    return Replay(starts, placed, events)
