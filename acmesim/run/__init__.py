"""The run lifecycle: ``simulate`` (a job table in, result tables out) and ``run_replay``
(a ``ReplayConfig`` in, a run directory out), with the trace sources a run reads from."""

from acmesim.run.replay import RunResult, run_replay
from acmesim.run.simulate import SimulationResult, simulate
from acmesim.sim import PreemptionModel, Simulation

__all__ = ["PreemptionModel", "RunResult", "Simulation", "SimulationResult", "run_replay",
           "simulate"]
