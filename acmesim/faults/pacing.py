"""Checkpoints of a running job, computed analytically from its compute progress (no events).

A job that checkpoints every ``interval`` seconds of compute takes checkpoint ``k`` when its work
reaches ``k × interval`` (``k ≥ 1``, strictly before the end of its work; the end needs no
checkpoint). Each checkpoint stalls training for ``stall`` seconds: the whole write when
synchronous, only the device-to-host copy when asynchronous, whose write to storage then runs
``persist`` more seconds in the background. A checkpoint survives a failure only once it is
persisted: at the end of its stall (sync) or ``persist`` seconds later (async). An async
checkpoint cannot start before the previous write has finished, so within one running interval
every checkpoint after the first stalls ``stall + max(0, persist - interval)``
(``acmesim.studies.reliability.single_job_model`` plays the same rules event by event).

A running interval that resumes at work ``done`` goes through, in wall time: ``g`` compute to the
next multiple of ``interval``, the first stall, then cycles of ``interval`` compute + the later
stall, and a last compute segment to the end. ``advance``, ``wall`` and ``persisted`` invert and
sum that sequence in O(1), so the engine needs no event per checkpoint.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from acmesim.policies.checkpoint.base import CheckpointPlan

_EPS = 1e-9
"""Relative tolerance on checkpoint positions (resuming at a checkpoint does not retake it)."""


@dataclasses.dataclass(frozen=True, slots=True)
class CheckpointPace:
    """The checkpoint schedule of one plan: interval, stalls and background write (seconds)."""

    interval: float
    stall: float
    later_stall: float
    persist: float

    @classmethod
    def of(cls, plan: CheckpointPlan) -> CheckpointPace | None:
        """The pace of ``plan``; None when the job never checkpoints."""
        if not plan.enabled:
            return None
        wait = max(0.0, plan.persist - plan.interval)
        return cls(plan.interval, plan.stall, plan.stall + wait, plan.persist)

    def _first(self, done: float) -> int:
        """Index ``k`` of the first checkpoint after work ``done``."""
        return math.floor(done / self.interval + _EPS) + 1

    def count(self, done: float, work: float) -> int:
        """Checkpoints taken while the work goes from ``done`` to the job's total ``work``."""
        last = math.ceil(work / self.interval - _EPS) - 1
        return max(0, last - self._first(done) + 1)

    def stall_total(self, checkpoints: int) -> float:
        """Stall seconds of ``checkpoints`` checkpoints taken in one running interval."""
        if checkpoints <= 0:
            return 0.0
        return self.stall + (checkpoints - 1) * self.later_stall

    def wall(self, done: float, work: float) -> float:
        """Wall seconds to compute from ``done`` to ``work`` (the end), stalls included."""
        return (work - done) + self.stall_total(self.count(done, work))

    def advance(self, done: float, work: float, elapsed: float) -> tuple[float, float]:
        """(work reached, seconds stalled) ``elapsed`` wall seconds into computing from ``done``."""
        checkpoints = self.count(done, work)
        first = self._first(done) * self.interval
        gap = first - done
        if checkpoints == 0 or elapsed <= gap:
            return min(work, done + elapsed), 0.0
        elapsed -= gap
        if elapsed <= self.stall:
            return first, elapsed
        elapsed -= self.stall
        cycle = self.interval + self.later_stall
        cycles = min(math.floor(elapsed / cycle), checkpoints - 1)
        rest = elapsed - cycles * cycle
        stalled = self.stall + cycles * self.later_stall
        if cycles == checkpoints - 1:  # past the last checkpoint: compute to the end
            return min(work, first + cycles * self.interval + rest), stalled
        computed = min(rest, self.interval)
        return first + cycles * self.interval + computed, stalled + (rest - computed)

    @staticmethod
    def stalls_at(interval: np.ndarray | float, stall: np.ndarray | float,
                  later_stall: np.ndarray | float, done: np.ndarray | float,
                  work: np.ndarray | float, elapsed: np.ndarray) -> np.ndarray:
        """``stalls_at`` (the module's), for those who hold a pace but do not import this
        package (the power accounting)."""
        return stalls_at(interval, stall, later_stall, done, work, elapsed)

    def stalled_at(self, done: float, work: float, elapsed: np.ndarray) -> np.ndarray:
        """``advance(done, work, e)[1]`` for every ``e`` of ``elapsed`` at once: the same float
        operations element by element, so the very same values (``stalls_at``)."""
        return stalls_at(self.interval, self.stall, self.later_stall, done, work, elapsed)

    def persisted(self, done: float, work: float, elapsed: float) -> float | None:
        """Work of the last checkpoint persisted ``elapsed`` seconds into the interval (None: none).

        Checkpoint ``j`` (1-based in the interval) ends its stall at ``gap + stall + (j - 1) ×
        (interval + later_stall)`` and is persisted ``persist`` seconds later.
        """
        checkpoints = self.count(done, work)
        first = self._first(done)
        ready = elapsed - (first * self.interval - done) - self.stall - self.persist
        if checkpoints == 0 or ready < 0:
            return None
        j = min(checkpoints, 1 + math.floor(ready / (self.interval + self.later_stall)))
        return (first + j - 1) * self.interval


def stalls_at(interval: np.ndarray | float, stall: np.ndarray | float,
              later_stall: np.ndarray | float, done: np.ndarray | float,
              work: np.ndarray | float, elapsed: np.ndarray) -> np.ndarray:
    """``CheckpointPace(interval, stall, later_stall, _).advance(done, work, e)[1]`` element by
    element over arrays that broadcast (one pace, or one per element): the same float
    operations, so the very same values (the power accounting splits many intervals' stalls at
    every utilization-interval edge with it, in one call)."""
    interval, stall, later_stall, done, work, elapsed = (
        np.asarray(v, dtype=np.float64) for v in (interval, stall, later_stall, done, work,
                                                  elapsed))
    first = np.floor(done / interval + _EPS) + 1  # _first, as a float of the same integer
    checkpoints = np.maximum(0.0, np.ceil(work / interval - _EPS) - 1 - first + 1)  # count
    gap = first * interval - done
    first_stall = elapsed - gap
    later = first_stall - stall
    cycle = interval + later_stall
    cycles = np.minimum(np.floor(later / cycle), checkpoints - 1)
    rest = later - cycles * cycle
    stalled = stall + cycles * later_stall
    tail = np.where(cycles == checkpoints - 1, stalled,
                    stalled + (rest - np.minimum(rest, interval)))
    return np.where((checkpoints == 0) | (elapsed <= gap), 0.0,
                    np.where(first_stall <= stall, first_stall, tail))
