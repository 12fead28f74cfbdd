"""``checkpoint=daly``: Daly's higher-order estimate, eq. 37 (reliability_facts §1.5)."""

from __future__ import annotations

from acmesim.policies.checkpoint import CHECKPOINTS
from acmesim.policies.checkpoint.base import CheckpointPolicy, formula_interval
from acmesim.policies.checkpoint.cost import CheckpointCost
from acmesim.policies.checkpoint.theory import daly_interval


@CHECKPOINTS.register("daly")
class DalyInterval(CheckpointPolicy):
    """Daly (2006) eq. 37, both branches (``τ = M`` once ``δ ≥ 2M``)."""

    def interval(self, cost: CheckpointCost, mtbf: float) -> float:
        """Daly's estimate; never checkpoint when the job cannot fail."""
        return formula_interval(daly_interval, cost, mtbf)
