"""The ``mix`` profile: Acme Seren and task-DL work half and half by GPU time, on Seren.

Any other mixture is one call of ``generate_mixture`` (``mixture.py``) or one more
``MixtureProfile`` registered here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import pandas as pd

from acmesim.synth.mixture import generate_mixture
from acmesim.synth.profiles import SEREN, WorkloadProfile, register_profile


@dataclasses.dataclass(frozen=True)
class MixtureProfile(WorkloadProfile):
    """A profile that mixes registered profiles by share of GPU time on one's cluster."""

    components: Mapping[str, float] = dataclasses.field(default_factory=dict)
    """Profile name -> share of GPU time; the first names the cluster."""

    def make_generator(self, days: float, seed: int) -> _MixtureRun:
        """The generator of ``days`` days of this mixture from ``seed``."""
        return _MixtureRun(self.components, days, seed)


@dataclasses.dataclass(frozen=True)
class _MixtureRun:
    """One generation of a mixture profile."""

    components: Mapping[str, float]
    days: float
    seed: int

    def run(self) -> pd.DataFrame:
        """The mixed job table."""
        return generate_mixture(self.components, self.days, self.seed)


MIX = register_profile(MixtureProfile(
    **{f.name: getattr(SEREN, f.name) for f in dataclasses.fields(WorkloadProfile)
       if f.name != "name"},
    name="mix",
    components={"seren": 0.5, "taskdl": 0.5},
))
"""Seren LLM development and Helios-like task-DL work, 50/50 by GPU time, on Seren's nodes."""
