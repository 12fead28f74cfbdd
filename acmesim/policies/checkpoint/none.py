"""``checkpoint=none``: the job never checkpoints; a failure restarts it from scratch."""

from __future__ import annotations

from typing import Any

from acmesim.policies.checkpoint import CHECKPOINTS
from acmesim.policies.checkpoint.base import (
    CheckpointPlan,
    CheckpointPolicyProtocol,
    no_checkpoints,
)


@CHECKPOINTS.register("none")
class NoCheckpoint(CheckpointPolicyProtocol):
    """Never checkpoint (the baseline of the no-checkpoint sanity case, reliability_facts §1.7)."""

    never_checkpoints = True
    """No plan of this policy checkpoints (``CheckpointPolicyProtocol``): a run may skip
    planning its jobs."""

    def __init__(self, config: Any, **context: Any) -> None:
        self.config = config

    def plan(self, job: Any, mtbf: float | None = None) -> CheckpointPlan:
        """A plan without checkpoints, whatever the job."""
        return no_checkpoints(float("inf") if mtbf is None else float(mtbf))
