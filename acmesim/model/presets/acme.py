"""The two Acme clusters, Seren and Kalos (Hu et al., NSDI '24).

Sources (acme_facts.md §1): 2,288 GPUs in Seren and 2,416 in Kalos, 8 x A100-SXM 80 GB per node
(hence 286 and 302 nodes), 2 x Xeon 8358P = 128 CPU threads per node, Kalos 2 TB host memory.
Seren's host memory is not published (the paper only says Kalos has the larger memory):
acmesim assumes 1 TB. The InfiniBand topology is not published either (acme_facts.md §10):
acmesim assumes 16 nodes per leaf switch and 8 leaf switches per spine switch. Seren's 6 CPU-only
servers (acme_facts.md §1, hardware mix) form its CPU partition, assumed 128 threads each.
"""

from __future__ import annotations

import dataclasses

from acmesim.model.presets import CLUSTERS, ClusterOptions, ClusterPreset


@CLUSTERS.register("seren")
class Seren(ClusterPreset):
    """Seren: 286 nodes x 8 A100-80GB (acme_facts.md §1)."""

    @dataclasses.dataclass(frozen=True)
    class Config(ClusterOptions):
        """Seren's defaults."""

        nodes: int = 286
        memory_per_node_gb: float = 1024.0
        cpu_nodes: int = 6


@CLUSTERS.register("kalos")
class Kalos(ClusterPreset):
    """Kalos: 302 nodes x 8 A100-80GB, 2 TB host memory per node (acme_facts.md §1)."""

    @dataclasses.dataclass(frozen=True)
    class Config(ClusterOptions):
        """Kalos's defaults."""

        nodes: int = 302
        memory_per_node_gb: float = 2048.0
