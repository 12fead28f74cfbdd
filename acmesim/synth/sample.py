"""The bundled sample trace: three days of synthetic Seren jobs in the published Seren schema.

Three days (about 14,000 jobs, 1.7 MB) rather than a week keep the package small; the file is
stored once, inside the package, and ``SAMPLE_COMMAND`` regenerates it byte for byte.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

SAMPLE_PROFILE, SAMPLE_DAYS, SAMPLE_SEED = "seren", 3, 0
"""How the bundled sample was generated."""

SAMPLE_COMMAND = (f"acmesim synth --profile {SAMPLE_PROFILE} --days {SAMPLE_DAYS} "
                  f"--seed {SAMPLE_SEED} --out acmesim/data/seren_sample.csv")
"""The exact command that regenerates the bundled sample."""


def sample_trace_path() -> Path:
    """Path of the bundled sample trace (``acmesim/data/seren_sample.csv``)."""
    return Path(str(resources.files("acmesim") / "data" / "seren_sample.csv"))
