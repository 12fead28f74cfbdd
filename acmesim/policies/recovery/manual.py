"""``recovery=manual``: a person notices the failure, diagnoses it and resubmits the job.

The job gives back its nodes and waits for a person: the failure is reported after its
detection delay; outside working hours nobody responds until the next morning; then response and
diagnosis delays (``ManualOptions``) pass, the faulty node is cordoned and the job is resubmitted
(it needs nodes from the scheduler again). This is Acme before its fault-tolerant system
(acme_facts §3: maintainers watched jobs around the clock and restarted them by hand).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from acmesim.policies.failure.events import FailureEvent
from acmesim.policies.recovery import RECOVERIES
from acmesim.policies.recovery.base import Draws, RecoveryPlan, RecoveryPolicy

if TYPE_CHECKING:
    import numpy as np


@RECOVERIES.register("manual")
class ManualRecovery(RecoveryPolicy):
    """Human-in-the-loop recovery with a day/night response pattern."""

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
        """Wait for a person (after the fault's own detection delay), then resubmit."""
        return self.manual_plan(failure, failure.detection_delay, Draws.take(rng), now)
