"""The event loop: SimPy environment, job runtime state, recorded starts, preemption.

``Simulation`` replays a prepared ``JobTable`` (``trace_input``) on a cluster with one
scheduler and one placement policy; extensions (faults, energy, evaluation) attach to it from
the layers above. The run lifecycle (files, failures, summary) is ``acmesim.run``.
"""

from acmesim.sim.preemption import PreemptionModel
from acmesim.sim.simulation import Simulation

__all__ = ["PreemptionModel", "Simulation"]
