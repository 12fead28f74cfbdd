"""Turn a recovery policy into per-failure downtime/restart draws for the single-job model.

For one job alone (no cluster engine) each fault's cost is summarized as a failure-free
downtime ``D`` and an exposed restart ``R`` (``acmesim.studies.reliability.single_job_model``).
This module plays a recovery policy against a sample of faults (kinds, detection delays and
repair times from a ``KindMix``, fault times spread uniformly over a week so the day/night pattern
averages out) and collects the resulting pairs into a pool to draw from.

Capacity rule (``capacity``): ``repair`` assumes no idle node — a job whose plan needs new nodes
after a fault that took one out of service waits until that node is repaired (Acme reserves a
fixed quota for pretraining, acme_facts §1, so a lost node shrinks it until repaired); the wait
overlaps the policy's own delays, so ``D = max(wait, repair)``. ``idle`` assumes a free node is
always available at once (``D = wait``). ``R`` is the policy's restart overhead plus the
checkpoint restore time.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from acmesim.policies.failure.events import FailureEvent
from acmesim.policies.failure.kinds import KindMix
from acmesim.policies.job_shape import JobShape
from acmesim.policies.recovery.base import RecoveryPolicy
from acmesim.studies.reliability.single_job_model import PooledRecovery

WEEK = 7 * 86_400.0
CapacityRule = Literal["repair", "idle"]


def recovery_pool(
    policy: RecoveryPolicy,
    mix: KindMix,
    job: JobShape,
    rng: np.random.Generator,
    size: int,
    *,
    capacity: CapacityRule = "repair",
    restore: float = 0.0,
) -> PooledRecovery:
    """``size`` (downtime, restart) pairs from ``policy``'s plans for faults drawn from ``mix``."""
    if capacity not in ("repair", "idle"):
        raise ValueError(f"capacity must be 'repair' or 'idle', got {capacity!r}")
    draws = mix.sample(rng, size)
    times = rng.uniform(0.0, WEEK, size=size)
    downtime = np.empty(size)
    restart = np.empty(size)
    for i in range(size):
        kind = mix.kinds[int(draws.kind[i])]
        fault = FailureEvent(float(times[i]), kind.name, kind.scope, "node",
                             float(draws.detection[i]), float(draws.repair[i]))
        plan = policy.plan(fault, job, fault.time, rng)
        waits_for_repair = capacity == "repair" and plan.needs_new_nodes and not fault.transient
        downtime[i] = max(plan.wait, fault.repair_time) if waits_for_repair else plan.wait
        restart[i] = plan.restart_overhead + restore
    return PooledRecovery(downtime, restart)
