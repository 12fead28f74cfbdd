"""The event loop: SimPy environment, job runtime state, recorded starts, preemption.

``Simulation`` replays a prepared ``JobTable`` (``trace_input``) on a cluster with one
scheduler and one placement policy; extensions (faults, energy, evaluation) attach to it from
the layers above. The run lifecycle (files, failures, summary) is ``acmesim.run``.

The two names below are imported on first use, so importing one light module of the package
(``acmesim.sim.extension``, for a plug-in registry) does not load SimPy and the loop.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from acmesim.sim.preemption import PreemptionModel
    from acmesim.sim.simulation import Simulation


def __getattr__(name: str) -> Any:
    """``PreemptionModel`` and ``Simulation``, imported from their modules on first use."""
    if name == "PreemptionModel":
        from acmesim.sim.preemption import PreemptionModel

        return PreemptionModel
    if name == "Simulation":
        from acmesim.sim.simulation import Simulation

        return Simulation
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["PreemptionModel", "Simulation"]
