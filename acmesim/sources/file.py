"""Any trace file ``acmesim.load_trace`` reads (Acme Seren/Kalos, Philly, Helios, PAI, csv)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from acmesim.core.errors import ConfigError
from acmesim.sources import TRACES
from acmesim.trace.csv_columns import CsvColumns

if TYPE_CHECKING:
    import pandas as pd


@TRACES.register("file")
class FileTrace:
    """Reads a trace file from disk; ``format="auto"`` detects the schema from the header."""

    @dataclasses.dataclass(frozen=True)
    class Config:
        """Where the file is and how to read it (the options of ``acmesim.load_trace``)."""

        path: str
        """The trace file (a relative path is taken from the directory the command runs in)."""
        format: str = "auto"
        """auto (detect from the header) or a format: seren, kalos, philly, helios, pai, csv."""
        errors: Literal["raise", "drop"] = "raise"
        """raise: stop at the first bad row; drop: skip bad rows and report how many and why."""
        gpu_only: bool = False
        """Keep only the jobs that request GPUs."""
        format_options: dict[str, Any] = dataclasses.field(default_factory=dict)
        """Extra options of the format's reader (e.g. +trace.format_options.timezone=...)."""
        columns: CsvColumns = dataclasses.field(default_factory=CsvColumns)
        """format csv: the file column of each normalized field (trace.columns.gpu_num=...)"""

    def __init__(self, config: Config) -> None:
        if not config.path:
            raise ConfigError("trace 'file' needs a path (trace.path=FILE)")
        if config.errors not in ("raise", "drop"):
            raise ConfigError(f"trace 'file' option 'errors' must be raise or drop, "
                              f"got {config.errors!r}")
        self.config = config

    def load(self) -> pd.DataFrame:
        """The file's jobs as a normalized job table."""
        from acmesim.trace.loaders import load_trace

        return load_trace(
            Path(self.config.path), format=self.config.format, errors=self.config.errors,
            gpu_only=self.config.gpu_only, format_options=dict(self.config.format_options),
            columns=CsvColumns.of(self.config.columns).mapped() or None,
        )
