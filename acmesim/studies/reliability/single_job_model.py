"""The single-job reliability model shared by the SimPy simulator and the vectorized one.

Daly's model (reliability_facts.md §1.4), extended with asynchronous checkpoints:

- the job needs ``solve_time`` seconds of compute, cut into segments of ``interval`` (the last one
  shorter when ``solve_time`` is not a multiple); every segment ends with a checkpoint, the last
  one included; ``interval = inf`` means no checkpoints at all;
- a checkpoint stalls training for ``stall`` seconds. With ``persist = 0`` (synchronous) it is
  durable when the stall ends. With ``persist > 0`` (asynchronous) the stall is only the copy to
  host memory and the write to storage runs in the background for ``persist`` seconds: the
  checkpoint is durable only then, and the next checkpoint's stall first waits for that write
  to finish. A failure destroys writes still in flight;
- failures strike compute, stalls, the final flush and restarts alike (exposed time). Failure
  ``i`` comes ``gaps[i]`` seconds of exposed time after the previous restart began (after the job
  start for the first); it is followed by ``downtime[i]`` failure-free seconds and then a restart
  of ``restart[i]`` exposed seconds, retried (with the next failure's downtime and restart) if a
  failure strikes it; work resumes from the last durable checkpoint.

A fault at the exact instant a phase ends is a tie of measure zero under continuous
distributions; the two simulators may book such a tie differently.

Accounting identity: ``wall = solve_time + lost_work + checkpoint_time + restart_time +
downtime``. ETTR = ``solve_time / wall``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterator

import numpy as np

from acmesim.policies.checkpoint.base import CheckpointPlan

GAP_STREAM = "single_job.gaps"
"""Named RNG stream of failure gaps (``acmesim.core.rng.RngStreams``)."""

RECOVERY_STREAM = "single_job.recovery"
"""Named RNG stream of per-failure downtime/restart draws."""

GapSampler = Callable[[np.random.Generator, int], np.ndarray]
RecoverySampler = Callable[[np.random.Generator, int], tuple[np.ndarray, np.ndarray]]


@dataclasses.dataclass(frozen=True)
class SingleJobSpec:
    """One job: compute to do and how it checkpoints (seconds)."""

    solve_time: float
    interval: float = math.inf
    stall: float = 0.0
    persist: float = 0.0

    def __post_init__(self) -> None:
        if not (self.solve_time > 0 and math.isfinite(self.solve_time)):
            raise ValueError(f"solve_time must be finite and > 0, got {self.solve_time!r}")
        if not self.interval > 0:
            raise ValueError(f"interval must be > 0, got {self.interval!r}")
        for name in ("stall", "persist"):
            value = getattr(self, name)
            if not (value >= 0 and math.isfinite(value)):
                raise ValueError(f"{name} must be finite and >= 0, got {value!r}")

    @classmethod
    def from_plan(cls, solve_time: float, plan: CheckpointPlan) -> SingleJobSpec:
        """The spec of a job of ``solve_time`` compute under a checkpoint policy's plan."""
        if not plan.enabled:
            return cls(solve_time)
        return cls(solve_time, plan.interval, plan.stall, plan.persist)

    @property
    def checkpoints(self) -> bool:
        """True when the job checkpoints."""
        return math.isfinite(self.interval) and self.interval < math.inf

    @property
    def segments(self) -> int:
        """Number of compute segments (1 without checkpoints)."""
        if not self.checkpoints:
            return 1
        return max(1, math.ceil(self.solve_time / self.interval - 1e-12))

    @property
    def last_segment(self) -> float:
        """Compute seconds of the last segment."""
        if not self.checkpoints:
            return self.solve_time
        return self.solve_time - (self.segments - 1) * self.interval


@dataclasses.dataclass(frozen=True)
class FailureSequence:
    """A fixed list of failures: exposed gaps, and each failure's downtime and restart time.

    After the last listed failure the job never fails again.
    """

    gaps: tuple[float, ...]
    downtime: tuple[float, ...]
    restart: tuple[float, ...]

    def __post_init__(self) -> None:
        if not len(self.gaps) == len(self.downtime) == len(self.restart):
            raise ValueError("gaps, downtime and restart must have the same length")
        values = (*self.gaps, *self.downtime, *self.restart)
        if any(not (v >= 0 and math.isfinite(v)) for v in values):
            raise ValueError("failure gaps, downtimes and restarts must be finite and >= 0")

    @classmethod
    def of(cls, gaps, downtime=0.0, restart=0.0) -> FailureSequence:
        """Build from gaps and scalar-or-sequence downtime and restart."""
        gaps = tuple(float(g) for g in gaps)
        return cls(gaps, _per_failure(downtime, len(gaps)), _per_failure(restart, len(gaps)))

    def __iter__(self) -> Iterator[tuple[float, float, float]]:
        """(gap, downtime, restart) of each failure in order."""
        return iter(zip(self.gaps, self.downtime, self.restart, strict=True))

    def __len__(self) -> int:
        """Number of failures listed."""
        return len(self.gaps)


def _per_failure(value, n: int) -> tuple[float, ...]:
    """A scalar repeated ``n`` times, or a sequence of length ``n`` as floats."""
    if np.ndim(value) == 0:
        return (float(value),) * n
    return tuple(float(v) for v in value)


@dataclasses.dataclass(frozen=True)
class SingleJobResult:
    """Outcome of one simulated job (seconds; ``failures`` counted)."""

    wall: float
    solve_time: float
    lost_work: float
    checkpoint_time: float
    restart_time: float
    downtime: float
    failures: int

    @property
    def ettr(self) -> float:
        """Effective training time ratio: productive compute over wall time."""
        return self.solve_time / self.wall


@dataclasses.dataclass(frozen=True)
class ExponentialGaps:
    """Memoryless failures with mean ``mtbf`` seconds between them."""

    mtbf: float

    def __call__(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """``n`` exponential gaps."""
        if math.isinf(self.mtbf):
            return np.full(n, math.inf)
        return rng.exponential(self.mtbf, size=n)


@dataclasses.dataclass(frozen=True)
class WeibullGaps:
    """Weibull gaps of mean ``mean`` seconds and shape ``shape`` (renewed at every failure)."""

    mean: float
    shape: float

    def __call__(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """``n`` Weibull gaps."""
        scale = self.mean / math.gamma(1.0 + 1.0 / self.shape)
        return scale * rng.weibull(self.shape, size=n)


@dataclasses.dataclass(frozen=True)
class ConstantRecovery:
    """The same downtime and restart after every failure (Daly's model)."""

    downtime: float = 0.0
    restart: float = 0.0

    def __call__(self, rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
        """``n`` copies of (downtime, restart)."""
        return np.full(n, float(self.downtime)), np.full(n, float(self.restart))


@dataclasses.dataclass(frozen=True)
class PooledRecovery:
    """Downtime/restart pairs drawn with replacement from a pool (e.g. recovery-policy plans)."""

    downtime: np.ndarray
    restart: np.ndarray

    def __call__(self, rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
        """``n`` pairs drawn uniformly from the pool."""
        pick = rng.integers(len(self.downtime), size=n)
        return self.downtime[pick], self.restart[pick]
