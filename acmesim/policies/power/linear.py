"""``power=linear``: the ExaDigiT RAPS node model with its DGX A100 constants, for comparison.

RAPS (Brewer et al., "A Digital Twin Framework for Liquid-cooled Supercomputers as Demonstrated
at Exascale", SC '24; ``ExaDigiT/RAPS`` ``config/selene.yaml``, an 8 x A100 DGX system) draws a GPU
linearly from idle to peak with its utilization, a CPU likewise, and fixed memory, NIC and NVMe
power, then divides by the rectifier and voltage-converter efficiencies. Constants (RAPS
``selene.yaml``): GPU 88 W idle, 400 W peak; CPU 90 W idle, 280 W peak, 2 per node; memory
74.26 W; 4 NICs x 20 W; NVMe 30 W; SIVOC efficiency 0.98 x rectifier efficiency 0.96. RAPS
has no separate draw for a held-but-waiting GPU: it is a GPU at utilization 0 (88 W).

Choices of ours: ``cpu_util`` defaults to 0.08, the Seren median host CPU utilization
(acme_facts.md §6, R-PKL), since the trace gives no per-job CPU load; RAPS's constant loss
terms (13 W and 17 W per converter) are left out.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from acmesim.policies.power import POWERS
from acmesim.policies.power.base import PowerModel, check_draws

if TYPE_CHECKING:
    import numpy as np


@POWERS.register("linear", "raps")
class LinearPower(PowerModel):
    """GPU draw linear in utilization from ``gpu_idle_w`` to ``gpu_peak_w`` (RAPS)."""

    @dataclasses.dataclass(frozen=True)
    class Config:
        """RAPS ``selene.yaml`` constants (watts) and the host CPU utilization."""

        gpu_idle_w: float = 88.0
        """GPU draw at utilization 0, held or not (W; RAPS)."""
        gpu_peak_w: float = 400.0
        """GPU draw at utilization 1 (W; RAPS)."""
        cpu_idle_w: float = 90.0
        """CPU socket draw at utilization 0 (W; RAPS)."""
        cpu_peak_w: float = 280.0
        """CPU socket draw at utilization 1 (W; RAPS)."""
        cpus_per_node: int = 2
        """CPU sockets per GPU server (RAPS)."""
        cpu_util: float = 0.08
        """Host CPU utilization of every server (our choice: the Seren median)."""
        memory_w: float = 74.26
        """Memory draw per server (W; RAPS)."""
        nic_w: float = 20.0
        """Draw of one NIC (W; RAPS)."""
        nics_per_node: int = 4
        """NICs per server (RAPS)."""
        nvme_w: float = 30.0
        """Local NVMe storage draw per server (W; RAPS)."""
        efficiency: float = 0.98 * 0.96
        """Conversion efficiency: voltage converter x rectifier (RAPS)."""

        def __post_init__(self) -> None:
            if not self.gpu_peak_w >= self.gpu_idle_w >= 0:
                raise ValueError(f"need gpu_peak_w >= gpu_idle_w >= 0, got {self.gpu_peak_w!r}"
                                 f" and {self.gpu_idle_w!r}")
            if not 0 <= self.cpu_util <= 1:
                raise ValueError(f"cpu_util must be in [0, 1], got {self.cpu_util!r}")
            check_draws(self.gpu_idle_w, self.gpu_idle_w, self.memory_w, self.efficiency)

    def __init__(self, config: Config) -> None:
        super().__init__(config)
        c = config
        self.idle_w = self.waiting_w = c.gpu_idle_w
        cpu = c.cpu_idle_w + (c.cpu_peak_w - c.cpu_idle_w) * c.cpu_util
        self.node_w = c.cpus_per_node * cpu + c.memory_w + c.nics_per_node * c.nic_w + c.nvme_w
        self.efficiency = c.efficiency

    def running_w(self, util: np.ndarray, factor: np.ndarray | None = None) -> np.ndarray:
        """``gpu_idle_w + (gpu_peak_w - gpu_idle_w) x util`` (``factor`` is not used)."""
        import numpy as np
        c = self.config
        return c.gpu_idle_w + (c.gpu_peak_w - c.gpu_idle_w) * np.asarray(util, dtype=float)
