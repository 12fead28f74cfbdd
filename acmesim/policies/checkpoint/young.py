"""``checkpoint=young``: Young's first-order interval ``sqrt(2·δ·M)`` (reliability_facts §1.2)."""

from __future__ import annotations

from acmesim.policies.checkpoint import CHECKPOINTS
from acmesim.policies.checkpoint.base import CheckpointPolicy, formula_interval
from acmesim.policies.checkpoint.cost import CheckpointCost
from acmesim.policies.checkpoint.theory import young_interval


@CHECKPOINTS.register("young")
class YoungInterval(CheckpointPolicy):
    """Young (1974): ``δ`` is the blocking stall, ``M`` the job MTBF."""

    def interval(self, cost: CheckpointCost, mtbf: float) -> float:
        """``sqrt(2·stall·mtbf)``; never checkpoint when the job cannot fail."""
        return formula_interval(young_interval, cost, mtbf)
