"""A synthetic trace calibrated to Seren or Kalos, generated on the fly from a seed."""

from __future__ import annotations

import dataclasses

import pandas as pd

from acmesim.sources import TRACES


@TRACES.register("synthetic")
class SyntheticTrace:
    """Generates ``days`` of a cluster profile's workload with its own ``seed``."""

    @dataclasses.dataclass(frozen=True)
    class Config:
        """Which cluster profile, how many days, which seed."""

        profile: str = "seren"
        """Calibrated profile to generate: seren, kalos, taskdl, taskdl_philly, mix."""
        days: float = 7.0
        """Days of submissions to generate."""
        seed: int = 0
        """Seed of the generator (independent of the replay's seed)."""

    def __init__(self, config: Config) -> None:
        from acmesim.synth.generate import check_arguments

        check_arguments(config.profile, config.days, config.seed)  # fail before anything runs
        self.config = config

    def load(self) -> pd.DataFrame:
        """The generated jobs as a normalized job table, with per-job ``gpu_util``."""
        from acmesim.synth import generate_trace
        from acmesim.trace.gpu_util import with_gpu_util

        jobs = generate_trace(self.config.profile, self.config.days, self.config.seed)
        return with_gpu_util(jobs, self.config.seed)  # kept where the profile sets it
