"""``recovery=automatic``: detect, diagnose and restart without a person, cordoning bad nodes.

Acme's fault-tolerant pretraining system (acme_facts.md §4): failures are detected by monitoring
(hangs by a heartbeat timeout), logs are diagnosed by rules plus LLM agents, infrastructure faults
are located by a two-round NCCL test (pairwise AllGather, then each suspect paired with a healthy
node) and the faulty nodes cordoned, and the job restarts from its last checkpoint. Manual
intervention fell by about 90 %, so ``manual_fraction = 0.1`` of failures still escalate to a
person (``ManualOptions``).

Defaults: ``hang_timeout_s = 300`` (NVRx subsequent-rank heartbeat timeout 300 s,
reliability_facts §2.12; InternEvo's monitor checks every 300 s, acme_facts §4) caps the detection
of hangs; ``nccl_test_round_s = 60`` per round and ``log_diagnosis_s = 60`` — **chosen**;
``restart_min = 5`` relaunch — **chosen**. The job keeps its healthy nodes and needs a
replacement only for nodes the fault took out of service.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from acmesim.core.bounds import option_values, require_non_negative, require_within
from acmesim.policies.failure.events import FailureEvent
from acmesim.policies.recovery import RECOVERIES
from acmesim.policies.recovery.base import (
    MINUTE,
    Draws,
    ManualOptions,
    RecoveryPlan,
    RecoveryPolicy,
)

if TYPE_CHECKING:
    import numpy as np


@dataclasses.dataclass(frozen=True)
class AutomaticOptions(ManualOptions):
    """Options of automatic recovery (the ``ManualOptions`` apply to escalated failures)."""

    hang_timeout_s: float = 300.0
    """Heartbeat timeout that detects a hung job (s)."""
    nccl_test_round_s: float = 60.0
    """Duration of one NCCL test round locating faulty nodes (s)."""
    nccl_test_rounds: int = 2
    """NCCL test rounds per diagnosis."""
    log_diagnosis_s: float = 60.0
    """Time to diagnose the failure from its logs (s)."""
    restart_min: float = 5.0
    """Time to relaunch the job automatically (min)."""
    manual_fraction: float = 0.1
    """Share of failures that still escalate to a person."""

    def __post_init__(self) -> None:
        super().__post_init__()
        require_non_negative(**option_values(
            self, "hang_timeout_s", "nccl_test_round_s", "nccl_test_rounds", "log_diagnosis_s",
            "restart_min"))
        require_within(0, 1, manual_fraction=self.manual_fraction)


@RECOVERIES.register("automatic", "auto")
class AutomaticRecovery(RecoveryPolicy):
    """Automatic detection, two-round NCCL diagnosis, cordon and restart."""

    Config = AutomaticOptions

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
        """Restart after detection + diagnosis; escalate ``manual_fraction`` to a person."""
        draws = Draws.take(rng)
        diagnosed = self.detection(failure) + self.diagnosis()
        if draws.escalate < self.config.manual_fraction:
            return self.manual_plan(failure, diagnosed, draws, now)
        return self.automatic_plan(failure, diagnosed)

    def detection(self, failure: FailureEvent) -> float:
        """Seconds to detect: the fault's own delay, hangs cut short by the heartbeat timeout."""
        return min(failure.detection_delay, self.config.hang_timeout_s)

    def diagnosis(self) -> float:
        """Seconds of log diagnosis plus the NCCL-test rounds."""
        config = self.config
        return config.log_diagnosis_s + config.nccl_test_rounds * config.nccl_test_round_s

    def automatic_plan(self, failure: FailureEvent, diagnosed: float) -> RecoveryPlan:
        """Keep the healthy nodes, cordon the faulty component, replace what was lost."""
        return RecoveryPlan(
            diagnosed, self.config.restart_min * MINUTE, *self.cordon(failure),
            needs_new_nodes=not failure.transient, release_nodes=False,
        )
