"""``eval=none|coupled|decoupled``: how a replay treats the trace's evaluation jobs.

A config group of its own (registry ``EVALS``), combinable with any scheduler
(``scheduler=acme_reservation eval=decoupled``). Each mode is an ``Extension``
(``acmesim.sim.extension``) built on ``acmesim.evaluation.replay.EvalReplay``:

- ``none``: nothing attached; Eval jobs are jobs like any other;
- ``coupled``: every trace Eval job runs unchanged (``jobs.csv`` is exactly the scheduler's);
  they are grouped into requests and reported in ``eval_requests.csv``/``eval_jobs.csv``: the
  baseline for ``decoupled``;
- ``decoupled``: each request is re-planned by the trial coordinator (acme_facts.md §5) and
  replayed as its trials, metrics as CPU jobs on the trials' nodes.

Evaluation needs a scheduler, so a ``mode=recorded`` replay attaches no evaluation mode.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acmesim.core.registry import Registry
from acmesim.sim.extension import Extension

if TYPE_CHECKING:  # the modes import the replay when built: the registry stays light
    import pandas as pd

    from acmesim.cluster.spec import ClusterSpec
    from acmesim.evaluation.replay import EvalReplay


class EvalMode(Extension):
    """An evaluation mode: rewrites the trace's Eval jobs, adds the evaluation tables."""

    enabled = True
    """Whether the run attaches this mode (``none`` does not)."""

    def __init__(self, config: Any, replay: EvalReplay | None) -> None:
        self.config = config
        self.replay = replay

    def rewrite(self, jobs: pd.DataFrame, spec: ClusterSpec) -> pd.DataFrame:
        """The job table to replay (the Eval jobs grouped into requests, maybe re-planned)."""
        return jobs if self.replay is None else self.replay.rewrite(jobs, spec)

    def tables(self, done: Mapping[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
        """``eval_requests`` and ``eval_jobs`` from the run's jobs table."""
        if self.replay is None:
            return {}
        return {Path(schema.file_name).stem: table
                for schema, table in self.replay.tables(done["jobs"])}

    def summary_fields(self) -> dict[str, Any]:
        """The eval_* summary fields (after ``tables``)."""
        return {} if self.replay is None else self.replay.summary_fields()


EVALS: Registry[EvalMode] = Registry("eval", __name__)
"""Evaluation modes by name: ``none``, ``coupled``, ``decoupled``."""

__all__ = ["EVALS", "EvalMode"]
