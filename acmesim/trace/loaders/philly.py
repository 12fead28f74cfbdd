"""Philly (Microsoft, 2017) as bundled with AcmeTrace: ``trace_previous_work/philly_trace.csv``.

Header (one row per job attempt)::

    jobname,vc,user,state,submit_time,start_time,end_time,gpu_num,gpu_alloc,node_list,duration,queue

Source of the header and value formats: the rendered output of ``pd.read_csv`` on the released
file in the public notebook ``sunedin/ai-datacenter-power-profiling:notebooks/CheckDataset.ipynb``
(first rows ``application_1506638472019_2050-attempt0,6.21E+12,ef4fdc,Killed,2017/10/1 0:00,...,
[1],['m88'],13138,16``); the columns ``state``/``gpu_num``/``duration`` are also used by
``InternLM/AcmeTrace:analysis.ipynb``, whose state mapping Pass/Failed/Killed ->
COMPLETED/FAILED/CANCELLED is applied here. The file was converted by the Helios authors from
``msr-fiddle/philly-traces`` (``S-Lab-System-Group/HeliosArtifact``). The exact header line of the
CSV itself could not be read directly; it is inferred from that rendered table.

Conventions: timestamps are naive ``YYYY/M/D H:MM`` strings with minute resolution, taken to be
in ``timezone`` (option, default UTC; the file does not say); ``duration`` and ``queue`` are in
seconds and are the precise values. The normalized row therefore keeps ``start_time`` as
published and sets ``end_time = start_time + duration`` and ``submit_time = start_time - queue``
(so ``run_time == duration`` exactly); the published end and submit times must agree with those
within one minute. Philly records no job type (``type`` is ``Other``) and no CPU count
(``cpu_num`` is 0); ``node_num`` is the length of ``node_list``. ``vc``, ``gpu_alloc`` and
``node_list`` are kept as extra columns.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from acmesim.jobs import checks as rules
from acmesim.jobs.checks import Check
from acmesim.trace.loaders import fields
from acmesim.trace.loaders.base import TRACE_FORMATS, JobColumns, LocalTimeConfig, TraceFormat
from acmesim.trace.loaders.csvfile import RawTrace

PHILLY_HEADER: tuple[str, ...] = (
    "jobname", "vc", "user", "state", "submit_time", "start_time", "end_time", "gpu_num",
    "gpu_alloc", "node_list", "duration", "queue",
)
"""Column order of ``philly_trace.csv`` (see the module docstring for the source)."""

PHILLY_STATES = {"Pass": "COMPLETED", "Failed": "FAILED", "Killed": "CANCELLED"}
"""AcmeTrace ``analysis.ipynb``: Philly final states -> Acme states."""

TIME_FORMAT = "%Y/%m/%d %H:%M"
MINUTE_S = 60.0
"""Published timestamps are truncated to the minute."""


@TRACE_FORMATS.register("philly", "philly_trace")
class PhillyFormat(TraceFormat):
    """Philly job attempts, flattened to CSV (AcmeTrace ``trace_previous_work``)."""

    description = "Philly philly_trace.csv (AcmeTrace trace_previous_work)"
    signature = frozenset({"jobname", "gpu_alloc", "node_list"})
    required = tuple(c for c in PHILLY_HEADER if c not in ("vc", "gpu_alloc"))
    numeric = frozenset({"gpu_num", "duration", "queue"})
    id_column = "jobname"
    Config = LocalTimeConfig
    config: LocalTimeConfig

    def read(self, raw: RawTrace) -> JobColumns:
        """Map Philly columns to normalized jobs, trusting the second-resolution durations."""
        frame, checks = raw.frame, list[Check]()
        zone = self.config.timezone
        stamps = {c: fields.timestamps(frame, c, checks, fmt=TIME_FORMAT, timezone=zone)
                  for c in ("submit_time", "start_time", "end_time")}
        duration = fields.numbers(frame, "duration", checks, non_negative=True)
        queue = fields.numbers(frame, "queue", checks, non_negative=True)
        start = stamps["start_time"]
        end = fields.shifted(start, duration, frame["duration"], checks, column="duration",
                             formula="start_time + duration")
        submit = fields.shifted(start, -queue, frame["queue"], checks, column="queue",
                                formula="start_time - queue")
        checks += [
            _within_minute(stamps["end_time"], end, frame["end_time"], "end_time",
                           "start_time + duration"),
            _within_minute(stamps["submit_time"], submit, frame["submit_time"], "submit_time",
                           "start_time - queue"),
        ]
        raw_state = fields.text(frame, "state", checks)
        return JobColumns(
            job_id=fields.text(frame, "jobname", checks),
            user=fields.text(frame, "user", checks),
            type=pd.Series("Other", index=frame.index, dtype="str"),
            state=raw_state.map(PHILLY_STATES).fillna(raw_state),
            raw_state=raw_state,
            submit_time=submit, start_time=start, end_time=end,
            gpu_num=fields.numbers(frame, "gpu_num", checks, count=True),
            node_num=_node_count(fields.column(frame, "node_list"), checks),
            cpu_num=np.zeros(len(frame)),
            extras={c: frame[c] for c in ("vc", "gpu_alloc", "node_list") if c in frame},
            checks=checks,
        )


def _node_count(node_list: pd.Series, checks: list) -> np.ndarray:
    """Number of entries of a ``['m1', 'm2']`` node list (``[]`` -> 0)."""
    checks.append(rules.missing(node_list, "node_list", "a list like ['m88']"))
    inner = node_list.astype("str").str.strip().str.strip("[]").str.strip()
    counts = (inner.str.count(",") + 1).where(inner != "", 0)
    return counts.to_numpy(dtype=np.float64, na_value=np.nan)


def _within_minute(published: pd.Series, derived: pd.Series, raw: pd.Series, column: str,
                   formula: str) -> rules.Check:
    """A published minute-resolution time must be within a minute of the derived one."""
    return rules.disagreement(_epoch(published), _epoch(derived), raw, column=column,
                              formula=formula, abs_tol=MINUTE_S, render=_as_utc)


def _as_utc(seconds: float) -> str:
    """Epoch seconds as a readable UTC timestamp."""
    return str(pd.Timestamp(seconds, unit="s", tz="UTC"))


def _epoch(stamps: pd.Series) -> np.ndarray:
    """Timestamps as float epoch seconds (NaN for NaT)."""
    return fields.seconds_between(pd.Series(pd.Timestamp(0, tz="UTC"), index=stamps.index),
                                  stamps)
