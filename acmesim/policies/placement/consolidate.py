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

    Such a spine's fullest leaf has at least ``least`` (see ``_fewest_leaves``) and at least
    ``count / fewest`` whole free nodes, so only spines with such a leaf are read: each once,
    found off the per-count leaf sets (its other leaves masked out once it is read); a spine
    whose whole free nodes (kept by the cluster) cannot gather ``count`` or beat the best so
    far is not ranked."""
    topology, sets = cluster.topology, cluster.leaves_by_whole_free
    totals = cluster.whole_free_by_spine
    block = (1 << topology.leaves_per_spine) - 1
    seen = 0
    best: tuple[int, int, list[int]] | None = None
    for have in range(len(sets) - 1, max(least, -(-count // fewest)) - 1, -1):
        leaves = sets[have] & ~seen
        while leaves:
            spine = topology.spine_of_leaf[(leaves & -leaves).bit_length() - 1]
            own = topology.leaves_of_spine[spine]
            mask = block << own.start
            leaves &= ~mask
            seen |= mask
            total = totals[spine]
            if total < count or (best is not None and (total, spine) > best[:2]):
                continue
            ranked = _spine_ranking(cluster, own)
            if sum(n for n, _ in ranked[:fewest]) >= count:
                best = (total, spine, [leaf for _, leaf in ranked])
    return None if best is None else best[2]


def _spine_ranking(cluster: ClusterView, leaves: range) -> list[tuple[int, int]]:
    """``(whole free nodes, leaf)`` of those of ``leaves`` (one spine's) with any, most first
    (lowest index on a tie)."""
    by_leaf = cluster.whole_free_by_leaf
    counts = [(len(by_leaf[leaf]), leaf) for leaf in leaves]
    return sorted((item for item in counts if item[0]), key=lambda item: (-item[0], item[1]))
