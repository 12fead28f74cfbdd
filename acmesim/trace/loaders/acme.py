"""The Acme trace files (AcmeTrace release, NSDI '24): ``trace_seren.csv`` and ``trace_kalos.csv``.

Headers, column order and conventions come from ``acmesim.trace.formats`` (which cites
``schema_examples.md``). The recorded ``duration``/``queue``/``gpu_time`` are checked against the
timestamps and then dropped: the normalized ``run_time``/``queue_time`` are derived from the
timestamps (``run_time = end - start`` for both clusters, although Kalos' ``duration`` counts
from submission). Kalos' ``mem_per_pod_GB``, ``shared_mem_per_pod``, ``fail_time`` and
``stop_time`` are kept as extra columns; so is any column the file adds to the schema.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pandas as pd

from acmesim.jobs import checks as rules
from acmesim.jobs.checks import Check
from acmesim.trace.formats import DERIVED_COLUMNS, KALOS, SEREN, TIMESTAMP_FORMAT, AcmeSchema
from acmesim.trace.loaders import fields
from acmesim.trace.loaders.base import TRACE_FORMATS, JobColumns, TraceFormat
from acmesim.trace.loaders.csvfile import RawTrace

ROUNDING_S = 1.0
"""Slack allowed between a recorded duration or queue and the timestamps (1-s resolution)."""

GPU_TIME_REL_TOL = 1e-6
"""Relative slack allowed between ``gpu_time`` and ``duration * gpu_num``."""


class AcmeFormat(TraceFormat):
    """Shared reader of the two Acme schemas; subclasses pick the schema."""

    schema: ClassVar[AcmeSchema]

    def read(self, raw: RawTrace) -> JobColumns:
        """Parse, derive and cross-check the Acme columns of ``raw``."""
        frame, checks = raw.frame, list[Check]()
        submit, start, end = (fields.timestamps(frame, c, checks, fmt=TIMESTAMP_FORMAT)
                              for c in ("submit_time", "start_time", "end_time"))
        jobs = JobColumns(
            job_id=fields.text(frame, "job_id", checks),
            user=fields.text(frame, "user", checks),
            type=fields.text(frame, "type", checks),
            state=fields.text(frame, "state", checks),
            submit_time=submit, start_time=start, end_time=end,
            gpu_num=fields.numbers(frame, "gpu_num", checks, count=True),
            node_num=fields.numbers(frame, "node_num", checks, count=True),
            cpu_num=fields.numbers(frame, "cpu_num", checks, count=True),
            checks=checks,
        )
        self._check_derived(frame, jobs)
        jobs.extras = self._extras(raw, checks)
        return jobs

    def _check_derived(self, frame: pd.DataFrame, jobs: JobColumns) -> None:
        """Recorded duration, queue and gpu_time must agree with timestamps and counts."""
        origin = getattr(jobs, self.schema.duration_origin)
        duration = fields.numbers(frame, "duration", jobs.checks)
        queue = fields.numbers(frame, "queue", jobs.checks)
        gpu_time = fields.numbers(frame, "gpu_time", jobs.checks)
        origin_name = self.schema.duration_origin
        with np.errstate(over="ignore", invalid="ignore"):  # huge counts fail their own check
            implied_gpu_time = duration * jobs.gpu_num
        jobs.checks += [
            rules.disagreement(duration, fields.seconds_between(origin, jobs.end_time),
                               frame["duration"], column="duration",
                               formula=f"end_time - {origin_name}", abs_tol=ROUNDING_S),
            rules.disagreement(queue, fields.seconds_between(jobs.submit_time, jobs.start_time),
                               frame["queue"], column="queue",
                               formula="start_time - submit_time", abs_tol=ROUNDING_S),
            rules.disagreement(gpu_time, implied_gpu_time, frame["gpu_time"],
                               column="gpu_time", formula="duration * gpu_num",
                               rel_tol=GPU_TIME_REL_TOL),
        ]

    def _extras(self, raw: RawTrace, checks: list[Check]) -> dict[str, Any]:
        """Schema columns beyond the normalized ones, then any columns the file adds."""
        core = {"job_id", "user", "type", "state", "submit_time", "start_time", "end_time",
                "gpu_num", "node_num", "cpu_num", *DERIVED_COLUMNS}
        extras: dict[str, Any] = {}
        for name in raw.header:
            if name in core:
                continue
            kind = self.schema.columns.get(name)
            if kind == "timestamp":
                extras[name] = fields.timestamps(raw.frame, name, checks, fmt=TIMESTAMP_FORMAT,
                                                 required=False)
            elif kind in ("int", "float"):
                extras[name] = fields.numbers(raw.frame, name, checks, required=False)
            else:
                extras[name] = raw.frame[name]
        return extras


@TRACE_FORMATS.register("seren", "acme-seren", "trace_seren")
class SerenFormat(AcmeFormat):
    """Acme Seren: ``trace_seren.csv``, timestamps at +08:00, ``duration = end - start``."""

    description = "Acme Seren trace_seren.csv (AcmeTrace release)"
    schema = SEREN
    required = SEREN.header
    signature = frozenset({"job_id", "user", "type", "gpu_time"})
    numeric = frozenset(c for c, kind in SEREN.columns.items() if kind in ("int", "float"))


@TRACE_FORMATS.register("kalos", "acme-kalos", "trace_kalos")
class KalosFormat(AcmeFormat):
    """Acme Kalos: ``trace_kalos.csv``, +00:00, string ids, ``duration = end - submit``."""

    description = "Acme Kalos trace_kalos.csv (AcmeTrace release)"
    schema = KALOS
    required = KALOS.header
    signature = frozenset({"job_id", "user", "type", "gpu_time", "mem_per_pod_GB"})
    numeric = frozenset(c for c, kind in KALOS.columns.items() if kind in ("int", "float"))
