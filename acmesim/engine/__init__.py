"""Deprecated: the old home of ``simulate`` (``from acmesim.engine import simulate``).

Use ``acmesim.simulate`` (or ``acmesim.run``); this package goes away in the next release.
"""

import warnings

from acmesim.run import PreemptionModel, RunResult, Simulation, SimulationResult, run_replay
from acmesim.run import simulate as _simulate

warnings.warn("acmesim.engine is deprecated: use acmesim.simulate (or acmesim.run)",
              DeprecationWarning, stacklevel=2)

simulate = _simulate

__all__ = ["PreemptionModel", "RunResult", "Simulation", "SimulationResult", "run_replay",
           "simulate"]
