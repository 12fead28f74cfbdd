"""Start-up latency: the time from "the scheduler starts a job" to "the job runs".

Pod or container launch, image pull and process start hold the job's GPUs before it does any
work. The model: a launcher starts one job every ``launch_interval`` seconds (jobs started
together queue for it), then each job takes a shifted lognormal ``minimum + (median - minimum)
* exp(sigma * Z)`` (``Z`` standard normal, capped at ``maximum``; its median is ``median``).
The default (everything 0) is no start-up latency. Cluster presets set cited defaults
(``acmesim.model.presets.acme``); ``cluster.startup={minimum:4,median:17,sigma:0.8}`` overrides
them on the command line, ``cluster.startup={}`` turns the latency off.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from acmesim.core.errors import ConfigError


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

    def __post_init__(self) -> None:
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
        return self.median > 0.0 or self.launch_interval > 0.0

    def draw(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """``n`` independent start-up latencies (zeros when inactive, without drawing)."""
        if not self.active:
            return np.zeros(n)
        spread = (self.median - self.minimum) * np.exp(self.sigma * rng.standard_normal(n))
        return np.minimum(self.minimum + spread, self.maximum)

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
            return cls(**{k: float(v) for k, v in value.items()})
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"startup: {exc}") from None


def _field_names() -> list[str]:
    """The fields of ``StartupLatency``."""
    return [f.name for f in dataclasses.fields(StartupLatency)]
