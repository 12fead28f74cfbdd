"""Spread: put jobs where the most capacity is free, and spread gangs over leaf switches.

Single-node jobs go worst-fit (the node with the most free GPUs). Multi-node jobs take whole
free nodes round-robin over the leaf switches, fullest-of-free first, one node per leaf per
round, so a gang touches as many leaves as it can.
"""

from __future__ import annotations

from acmesim.cluster.view import ClusterView
from acmesim.policies.placement import PLACEMENTS
from acmesim.policies.placement.base import Placement, leaves_by_free, worst_fit_node


@PLACEMENTS.register("spread")
class Spread(Placement):
    """Balance load: worst-fit nodes, gangs spread across leaf switches."""

    def pick_node(self, gpus: int, cluster: ClusterView) -> int | None:
        """The node with the most free GPUs."""
        return worst_fit_node(gpus, cluster)

    def pick_whole_nodes(self, count: int, cluster: ClusterView) -> list[int] | None:
        """Whole free nodes, one per leaf switch per round."""
        ranked = leaves_by_free(cluster, range(cluster.topology.num_leaves))
        pools = [sorted(cluster.whole_free_by_leaf[leaf]) for _, leaf in ranked]
        chosen: list[int] = []
        depth = 0
        while len(chosen) < count:
            for pool in pools:
                if depth < len(pool):
                    chosen.append(pool[depth])
                    if len(chosen) == count:
                        break
            depth += 1
        return chosen
