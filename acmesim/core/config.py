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
    """Where the jobs come from (a trace source: sample, file, synthetic)."""
    cluster: Choice = Choice("seren")
    """The modeled cluster (a preset and its options)."""
    scheduler: Choice = Choice("fifo")
    """Which pending jobs start, and which running ones are preempted."""
    placement: Choice = Choice("consolidate")
    """Which nodes and GPUs a starting job gets."""
    failure: Choice = Choice("none")
    """The failure model (none: only the trace's own outcomes)."""
    checkpoint: Choice = Choice("none")
    """When running jobs checkpoint (none: never)."""
    recovery: Choice = Choice("automatic")
    """How a job hit by a fault resumes (only acts under a failure model)."""
    eval: Choice = Choice("none")
    """How the trace's evaluation jobs are replayed: none, coupled or decoupled."""
    power: Choice = Choice("none")
    """The power model (none: no energy accounting)."""
    mode: Literal["recorded", "scheduled"] = "scheduled"
    """Recorded (start jobs when the trace did) or scheduled (the scheduler decides)."""
    seed: int = 0
    """Seed of every random stream; same config and seed => same files."""
    cpu_jobs: Literal["skip", "replay"] = "skip"
    """Skip or replay the trace's CPU-only jobs."""
    oversize_jobs: Literal["error", "skip"] = "error"
    """Error or skip jobs larger than the cluster."""
    utilization_interval: float = 3600.0
    """Seconds between rows of utilization.csv."""
    progress: bool = True
    """Show a progress bar when stdout is a terminal."""
    run_id: str = ""
    """Name of the run in summary.csv (empty: derived from the configuration)."""

    def __post_init__(self) -> None:
        """Reject settings no replay can run with, before anything runs."""
        if (not isinstance(self.seed, numbers.Integral) or isinstance(self.seed, bool)
                or self.seed < 0):
            raise ConfigError(f"seed must be a non-negative integer, got {self.seed!r}")
        if not self.utilization_interval > 0:
            raise ConfigError(f"utilization_interval must be > 0 seconds, "
                              f"got {self.utilization_interval!r}")
