"""Start-up latency: the time from "the scheduler starts a job" to "the job runs".

Pod or container launch, image pull and process start hold the job's GPUs before it does any
work. The model: a launcher starts one job every ``launch_interval`` seconds (jobs started
together queue for it), then each job takes a shifted lognormal ``minimum + (median - minimum)
* exp(sigma * Z)`` (``Z`` standard normal, capped at ``maximum``; its median is ``median``).
``by_type`` gives some job types their own ``minimum``, ``median``, ``sigma`` and ``maximum``
(the cluster's ``maximum`` unless given; the same standard normal draw ``Z`` of the job is used,
so a job's rank in its distribution does not depend on its type). The default (everything 0)
is no start-up latency. Cluster presets set cited defaults (``acmesim.cluster.presets.acme``);
``cluster.startup={minimum:4,median:17,sigma:0.8}`` overrides them on the command line,
``cluster.startup={}`` turns the latency off.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from acmesim.cluster.per_type import given_values, type_rows
from acmesim.core.errors import ConfigError

if TYPE_CHECKING:
    import numpy as np


@dataclasses.dataclass(frozen=True)
class StartupLatency:
    """Shifted-lognormal start-up latency (seconds); all zero means none."""

    minimum: float = 0.0
    median: float = 0.0
    sigma: float = 0.0
    maximum: float = math.inf
    launch_interval: float = 0.0
    """Seconds the cluster's launcher spends on each job start: jobs started at once are
    launched one after another, the k-th waiting k - 1 intervals first (part of its start-up)."""
    by_type: Any = ()
    """Job type -> its own {minimum, median, sigma, maximum} (a dict; kept as sorted tuples)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_type", _type_table(self.by_type, self.maximum))
        if not 0.0 <= self.minimum <= self.median <= self.maximum:
            raise ConfigError(f"startup needs 0 <= minimum <= median <= maximum, got {self}")
        if not self.sigma >= 0.0:
            raise ConfigError(f"startup sigma must be >= 0, got {self.sigma!r}")
        if not self.launch_interval >= 0.0:
            raise ConfigError(f"startup launch_interval must be >= 0, got "
                              f"{self.launch_interval!r}")

    @property
    def active(self) -> bool:
        """Whether any job can have a non-zero start-up latency."""
        return (self.median > 0.0 or self.launch_interval > 0.0
                or any(row[2] > 0.0 for row in self.by_type))

    def draw(self, rng: np.random.Generator, n: int,
             types: Sequence[str] | None = None) -> np.ndarray:
        """``n`` independent start-up latencies (zeros when inactive, without drawing); job
        ``i`` of type ``types[i]`` uses its type's parameters if ``by_type`` has them."""
        import numpy as np
        if not self.active:
            return np.zeros(n)
        return self.at(rng.standard_normal(n), types)

    def at(self, z: np.ndarray, types: Sequence[str] | None = None) -> np.ndarray:
        """The latencies at standard normal quantiles ``z`` (job ``i`` of type ``types[i]``
        with its type's parameters if ``by_type`` has them): ``draw`` at given draws."""
        import numpy as np
        n = len(z)
        minimum = np.full(n, self.minimum)
        median = np.full(n, self.median)
        sigma = np.full(n, self.sigma)
        maximum = np.full(n, self.maximum)
        if types is not None and self.by_type:
            kinds = np.asarray(types, dtype=object)
            for name, low, mid, spread, cap in self.by_type:
                rows = kinds == name
                minimum[rows], median[rows], sigma[rows], maximum[rows] = low, mid, spread, cap
        return np.minimum(minimum + (median - minimum) * np.exp(sigma * z), maximum)

    @classmethod
    def of(cls, value: StartupLatency | Mapping[str, Any] | None) -> StartupLatency:
        """A latency from itself, a dict of its fields (unknown keys rejected) or None."""
        if isinstance(value, StartupLatency):
            return value
        if value is None:
            return cls()
        if not isinstance(value, Mapping):
            raise ConfigError(f"startup must be a dict of {_field_names()}, got {value!r}")
        unknown = sorted(set(value) - set(_field_names()))
        if unknown:
            raise ConfigError(f"startup has no field(s) {unknown}; valid: {_field_names()}")
        try:
            return cls(**{k: v if k == "by_type" else float(v) for k, v in value.items()})
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"startup: {exc}") from None


@dataclasses.dataclass(frozen=True)
class GivenStartup(StartupLatency):
    """Start-up latencies fixed per job, in the engine's job order (submission order, stable),
    instead of drawn; the other fields are the latency they stand for (``active``, the
    launcher). The generator uses it to replay jobs with the start-ups it sampled them with
    (``acmesim.synth.baseline``)."""

    values: Any = dataclasses.field(default=None, compare=False, repr=False)
    """One start-up (s) per job of the replayed table."""

    def draw(self, rng: np.random.Generator, n: int,
             types: Sequence[str] | None = None) -> np.ndarray:
        """The given values (``n`` must be their count)."""
        return given_values(self.values, n, "start-ups")


TYPE_FIELDS = ("minimum", "median", "sigma", "maximum")
"""What ``by_type`` may set per job type."""


def _type_table(value: Any, maximum: float
                ) -> tuple[tuple[str, float, float, float, float], ...]:
    """``by_type`` as sorted (type, minimum, median, sigma, maximum) tuples, each checked (a
    type without its own ``maximum`` takes the cluster's)."""
    table = []
    defaults = {"minimum": 0.0, "median": 0.0, "sigma": 0.0, "maximum": maximum}
    for name, fields, row in type_rows(value, TYPE_FIELDS, defaults, "startup"):
        low, mid, spread, cap = (float(row[k]) for k in TYPE_FIELDS)
        if not (0.0 <= low <= mid <= cap and spread >= 0.0):
            raise ConfigError(f"startup by_type[{name!r}] needs 0 <= minimum <= median <= "
                              f"maximum and sigma >= 0, got {fields!r}")
        table.append((name, low, mid, spread, cap))
    return tuple(table)


def _field_names() -> list[str]:
    """The fields of ``StartupLatency``."""
    return [f.name for f in dataclasses.fields(StartupLatency)]
