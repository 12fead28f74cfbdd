"""Build the ``FaultInjector`` of a replay configuration from the plug-in registries."""

from __future__ import annotations

from acmesim.core.config import ReplayConfig
from acmesim.faults.injector import FaultInjector
from acmesim.policies.checkpoint import CHECKPOINTS
from acmesim.policies.failure import FAILURES
from acmesim.policies.recovery import RECOVERIES


def injector_for(config: ReplayConfig) -> FaultInjector:
    """The injector of ``config.failure``, ``config.checkpoint`` and ``config.recovery``.

    Options are validated now (unknown names and options raise the registries' errors); the
    recovery policy is built when the injector is attached, with the trace start as its
    ``epoch_unix`` (working hours are local to the trace's clock).
    """
    failure = FAILURES.create(config.failure.name, config.failure.options)
    checkpoint = CHECKPOINTS.create(config.checkpoint.name, config.checkpoint.options)
    recovery = config.recovery
    RECOVERIES.create(recovery.name, recovery.options)

    def build_recovery(epoch_unix: float):
        return RECOVERIES.create(recovery.name, recovery.options, epoch_unix=epoch_unix)

    return FaultInjector(failure, checkpoint, build_recovery)
