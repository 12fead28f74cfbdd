"""Build the fault extension (``FaultInjector``) of a run from the plug-in registries."""

from __future__ import annotations

from typing import Any

from acmesim.core.config import Choice, ReplayConfig
from acmesim.faults.injector import FaultInjector
from acmesim.policies.checkpoint import CHECKPOINTS
from acmesim.policies.failure import FAILURES
from acmesim.policies.recovery import RECOVERIES
from acmesim.policies.recovery.base import RecoveryPolicy


def injector_for(config: ReplayConfig) -> FaultInjector:
    """The injector of ``config.failure``, ``config.checkpoint`` and ``config.recovery``."""
    return fault_extension(config.failure, config.checkpoint, config.recovery)


def fault_extension(failure: Choice | Any, checkpoint: Choice | Any,
                    recovery: Choice | RecoveryPolicy) -> FaultInjector:
    """The injector of a failure model, checkpoint policy and recovery policy.

    Each is a ``Choice`` (built from its registry: unknown names and options raise the
    registries' errors now) or a ready plug-in instance. A recovery ``Choice`` is validated now
    and built when the injector is attached, with the trace start as its ``epoch_unix``
    (working hours are local to the trace's clock).
    """
    if isinstance(failure, Choice):
        failure = FAILURES.create(failure.name, failure.options)
    if isinstance(checkpoint, Choice):
        checkpoint = CHECKPOINTS.create(checkpoint.name, checkpoint.options)
    if not isinstance(recovery, Choice):
        return FaultInjector(failure, checkpoint, recovery)
    chosen = recovery
    RECOVERIES.create(chosen.name, chosen.options)

    def build_recovery(epoch_unix: float) -> RecoveryPolicy:
        return RECOVERIES.create(chosen.name, chosen.options, epoch_unix=epoch_unix)

    return FaultInjector(failure, checkpoint, build_recovery)
