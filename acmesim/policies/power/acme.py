"""``power=acme``: an A100 GPU server of Seren, calibrated to the Acme power measurements.

Constants and where they come from (acme_facts.md §6 "Power and temperature", R-PKL and the
paper via N-ZH; Seren GPU servers, 8 x A100-SXM 80 GB, §1):

- ``idle_w = 60``: idle GPUs still draw about 60 W (paper). **Used as given.**
- ``waiting_w = 60``: **assumption**: a GPU held by a job that runs no kernel (restart,
  failure detection, checkpoint stall) draws as an idle one; the facts give no separate figure.
- ``peak_w = 558``: the largest Seren GPU sample (max 558 W). **Used as given** as the draw of a
  GPU at utilization 1 and intensity 1.
- ``active_w = 80``: **assumption**: a GPU running kernels draws at least 80 W, above the 70 W
  line of the published idle share, because that share (28-30% of samples <= 70 W) is the idle
  GPUs alone ("about 30% of GPUs are idle", §6): allocated GPUs are almost never below it.
- A computing GPU draws ``active_w + (peak_w - active_w) x util x intensity``. ``util`` is the
  job's GPU utilization (``acmesim.energy.job_util``: near 1 for most jobs, as published); the
  *intensity* is how hard the job's kernels drive the GPU while it is busy (SM and tensor
  activity spread widely: Seren SM activity median 50%, tensor activity median 14%; §6). A
  share ``intensity_low_share`` of the jobs hold their GPUs with next to no kernel load
  (interactive debugging, evaluation jobs computing metrics on the CPU, §5): their intensity is
  uniform in [0, ``low_intensity_max`` = 0.05] (**assumption**); the others draw it from
  Beta(``intensity_mean``, ``intensity_concentration``); all per job from the stream
  ``power.factor``. The share, mean and concentration are **fitted**
  (``calibration.energy``) so that a replay of ``trace=synthetic`` Seren reproduces
  the published per-GPU power median (96 W), p75 (291 W) and p90 (395 W), at the published
  load (29% of the GPUs idle; see the calibration module).
- ``cpu_w = 328`` and ``other_w = 367`` per server: the breakdown of a GPU server's power (Fig. 9:
  GPUs about 2/3, CPUs 11.2%, power-supply loss 9.6%; the remaining 12.5% is memory, NICs,
  storage and fans) applied to the published mean GPU-server power of 2,930 W **[derived]**:
  0.112 x 2930 and (1 - 2/3 - 0.112 - 0.096) x 2930.
- ``efficiency = 0.904``: the 9.6% conversion loss (Fig. 9), 1 - 0.096.

Left to check (not fitted): the idle share (28-30% of samples <= 70 W) and the mean GPU-server
power (2,930 W; it follows from the GPUs' mean draw, which the fit does not set).
``python -m calibration.energy`` prints the table.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from acmesim.policies.power import POWERS
from acmesim.policies.power.base import PowerModel, check_draws


@POWERS.register("acme")
class AcmePower(PowerModel):
    """Seren's A100 servers: idle 60 W, computing GPUs 80-558 W by per-job intensity."""

    @dataclasses.dataclass(frozen=True)
    class Config:
        """Per-state GPU draw, the intensity distribution and the server's other draw (W)."""

        idle_w: float = 60.0
        """Draw of a GPU no running job holds (W; published)."""
        waiting_w: float = 60.0
        """Draw of a held GPU that runs no kernel: restart, detection, stall (W; assumption)."""
        active_w: float = 80.0
        """Least draw of a GPU running kernels (W; assumption, above the 70 W idle line)."""
        peak_w: float = 558.0
        """Draw at utilization 1 and intensity 1 (W; the largest Seren sample)."""
        intensity_low_share: float = 0.25  # fitted (python -m calibration.energy --fit)
        """Share of jobs holding their GPUs with next to no kernel load (fitted)."""
        low_intensity_max: float = 0.05  # assumption
        """Upper end of those jobs' uniform intensity (assumption)."""
        intensity_mean: float = 0.45  # fitted
        """Mean of the other jobs' Beta-distributed intensity (fitted)."""
        intensity_concentration: float = 2.0  # fitted
        """Concentration (alpha + beta) of that Beta distribution (fitted)."""
        cpu_w: float = 328.0
        """CPU draw per GPU server (W; 11.2% of the published 2,930 W mean, derived)."""
        other_w: float = 367.0
        """Memory, NIC, storage and fans per GPU server (W; derived from the breakdown)."""
        efficiency: float = 0.904
        """Power-supply conversion efficiency (1 - the published 9.6% loss)."""

        def __post_init__(self) -> None:
            check_draws(self.idle_w, self.waiting_w, self.cpu_w + self.other_w, self.efficiency)
            if not self.peak_w >= self.active_w >= 0:
                raise ValueError(f"need peak_w >= active_w >= 0, got {self.peak_w!r} and "
                                 f"{self.active_w!r}")
            if not 0 <= self.low_intensity_max <= 1:
                raise ValueError(f"low_intensity_max must be in [0, 1], got "
                                 f"{self.low_intensity_max!r}")
            if not 0 <= self.intensity_low_share <= 1:
                raise ValueError(f"intensity_low_share must be in [0, 1], got "
                                 f"{self.intensity_low_share!r}")
            if not 0 < self.intensity_mean < 1 or not self.intensity_concentration > 0:
                raise ValueError("need 0 < intensity_mean < 1 and intensity_concentration > 0, "
                                 f"got {self.intensity_mean!r}, "
                                 f"{self.intensity_concentration!r}")

    def __init__(self, config: Config) -> None:
        super().__init__(config)
        self.idle_w = config.idle_w
        self.waiting_w = config.waiting_w
        self.node_w = config.cpu_w + config.other_w
        self.efficiency = config.efficiency

    def running_w(self, util: np.ndarray, factor: np.ndarray | None = None) -> np.ndarray:
        """``active_w + (peak_w - active_w) x util x intensity`` (intensity 1 when not given)."""
        c = self.config
        active = np.asarray(util, dtype=float)
        if factor is not None:
            active = active * factor
        return c.active_w + (c.peak_w - c.active_w) * active

    def draw_factor(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """Each job's intensity: uniform in [0, ``low_intensity_max``] for a share
        ``intensity_low_share``, else from Beta(``intensity_mean``, ``intensity_concentration``)
        (three draws per job, in this order: share, uniform, Beta)."""
        c = self.config
        low = rng.random(n) < c.intensity_low_share
        floor = rng.random(n) * c.low_intensity_max
        a = c.intensity_mean * c.intensity_concentration
        return np.where(low, floor, rng.beta(a, c.intensity_concentration - a, size=n))
