"""The static description of a modeled cluster: node counts, node hardware, switch sizes."""

from __future__ import annotations

import dataclasses
import math

from acmesim.cluster.eligibility import EligibilityDelay
from acmesim.cluster.startup import StartupLatency
from acmesim.core.errors import ConfigError


@dataclasses.dataclass(frozen=True)
class ClusterSpec:
    """What a cluster is made of; the mutable state lives in ``acmesim.cluster.cluster.Cluster``.

    GPU nodes sit under leaf switches (``nodes_per_leaf`` each), leaf switches under spine
    switches (``leaves_per_spine`` each). ``cpu_nodes`` CPU-only nodes form a separate CPU
    partition used only when CPU-only jobs are replayed. ``startup`` is the start-up latency of
    GPU jobs in scheduled replays (``acmesim.cluster.startup``; a dict of its fields is accepted),
    ``eligibility`` the share of GPU jobs held by their users and for how long before they enter
    the queue, in scheduled replays (``acmesim.cluster.eligibility``; a dict likewise).
    """

    name: str
    nodes: int
    gpus_per_node: int = 8
    cpus_per_node: int = 128
    memory_per_node_gb: float = 1024.0
    gpu_model: str = "A100-SXM-80GB"
    nodes_per_leaf: int = 16
    leaves_per_spine: int = 8
    cpu_nodes: int = 0
    cpus_per_cpu_node: int = 128
    startup: StartupLatency = StartupLatency()
    eligibility: EligibilityDelay = EligibilityDelay()

    def __post_init__(self) -> None:
        object.__setattr__(self, "startup", StartupLatency.of(self.startup))
        object.__setattr__(self, "eligibility", EligibilityDelay.of(self.eligibility))
        positive = ("nodes", "gpus_per_node", "cpus_per_node", "nodes_per_leaf",
                    "leaves_per_spine", "cpus_per_cpu_node")
        for field in positive:
            value = getattr(self, field)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ConfigError(f"cluster {self.name!r}: {field} must be an integer >= 1, "
                                  f"got {value!r}")
        if not isinstance(self.cpu_nodes, int) or self.cpu_nodes < 0:
            raise ConfigError(f"cluster {self.name!r}: cpu_nodes must be an integer >= 0, "
                              f"got {self.cpu_nodes!r}")
        if self.gpus_per_node > 62:
            raise ConfigError(f"cluster {self.name!r}: gpus_per_node must be <= 62, "
                              f"got {self.gpus_per_node}")
        if not self.memory_per_node_gb > 0:
            raise ConfigError(f"cluster {self.name!r}: memory_per_node_gb must be > 0, "
                              f"got {self.memory_per_node_gb!r}")

    @property
    def total_gpus(self) -> int:
        """GPUs in the cluster."""
        return self.nodes * self.gpus_per_node

    @property
    def leaves(self) -> int:
        """Leaf switches needed for ``nodes`` (the last one may be partly filled)."""
        return math.ceil(self.nodes / self.nodes_per_leaf)

    @property
    def spines(self) -> int:
        """Spine switches needed for the leaves (the last one may be partly filled)."""
        return math.ceil(self.leaves / self.leaves_per_spine)
