"""The cluster model: specs and presets, network topology, node health, mutable state, views."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from acmesim.cluster.cluster import Allocation, Cluster, Grant
from acmesim.cluster.health import NodeHealth
from acmesim.cluster.presets import CLUSTERS
from acmesim.cluster.spec import ClusterSpec
from acmesim.cluster.topology import Topology

__all__ = [
    "CLUSTERS", "Allocation", "Cluster", "ClusterSpec", "Grant", "NodeHealth", "Topology",
    "cluster_spec",
]


def cluster_spec(cluster: ClusterSpec | str, options: Mapping[str, Any] | None = None
                 ) -> ClusterSpec:
    """A ``ClusterSpec`` from a spec (returned as is) or a preset name plus options."""
    if isinstance(cluster, ClusterSpec):
        return cluster
    return CLUSTERS.create(cluster, options).spec
