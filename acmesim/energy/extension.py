"""The power extension of a run: ``PowerAccounting`` plus the tables and summary it yields.

The run lifecycle attaches it for any ``power`` model but ``none``. After the run, ``tables``
adds the power columns to ``utilization`` and ``energy_kwh`` to ``jobs``, and
``summary_fields`` gives the energy fields (``acmesim.energy.tables``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from acmesim.energy.accounting import PowerAccounting
from acmesim.energy.tables import job_energy, power_columns, summary_fields
from acmesim.sim.extension import SimulationAPI


class PowerExtension(PowerAccounting):
    """Power accounting of one run, with its result tables and summary fields."""

    def tables(self, done: Mapping[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
        """``utilization`` with its power columns and ``jobs`` with ``energy_kwh``."""
        sim = self._attached()
        spec = sim.spec
        utilization = power_columns(self, sim.steps.arrays(), done["utilization"],
                                    spec.total_gpus, spec.gpus_per_node)
        jobs = done["jobs"].copy(deep=False)  # a new column; the given frame is unchanged
        jobs["energy_kwh"] = job_energy(self, jobs["run_time"].to_numpy(dtype=float),
                                        (jobs["pool"] == "gpu").to_numpy(), spec.gpus_per_node)
        return {"jobs": jobs, "utilization": utilization}

    def summary_fields(self) -> dict[str, Any]:
        """The energy fields of ``summary.csv``."""
        sim = self._attached()
        return summary_fields(self, sim.steps.arrays(), float(sim.now),
                              sim.jobs.failure_lost_gpu_time, sim.spec.total_gpus,
                              sim.spec.gpus_per_node)

    def job_power(self) -> pd.DataFrame:
        """Each job's ``gpu_util``, GPU draw while computing (``running_w``, W: the mean of
        its servers') and the GPU servers it drew a factor for (``servers``), in jobs-table
        order."""
        return pd.DataFrame({"gpu_util": self.util, "running_w": self.run_w,
                             "servers": self.servers})

    def _attached(self) -> SimulationAPI:
        """The simulation this accounting is attached to (an error before ``attach``)."""
        if self.sim is None:
            raise RuntimeError("power accounting read before it was attached to a simulation")
        return self.sim
