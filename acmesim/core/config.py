"""Typed configuration of one replay; the library needs no Hydra (the CLI builds these).

Each plug-in group is a ``Choice``: a registered name plus the options its typed ``Config``
dataclass declares. Validation happens in the registries (``acmesim.core.registry``).
"""

from __future__ import annotations

import dataclasses
import numbers
from collections.abc import Mapping
from typing import Any, Literal

from acmesim.core.errors import ConfigError


@dataclasses.dataclass(frozen=True)
class Choice:
    """One plug-in group's selection: a registered name and its options."""

    name: str
    options: Mapping[str, Any] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class ReplayConfig:
    """Everything that determines one replay (same config and seed => identical result files)."""

    trace: Choice = Choice("sample")
    cluster: Choice = Choice("seren")
    scheduler: Choice = Choice("fifo")
    placement: Choice = Choice("consolidate")
    failure: Choice = Choice("none")
    checkpoint: Choice = Choice("none")
    recovery: Choice = Choice("automatic")
    power: Choice = Choice("none")
    mode: Literal["recorded", "scheduled"] = "scheduled"
    seed: int = 0
    cpu_jobs: Literal["skip", "replay"] = "skip"
    oversize_jobs: Literal["error", "skip"] = "error"
    utilization_interval: float = 3600.0
    progress: bool = True
    run_id: str = ""

    def __post_init__(self) -> None:
        """Reject settings no replay can run with, before anything runs."""
        if (not isinstance(self.seed, numbers.Integral) or isinstance(self.seed, bool)
                or self.seed < 0):
            raise ConfigError(f"seed must be a non-negative integer, got {self.seed!r}")
        if not self.utilization_interval > 0:
            raise ConfigError(f"utilization_interval must be > 0 seconds, "
                              f"got {self.utilization_interval!r}")
