"""The failure-model contract the engine consumes, and the options every model shares.

The contract is ``FailureModelProtocol``; ``FailureModel`` is the base of the renewal models
(per-node times to failure) and ``none`` implements the contract directly. A failure model
answers these questions:

- ``events(cluster, horizon, rng)`` → the hardware faults of the whole cluster over
  ``[0, horizon)`` seconds, sorted by time (``FailureEvent``: time, kind, scope, target,
  detection delay, repair time). Every node runs a renewal process: after a fault it is down for
  the repair time, then its next time-to-failure starts. A ``switch`` fault names the leaf switch
  of the node it struck; the engine takes every node under it.
- ``job_software_failure(job, rng)`` → the job's own failure (script, framework,
  auxiliary-service or storage error) as seconds of run time after its start, or None.
- ``job_mtbf(gpus, nodes)`` → the MTBF in seconds a job of that size sees (for checkpoint
  policies), or None when the model cannot say.

- ``window_events(cluster, start, end, rng)`` → the faults over ``[start, end)``. A run draws
  its faults window by window (``acmesim.policies.failure.windows`` states the rule: windows
  while any job is unfinished, doubling after an empty one, stopped as a runaway past 100 x the
  trace's span). Renewal models restart their processes at ``start``; a model whose faults
  have fixed times keeps those at or after ``start`` (``windows.faults_from``).

``trace_outcomes`` states where job failures come from, so that nothing is counted twice:

- ``replay`` (default): recorded FAILED/TIMEOUT/NODE_FAIL outcomes end jobs where the trace says;
  the model adds hardware faults only (its job-level failures are off, being already in the
  trace). The trace does not say which recorded failures were infrastructure (≈ 11 % of failed
  jobs, acme_facts §3), so those few overlap with modeled hardware faults.
- ``replace``: recorded failed outcomes are ignored (those jobs run their recorded work) and the
  model supplies every failure: hardware faults plus job-level failures. Nothing overlaps.
- ``both``: recorded outcomes *and* modeled job-level failures (a deliberate stress test that
  double-counts job-level failures).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from acmesim.policies.failure.events import (
    ClusterInfo,
    FailureEvent,
    JobFailure,
    Scope,
    check_horizon,
)
from acmesim.policies.failure.job_failures import JobErrorRates
from acmesim.policies.failure.kinds import FailureKind, KindDraws, KindMix, llama3_kinds
from acmesim.policies.job_shape import JobShape

if TYPE_CHECKING:
    import numpy as np

TraceOutcomes = Literal["replay", "replace", "both"]
TRACE_OUTCOMES: tuple[str, ...] = ("replay", "replace", "both")


@dataclasses.dataclass(frozen=True)
class FailureSources:
    """Which sources end or interrupt jobs in a run (derived from ``trace_outcomes``)."""

    recorded: bool
    job_failures: bool
    hardware: bool


def failure_sources(trace_outcomes: str, modeled: bool = True) -> FailureSources:
    """The sources implied by ``trace_outcomes`` (``modeled=False`` for ``failure=none``)."""
    if trace_outcomes not in TRACE_OUTCOMES:
        raise ValueError(f"trace_outcomes must be one of {', '.join(TRACE_OUTCOMES)}, "
                         f"got {trace_outcomes!r}")
    return FailureSources(
        recorded=trace_outcomes in ("replay", "both"),
        job_failures=modeled and trace_outcomes in ("replace", "both"),
        hardware=modeled,
    )


@runtime_checkable
class FailureModelProtocol(Protocol):
    """What the engine calls on a failure model (``failure=NAME``, registry ``FAILURES``).

    Built as ``cls(config, **context)``. The engine reads ``sources`` once; when
    ``sources.hardware`` it draws the model's hardware faults window by window, each window
    ``[start, end)`` from ``window_events`` with a fresh random stream, by the rule of
    ``acmesim.policies.failure.windows.FaultWindows``: the first window covers ``[0, span)``
    (the trace's span, at least a day), a later one starts where the last ended and is twice
    as long after a window without faults, windows keep coming while any job is unfinished
    (and something other than faults is left to happen), and none starts 100 x the span or
    later (the run stops as a runaway). On every GPU job's arrival it asks
    ``job_software_failure`` (when ``sources.job_failures``) and ``job_mtbf`` (for the job's
    checkpoint plan).
    """

    sources: FailureSources
    """Which sources end or interrupt jobs in this run (from ``trace_outcomes``)."""

    def events(
        self, cluster: ClusterInfo, horizon: float, rng: np.random.Generator
    ) -> Iterator[FailureEvent]:
        """Hardware faults over ``[0, horizon)`` seconds, sorted by time; ``ValueError`` for a
        horizon that is not finite and >= 0."""
        ...

    def window_events(
        self, cluster: ClusterInfo, start: float, end: float, rng: np.random.Generator
    ) -> Iterator[FailureEvent]:
        """Hardware faults over ``[start, end)``, sorted by time (one window of a run)."""
        ...

    def job_software_failure(self, job: Any, rng: np.random.Generator) -> JobFailure | None:
        """The job's own failure (seconds of run time after its start), or None; always None
        unless ``sources.job_failures``."""
        ...

    def job_mtbf(self, gpus: int, nodes: int) -> float | None:
        """Seconds between hardware faults a job of this size sees (None: the model cannot
        say; ``inf``: it never sees one)."""
        ...


@dataclasses.dataclass(frozen=True)
class FailureOptions:
    """Options every modeled failure source accepts (job-level rates: ``job_failures``)."""

    trace_outcomes: Literal["replay", "replace", "both"] = "replay"
    """replay: recorded failures stand; replace: the model makes every failure; both."""
    switch_share: float = 0.5
    """Share of network faults that take a whole leaf switch down."""
    script_error_prob: float = 0.0
    """Probability a job fails on a script error early in its run."""
    framework_error_prob: float = 0.0
    """Probability a job fails on a framework error early in its run."""
    early_error_mean_min: float = 5.0
    """Mean time of script and framework errors after the start (min)."""
    aux_errors_per_job_day: float = 0.0
    """Auxiliary-service and storage errors per day of a job's run time."""
    storage_share: float = 0.3
    """Share of those auxiliary errors that are storage errors."""
    error_free_types: tuple[str, ...] = ()
    """job types that never get script or framework errors."""

    def __post_init__(self) -> None:
        failure_sources(self.trace_outcomes)
        self.job_error_rates()
        llama3_kinds(self.switch_share)

    def job_error_rates(self) -> JobErrorRates:
        """The job-level failure rates these options describe."""
        return JobErrorRates(
            self.script_error_prob,
            self.framework_error_prob,
            self.early_error_mean_min,
            self.aux_errors_per_job_day,
            self.storage_share,
            self.error_free_types,
        )


class FailureModel(FailureModelProtocol):
    """Base of the modeled failure sources: subclasses supply per-node times to failure."""

    Config = FailureOptions

    def __init__(self, config: FailureOptions, **context: Any) -> None:
        self.config = config
        self.mix = KindMix(llama3_kinds(config.switch_share))
        self.sources = failure_sources(config.trace_outcomes)
        self._job_errors = config.job_error_rates()

    def events(
        self, cluster: ClusterInfo, horizon: float, rng: np.random.Generator
    ) -> Iterator[FailureEvent]:
        """Hardware faults over ``[0, horizon)`` seconds, sorted by time (drawn eagerly)."""
        import numpy as np
        horizon = check_horizon(horizon)
        times, nodes, draws = self._renewals(cluster, horizon, rng)
        gpus = rng.integers(cluster.gpus_per_node, size=len(times))
        order = np.lexsort((nodes, times))
        events = [
            self._event(cluster, times[i], nodes[i], draws, i, int(gpus[i])) for i in order
        ]
        return iter(events)

    def window_events(
        self, cluster: ClusterInfo, start: float, end: float, rng: np.random.Generator
    ) -> Iterator[FailureEvent]:
        """Hardware faults over ``[start, end)``: the renewal processes started afresh at
        ``start`` (exact for memoryless faults; a fresh sample for Weibull renewals). Costs the
        faults of the window only, however late it starts."""
        for event in self.events(cluster, end - start, rng):
            yield dataclasses.replace(event, time=start + event.time)

    def job_software_failure(self, job: Any, rng: np.random.Generator) -> JobFailure | None:
        """The job's own failure (seconds of run time after start), or None.

        Always None when ``trace_outcomes=replay`` (the trace already holds job failures).
        """
        if not self.sources.job_failures or not self._job_errors.enabled:
            return None
        return self._job_errors.sample(JobShape.of(job), rng)

    def job_mtbf(self, gpus: int, nodes: int) -> float | None:
        """Seconds between hardware faults seen by a job of this size (None: unknown)."""
        return None

    def time_to_failure(
        self, rng: np.random.Generator, n: int, gpus_per_node: int
    ) -> np.ndarray:
        """``n`` independent node times-to-failure in seconds (the renewal distribution)."""
        raise NotImplementedError

    def _renewals(
        self, cluster: ClusterInfo, horizon: float, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray, KindDraws]:
        """Per-node renewal processes: fault, repair, next time to failure, until ``horizon``."""
        import numpy as np
        clock = np.zeros(len(cluster.nodes))
        alive = np.arange(len(cluster.nodes))
        times, nodes, kinds, detections, repairs = [], [], [], [], []
        while alive.size:
            clock[alive] += self.time_to_failure(rng, alive.size, cluster.gpus_per_node)
            alive = alive[clock[alive] < horizon]
            draws = self.mix.sample(rng, alive.size)
            times.append(clock[alive].copy())
            nodes.append(alive)
            kinds.append(draws.kind)
            detections.append(draws.detection)
            repairs.append(draws.repair)
            clock[alive] += draws.repair
        joined = KindDraws(*(np.concatenate(part) for part in (kinds, detections, repairs)))
        return np.concatenate(times), np.concatenate(nodes), joined

    def _event(
        self, cluster: ClusterInfo, time: float, node: int, draws: KindDraws, i: int, gpu: int
    ) -> FailureEvent:
        """Build the ``FailureEvent`` for draw ``i`` on node index ``node``."""
        kind = self.mix.kinds[int(draws.kind[i])]
        scope, target = resolve_target(kind, cluster, node)
        return FailureEvent(
            float(time), kind.name, scope, target, float(draws.detection[i]),
            float(draws.repair[i]), gpu if scope == "gpu" else None,
        )


def resolve_target(kind: FailureKind, cluster: ClusterInfo, node: int) -> tuple[Scope, str]:
    """Scope and target id of a fault of ``kind`` striking node index ``node``.

    A switch fault targets the node's leaf switch; without topology it falls back to the node.
    """
    if kind.scope == "switch":
        switch = cluster.switch(node)
        return ("switch", switch) if switch else ("node", cluster.nodes[node])
    return kind.scope, cluster.nodes[node]
