"""The placement interface and the shared search helpers of the shipped placements.

A placement picks concrete nodes for one GPU job: it returns an ``Allocation``, a tuple of
``(node index, GPUs on that node)`` pairs, or ``None`` when the job does not fit now. The
cluster then grants the lowest free GPU ids of each node. A single-node job takes
``job.per_node`` GPUs of one node; a multi-node job (``job.nodes_needed > 1``) takes that many
*whole* free nodes. Placements read a ``ClusterView`` and never mutate anything.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar, Protocol, runtime_checkable

from acmesim.cluster.cluster import Allocation
from acmesim.cluster.view import ClusterView, JobInfo


@runtime_checkable
class PlacementProtocol(Protocol):
    """What the engine calls on a placement (``placement=NAME``, registry ``PLACEMENTS``).

    Built as ``cls(config)``. ``place`` whenever a scheduler asks to start a GPU job (and to
    test ``view.fits``); the engine checks the answer has the job's gang shape (see the module
    docstring) and grants it at once, so a placement never changes anything itself.
    """

    def place(self, job: JobInfo, cluster: ClusterView) -> Allocation | None:
        """Nodes (and GPUs on each) for ``job``, or None if it cannot be placed now."""
        ...


class Placement(PlacementProtocol):
    """Base class of every placement plug-in (register with ``PLACEMENTS.register``)."""

    registry_name: ClassVar[str] = "placement"

    def __init__(self, config: Any = None) -> None:
        self.config = config

    def place(self, job: JobInfo, cluster: ClusterView) -> Allocation | None:
        """Nodes (and GPUs on each) for ``job``, or None if it cannot be placed now."""
        if job.nodes_needed == 1:
            node = self.pick_node(job.per_node, cluster)
            return None if node is None else ((node, job.per_node),)
        if len(cluster.free_by_count[cluster.gpus_per_node]) < job.nodes_needed:
            return None
        nodes = self.pick_whole_nodes(job.nodes_needed, cluster)
        if nodes is None:
            return None
        gpus = cluster.gpus_per_node
        return tuple((node, gpus) for node in nodes)

    def pick_node(self, gpus: int, cluster: ClusterView) -> int | None:
        """One UP node with at least ``gpus`` free GPUs, or None (single-node jobs)."""
        return best_fit_node(gpus, cluster)

    def pick_whole_nodes(self, count: int, cluster: ClusterView) -> list[int] | None:
        """``count`` whole free nodes (at least that many exist), or None."""
        raise NotImplementedError


def best_fit_node(gpus: int, cluster: ClusterView) -> int | None:
    """The node with the fewest free GPUs that still fits ``gpus`` (oldest in its bucket)."""
    buckets = cluster.free_by_count
    for count in range(gpus, cluster.gpus_per_node + 1):
        for node in buckets[count]:
            return node
    return None


def worst_fit_node(gpus: int, cluster: ClusterView) -> int | None:
    """The node with the most free GPUs (oldest in its bucket), if it fits ``gpus``."""
    buckets = cluster.free_by_count
    for count in range(cluster.gpus_per_node, gpus - 1, -1):
        for node in buckets[count]:
            return node
    return None


def leaves_by_free(cluster: ClusterView, leaves: Iterable[int]) -> list[tuple[int, int]]:
    """``(whole free nodes, leaf)`` of ``leaves`` with at least one, most free first."""
    by_leaf = cluster.whole_free_by_leaf
    counts = [(len(by_leaf[leaf]), leaf) for leaf in leaves]
    return sorted(((n, leaf) for n, leaf in counts if n), key=lambda item: (-item[0], item[1]))


def take_from_leaves(count: int, leaves: Iterable[int], cluster: ClusterView) -> list[int]:
    """Up to ``count`` whole free nodes, draining ``leaves`` in the given order (lowest first)."""
    chosen: list[int] = []
    for leaf in leaves:
        free = sorted(cluster.whole_free_by_leaf[leaf])
        chosen.extend(free[: count - len(chosen)])
        if len(chosen) == count:
            break
    return chosen
