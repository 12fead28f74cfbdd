"""Calibrated synthetic traces of the Acme clusters (Seren, Kalos); constants in ``profiles.py``.

``generate_trace(profile, days, seed)`` returns a normalized job table; ``sample_trace_path()``
is the bundled Seren-like sample trace; ``check_feasibility`` verifies recorded start times.

Each name below is imported from its module on first use, so a light module of the package
(``catalog``: the profile names ``acmesim synth --help`` lists) loads without the generator,
numpy or pandas.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from acmesim.core.lazy import lazy_exports

if TYPE_CHECKING:
    from acmesim.synth.feasibility import FeasibilityReport, check_feasibility
    from acmesim.synth.generate import generate_trace
    from acmesim.synth.profiles import (
        WorkloadProfile,
        get_profile,
        profile_names,
        register_profile,
    )
    from acmesim.synth.sample import SAMPLE_COMMAND, sample_trace_path

_MODULE_OF: dict[str, str] = {
    "FeasibilityReport": ".feasibility", "check_feasibility": ".feasibility",
    "generate_trace": ".generate",
    "WorkloadProfile": ".profiles", "get_profile": ".profiles", "profile_names": ".profiles",
    "register_profile": ".profiles",
    "SAMPLE_COMMAND": ".sample", "sample_trace_path": ".sample",
}
"""Each public name of the package -> the module (of this package) that defines it."""


__getattr__ = lazy_exports(__name__, _MODULE_OF, globals())


__all__ = [
    "SAMPLE_COMMAND",
    "FeasibilityReport",
    "WorkloadProfile",
    "check_feasibility",
    "generate_trace",
    "get_profile",
    "profile_names",
    "register_profile",
    "sample_trace_path",
]
