"""Small clusters for tests and examples (same node hardware as Acme, acme_facts.md §1)."""

from __future__ import annotations

import dataclasses

from acmesim.cluster.presets import CLUSTERS, ClusterOptions, ClusterPreset


@CLUSTERS.register("tiny")
class Tiny(ClusterPreset):
    """4 nodes under 2 leaf switches under 1 spine, plus 1 CPU-only node."""

    @dataclasses.dataclass(frozen=True)
    class Config(ClusterOptions):
        """Tiny's defaults."""

        nodes: int = 4
        nodes_per_leaf: int = 2
        leaves_per_spine: int = 2
        cpu_nodes: int = 1


@CLUSTERS.register("small")
class Small(ClusterPreset):
    """32 nodes (256 GPUs) under 4 leaf switches under 2 spines, plus 2 CPU-only nodes."""

    @dataclasses.dataclass(frozen=True)
    class Config(ClusterOptions):
        """Small's defaults."""

        nodes: int = 32
        nodes_per_leaf: int = 8
        leaves_per_spine: int = 2
        cpu_nodes: int = 2
