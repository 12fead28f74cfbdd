"""``run_replay``: one configured replay written to a run directory (what the CLI calls).

The lifecycle and its file guarantees are ``acmesim.run.lifecycle``; this module is the name
the CLI imports it by.
"""

from __future__ import annotations

from acmesim.run.identity import config_data, default_run_id
from acmesim.run.lifecycle import RunResult, run_replay

__all__ = ["RunResult", "config_data", "default_run_id", "run_replay"]
