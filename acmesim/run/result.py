"""``SimulationResult``: every table of one run in memory, and ``save`` to write them as files."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pandas as pd

from acmesim.core.config import ReplayConfig
from acmesim.results.schema import TableSchema
from acmesim.results.summary import summary_row
from acmesim.run import files
from acmesim.run.identity import config_data

DISPLAYED_FIELDS = ("simulated_jobs", "makespan", "gpu_utilization", "queue_delay_mean",
                    "jct_mean", "lost_gpu_time")
"""Summary fields a notebook shows first (``SimulationResult._repr_html_``)."""

MAIN_TABLES = ("jobs", "failures", "utilization")
"""Tables every run has; the others (the evaluation tables) are in ``tables``."""


@dataclasses.dataclass
class SimulationResult:
    """Tables and figures of one run: every result file of ``acmesim replay``, in memory.

    ``jobs``, ``utilization``, ``failures`` are the tables of the same name (``docs/results.md``);
    ``summary`` holds the summary.csv fields the run produced (``summary_table``: the row as
    written, every column); the evaluation tables (``eval=coupled|decoupled``) are
    ``eval_requests``/``eval_jobs`` and, with their schemas, ``tables``. ``save(dir)`` writes
    exactly the files the CLI writes.
    """

    jobs: pd.DataFrame
    utilization: pd.DataFrame
    curve: pd.DataFrame
    summary: dict[str, Any]
    trace_start: pd.Timestamp | None
    tables: list[tuple[TableSchema, pd.DataFrame]] = dataclasses.field(default_factory=list)
    """Extra result tables of the run (the evaluation tables), with their schemas."""
    job_power: pd.DataFrame | None = None
    """With a power model: each job's ``gpu_util``, GPU draw while computing (``running_w``,
    W) and GPU servers it drew a power factor for (``servers``), in jobs-table order."""
    failures: pd.DataFrame | None = None
    """The failures table (one row per injected fault; empty without a failure model)."""
    config: ReplayConfig | None = None
    """The configuration the run was made with (what ``config.yaml`` records)."""

    @property
    def summary_frame(self) -> pd.DataFrame:
        """The summary fields as a table (one row per field, column ``value``)."""
        return pd.DataFrame({"value": pd.Series(self.summary, dtype=object)})

    @property
    def summary_table(self) -> pd.DataFrame:
        """``summary.csv`` as written: one row, every column of the schema."""
        row = summary_row(self.summary)
        return pd.DataFrame([row], columns=list(row))

    @property
    def eval_requests(self) -> pd.DataFrame | None:
        """The ``eval_requests`` table (None when no evaluation mode was on)."""
        return self._extra("eval_requests.csv")

    @property
    def eval_jobs(self) -> pd.DataFrame | None:
        """The ``eval_jobs`` table (None when no evaluation mode was on)."""
        return self._extra("eval_jobs.csv")

    def _extra(self, file_name: str) -> pd.DataFrame | None:
        """The extra table written as ``file_name``, if the run has it."""
        return next((t for s, t in self.tables if s.file_name == file_name), None)

    def named_tables(self) -> dict[str, pd.DataFrame]:
        """Every result table but the summary, by name (file name without ``.csv``)."""
        named = {"jobs": self.jobs, "utilization": self.utilization}
        if self.failures is not None:
            named["failures"] = self.failures
        named.update({Path(s.file_name).stem: t for s, t in self.tables})
        return named

    @property
    def by_type(self) -> pd.DataFrame:
        """Per job type: jobs, mean and median queueing delay and JCT (s)."""
        from acmesim.results.job_delays import by_type_table

        return by_type_table(self.jobs)

    def save(self, run_dir: str | Path) -> dict[str, Path]:
        """Write the run's files into ``run_dir`` exactly as ``acmesim replay`` does.

        ``config.yaml``, every table, ``summary.csv``, then the completion record
        (``complete.json``); an earlier run's files there are removed first. Returns the paths.
        """
        if self.config is None:
            raise ValueError("this result has no configuration to save (made by hand?)")
        run_dir = Path(run_dir)
        data = config_data(self.config)
        paths: dict[str, Path] = {}
        files.begin(run_dir)
        files.write_config(run_dir, data, paths)
        files.write_tables(run_dir, self.named_tables(), paths)
        files.write_summary_row(run_dir, summary_row(self.summary), paths)
        files.finish(run_dir, data, paths)
        return paths

    def _repr_html_(self) -> str:
        """How a notebook shows the result: headline figures, the per-type table, the jobs."""
        headline = [k for k in DISPLAYED_FIELDS if k in self.summary]
        return (f"<b>SimulationResult</b>: {len(self.jobs):,} jobs, scheduler "
                f"{self.summary.get('scheduler')}, placement {self.summary.get('placement')}, "
                f"cluster {self.summary.get('cluster')}"
                + self.summary_frame.loc[headline].T.to_html()
                + "<b>by_type</b> (s)" + self.by_type.to_html(float_format="{:.1f}".format)
                + "<b>jobs</b> (first rows)" + self.jobs.head().to_html())


__all__ = ["DISPLAYED_FIELDS", "SimulationResult"]
