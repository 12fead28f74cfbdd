"""The recovery-policy contract: what happens between a fault and the job's restart.

``RecoveryPolicy.plan(failure, job, now, rng)`` returns a ``RecoveryPlan`` (data; the engine acts
on it). Timeline of one interruption as the engine should play it:

1. the fault happens at ``failure.time``; the job makes no progress from then on;
2. ``plan.wait`` seconds later (detection + human response + diagnosis) the restart can begin,
   once the job has its nodes: when ``plan.needs_new_nodes`` it must first get replacement nodes
   through the scheduler (``plan.release_nodes``: it gave back all of them and is resubmitted);
3. the restart takes ``plan.restart_overhead`` seconds plus the checkpoint ``restore`` time of the
   job's ``CheckpointPlan``, both exposed to further faults; work resumes from the last persisted
   checkpoint;
4. ``plan.cordon_nodes`` (or every node under ``plan.cordon_switch``) stay out of service until
   ``failure.repair_time`` has passed; ``plan.spare_nodes`` spares were swapped in for them.
   The cordon is the policy's ``cordon(failure)``, the same for every job the failure hits (and
   applied when it hits none); a job running on a cordoned node is hit too.

Job-level failures (script/framework errors) end the job: they are not recovered by these
policies. Options shared by the three policies are in ``ManualOptions`` (a person's response,
with a day/night pattern), used directly by ``manual`` and as the escalation path of
``automatic``.
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from acmesim.core.bounds import option_values, require_non_negative, require_within
from acmesim.policies.failure.events import FailureEvent

if TYPE_CHECKING:
    import numpy as np

MINUTE = 60.0


@dataclasses.dataclass(frozen=True)
class RecoveryPlan:
    """The decision for one interruption (seconds; see the module docstring for the timeline)."""

    wait: float
    restart_overhead: float
    cordon_nodes: tuple[str, ...]
    cordon_switch: str | None
    needs_new_nodes: bool
    release_nodes: bool
    spare_nodes: int = 0
    manual: bool = False


@dataclasses.dataclass(frozen=True)
class ManualOptions:
    """How a person responds: working hours, response and diagnosis delays, relaunch time.

    All **chosen** (no published response times for Acme; acme_facts §3 says maintainers watched
    jobs around the clock and Fig. 14 shows many restarts at night): lognormal response with a
    30-minute median during working hours 09:00–23:00 local time (UTC+8, Shanghai); outside them
    the response starts at 09:00. Diagnosis of the fault (finding the bad node) has a 60-minute
    median (acme_facts §3: infrastructure recovery "needs hardware to be diagnosed"); relaunching
    takes 10 minutes.
    """

    response_median_min: float = 30.0
    """Median time until a person responds during working hours (min)."""
    diagnosis_median_min: float = 60.0
    """Median time to find the faulty node (min)."""
    delay_sigma: float = 1.0
    """Lognormal sigma of the response and diagnosis delays."""
    work_start_hour: float = 9.0
    """Start of working hours (local hour)."""
    work_end_hour: float = 23.0
    """End of working hours (local hour)."""
    utc_offset_hours: float = 8.0
    """Local time zone of the operators (hours from UTC)."""
    manual_restart_min: float = 10.0
    """Time for a person to relaunch the job (min)."""

    def __post_init__(self) -> None:
        require_non_negative(**option_values(
            self, "response_median_min", "diagnosis_median_min", "delay_sigma",
            "manual_restart_min"))
        require_within(0, 24, **option_values(self, "work_start_hour", "work_end_hour"))


@dataclasses.dataclass(frozen=True)
class Draws:
    """The random numbers one plan uses (always drawn, so every plan consumes the same count)."""

    response: float
    diagnosis: float
    escalate: float

    @classmethod
    def take(cls, rng: np.random.Generator) -> Draws:
        """Draw two standard normals and one uniform."""
        normal = rng.standard_normal(2)
        return cls(float(normal[0]), float(normal[1]), float(rng.random()))


@runtime_checkable
class RecoveryPolicyProtocol(Protocol):
    """What the engine calls on a recovery policy (``recovery=NAME``, registry ``RECOVERIES``).

    Built as ``cls(config, epoch_unix=..., **context)`` once the trace's start is known.
    ``reserved_nodes`` once before the run (spares held back from scheduling); for each fault,
    ``cordon`` once and ``plan`` once per job the fault (or its cordon) interrupts, with the
    run's ``recovery`` RNG stream. Every plan for a fault must state that fault's cordon (the
    engine refuses one that does not); see the module docstring for the timeline.
    """

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
        """Decide how the job recovers from ``failure`` (``now``: seconds since time 0)."""
        ...

    def cordon(self, failure: FailureEvent) -> tuple[tuple[str, ...], str | None]:
        """Nodes and switch ``failure`` takes out of service until repaired."""
        ...

    def reserved_nodes(self, num_nodes: int) -> int:
        """Nodes of ``num_nodes`` the engine must hold back from scheduling as spares."""
        ...


class RecoveryPolicy(RecoveryPolicyProtocol):
    """Base of the recovery policies; ``epoch_unix`` (context) is the wall clock of time 0."""

    Config = ManualOptions

    def __init__(self, config: Any, *, epoch_unix: float = 0.0, **context: Any) -> None:
        self.config = config
        self.epoch_unix = float(epoch_unix)

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
        """Decide how the job recovers from ``failure`` (``now``: seconds since time 0).

        ``spares_free`` is the number of idle spare nodes (None: as many as needed);
        ``nodes_lost`` how many of the job's nodes the fault took (more for a switch).
        """
        raise NotImplementedError

    def cordon(self, failure: FailureEvent) -> tuple[tuple[str, ...], str | None]:
        """Nodes and switch ``failure`` takes out of service until repaired (by default the
        faulty component, nothing for a transient fault; see ``cordon``). The engine takes out
        exactly these, with or without a job on them, and every plan for this failure states
        the same (``RecoveryPlan.cordon_nodes``, ``cordon_switch``)."""
        return cordon(failure)

    def reserved_nodes(self, num_nodes: int) -> int:
        """Nodes the engine must hold back from scheduling as spares (0 by default)."""
        return 0

    def local_hour(self, now: float) -> float:
        """Local hour of day in [0, 24) at simulation time ``now``."""
        hours = (self.epoch_unix + now) / 3600.0 + self.config.utc_offset_hours
        return hours % 24.0

    def manual_plan(
        self, failure: FailureEvent, noticed_at: float, draws: Draws, now: float
    ) -> RecoveryPlan:
        """A person's recovery: wait for working hours, respond, diagnose, resubmit the job.

        ``noticed_at`` is the delay after ``now`` at which the failure is reported.
        """
        config = self.config
        off_hours = until_working_hours(
            self.local_hour(now + noticed_at), config.work_start_hour, config.work_end_hour
        )
        response = lognormal(config.response_median_min * MINUTE, config.delay_sigma,
                             draws.response)
        diagnosis = lognormal(config.diagnosis_median_min * MINUTE, config.delay_sigma,
                              draws.diagnosis)
        wait = noticed_at + off_hours + response + diagnosis
        return RecoveryPlan(
            wait, config.manual_restart_min * MINUTE, *self.cordon(failure),
            needs_new_nodes=True, release_nodes=True, manual=True,
        )


def lognormal(median: float, sigma: float, normal: float) -> float:
    """A lognormal value of the given median from one standard-normal draw."""
    return median * math.exp(sigma * normal) if median > 0 else 0.0


def until_working_hours(hour: float, start: float, end: float) -> float:
    """Seconds from local ``hour`` until working hours ``[start, end)`` begin (0 inside them)."""
    inside = start <= hour < end if start <= end else (hour >= start or hour < end)
    return 0.0 if inside else ((start - hour) % 24.0) * 3600.0


def cordon(failure: FailureEvent) -> tuple[tuple[str, ...], str | None]:
    """Nodes and switch to take out of service: the faulty component, unless transient."""
    if failure.transient:
        return (), None
    if failure.scope == "switch":
        return (), failure.target
    return (failure.target,), None

