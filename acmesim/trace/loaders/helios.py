"""Helios (SenseTime, SC '21) as bundled with AcmeTrace: ``trace_previous_work/helios_trace.csv``.

Header::

    job_id,cluster,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue

Source: the rendered output of ``pd.read_csv`` on the released file in the public notebook
``sunedin/ai-datacenter-power-profiling:notebooks/CheckDataset.ipynb`` (first row
``363167,Venus,u1Eem,vccJW,32,160,4,TIMEOUT,2020-03-18 04:01:39,...,1209615,0``; 3,362,981 rows
over clusters Venus, Earth, Saturn, Uranus). It is the per-cluster ``cluster_log.csv`` of
``S-Lab-System-Group/HeliosData`` with the ``cluster`` column inserted second, exactly as
``parse_all_cluster_log`` in ``S-Lab-System-Group/HeliosArtifact:analysis/trace_parser.py``
builds ``all_cluster_log.csv``; a per-cluster ``cluster_log.csv`` (no ``cluster`` column) reads
too. The exact header line could not be read directly; it is inferred from those sources.

Conventions: Slurm states as in Acme; naive ``YYYY-MM-DD HH:MM:SS`` timestamps taken to be in
``timezone`` (option, default UTC; the file does not say); ``duration = end - start`` and
``queue = start - submit`` in seconds (checked, 1 s slack). Slurm job ids restart per cluster, so
when a ``cluster`` column is present the normalized ``job_id`` is ``<cluster>/<job_id>``. No job
type is recorded (``type`` is ``Other``); ``cluster`` and ``vc`` are kept as extra columns.
"""

from __future__ import annotations

import pandas as pd

from acmesim.jobs.checks import Check
from acmesim.trace.loaders import fields
from acmesim.trace.loaders.base import TRACE_FORMATS, JobColumns, LocalTimeConfig, TraceFormat
from acmesim.trace.loaders.csvfile import RawTrace

HELIOS_HEADER: tuple[str, ...] = (
    "job_id", "cluster", "user", "vc", "gpu_num", "cpu_num", "node_num", "state",
    "submit_time", "start_time", "end_time", "duration", "queue",
)
"""Column order of ``helios_trace.csv`` (see the module docstring for the source)."""

TIME_FORMAT = "%Y-%m-%d %H:%M:%S"
ROUNDING_S = 1.0
TIME_COLUMNS = ("submit_time", "start_time", "end_time")
"""Source columns of the submit, start and end times."""


@TRACE_FORMATS.register("helios", "helios_trace")
class HeliosFormat(TraceFormat):
    """Helios job log (all four clusters, or one cluster's ``cluster_log.csv``)."""

    description = "Helios helios_trace.csv (AcmeTrace trace_previous_work) or cluster_log.csv"
    signature = frozenset({"job_id", "vc", "gpu_num", "queue"})
    required = tuple(c for c in HELIOS_HEADER if c not in ("cluster", "vc"))
    numeric = frozenset({"gpu_num", "cpu_num", "node_num", "duration", "queue"})
    Config = LocalTimeConfig
    config: LocalTimeConfig

    def read(self, raw: RawTrace) -> JobColumns:
        """Map Helios columns to normalized jobs and cross-check duration and queue."""
        frame, checks = raw.frame, list[Check]()
        zone = self.config.timezone
        submit, start, end = (fields.timestamps(frame, c, checks, fmt=TIME_FORMAT, timezone=zone)
                              for c in TIME_COLUMNS)
        fields.interval_checks(frame, checks, (submit, start, end), TIME_COLUMNS,
                               abs_tol=ROUNDING_S)
        job_id = fields.text(frame, "job_id", checks)
        if "cluster" in frame:
            job_id = fields.text(frame, "cluster", checks) + "/" + job_id
        return JobColumns(
            job_id=job_id,
            user=fields.text(frame, "user", checks),
            type=pd.Series("Other", index=frame.index, dtype="str"),
            state=fields.text(frame, "state", checks),
            submit_time=submit, start_time=start, end_time=end,
            gpu_num=fields.numbers(frame, "gpu_num", checks, count=True),
            node_num=fields.numbers(frame, "node_num", checks, count=True),
            cpu_num=fields.numbers(frame, "cpu_num", checks, count=True),
            extras={c: frame[c] for c in ("cluster", "vc") if c in frame},
            checks=checks,
        )
