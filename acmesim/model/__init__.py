"""The cluster model: specs and presets, network topology, node health, mutable state, views."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from acmesim.model.cluster import Allocation, Cluster, Grant
from acmesim.model.health import NodeHealth
from acmesim.model.presets import CLUSTERS
from acmesim.model.spec import ClusterSpec
from acmesim.model.topology import Topology

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
