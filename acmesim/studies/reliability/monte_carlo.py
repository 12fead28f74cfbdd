"""Vectorized single-job Monte Carlo: many replications advance one failure at a time.

Same model as the SimPy simulator (``acmesim.studies.reliability.single_job_model``), but instead of
playing every segment, each step jumps straight to the next failure: given the exposed time until
it, closed-form arithmetic says how many checkpoints became durable, how much compute was lost
and how much stall time was spent. All replications step together as numpy arrays, so the cost
grows with the largest number of failures, not with the number of segments.

Segment timing within one run (from the end of a restart, ``j`` segments already durable):
the first checkpoint of a run stalls ``δ`` (no write in flight); later ones stall
``δ + max(0, w - τ)`` (waiting for the previous write, ``w`` = ``persist``), so the ``m``-th
regular stall ends at ``E(m) = m·a - Δ`` with ``a = τ + δ + max(0, w - τ)`` and
``Δ = max(0, w - τ)``; checkpoint ``m`` is durable at ``E(m) + w``; the run ends when the last
segment's checkpoint is written.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from acmesim.core.rng import RngStreams
from acmesim.studies.reliability.single_job_model import (
    GAP_STREAM,
    RECOVERY_STREAM,
    FailureSequence,
    GapSampler,
    RecoverySampler,
    SingleJobResult,
    SingleJobSpec,
)

DEFAULT_MAX_FAILURES = 1_000_000


@dataclasses.dataclass(frozen=True)
class MonteCarloResult:
    """Per-replication outcomes (arrays of seconds and failure counts)."""

    solve_time: float
    wall: np.ndarray
    lost_work: np.ndarray
    checkpoint_time: np.ndarray
    restart_time: np.ndarray
    downtime: np.ndarray
    failures: np.ndarray

    @property
    def ettr(self) -> float:
        """ETTR of the mean job: ``solve_time / mean(wall)`` (Daly's ``T_s / T_w``)."""
        return self.solve_time / float(self.wall.mean())

    def replication(self, i: int) -> SingleJobResult:
        """Replication ``i`` as a ``SingleJobResult``."""
        return SingleJobResult(
            float(self.wall[i]), self.solve_time, float(self.lost_work[i]),
            float(self.checkpoint_time[i]), float(self.restart_time[i]),
            float(self.downtime[i]), int(self.failures[i]),
        )


@dataclasses.dataclass(frozen=True)
class _Timing:
    """Closed-form segment timing of a spec (module docstring)."""

    segments: int
    tau: float
    last: float
    period: float
    shift: float
    first_stall: float
    last_stall: float
    lag: float

    @classmethod
    def of(cls, spec: SingleJobSpec) -> _Timing:
        """Timing constants; a job without checkpoints is one segment without stalls."""
        if not spec.checkpoints:
            return cls(1, spec.solve_time, spec.solve_time, spec.solve_time, 0.0, 0.0, 0.0, 0.0)
        wait = max(0.0, spec.persist - spec.interval)
        return cls(
            spec.segments, spec.interval, spec.last_segment, spec.interval + spec.stall + wait,
            wait, spec.stall, spec.stall + max(0.0, spec.persist - spec.last_segment),
            spec.persist,
        )

    def stall_end(self, m: np.ndarray) -> np.ndarray:
        """End of the ``m``-th regular stall of a run (0 for ``m = 0``)."""
        return np.where(m > 0, m * self.period - self.shift, 0.0)

    def finish(self, left: np.ndarray) -> np.ndarray:
        """Run time to finish ``left`` remaining segments (last write included)."""
        regular = left - 1
        last_stall = np.where(regular > 0, self.last_stall, self.first_stall)
        return self.stall_end(regular) + self.last + last_stall + self.lag


def replay(spec: SingleJobSpec, sequence: FailureSequence) -> SingleJobResult:
    """Run one job under a fixed failure sequence (the exact twin of the SimPy simulator)."""
    gaps = np.array(sequence.gaps, dtype=float)
    down = np.array(sequence.downtime, dtype=float)
    rest = np.array(sequence.restart, dtype=float)

    def draw_gaps(i: int, n: int) -> np.ndarray:
        return np.full(n, gaps[i] if i < len(gaps) else np.inf)

    def draw_recovery(i: int, n: int) -> tuple[np.ndarray, np.ndarray]:
        if i >= len(gaps):
            return np.zeros(n), np.zeros(n)
        return np.full(n, down[i]), np.full(n, rest[i])

    result = _simulate(spec, 1, draw_gaps, draw_recovery, len(gaps) + 1)
    return result.replication(0)


def monte_carlo(
    spec: SingleJobSpec,
    replications: int,
    seed: int,
    gaps: GapSampler,
    recovery: RecoverySampler,
    max_failures: int = DEFAULT_MAX_FAILURES,
) -> MonteCarloResult:
    """``replications`` independent jobs; failures and recoveries from named RNG streams.

    Step ``i`` draws gap ``i`` of every replication (finished or not), so replication ``r`` sees
    the same failure gaps whatever the checkpoint spec: common random numbers across a sweep.
    """
    streams = RngStreams(seed)
    gap_rng, recovery_rng = streams.stream(GAP_STREAM), streams.stream(RECOVERY_STREAM)
    return _simulate(
        spec, replications,
        lambda i, n: gaps(gap_rng, n),
        lambda i, n: recovery(recovery_rng, n),
        max_failures,
    )


def _simulate(
    spec: SingleJobSpec,
    n: int,
    draw_gaps: Callable[[int, int], np.ndarray],
    draw_recovery: Callable[[int, int], tuple[np.ndarray, np.ndarray]],
    max_failures: int,
) -> MonteCarloResult:
    """Advance ``n`` replications failure by failure until every job has finished."""
    timing = _Timing.of(spec)
    state = {key: np.zeros(n) for key in ("wall", "lost", "ckpt", "restart", "down", "due")}
    committed = np.zeros(n, dtype=np.int64)
    failures = np.zeros(n, dtype=np.int64)
    active = np.ones(n, dtype=bool)
    for step in range(max_failures + 1):
        gap = draw_gaps(step, n)
        downtime, restart = draw_recovery(step, n)
        if not active.any():
            break
        failed = _advance(timing, spec, state, committed, gap, active)
        failures += failed
        state["down"] += np.where(failed, downtime, 0.0)
        state["wall"] += np.where(failed, downtime, 0.0)
        state["due"] = np.where(failed, restart, state["due"])
        active &= failed
    else:
        raise RuntimeError(
            f"a job did not finish within {max_failures} failures (interval too long for the "
            "failure rate); raise max_failures or checkpoint more often"
        )
    return MonteCarloResult(
        spec.solve_time, state["wall"], state["lost"], state["ckpt"], state["restart"],
        state["down"], failures,
    )


def _advance(
    timing: _Timing, spec: SingleJobSpec, state: dict, committed: np.ndarray, gap: np.ndarray,
    active: np.ndarray,
) -> np.ndarray:
    """Play ``gap`` of exposed time on every active replication; return who failed."""
    due = state["due"]
    in_restart = active & (gap < due)
    state["restart"] += np.where(in_restart, gap, np.where(active, due, 0.0))
    state["wall"] += np.where(in_restart, gap, np.where(active, due, 0.0))
    running = active & ~in_restart
    run_time = np.where(running, gap - due, 0.0)
    left = timing.segments - committed
    finish = timing.finish(left)
    done = running & (run_time >= finish)
    remaining_work = spec.solve_time - committed * timing.tau
    state["wall"] += np.where(done, finish, 0.0)
    state["ckpt"] += np.where(done, finish - remaining_work, 0.0)
    hit = running & ~done
    durable, computed = _progress_at(timing, run_time, left)
    state["lost"] += np.where(hit, computed - durable * timing.tau, 0.0)
    state["ckpt"] += np.where(hit, run_time - computed, 0.0)
    state["wall"] += np.where(hit, run_time, 0.0)
    committed += np.where(hit, durable, 0)
    return in_restart | hit


def _progress_at(
    timing: _Timing, run_time: np.ndarray, left: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Checkpoints durable by ``run_time`` and compute done by then, within one run."""
    regular = left - 1
    with np.errstate(invalid="ignore"):
        durable = np.floor((run_time - timing.lag + timing.shift) / timing.period)
        ended = np.floor((run_time + timing.shift) / timing.period)
    durable = np.clip(np.nan_to_num(durable), 0, regular).astype(np.int64)
    ended = np.clip(np.nan_to_num(ended), 0, regular).astype(np.int64)
    segment = np.where(ended == regular, timing.last, timing.tau)
    offset = run_time - timing.stall_end(ended)
    computed = ended * timing.tau + np.minimum(offset, segment)
    return durable, computed
