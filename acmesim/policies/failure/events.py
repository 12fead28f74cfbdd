"""The data failure models produce and the cluster facts they need (plain frozen dataclasses).

``FailureEvent`` is a fault of cluster hardware (or an infrastructure-software fault on a node):
the engine maps its scope and target to nodes (a ``switch`` event takes every node under that
leaf switch, via the engine's topology) and interrupts the jobs running there. ``JobFailure`` is
a failure of one job's own run (script, framework, auxiliary-service or storage error).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Literal

Scope = Literal["gpu", "node", "switch"]
SCOPES: tuple[str, ...] = ("gpu", "node", "switch")

JobFailureCategory = Literal["script", "framework", "infrastructure"]


@dataclasses.dataclass(frozen=True)
class FailureEvent:
    """One fault: when, what, where, how long until it is noticed and until it is repaired.

    ``time`` is seconds since the simulation start. ``target`` is a node id for ``gpu``/``node``
    scope (``gpu`` then names the GPU index within the node) and a switch id for ``switch``
    scope. ``detection_delay`` is the time until the affected job observes the fault (an error
    is immediate, a hang lasts until a timeout); ``repair_time`` is how long the component stays
    out of service after the fault (0 for transient faults that a restart clears).
    """

    time: float
    kind: str
    scope: Scope
    target: str
    detection_delay: float
    repair_time: float
    gpu: int | None = None

    @property
    def transient(self) -> bool:
        """True when no component has to be repaired (a restart clears the fault)."""
        return self.repair_time == 0.0


@dataclasses.dataclass(frozen=True)
class JobFailure:
    """A job's own failure: ``time`` seconds of run time after its start, and its kind."""

    time: float
    kind: str
    category: JobFailureCategory


@dataclasses.dataclass(frozen=True)
class ClusterInfo:
    """The cluster facts a failure model needs: node ids, GPUs per node, each node's switch.

    ``switch_of`` is aligned with ``nodes`` (the leaf switch id of each node; empty string when
    the topology is unknown, in which case switch faults fall back to node scope).
    """

    nodes: tuple[str, ...]
    gpus_per_node: int = 8
    switch_of: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.nodes:
            raise ValueError("a cluster needs at least one node")
        if self.switch_of and len(self.switch_of) != len(self.nodes):
            raise ValueError("switch_of must name one switch per node")
        if len(set(self.nodes)) != len(self.nodes):
            raise ValueError("node ids must be unique")

    @classmethod
    def uniform(
        cls, num_nodes: int, gpus_per_node: int = 8, nodes_per_switch: int = 16
    ) -> ClusterInfo:
        """``num_nodes`` nodes ``node0000``…, ``nodes_per_switch`` of them under each leaf switch.

        Acme's IB topology is not published (acme_facts.md §10); 16 nodes per leaf is chosen.
        """
        width = max(4, len(str(num_nodes - 1)))
        nodes = tuple(f"node{i:0{width}d}" for i in range(num_nodes))
        switches = tuple(f"leaf{i // nodes_per_switch:03d}" for i in range(num_nodes))
        return cls(nodes, gpus_per_node, switches)

    @property
    def num_gpus(self) -> int:
        """Total GPUs of the cluster."""
        return len(self.nodes) * self.gpus_per_node

    def switch(self, node_index: int) -> str:
        """The leaf switch id of node ``node_index`` ('' when unknown)."""
        return self.switch_of[node_index] if self.switch_of else ""

    def nodes_under(self, switch: str) -> tuple[str, ...]:
        """Every node whose leaf switch is ``switch``."""
        return tuple(n for n, s in zip(self.nodes, self.switch_of, strict=True) if s == switch)


def check_horizon(horizon: float) -> float:
    """``horizon`` as a float, or ``ValueError`` unless it is finite and >= 0."""
    value = float(horizon)
    if not (value >= 0 and math.isfinite(value)):
        raise ValueError(f"horizon must be a finite number of seconds >= 0, got {horizon!r}")
    return value
