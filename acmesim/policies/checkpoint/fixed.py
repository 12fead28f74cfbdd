"""``checkpoint=fixed``: checkpoint every ``interval_min`` minutes of compute.

Default 30 minutes: the interval at which the Acme paper measured async vs sync checkpointing
(acme_facts.md §4) and the low end of InternEvo's 30–60-minute snapshot guidance.
"""

from __future__ import annotations

import dataclasses

from acmesim.core.bounds import require_positive
from acmesim.policies.checkpoint import CHECKPOINTS
from acmesim.policies.checkpoint.base import CheckpointOptions, CheckpointPolicy
from acmesim.policies.checkpoint.cost import CheckpointCost


@CHECKPOINTS.register("fixed")
class FixedInterval(CheckpointPolicy):
    """A fixed interval whatever the job's size or failure rate."""

    @dataclasses.dataclass(frozen=True)
    class Config(CheckpointOptions):
        """Options of ``fixed``: the interval plus the shared cost options."""

        interval_min: float = 30.0
        """Compute time between checkpoints (min)."""

        def __post_init__(self) -> None:
            super().__post_init__()
            require_positive(interval_min=self.interval_min)

    config: Config

    def interval(self, cost: CheckpointCost, mtbf: float) -> float:
        """``interval_min`` in seconds."""
        return self.config.interval_min * 60.0
