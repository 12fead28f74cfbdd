"""Cluster model: presets, topology, GPU bookkeeping and node health."""

from __future__ import annotations

import networkx as nx
import pytest

from acmesim.cluster import CLUSTERS, Cluster, ClusterSpec, NodeHealth, cluster_spec
from acmesim.core.errors import AcmesimError, ConfigError, UnknownNameError


def test_acme_presets_match_the_published_sizes():
    seren, kalos = cluster_spec("seren"), cluster_spec("kalos")
    assert (seren.nodes, seren.total_gpus) == (286, 2288)
    assert (kalos.nodes, kalos.total_gpus) == (302, 2416)
    assert seren.cpus_per_node == kalos.cpus_per_node == 128
    assert kalos.memory_per_node_gb == 2048.0
    assert seren.gpu_model == "A100-SXM-80GB"


def test_preset_options_override_defaults_and_unknown_names_list_valid_ones():
    assert cluster_spec("seren", {"nodes": 10}).nodes == 10
    with pytest.raises(UnknownNameError, match="kalos, seren, small, tiny"):
        cluster_spec("nope")
    with pytest.raises(ConfigError, match="nodes_per_leaf"):
        CLUSTERS.create("tiny", {"leaf_size": 3})


def test_spec_rejects_non_positive_sizes():
    with pytest.raises(ConfigError, match="nodes must be an integer >= 1"):
        ClusterSpec(name="x", nodes=0)


def test_topology_is_a_frozen_tree_with_configured_switch_sizes():
    spec = ClusterSpec(name="t", nodes=10, nodes_per_leaf=3, leaves_per_spine=2)
    topo = Cluster(spec).topology
    assert spec.leaves == 4 and spec.spines == 2
    assert topo.switches("leaf") == ["leaf00", "leaf01", "leaf02", "leaf03"]
    assert topo.nodes_under("leaf01") == [3, 4, 5]
    assert topo.nodes_under("leaf03") == [9]
    assert topo.nodes_under("spine01") == [6, 7, 8, 9]
    assert topo.nodes_under("core") == list(range(10))
    assert nx.is_tree(topo.graph.to_undirected())
    with pytest.raises(nx.NetworkXError):
        topo.graph.add_node("rogue")
    with pytest.raises(KeyError):
        topo.nodes_under("leaf99")


def test_allocate_takes_lowest_free_gpus_and_release_returns_them():
    cluster = Cluster(ClusterSpec(name="t", nodes=2))
    grant_a = cluster.allocate(1, ((0, 3),))
    grant_b = cluster.allocate(2, ((0, 2),))
    assert grant_a == ((0, 0b111),) and grant_b == ((0, 0b11000),)
    assert cluster.free == [3, 8] and cluster.free_total == 11
    assert list(cluster.buckets[3]) == [0] and cluster.busy_nodes == 1
    cluster.release(1, grant_a)
    assert cluster.free[0] == 6 and cluster.free_mask[0] == 0b11100111
    cluster.release(2, grant_b)
    assert cluster.free == [8, 8] and cluster.busy_nodes == 0 and cluster.allocated_gpus == 0


def test_allocation_that_double_books_or_repeats_a_node_is_rejected():
    cluster = Cluster(ClusterSpec(name="t", nodes=2))
    cluster.allocate(1, ((0, 6),))
    with pytest.raises(AcmesimError, match="asks 3 GPUs of node 0 which has 2 free"):
        cluster.allocate(2, ((0, 3),))
    with pytest.raises(AcmesimError, match="twice"):
        cluster.allocate(3, ((1, 1), (1, 1)))


def test_failed_node_leaves_the_buckets_and_reports_its_jobs():
    cluster = Cluster(ClusterSpec(name="t", nodes=2, nodes_per_leaf=2))
    grant = cluster.allocate(7, ((0, 2),))
    assert cluster.set_health(0, NodeHealth.FAILED) == [7]
    assert all(0 not in bucket for bucket in cluster.buckets)
    assert cluster.free_total == 8
    cluster.release(7, grant)
    assert cluster.free[0] == 8 and 0 not in cluster.whole_free_by_leaf[0]
    with pytest.raises(AcmesimError, match="failed"):
        cluster.allocate(8, ((0, 1),))
    cluster.set_health(0, NodeHealth.REPAIRING)
    cluster.set_health(0, NodeHealth.UP)
    assert 0 in cluster.buckets[8] and 0 in cluster.whole_free_by_leaf[0]
    assert cluster.free_total == 16


def test_draining_node_keeps_jobs_but_accepts_none():
    cluster = Cluster(ClusterSpec(name="t", nodes=1))
    cluster.allocate(1, ((0, 4),))
    assert cluster.set_health(0, "draining") == []
    assert cluster.free_total == 0 and not any(cluster.buckets)
    assert NodeHealth.DRAINING.keeps_jobs and not NodeHealth.DRAINING.accepts_jobs


GRAPH_PROBE = """
import sys
import acmesim
from acmesim.synth import generate_trace
result = acmesim.simulate(generate_trace("seren", days=1, seed=1), cluster="seren")
assert len(result.jobs) > 0
print(sorted({name.split(".")[0] for name in sys.modules} & {"networkx"}))
"""


def test_a_replay_without_switch_faults_never_builds_the_network_graph():
    """Placement reads the index tables only: networkx is imported when a switch is asked for."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", GRAPH_PROBE], capture_output=True, text=True,
                          check=True)
    assert done.stdout.splitlines()[-1] == "[]"
    topo = Cluster(ClusterSpec(name="t", nodes=4, nodes_per_leaf=2)).topology
    assert "graph" not in vars(topo)
    assert topo.nodes_under("leaf01") == [2, 3] and "graph" in vars(topo)
