"""acmesim: a trace-driven discrete-event simulator of an LLM-development GPU datacenter."""

from __future__ import annotations

from typing import Any

from acmesim.core.lazy import lazy_exports

__version__ = "0.1.0"

__all__ = ["SimulationResult", "__version__", "load_trace", "simulate"]

_LAZY = {"simulate": "acmesim.run.simulate", "SimulationResult": "acmesim.run.result"}
"""Public names imported on first use, so ``import acmesim`` (and the CLI) stays light."""


__getattr__ = lazy_exports(__name__, _LAZY, globals())


def load_trace(path: Any, format: str = "auto", **kwargs: Any):  # noqa: A002 - public API name
    """Read a trace file (Acme Seren/Kalos, Philly, Helios, PAI; any CSV with ``format="csv",
    columns={...}``) as normalized jobs; see ``acmesim.trace.loaders.load_trace``."""
    from acmesim.trace.loaders import load_trace as _load_trace

    return _load_trace(path, format=format, **kwargs)
