"""First fit: the lowest-numbered nodes that fit, with no regard to load or locality."""

from __future__ import annotations

import itertools

from acmesim.cluster.health import NodeHealth
from acmesim.cluster.view import ClusterView
from acmesim.policies.placement import PLACEMENTS
from acmesim.policies.placement.base import Placement


@PLACEMENTS.register("first_fit", "firstfit")
class FirstFit(Placement):
    """Lowest node index first (a scan of the nodes; simple, not the fastest)."""

    def pick_node(self, gpus: int, cluster: ClusterView) -> int | None:
        """The lowest-numbered UP node with ``gpus`` free GPUs."""
        free = cluster.free_gpus_per_node
        for node in range(cluster.num_nodes):
            if free[node] >= gpus and cluster.health(node) is NodeHealth.UP:
                return node
        return None

    def pick_whole_nodes(self, count: int, cluster: ClusterView) -> list[int] | None:
        """The ``count`` lowest-numbered whole free nodes."""
        return list(itertools.islice(sorted(cluster.whole_free_nodes()), count))
