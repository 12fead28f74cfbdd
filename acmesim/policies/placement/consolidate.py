"""Consolidate: fewest nodes and fewest leaf switches (the Lucid/Helios default, acme_facts §8).

Single-node jobs go best-fit (the node with the fewest free GPUs that fits); when only a whole
free node fits, it is taken from the leaf switch with the fewest whole free nodes, which keeps
large free leaves intact for gangs. Multi-node jobs
take whole free nodes under one leaf switch if any leaf has enough (the leaf with the fewest
sufficient free nodes, best fit); otherwise they drain the fullest leaves first, which uses the
fewest leaf switches, and among such choices prefer one that stays under a single spine.
"""

from __future__ import annotations

from acmesim.cluster.view import ClusterView
from acmesim.policies.placement import PLACEMENTS
from acmesim.policies.placement.base import Placement, leaves_by_free, take_from_leaves


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
        topology = cluster.topology
        ranked = leaves_by_free(cluster, range(topology.num_leaves))
        fewest = _leaves_needed(count, ranked)
        by_spine: dict[int, list[tuple[int, int]]] = {}
        for n, leaf in ranked:
            by_spine.setdefault(topology.spine_of_leaf[leaf], []).append((n, leaf))
        same = sorted((sum(n for n, _ in group), spine) for spine, group in by_spine.items()
                      if _leaves_needed(count, group) == fewest)
        if same:
            group = by_spine[same[0][1]]
            return take_from_leaves(count, [leaf for _, leaf in group], cluster)
        return take_from_leaves(count, [leaf for _, leaf in ranked], cluster)


def _lowest_leaf(cluster: ClusterView, least: int) -> int | None:
    """The leaf with the fewest whole free nodes among those with at least ``least`` (lowest
    index on a tie), or None: the least ``(whole free nodes, leaf)`` pair, with no leaf scan."""
    sets = cluster.leaves_by_whole_free
    for count in range(least, len(sets)):
        leaves = sets[count]
        if leaves:
            return (leaves & -leaves).bit_length() - 1
    return None


def _leaves_needed(count: int, ranked: list[tuple[int, int]]) -> int | None:
    """Leaves needed to gather ``count`` nodes from ``ranked`` (fullest first), or None."""
    total = 0
    for used, (n, _) in enumerate(ranked, start=1):
        total += n
        if total >= count:
            return used
    return None
