"""Node health through faults and repairs, the hot-spare pool, and node downtime.

A fault that needs a repair takes its nodes out of service: ``FAILED`` at once, ``REPAIRING``
when it is detected (repair starts), ``UP`` again ``repair_time`` after the fault. A node struck
again while down stays down until its latest repair ends. With hot spares, a pool of whole
nodes is held out of scheduling (``DRAINING``: accepts no job); a spare swapped in for a failed
node joins the cluster for good, and a repaired node refills the pool while it is short.
"""

from __future__ import annotations

import math

from acmesim.cluster.health import NodeHealth
from acmesim.sim.extension import SimulationAPI


class NodeLifecycle:
    """Takes nodes down and back up on the engine's clock; keeps the spare pool and downtime."""

    def __init__(self, sim: SimulationAPI, spares: int) -> None:
        self.sim = sim
        count = sim.cluster.num_nodes
        if not 0 <= spares < count:
            raise ValueError(f"cannot reserve {spares} spare node(s) of {count}")
        self.spare_target = spares
        self.spares: dict[int, None] = {}
        """Idle spare nodes, in the order they joined the pool."""
        self.down_until = [-math.inf] * count
        self._down_since = [math.nan] * count
        self.downtime = 0.0
        """Node-seconds out of service so far (closed outages only; see ``close``)."""
        for node in range(count - spares, count):
            self._to_pool(node)

    def is_down(self, node: int) -> bool:
        """Whether ``node`` is out of service (FAILED or REPAIRING)."""
        return self.sim.cluster.health[node] in (NodeHealth.FAILED, NodeHealth.REPAIRING)

    def take_down(self, nodes: list[int], detection: float, repair: float) -> int:
        """Fail ``nodes`` now (their jobs already stopped); returns how many were in service."""
        sim, now = self.sim, self.sim.now
        until = now + repair
        newly = 0
        for node in nodes:
            self.down_until[node] = max(self.down_until[node], until)
            if not self.is_down(node):
                newly += 1
                self.spares.pop(node, None)
                self._down_since[node] = now
            sim.set_node_health(node, NodeHealth.FAILED)
        sim.call_at(now + min(detection, repair), lambda: self._start_repair(nodes))
        sim.call_at(until, lambda: self._repaired(nodes))
        return newly

    def withdraw_spares(self, nodes: list[int]) -> None:
        """Drop struck ``nodes`` from the idle spare pool before spares are handed out."""
        for node in nodes:
            self.spares.pop(node, None)

    def use_spares(self, count: int) -> list[int]:
        """Take ``count`` idle spares out of the pool into service (for a job to use now)."""
        taken = list(self.spares)[:count]
        for node in taken:
            del self.spares[node]
            self.sim.set_node_health(node, NodeHealth.UP)
        return taken

    def close(self, end: float) -> None:
        """Count the outages still open at ``end`` (the end of the simulation)."""
        for node, since in enumerate(self._down_since):
            if not math.isnan(since):
                self.downtime += end - since
                self._down_since[node] = math.nan

    def _start_repair(self, nodes: list[int]) -> None:
        """Faulty nodes found: FAILED -> REPAIRING."""
        for node in nodes:
            if self.sim.cluster.health[node] is NodeHealth.FAILED:
                self.sim.set_node_health(node, NodeHealth.REPAIRING)

    def _repaired(self, nodes: list[int]) -> None:
        """Nodes whose last repair ends now return to service (or to a short spare pool)."""
        now = self.sim.now
        for node in nodes:
            if self.down_until[node] > now or not self.is_down(node):
                continue
            self.downtime += now - self._down_since[node]
            self._down_since[node] = math.nan
            if len(self.spares) < self.spare_target:
                self._to_pool(node)
            else:
                self.sim.set_node_health(node, NodeHealth.UP)

    def _to_pool(self, node: int) -> None:
        """Hold ``node`` (with no job) out of scheduling as an idle spare."""
        self.spares[node] = None
        self.sim.set_node_health(node, NodeHealth.DRAINING)
