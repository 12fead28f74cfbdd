"""The names the generator offers, known without importing it: profiles and start models.

``acmesim synth --help`` lists them; importing the profiles themselves loads numpy, pandas and
the replay behind the recorded starts (about 1 s of CPU). ``PROFILE_MODULES`` names the module
of this package that registers each profile (``profiles.py`` or a ``profile_<name>.py``);
a test checks it against the registry the modules fill (``profiles.profile_names``), so a new
profile module is listed here too.
"""

from __future__ import annotations

PROFILE_MODULES: dict[str, str] = {
    "seren": "profiles",
    "kalos": "profiles",
    "mix": "profile_mix",
    "taskdl": "profile_taskdl",
    "taskdl_philly": "profile_taskdl",
}
"""Profile name -> the module of ``acmesim.synth`` that registers it."""

STARTS = ("baseline", "packer")
"""How recorded starts are made: ``baseline`` (a replay under ``acme``, the calibrated default)
or ``packer`` (the node-level packer's own starts: no replay, for large what-ifs where the
replay would dominate the generation; its queueing is the packer's, not the baseline's)."""


def profile_names() -> list[str]:
    """Names of every workload profile, sorted (the same list as ``profiles.profile_names``)."""
    return sorted(PROFILE_MODULES)
