"""A synthetic trace calibrated to Seren or Kalos, generated on the fly from a seed."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from acmesim.sources import TRACES

if TYPE_CHECKING:
    import pandas as pd


@TRACES.register("synthetic")
class SyntheticTrace:
    """Generates ``days`` of a cluster profile's workload with its own ``seed``."""

    @dataclasses.dataclass(frozen=True)
    class Config:
        """Which cluster profile, how many days, which seed, at which scale; where to cache it."""

        profile: str = "seren"
        """Calibrated profile to generate: seren, kalos, taskdl, taskdl_philly, mix."""
        days: float = 7.0
        """Days of submissions to generate."""
        seed: int = 0
        """Seed of the generator (independent of the replay's seed)."""
        scale: float = 1.0
        """K x the profile's nodes at the same load per GPU: K x the jobs, teams and users
        (K >= 1, K x nodes whole; replay with cluster.scale=K; seren and kalos only)."""
        starts: str = "baseline"
        """Recorded starts: baseline (a replay under acme, calibrated) or packer (no replay:
        fast at large scale, the packer's own queueing)."""
        load: float = 1.0
        """L x the profile's GPU job rate on the same cluster: L x the offered GPU time per
        GPU (e.g. 1.3, the power logs' month, docs/energy.md; seren and kalos only)."""
        cache: str = "auto"
        """Where generated traces are kept for reuse by later runs and sweeps: auto
        ($ACMESIM_CACHE_DIR, else ~/.cache/acmesim/traces), none (off), or a directory."""

    def __init__(self, config: Config) -> None:
        from acmesim.synth.generate import check_arguments

        check_arguments(config.profile, config.days, config.seed, config.scale,
                        config.starts, config.load)  # fail before anything runs
        self.config = config

    def generator_options(self) -> dict[str, Any]:
        """Every option the generated table depends on (the cache key's options)."""
        c = self.config
        options = {"profile": c.profile, "days": float(c.days), "seed": int(c.seed),
                   "scale": float(c.scale), "starts": c.starts}
        if c.load != 1:  # the key of a trace at the profile's own load is unchanged
            options["load"] = float(c.load)
        return options

    def load(self) -> pd.DataFrame:
        """The generated jobs as a normalized job table, with per-job ``gpu_util``.

        Read from the trace cache when an earlier run generated the same trace
        (``acmesim/synth/cache.py``), else generated and cached.
        """
        from acmesim import synth
        from acmesim.synth.cache import cache_dir, cached_trace
        from acmesim.trace.gpu_util import with_gpu_util

        options = self.generator_options()
        jobs = cached_trace(options, lambda: synth.generate_trace(**options),
                            cache_dir(self.config.cache))
        return with_gpu_util(jobs, self.config.seed)  # kept where the profile sets it
