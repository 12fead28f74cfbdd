"""Placement policies: best/worst/first fit for single-node jobs, locality for gangs."""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acmesim.cluster import Cluster, ClusterSpec, NodeHealth
from acmesim.cluster.view import ClusterView
from acmesim.core.errors import UnknownNameError
from acmesim.policies.placement import PLACEMENTS


def _cluster(nodes=8, per_leaf=2, per_spine=2, busy=()):
    """A cluster with ``busy`` = [(node, gpus taken), ...] already allocated."""
    cluster = Cluster(ClusterSpec(name="t", nodes=nodes, nodes_per_leaf=per_leaf,
                                  leaves_per_spine=per_spine))
    for i, (node, gpus) in enumerate(busy):
        cluster.allocate(1000 + i, ((node, gpus),))
    return cluster


def _job(gpus, nodes=1, gpus_per_node=8):
    whole = nodes > 1
    return SimpleNamespace(gpu_num=gpus, nodes_needed=nodes,
                           per_node=gpus_per_node if whole else gpus)


def _place(name, cluster, job):
    return PLACEMENTS.create(name).place(job, ClusterView(cluster))


def test_registry_lists_the_shipped_placements():
    assert {"consolidate", "spread", "first_fit"} <= set(PLACEMENTS.names())
    with pytest.raises(UnknownNameError, match=", ".join(PLACEMENTS.names())):
        PLACEMENTS.create("nearest")


def test_single_node_jobs_best_fit_worst_fit_and_first_fit():
    # free GPUs: node0 8, node1 3, node2 5, node3 8
    cluster = _cluster(nodes=4, busy=[(1, 5), (2, 3)])
    assert _place("consolidate", cluster, _job(3)) == ((1, 3),)
    assert _place("consolidate", cluster, _job(4)) == ((2, 4),)
    assert _place("spread", cluster, _job(2)) in (((0, 2),), ((3, 2),))
    assert _place("first_fit", cluster, _job(4)) == ((0, 4),)
    assert _place("first_fit", cluster, _job(9)) is None


def test_consolidate_gang_prefers_the_leaf_that_fits_best():
    # leaves of 2 nodes: leaf0 {0,1} whole free, leaf1 {2} (3 busy), leaf2 {4,5}, leaf3 {}
    cluster = _cluster(nodes=8, busy=[(3, 1), (6, 1), (7, 1)])
    allocation = _place("consolidate", cluster, _job(8, nodes=1))
    assert allocation == ((2, 8),)  # single-node 8-GPU job: best fit is any whole node
    gang = _place("consolidate", cluster, _job(16, nodes=2))
    assert [n for n, _ in gang] == [0, 1]
    assert all(g == 8 for _, g in gang)


def test_consolidate_gang_uses_fewest_leaves_and_one_spine_when_possible():
    # 4 leaves x 4 nodes, 2 leaves per spine. whole free: leaf0 3, leaf1 1, leaf2 2, leaf3 2
    busy = [(0, 1), (4, 1), (5, 1), (6, 1), (8, 1), (9, 1), (12, 1), (13, 1)]
    cluster = _cluster(nodes=16, per_leaf=4, per_spine=2, busy=busy)
    gang = [n for n, _ in _place("consolidate", cluster, _job(32, nodes=4))]
    leaves = {cluster.topology.leaf_of[n] for n in gang}
    assert leaves in ({0, 1}, {2, 3})  # two leaves, both under one spine
    gang5 = [n for n, _ in _place("consolidate", cluster, _job(40, nodes=5))]
    assert sorted({cluster.topology.leaf_of[n] for n in gang5}) in ([0, 2], [0, 3])


def test_consolidate_prefers_one_spine_only_at_equal_leaf_count():
    # 4 leaves x 4 nodes, 2 leaves per spine. whole free: leaf0 3, leaf1 1, leaf2 2, leaf3 0
    busy = [(0, 1), (4, 1), (5, 1), (6, 1), (8, 1), (9, 1)] + [(n, 1) for n in range(12, 16)]
    cluster = _cluster(nodes=16, per_leaf=4, per_spine=2, busy=busy)
    gang = [n for n, _ in _place("consolidate", cluster, _job(32, nodes=4))]
    # fullest-first would take leaf0 + leaf2 (two spines); leaf0 + leaf1 is also two leaves
    assert sorted(gang) == [1, 2, 3, 7]
    gang2 = [n for n, _ in _place("consolidate", cluster, _job(16, nodes=2))]
    assert sorted(gang2) == [10, 11]  # best-fitting single leaf


def test_spread_gang_touches_as_many_leaves_as_it_can():
    cluster = _cluster(nodes=8)
    gang = [n for n, _ in _place("spread", cluster, _job(32, nodes=4))]
    assert len({cluster.topology.leaf_of[n] for n in gang}) == 4


def test_gang_that_does_not_fit_is_none_and_down_nodes_are_never_used():
    cluster = _cluster(nodes=4)
    cluster.set_health(0, NodeHealth.FAILED)
    for name in ("consolidate", "spread", "first_fit"):
        assert _place(name, cluster, _job(32, nodes=4)) is None
        gang = _place(name, cluster, _job(24, nodes=3))
        assert sorted(n for n, _ in gang) == [1, 2, 3]
        assert _place(name, cluster, _job(1))[0][0] != 0


def _min_leaves(cluster, count):
    """Brute force: the fewest leaves whose whole free nodes add up to ``count``."""
    sizes = [len(d) for d in cluster.whole_free_by_leaf]
    for k in range(1, len(sizes) + 1):
        if any(sum(c) >= count for c in itertools.combinations(sizes, k)):
            return k
    return None


states = st.lists(st.tuples(st.integers(0, 11), st.integers(1, 8)), max_size=12)


@settings(max_examples=60, deadline=None, database=None)
@given(states, st.integers(1, 8), st.integers(1, 6), st.sampled_from(["consolidate", "spread",
                                                                      "first_fit"]))
def test_placements_are_valid_and_only_fail_when_nothing_fits(busy, gpus, gang, name):
    cluster = _cluster(nodes=12, per_leaf=3, per_spine=2)
    for i, (node, want) in enumerate(busy):
        take = min(want, cluster.free[node])
        if take:
            cluster.allocate(i, ((node, take),))
    single = _place(name, cluster, _job(gpus))
    if single is None:
        assert max(cluster.free) < gpus
    else:
        (node, got), = single
        assert got == gpus and cluster.free[node] >= gpus
    multi = _place(name, cluster, _job(8 * gang, nodes=gang))
    whole = [n for n in range(12) if cluster.free[n] == 8]
    if multi is None:
        assert len(whole) < gang
    else:
        nodes = [n for n, _ in multi]
        assert len(set(nodes)) == gang and set(nodes) <= set(whole)
        if name == "consolidate":
            used = {cluster.topology.leaf_of[n] for n in nodes}
            assert len(used) == _min_leaves(cluster, gang)
