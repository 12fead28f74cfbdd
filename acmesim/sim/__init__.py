"""The event loop: SimPy environment, job runtime state, recorded starts, preemption.

``Simulation`` replays a prepared ``JobTable`` (``trace_input``) on a cluster with one
scheduler and one placement policy; extensions (faults, energy, evaluation) attach to it from
the layers above. The run lifecycle (files, failures, summary) is ``acmesim.run``.

The two names below are imported on first use, so importing one light module of the package
(``acmesim.sim.extension``, for a plug-in registry) does not load SimPy and the loop.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from acmesim.core.lazy import lazy_exports

if TYPE_CHECKING:
    from acmesim.sim.preemption import PreemptionModel
    from acmesim.sim.simulation import Simulation


_MODULE_OF = {"PreemptionModel": ".preemption", "Simulation": ".simulation"}
"""Each public name of the package -> the module (of this package) that defines it."""

__getattr__ = lazy_exports(__name__, _MODULE_OF, globals())

__all__ = ["PreemptionModel", "Simulation"]
