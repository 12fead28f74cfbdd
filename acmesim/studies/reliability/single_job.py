"""The single-job simulator on SimPy: one job, its checkpoints, failures, downtime and restarts.

The model is stated in ``acmesim.studies.reliability.single_job_model``. Two processes run: the job
(restart, compute, checkpoint stall, final flush) and the failure source, which waits each
failure's gap of exposed time, interrupts the job and then waits out the failure-free downtime.
``acmesim.studies.reliability.monte_carlo`` computes the same quantities in closed form per failure
for many replications at once; both must agree exactly on the same failure sequence.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator

import numpy as np
import simpy

from acmesim.core.rng import RngStreams
from acmesim.studies.reliability.single_job_model import (
    GAP_STREAM,
    RECOVERY_STREAM,
    GapSampler,
    RecoverySampler,
    SingleJobResult,
    SingleJobSpec,
)


@dataclasses.dataclass
class _Ledger:
    """Running totals of one simulated job."""

    compute: float = 0.0
    checkpoint: float = 0.0
    restart: float = 0.0
    downtime: float = 0.0
    failures: int = 0
    finished: bool = False


@dataclasses.dataclass
class _Phase:
    """What the job has been doing since ``start``: compute, checkpoint stall or restart."""

    kind: str = "restart"
    start: float = 0.0


def simulate(
    spec: SingleJobSpec, failures: Iterable[tuple[float, float, float]]
) -> SingleJobResult:
    """Simulate one job under ``failures``: an iterable of (gap, downtime, restart) triples."""
    env = simpy.Environment()
    ledger = _Ledger()
    job = env.process(_job(env, spec, ledger))
    env.process(_failure_source(env, job, iter(failures), ledger))
    env.run(until=job)
    return SingleJobResult(
        wall=env.now,
        solve_time=spec.solve_time,
        lost_work=ledger.compute - spec.solve_time,
        checkpoint_time=ledger.checkpoint,
        restart_time=ledger.restart,
        downtime=ledger.downtime,
        failures=ledger.failures,
    )


def simulate_seeded(
    spec: SingleJobSpec, seed: int, gaps: GapSampler, recovery: RecoverySampler
) -> SingleJobResult:
    """Simulate one job with failures drawn from the named streams of ``seed``.

    Uses the same streams as ``monte_carlo``, so it reproduces ``monte_carlo(spec, 1, seed, …)``
    exactly.
    """
    streams = RngStreams(seed)
    return simulate(spec, sampled_failures(
        streams.stream(GAP_STREAM), streams.stream(RECOVERY_STREAM), gaps, recovery))


def sampled_failures(
    gap_rng: np.random.Generator,
    recovery_rng: np.random.Generator,
    gaps: GapSampler,
    recovery: RecoverySampler,
) -> Iterator[tuple[float, float, float]]:
    """An endless stream of (gap, downtime, restart) drawn one failure at a time."""
    while True:
        gap = float(gaps(gap_rng, 1)[0])
        downtime, restart = recovery(recovery_rng, 1)
        yield gap, float(downtime[0]), float(restart[0])


def _job(env: simpy.Environment, spec: SingleJobSpec, ledger: _Ledger):
    """The job process: runs from the last durable checkpoint until done, restarting on faults."""
    committed, restart_due = 0, 0.0  # durable segments, restart owed after a failure
    while True:
        phase = _Phase()
        writes: list[tuple[float, int]] = []  # (durable time, segments saved) per checkpoint
        try:
            phase.kind, phase.start = "restart", env.now
            yield env.timeout(restart_due)
            ledger.restart += restart_due
            yield from _run(env, spec, ledger, phase, committed, writes)
            ledger.finished = True
            return
        except simpy.Interrupt as interrupt:
            _charge_partial(ledger, phase, env.now)
            committed = max([k for t, k in writes if t <= env.now], default=committed)
            # simpy types Interrupt.cause Optional[Any]; ours is always (downtime, restart due)
            downtime, restart_due = interrupt.cause  # type: ignore[misc]
            ledger.failures += 1
            ledger.downtime += downtime
            yield env.timeout(downtime)


def _run(env, spec: SingleJobSpec, ledger: _Ledger, phase: _Phase, committed: int, writes):
    """Compute and checkpoint segments ``committed..`` to the end, then flush the last write."""
    write_end = env.now
    for segment in range(committed, spec.segments):
        work = spec.last_segment if segment == spec.segments - 1 else spec.interval
        phase.kind, phase.start = "compute", env.now
        yield env.timeout(work)
        ledger.compute += work
        if not spec.checkpoints:
            continue
        stall = spec.stall + max(0.0, write_end - env.now)
        phase.kind, phase.start = "checkpoint", env.now
        yield env.timeout(stall)
        ledger.checkpoint += stall
        write_end = env.now + spec.persist
        writes.append((write_end, segment + 1))
    flush = max(0.0, write_end - env.now)
    phase.kind, phase.start = "checkpoint", env.now
    yield env.timeout(flush)
    ledger.checkpoint += flush


def _charge_partial(ledger: _Ledger, phase: _Phase, now: float) -> None:
    """Book the interrupted part of the current phase to its kind of time."""
    elapsed = now - phase.start
    if phase.kind == "compute":
        ledger.compute += elapsed
    elif phase.kind == "checkpoint":
        ledger.checkpoint += elapsed
    else:
        ledger.restart += elapsed


def _failure_source(env, job, failures: Iterator, ledger: _Ledger):
    """Wait each gap of exposed time, interrupt the job, then wait out the downtime."""
    for gap, downtime, restart in failures:
        yield env.timeout(gap)
        if ledger.finished or not job.is_alive:
            return
        job.interrupt((downtime, restart))
        yield env.timeout(downtime)
