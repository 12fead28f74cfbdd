"""Trace readers: published trace files (Acme Seren/Kalos, Philly, Helios, PAI) -> normalized jobs.

Each format is one module registered in ``TRACE_FORMATS``; ``load_trace`` detects the format from
the header, validates every row (see ``acmesim.workload.validation``) and returns the normalized
job table of ``acmesim.workload.schema``. Any other CSV job log reads through a column map
(``format="csv"``, ``acmesim.workload.loaders.generic``), which detection never picks.
"""

from __future__ import annotations

from acmesim.workload.loaders.base import TRACE_FORMATS, JobColumns, TraceFormat
from acmesim.workload.loaders.reader import (
    detect_format,
    gpu_jobs,
    known_formats,
    load_trace,
    read_trace,
)
from acmesim.workload.validation import LoadReport, Problem

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
