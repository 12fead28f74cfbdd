"""``recovery=hot_spare``: automatic recovery that swaps in reserved spare nodes.

A pool of ``spare_fraction`` of the cluster's nodes is held back from scheduling; when a fault
takes nodes out of service, spares replace them at once so the job does not wait for capacity.
Default 5 % (Delta projects ~5 % overprovisioning, BLOOM kept 8.3 %, Google 9.7 % slack;
reliability_facts.md §3–4). The swap takes ``swap_min = 5`` minutes (Crusoe AutoClusters
replace a failed node in < 5 min, reliability_facts §2.10). With too few free spares the job
falls back to waiting for replacement nodes, as under ``automatic``.
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, Any

from acmesim.core.bounds import require_non_negative
from acmesim.policies.failure.events import FailureEvent
from acmesim.policies.recovery import RECOVERIES
from acmesim.policies.recovery.automatic import AutomaticOptions, AutomaticRecovery
from acmesim.policies.recovery.base import MINUTE, RecoveryPlan

if TYPE_CHECKING:
    import numpy as np


@dataclasses.dataclass(frozen=True)
class HotSpareOptions(AutomaticOptions):
    """Options of hot-spare recovery: pool size and swap time, plus automatic's options."""

    spare_fraction: float = 0.05
    """Share of the nodes held back as hot spares."""
    swap_min: float = 5.0
    """Time to swap a spare in for a failed node (min)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if not 0.0 <= self.spare_fraction < 1.0:
            raise ValueError(f"spare_fraction must be within [0, 1), got {self.spare_fraction!r}")
        require_non_negative(swap_min=self.swap_min)


@RECOVERIES.register("hot_spare", "hot-spare")
class HotSpareRecovery(AutomaticRecovery):
    """Automatic recovery with a reserved pool of spare nodes."""

    Config = HotSpareOptions

    def reserved_nodes(self, num_nodes: int) -> int:
        """``ceil(spare_fraction × num_nodes)`` nodes kept as spares."""
        return math.ceil(self.config.spare_fraction * num_nodes - 1e-9)

    def plan(
        self,
        failure: FailureEvent,
        job: Any,
        now: float,
        rng: np.random.Generator,
        *,
        spares_free: int | None = None,
        nodes_lost: int = 1,
    ) -> RecoveryPlan:
        """Automatic recovery; lost nodes come from the spare pool when it has enough."""
        plan = super().plan(failure, job, now, rng, spares_free=spares_free,
                            nodes_lost=nodes_lost)
        enough = spares_free is None or spares_free >= nodes_lost
        if plan.manual or failure.transient or not enough:
            return plan
        return dataclasses.replace(
            plan,
            restart_overhead=plan.restart_overhead + self.config.swap_min * MINUTE,
            needs_new_nodes=False,
            spare_nodes=nodes_lost,
        )
