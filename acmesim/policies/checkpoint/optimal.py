"""``checkpoint=optimal``: the exact optimum ``M·[1 + W0(-e^{-(δ/M+1)})]`` (reliability §1.5)."""

from __future__ import annotations

from acmesim.policies.checkpoint import CHECKPOINTS
from acmesim.policies.checkpoint.base import CheckpointPolicy, formula_interval
from acmesim.policies.checkpoint.cost import CheckpointCost
from acmesim.policies.checkpoint.theory import optimal_interval


@CHECKPOINTS.register("optimal", "lambert")
class OptimalInterval(CheckpointPolicy):
    """The interval minimising Daly's expected wall time exactly (Lambert W0)."""

    def interval(self, cost: CheckpointCost, mtbf: float) -> float:
        """The exact optimum; never checkpoint when the job cannot fail."""
        return formula_interval(optimal_interval, cost, mtbf)
