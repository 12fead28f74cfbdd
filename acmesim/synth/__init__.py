"""Calibrated synthetic traces of the Acme clusters (Seren, Kalos); constants in ``profiles.py``.

``generate_trace(profile, days, seed)`` returns a normalized job table; ``sample_trace_path()``
is the bundled Seren-like sample trace; ``check_feasibility`` verifies recorded start times.
"""

from __future__ import annotations

from acmesim.synth.feasibility import FeasibilityReport, check_feasibility
from acmesim.synth.generate import generate_trace
from acmesim.synth.profiles import (
    WorkloadProfile,
    get_profile,
    profile_names,
    register_profile,
)
from acmesim.synth.sample import SAMPLE_COMMAND, sample_trace_path

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
