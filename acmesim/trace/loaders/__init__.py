"""Trace readers: published trace files (Acme Seren/Kalos, Philly, Helios, PAI) -> normalized jobs.

Each format is one module registered in ``TRACE_FORMATS``; ``load_trace`` detects the format from
the header, validates every row (the rules of the job table, ``acmesim.jobs.table``, on the
file's columns, and the format's own; ``acmesim.jobs.checks``) and returns the normalized
job table of ``acmesim.trace.schema``. Any other CSV job log reads through a column map
(``format="csv"``, ``acmesim.trace.loaders.generic``), which detection never picks.
"""

from __future__ import annotations

from acmesim.jobs.checks import LoadReport, Problem
from acmesim.trace.loaders.base import TRACE_FORMATS, JobColumns, TraceFormat
from acmesim.trace.loaders.reader import (
    detect_format,
    gpu_jobs,
    known_formats,
    load_trace,
    read_trace,
)

__all__ = [
    "TRACE_FORMATS",
    "JobColumns",
    "LoadReport",
    "Problem",
    "TraceFormat",
    "detect_format",
    "gpu_jobs",
    "known_formats",
    "load_trace",
    "read_trace",
]
