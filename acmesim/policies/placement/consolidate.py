"""Consolidate: fewest nodes and fewest leaf switches (the Lucid/Helios default, acme_facts §8).

Single-node jobs go best-fit (the node with the fewest free GPUs that fits); when only a whole
free node fits, it is taken from the leaf switch with the fewest whole free nodes, which keeps
large free leaves intact for gangs. Multi-node jobs
take whole free nodes under one leaf switch if any leaf has enough (the leaf with the fewest
sufficient free nodes, best fit); otherwise they drain the fullest leaves first, which uses the
fewest leaf switches, and among such choices prefer one that stays under a single spine.
"""

from __future__ import annotations

from collections.abc import Iterator

from acmesim.cluster.view import ClusterView
from acmesim.policies.placement import PLACEMENTS
from acmesim.policies.placement.base import Placement, take_from_leaves


@PLACEMENTS.register("consolidate")
class Consolidate(Placement):
    """Pack jobs onto as few nodes and leaf switches as possible."""

    def pick_node(self, gpus: int, cluster: ClusterView) -> int | None:
        """Best fit; a whole free node comes from the leaf with the fewest whole free nodes."""
        buckets = cluster.free_by_count
        for count in range(gpus, cluster.gpus_per_node):
            for node in buckets[count]:
                return node
        if not buckets[cluster.gpus_per_node]:
            return None
        leaf = _lowest_leaf(cluster, 1)
        if leaf is None:
            return None
        for node in cluster.whole_free_by_leaf[leaf]:
            return node
        return None

    def pick_whole_nodes(self, count: int, cluster: ClusterView) -> list[int] | None:
        """Whole free nodes under the fewest leaf switches, preferring a single spine."""
        leaf = _lowest_leaf(cluster, count)
        if leaf is not None:
            return take_from_leaves(count, [leaf], cluster)
        need = _fewest_leaves(cluster, count)
        if need is None:
            return None
        fewest, least = need
        if fewest <= cluster.topology.leaves_per_spine:
            group = _best_spine(cluster, count, fewest, least)
            if group is not None:
                return take_from_leaves(count, group, cluster)
        return take_from_leaves(count, _ranked(cluster, least), cluster)


def _lowest_leaf(cluster: ClusterView, least: int) -> int | None:
    """The leaf with the fewest whole free nodes among those with at least ``least`` (lowest
    index on a tie), or None: the least ``(whole free nodes, leaf)`` pair, with no leaf scan."""
    sets = cluster.leaves_by_whole_free
    for count in range(least, len(sets)):
        leaves = sets[count]
        if leaves:
            return (leaves & -leaves).bit_length() - 1
    return None


def _ranked(cluster: ClusterView, least: int) -> Iterator[int]:
    """Leaves with at least ``least`` whole free nodes, most first (lowest index on a tie),
    read off the per-count leaf sets: no scan of the leaves with fewer."""
    sets = cluster.leaves_by_whole_free
    for have in range(len(sets) - 1, max(least, 1) - 1, -1):
        leaves = sets[have]
        while leaves:
            low = leaves & -leaves
            leaves ^= low
            yield low.bit_length() - 1


def _fewest_leaves(cluster: ClusterView, count: int) -> tuple[int, int] | None:
    """``(f, r)``: ``f`` leaves at the least gather ``count`` whole free nodes (taking the
    fullest first); ``r`` is what the ``f``-th of them must still add, so every leaf of an
    ``f``-leaf choice has at least ``r`` whole free nodes. None if fewer than ``count`` are free."""
    sets = cluster.leaves_by_whole_free
    leaves = nodes = 0
    for have in range(len(sets) - 1, 0, -1):
        many = sets[have].bit_count()
        if nodes + many * have >= count:
            more = -(-(count - nodes) // have)
            return leaves + more, count - nodes - (more - 1) * have
        leaves += many
        nodes += many * have
    return None


def _best_spine(cluster: ClusterView, count: int, fewest: int, least: int) -> list[int] | None:
    """The ranked leaves of the spine that gathers ``count`` in ``fewest`` of its own leaves
    with the fewest whole free nodes in all (lowest spine on a tie), or None if no spine can.

    Only leaves with at least ``least`` whole free nodes can be among those ``fewest`` (see
    ``_fewest_leaves``), so only they are read, fullest first."""
    spine_of = cluster.topology.spine_of_leaf
    gathered: dict[int, tuple[int, list[int]]] = {}
    able: list[int] = []
    for leaf in _ranked(cluster, least):
        spine = spine_of[leaf]
        nodes, leaves = gathered.get(spine, (0, []))
        if nodes >= count or len(leaves) == fewest:
            continue
        leaves.append(leaf)
        nodes += len(cluster.whole_free_by_leaf[leaf])
        gathered[spine] = (nodes, leaves)
        if nodes >= count:
            able.append(spine)
    if not able:
        return None
    chosen = min(able, key=lambda spine: (_spine_whole_free(cluster, spine), spine))
    return gathered[chosen][1]


def _spine_whole_free(cluster: ClusterView, spine: int) -> int:
    """Whole free nodes under spine ``spine``."""
    by_leaf = cluster.whole_free_by_leaf
    return sum(len(by_leaf[leaf]) for leaf in cluster.topology.leaves_of_spine[spine])
