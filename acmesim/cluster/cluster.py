"""The mutable state of a modeled cluster: free GPUs per node, GPU ownership and node health.

Only the engine mutates a ``Cluster``; policies see it through ``acmesim.cluster.view.ClusterView``.
Free GPUs are tracked three ways kept in step on every change: a count and a bit mask per node,
and *buckets* (nodes grouped by their free-GPU count, UP nodes only), so best-fit placement is
O(GPUs per node) instead of a scan of every node. Whole free nodes are also kept per leaf switch,
and the leaves per count of whole free nodes (``leaves_by_whole_free``, one bit set of leaf
indices per count), so a placement finds the leaf with the fewest (or enough) whole free nodes
without a scan of every leaf; each spine's count of whole free nodes is kept too.
"""

from __future__ import annotations

from collections.abc import Sequence

from acmesim.cluster.health import NodeHealth
from acmesim.cluster.spec import ClusterSpec
from acmesim.cluster.topology import Topology
from acmesim.core.errors import AcmesimError

Allocation = tuple[tuple[int, int], ...]
"""What a placement returns: ``(node index, GPUs on that node)`` pairs."""

Grant = tuple[tuple[int, int], ...]
"""What the cluster hands a started job: ``(node index, bit mask of its GPUs)`` pairs."""

_UP = NodeHealth.UP
"""The health that accepts jobs (a module constant: read on every allocation and release)."""


def _lowest_bits(mask: int, count: int) -> int:
    """The ``count`` lowest set bits of ``mask``."""
    taken = 0
    for _ in range(count):
        bit = mask & -mask
        taken |= bit
        mask ^= bit
    return taken


def _lowest_bits_table(gpus: int) -> list[list[int]] | None:
    """``table[mask][count]`` = the ``count`` lowest set bits of ``mask`` (small nodes only)."""
    if gpus > 10:
        return None
    return [[_lowest_bits(mask, count) for count in range(gpus + 1)]
            for mask in range(1 << gpus)]


class Cluster:
    """Free and allocated GPUs of every node, node health, and per-node job ownership."""

    def __init__(self, spec: ClusterSpec) -> None:
        self.spec = spec
        self.topology = Topology(spec)
        size, gpus = spec.nodes, spec.gpus_per_node
        self.gpus_per_node = gpus
        self.full_mask = (1 << gpus) - 1
        self.free: list[int] = [gpus] * size
        self.free_mask: list[int] = [self.full_mask] * size
        self.health: list[NodeHealth] = [NodeHealth.UP] * size
        self.buckets: list[dict[int, None]] = [{} for _ in range(gpus + 1)]
        self.buckets[gpus] = dict.fromkeys(range(size))
        self.whole_free_by_leaf: list[dict[int, None]] = [
            dict.fromkeys(nodes) for nodes in self.topology.nodes_of_leaf
        ]
        self.leaves_by_whole_free: list[int] = [0] * (spec.nodes_per_leaf + 1)
        """``leaves_by_whole_free[k]``: bit ``leaf`` set iff leaf ``leaf`` has exactly ``k`` whole
        free nodes (``len(whole_free_by_leaf[leaf]) == k``)."""
        for leaf, nodes in enumerate(self.whole_free_by_leaf):
            self.leaves_by_whole_free[len(nodes)] |= 1 << leaf
        self.whole_free_by_spine: list[int] = [
            sum(len(self.whole_free_by_leaf[leaf]) for leaf in leaves)
            for leaves in self.topology.leaves_of_spine]
        """``whole_free_by_spine[spine]``: whole free nodes under ``spine`` (its leaves' sum)."""
        self._spine_of_node: tuple[int, ...] = tuple(
            self.topology.spine_of_leaf[leaf] for leaf in self.topology.leaf_of)
        self.jobs_on_node: list[dict[int, int]] = [{} for _ in range(size)]
        self.free_total = size * gpus
        self.allocated_gpus = 0
        self.busy_nodes = 0
        self.version = 0
        self._lowest = _lowest_bits_table(gpus)

    @property
    def num_nodes(self) -> int:
        """Number of GPU nodes."""
        return len(self.free)

    @property
    def total_gpus(self) -> int:
        """GPUs in the cluster, whatever their health."""
        return len(self.free) * self.gpus_per_node

    def _unlist(self, node: int) -> None:
        """Remove an UP node from the free-count bucket and leaf tables (health changes)."""
        count = self.free[node]
        del self.buckets[count][node]
        if count == self.gpus_per_node:
            self._take_whole(node)
        self.free_total -= count

    def _list(self, node: int) -> None:
        """Add an UP node to the free-count bucket and leaf tables."""
        count = self.free[node]
        self.buckets[count][node] = None
        if count == self.gpus_per_node:
            self._put_whole(node)
        self.free_total += count

    def _take_whole(self, node: int) -> None:
        """Node ``node`` stops being a whole free node of its leaf."""
        leaf = self.topology.leaf_of[node]
        nodes = self.whole_free_by_leaf[leaf]
        count = len(nodes)
        del nodes[node]
        bit, sets = 1 << leaf, self.leaves_by_whole_free
        sets[count] ^= bit
        sets[count - 1] ^= bit
        self.whole_free_by_spine[self._spine_of_node[node]] -= 1

    def _put_whole(self, node: int) -> None:
        """Node ``node`` becomes a whole free node of its leaf."""
        leaf = self.topology.leaf_of[node]
        nodes = self.whole_free_by_leaf[leaf]
        count = len(nodes)
        nodes[node] = None
        bit, sets = 1 << leaf, self.leaves_by_whole_free
        sets[count] ^= bit
        sets[count + 1] ^= bit
        self.whole_free_by_spine[self._spine_of_node[node]] += 1

    def allocate(self, job: int, allocation: Allocation) -> Grant:
        """Grant job ``job`` the GPUs of ``allocation``; the lowest free GPU ids are chosen."""
        if len(allocation) > 1:
            self._check_distinct(job, allocation)
        gpus, free, masks, buckets = self.gpus_per_node, self.free, self.free_mask, self.buckets
        health, table, owners = self.health, self._lowest, self.jobs_on_node
        grants = []
        total = 0
        for node, count in allocation:
            if node < 0 or node >= len(free) or health[node] is not _UP or not 0 < count <= (
                    before := free[node]):
                self._reject(job, node, count, allocation)
            after = before - count
            del buckets[before][node]
            buckets[after][node] = None
            if before == gpus:
                self._take_whole(node)
                self.busy_nodes += 1
            held = masks[node]
            mask = table[held][count] if table is not None else _lowest_bits(held, count)
            masks[node] = held ^ mask
            free[node] = after
            owners[node][job] = mask
            total += count
            grants.append((node, mask))
        self.free_total -= total
        self.allocated_gpus += total
        self.version += 1
        return tuple(grants)

    def _check_distinct(self, job: int, allocation: Allocation) -> None:
        """Reject an allocation that names a node twice."""
        nodes = [node for node, _ in allocation]
        if len(set(nodes)) != len(nodes):
            raise AcmesimError(f"allocation for job {job} names a node twice: {allocation}")

    def _reject(self, job: int, node: int, count: int, allocation: Allocation) -> None:
        """Raise the error explaining why ``(node, count)`` cannot be granted."""
        if not 0 <= node < len(self.free):
            raise AcmesimError(f"allocation for job {job} names node {node} outside "
                               f"0..{len(self.free) - 1}: {allocation}")
        if self.health[node] is not NodeHealth.UP:
            raise AcmesimError(f"allocation for job {job} uses node {node} which is "
                               f"{self.health[node]}")
        raise AcmesimError(f"allocation for job {job} asks {count} GPUs of node {node} "
                           f"which has {self.free[node]} free")

    def release(self, job: int, grants: Grant) -> None:
        """Return every GPU of ``grants`` held by job ``job`` at once."""
        gpus, free, masks, buckets = self.gpus_per_node, self.free, self.free_mask, self.buckets
        health, owners = self.health, self.jobs_on_node
        total = 0
        for node, mask in grants:
            count = mask.bit_count()
            before = free[node]
            after = before + count
            del owners[node][job]
            masks[node] |= mask
            free[node] = after
            total += count
            if after == gpus:
                self.busy_nodes -= 1
            if health[node] is _UP:
                del buckets[before][node]
                buckets[after][node] = None
                self.free_total += count
                if after == gpus:
                    self._put_whole(node)
        self.allocated_gpus -= total
        self.version += 1

    def set_health(self, node: int, health: NodeHealth) -> list[int]:
        """Change node ``node``'s health; returns the jobs on it that must stop (in id order).

        The caller (the engine) interrupts those jobs, which releases their GPUs.
        """
        health = NodeHealth(health)
        old = self.health[node]
        if old is NodeHealth.UP and health is not NodeHealth.UP:
            self._unlist(node)
        elif old is not NodeHealth.UP and health is NodeHealth.UP:
            self.health[node] = health
            self._list(node)
        self.health[node] = health
        self.version += 1
        if health.keeps_jobs:
            return []
        return sorted(self.jobs_on_node[node])

    def up_nodes(self) -> list[int]:
        """Indices of the nodes that accept jobs."""
        return [i for i, h in enumerate(self.health) if h is NodeHealth.UP]

    def nodes_of(self, grants: Grant) -> Sequence[int]:
        """The node indices of a grant."""
        return tuple(node for node, _ in grants)
