"""The per-count leaf sets and per-spine counts of whole free nodes stay exact, and
consolidate's picks equal a scan."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from acmesim.cluster import Cluster, ClusterSpec, NodeHealth
from acmesim.cluster.view import ClusterView
from acmesim.policies.placement import PLACEMENTS

NODES, PER_LEAF = 14, 4  # four leaves, the last one partly filled


def _sets_by_scan(cluster: Cluster) -> list[int]:
    """The leaf sets recomputed from ``whole_free_by_leaf``."""
    sets = [0] * (PER_LEAF + 1)
    for leaf, nodes in enumerate(cluster.whole_free_by_leaf):
        sets[len(nodes)] |= 1 << leaf
    return sets


def _whole_pick_by_scan(cluster: Cluster, least: int) -> int | None:
    """The leaf with the fewest whole free nodes among those with >= ``least`` (lowest index)."""
    counts = [(len(nodes), leaf) for leaf, nodes in enumerate(cluster.whole_free_by_leaf)
              if len(nodes) >= least]
    return min(counts)[1] if counts else None


steps = st.lists(st.tuples(st.sampled_from(["take", "free", "down", "up"]),
                           st.integers(0, NODES - 1), st.integers(1, 8)), max_size=40)


@settings(max_examples=80, deadline=None, database=None)
@given(steps, st.integers(1, 4))
def test_leaf_sets_follow_every_change_and_picks_match_a_scan(ops, gang):
    cluster = Cluster(ClusterSpec(name="t", nodes=NODES, nodes_per_leaf=PER_LEAF,
                                  leaves_per_spine=2))
    view, placer = ClusterView(cluster), PLACEMENTS.create("consolidate")
    held: dict[int, tuple] = {}
    for job, (op, node, gpus) in enumerate(ops):
        up = cluster.health[node] is NodeHealth.UP
        if op == "take" and up and cluster.free[node] >= gpus:
            held[job] = cluster.allocate(job, ((node, gpus),))
        elif op == "free" and held:
            owner = min(held)
            cluster.release(owner, held.pop(owner))
        elif op == "down" and up and not cluster.jobs_on_node[node]:
            cluster.set_health(node, NodeHealth.FAILED)
        elif op == "up" and not up:
            cluster.set_health(node, NodeHealth.UP)
        assert cluster.leaves_by_whole_free == _sets_by_scan(cluster)
        assert cluster.whole_free_by_spine == [
            sum(len(cluster.whole_free_by_leaf[leaf]) for leaf in leaves)
            for leaves in cluster.topology.leaves_of_spine]
    if cluster.buckets[8] and not any(cluster.buckets[k] for k in range(1, 8)):
        leaf = _whole_pick_by_scan(cluster, 1)
        assert placer.pick_node(1, view) == next(iter(cluster.whole_free_by_leaf[leaf]))
    if gang > 1 and len(cluster.buckets[8]) >= gang:
        leaf = _whole_pick_by_scan(cluster, gang)
        nodes = placer.pick_whole_nodes(gang, view)
        if leaf is not None:
            assert nodes == sorted(cluster.whole_free_by_leaf[leaf])[:gang]
        else:
            assert len(set(nodes)) == gang


def _gang_by_ranking(cluster: Cluster, count: int) -> list[int]:
    """Consolidate's multi-leaf rule as its docs state it, by ranking every leaf: leaves by
    whole free nodes (most first, lowest index on a tie); the fewest leaves that gather
    ``count`` from the front; among spines whose own ranked leaves gather it in that many, the
    one with the fewest whole free nodes (lowest on a tie); else the whole ranking. Drained in
    order, lowest-numbered nodes first."""
    by_leaf = cluster.whole_free_by_leaf
    ranked = sorted((leaf for leaf in range(len(by_leaf)) if by_leaf[leaf]),
                    key=lambda leaf: (-len(by_leaf[leaf]), leaf))

    def needed(leaves):
        total = 0
        for used, leaf in enumerate(leaves, start=1):
            total += len(by_leaf[leaf])
            if total >= count:
                return used
        return None

    fewest = needed(ranked)
    groups: dict[int, list[int]] = {}
    for leaf in ranked:
        groups.setdefault(cluster.topology.spine_of_leaf[leaf], []).append(leaf)
    able = sorted((sum(len(by_leaf[leaf]) for leaf in group), spine)
                  for spine, group in groups.items() if needed(group) == fewest)
    order = groups[able[0][1]] if able else ranked
    chosen: list[int] = []
    for leaf in order:
        chosen.extend(sorted(by_leaf[leaf])[: count - len(chosen)])
    return chosen


@settings(max_examples=150, deadline=None, database=None)
@given(st.integers(3, 5), st.integers(2, 3), st.integers(20, 60), st.data())
def test_multi_leaf_gangs_match_a_ranking_of_every_leaf(per_leaf, per_spine, nodes, data):
    cluster = Cluster(ClusterSpec(name="t", nodes=nodes, nodes_per_leaf=per_leaf,
                                  leaves_per_spine=per_spine))
    busy = data.draw(st.sets(st.integers(0, nodes - 1), max_size=nodes - 2))
    for job, node in enumerate(sorted(busy)):
        cluster.allocate(job, ((node, 1),))
    view, placer = ClusterView(cluster), PLACEMENTS.create("consolidate")
    whole = len(cluster.buckets[8])
    gang = data.draw(st.integers(per_leaf + 1, max(per_leaf + 1, whole)))
    if gang <= whole:
        assert placer.pick_whole_nodes(gang, view) == _gang_by_ranking(cluster, gang)
    else:
        assert placer.pick_whole_nodes(gang, view) is None
