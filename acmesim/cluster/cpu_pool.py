"""The CPU partition: CPU-only nodes that run CPU-only jobs when those are replayed.

A CPU-only job takes ``ceil(cpu_num / nodes)`` threads on each of ``nodes = max(node_num, 1)``
distinct CPU nodes, chosen first-fit by node index. GPU nodes never run CPU-only jobs.
"""

from __future__ import annotations

from acmesim.cluster.cluster import Allocation, Grant
from acmesim.core.errors import AcmesimError


class CpuPool:
    """Free CPU threads of every CPU-only node."""

    def __init__(self, nodes: int, threads_per_node: int) -> None:
        self.threads_per_node = threads_per_node
        self.free: list[int] = [threads_per_node] * nodes
        self.version = 0

    @property
    def num_nodes(self) -> int:
        """Number of CPU-only nodes."""
        return len(self.free)

    def place(self, nodes: int, threads: int) -> Allocation | None:
        """First-fit choice of ``nodes`` CPU nodes with ``threads`` free threads each, or None."""
        chosen = []
        for node, free in enumerate(self.free):
            if free >= threads:
                chosen.append((node, threads))
                if len(chosen) == nodes:
                    return tuple(chosen)
        return None

    def allocate(self, job: int, allocation: Allocation) -> Grant:
        """Take the threads of ``allocation`` for job ``job``."""
        for node, threads in allocation:
            if not 0 < threads <= self.free[node]:
                raise AcmesimError(f"CPU allocation for job {job} asks {threads} threads of "
                                   f"CPU node {node} which has {self.free[node]} free")
        for node, threads in allocation:
            self.free[node] -= threads
        self.version += 1
        return allocation

    def release(self, job: int, grants: Grant) -> None:
        """Return the threads job ``job`` held."""
        for node, threads in grants:
            self.free[node] += threads
        self.version += 1
