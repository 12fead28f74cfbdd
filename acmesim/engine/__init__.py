"""The simulation engine: SimPy event loop, job runtime state, and the replay entry points."""

from acmesim.engine.preemption import PreemptionModel
from acmesim.engine.replay import RunResult, run_replay
from acmesim.engine.simulate import SimulationResult, simulate
from acmesim.engine.simulation import Simulation

__all__ = ["PreemptionModel", "RunResult", "Simulation", "SimulationResult", "run_replay",
           "simulate"]
