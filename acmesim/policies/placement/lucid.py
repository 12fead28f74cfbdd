"""Lucid: the consolidate placer of the Lucid simulator, with that simulator's node order.

Rules as published in S-Lab-System-Group/Lucid, ``simulation/policy/placer/consolidate.py``
(``ConsolidatePlacement.consolidateSelect``), over the node list of ``simulation/cluster.py``
(``VC.node_list``, nodes in index order; acme_facts.md §8):

- a job that fits on one node goes best fit: the node with the fewest free GPUs that still
  fits. Lucid orders the nodes with a stable sort on free GPUs, so a tie goes to the lowest
  node index (``consolidate`` instead takes the node that has waited longest in its bucket);
- a job of whole nodes takes the lowest-numbered whole free nodes (Lucid's stable descending
  sort lists whole free nodes first, in index order), with no regard to leaf switches.

Lucid gives other sizes (e.g. 12 GPUs) whole nodes plus one partly used node; acmesim's gang
model (``acmesim.cluster.gang``) gives them whole nodes only, so here they take the
lowest-numbered whole free nodes, and their start times can differ from Lucid's.
"""

from __future__ import annotations

import heapq

from acmesim.cluster.view import ClusterView
from acmesim.policies.placement import PLACEMENTS
from acmesim.policies.placement.base import Placement


@PLACEMENTS.register("lucid")
class Lucid(Placement):
    """Lucid's consolidate placer: best fit by free GPUs, ties and gangs by lowest node index."""

    def pick_node(self, gpus: int, cluster: ClusterView) -> int | None:
        """The lowest-numbered node among those with the fewest free GPUs that still fit."""
        buckets = cluster.free_by_count
        for count in range(max(gpus, 1), cluster.gpus_per_node + 1):
            nodes = buckets[count]
            if nodes:
                return min(nodes)
        return None

    def pick_whole_nodes(self, count: int, cluster: ClusterView) -> list[int] | None:
        """The ``count`` lowest-numbered whole free nodes."""
        return heapq.nsmallest(count, cluster.whole_free_nodes())
