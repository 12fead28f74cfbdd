"""The run lifecycle: ``simulate`` (arguments in, every result table in memory) and
``run_replay`` (a ``ReplayConfig`` in, a run directory out), both through
``acmesim.run.lifecycle``."""

from acmesim.run.lifecycle import RunResult, run, run_replay
from acmesim.run.result import SimulationResult
from acmesim.run.simulate import simulate
from acmesim.sim import PreemptionModel, Simulation

__all__ = ["PreemptionModel", "RunResult", "Simulation", "SimulationResult", "run",
           "run_replay", "simulate"]
