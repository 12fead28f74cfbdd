"""Cluster presets: one module per family of presets, each registered with ``CLUSTERS``.

``CLUSTERS.create("seren", {"nodes": 100})`` returns a preset whose ``spec`` is the resolved
``ClusterSpec``; every field of ``ClusterSpec`` except ``name`` is an option.
"""

from __future__ import annotations

import dataclasses

from acmesim.cluster.scale import scaled_nodes
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
    eligibility: dict = dataclasses.field(default_factory=dict)
    """GPU jobs held by their users before they enter the queue (``EligibilityDelay`` fields;
    empty: none)."""
    scale: float = 1.0
    """K x the nodes and CPU nodes (same switch sizes, so K x the leaf and spine switches);
    K >= 1 with K x nodes whole, e.g. cluster=seren cluster.scale=44 (12,584 nodes)."""


class ClusterPreset:
    """Base of every preset: turns its validated options into a ``ClusterSpec``."""

    Config = ClusterOptions
    registry_name: str = "custom"

    def __init__(self, config: ClusterOptions) -> None:
        self.config = config
        self.spec = ClusterSpec(name=self.registry_name, **scaled_options(config))


def scaled_options(config: ClusterOptions) -> dict:
    """The ``ClusterSpec`` fields of ``config`` with its ``scale`` applied.

    A cluster ``scale`` times larger is built from the same hardware: ``scale`` x the GPU nodes
    and the CPU-only nodes, with the switches' sizes (``nodes_per_leaf``,
    ``leaves_per_spine``) unchanged, so the leaf and spine switch counts grow with the nodes
    (``ClusterSpec.leaves``: ``ceil(nodes / nodes_per_leaf)``). Chosen: one larger fabric of
    the same switches, not ``scale`` copies of the preset's (whose partly filled last leaf
    would repeat).
    """
    options = dataclasses.asdict(config)
    scale = options.pop("scale")
    if scale != 1:
        options["nodes"] = scaled_nodes(config.nodes, scale, "cluster")
        options["cpu_nodes"] = round(config.cpu_nodes * scale)
    return options
