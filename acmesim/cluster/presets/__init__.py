"""Cluster presets: one module per family of presets, each registered with ``CLUSTERS``.

``CLUSTERS.create("seren", {"nodes": 100})`` returns a preset whose ``spec`` is the resolved
``ClusterSpec``; every field of ``ClusterSpec`` except ``name`` is an option.
"""

from __future__ import annotations

import dataclasses

from acmesim.cluster.spec import ClusterSpec
from acmesim.core.registry import Registry

CLUSTERS: Registry = Registry("cluster", package=__name__)


@dataclasses.dataclass(frozen=True)
class ClusterOptions:
    """Every tunable of a cluster preset; presets override the defaults they know."""

    nodes: int = 4
    """GPU nodes in the cluster."""
    gpus_per_node: int = 8
    """GPUs per GPU node."""
    cpus_per_node: int = 128
    """CPU threads per GPU node."""
    memory_per_node_gb: float = 1024.0
    """Host memory per GPU node (GB)."""
    gpu_model: str = "A100-SXM-80GB"
    """GPU model name (recorded, not simulated)."""
    nodes_per_leaf: int = 16
    """GPU nodes under one leaf switch."""
    leaves_per_spine: int = 8
    """Leaf switches under one spine switch."""
    cpu_nodes: int = 0
    """CPU-only nodes (where CPU jobs run with cpu_jobs=replay)."""
    cpus_per_cpu_node: int = 128
    """CPU threads per CPU-only node."""
    startup: dict = dataclasses.field(default_factory=dict)
    """Start-up latency of GPU jobs (``StartupLatency`` fields; empty: none)."""


class ClusterPreset:
    """Base of every preset: turns its validated options into a ``ClusterSpec``."""

    Config = ClusterOptions
    registry_name: str = "custom"

    def __init__(self, config: ClusterOptions) -> None:
        self.config = config
        self.spec = ClusterSpec(name=self.registry_name, **dataclasses.asdict(config))
