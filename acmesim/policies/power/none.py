"""``power=none``: no power accounting (the default); energy columns are empty, nothing is run."""

from __future__ import annotations

from typing import TYPE_CHECKING

from acmesim.policies.power import POWERS
from acmesim.policies.power.base import PowerModel

if TYPE_CHECKING:
    import numpy as np


@POWERS.register("none")
class NoPower(PowerModel):
    """Account no power: the replay is exactly the replay without a power model."""

    enabled = False
    idle_w = waiting_w = node_w = 0.0
    efficiency = 1.0

    def running_w(self, util: np.ndarray, factor: np.ndarray | None = None) -> np.ndarray:
        """Zero watts."""
        import numpy as np
        return np.zeros(len(util))
