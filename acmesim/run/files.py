"""The last stage of a run: its result tables, summary and configuration as files.

Every file is written atomically (``acmesim.results.writers``) with exactly its schema's
columns. ``begin`` invalidates a run directory before anything is written (completion record
first, then every result file an earlier run may have left); ``finish`` writes the completion
record last, vouching for every file (``acmesim.results.completion``). Both the CLI's
``run_replay`` and ``SimulationResult.save`` write through here, so they write the same files.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from acmesim.results.completion import begin_run, mark_complete
from acmesim.results.rundirs import CONFIG_FILE, RESULT_FILES
from acmesim.results.schema import SUMMARY, TABLES, TableSchema
from acmesim.results.writers import write_summary, write_table, write_yaml

SCHEMAS: dict[str, TableSchema] = {Path(s.file_name).stem: s for s in TABLES if s is not SUMMARY}
"""Result tables by name (their file name without ``.csv``), in the order they are written."""


def begin(run_dir: Path) -> None:
    """Invalidate ``run_dir`` (made if needed) before a run writes into it."""
    begin_run(run_dir, RESULT_FILES)


def write_config(run_dir: Path, data: Mapping[str, Any], paths: dict[str, Path]) -> None:
    """Write ``config.yaml`` (the run's configuration as plain data)."""
    paths["config"] = write_yaml(run_dir / CONFIG_FILE, data)


def write_tables(run_dir: Path, tables: Mapping[str, pd.DataFrame],
                 paths: dict[str, Path]) -> None:
    """Write every table of ``tables`` (by name, see ``SCHEMAS``) in the schemas' order."""
    unknown = set(tables) - set(SCHEMAS)
    if unknown:
        raise KeyError(f"result tables without a schema: {sorted(unknown)}")
    for name, schema in SCHEMAS.items():
        if name in tables:
            paths[name] = write_table(run_dir / schema.file_name, tables[name], schema)


def write_summary_row(run_dir: Path, row: Mapping[str, Any], paths: dict[str, Path]) -> None:
    """Write ``summary.csv`` (one full row in schema order)."""
    paths["summary"] = write_summary(run_dir / SUMMARY.file_name, row, SUMMARY)


def finish(run_dir: Path, config: Mapping[str, Any], paths: Mapping[str, Path]) -> None:
    """Write the completion record of ``paths`` last: the run is complete."""
    mark_complete(run_dir, config, paths.values())
