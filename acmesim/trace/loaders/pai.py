"""Alibaba PAI (2020 GPU trace) as bundled with AcmeTrace: ``trace_previous_work/pai_trace.csv``.

Header (one row per task)::

    task_name,inst_num,status,start_time,end_time,plan_cpu,plan_mem,plan_gpu,gpu_type,status_j,
    start_time_j,end_time_j,runtime,status_i,start_time_i,end_time_i,duration,queue,start_date

Source: the rendered output of ``pd.read_csv`` on the released file (1,260,920 rows x 19 columns)
in the public notebook ``sunedin/ai-datacenter-power-profiling:notebooks/CheckDataset.ipynb``;
first row ``tensorflow,1.0,Terminated,2693235.0,2695847.0,600.0,29.296875,50.0,MISC,Terminated,
2693235.0,2695847.0,2612.0,Terminated,2693240.0,2695847.0,2607.0,5.0,1970-02-01 12:07:15+08:00``.
``InternLM/AcmeTrace:analysis.ipynb`` renames ``plan_cpu``/``plan_gpu``/``status`` (and a
``wait_time`` that this file does not have; it already has ``queue``) to
``cpu_num``/``gpu_num``/``state`` and divides the counts by 100 (they are percent of a device).
The exact header line could not be read directly; it is inferred from that rendered table.

Conventions (checked on the rows shown there): times are seconds from an undisclosed origin
(read as epoch seconds, so they fall in 1970); ``start_time`` is the submission,
``start_time_i``/``end_time_i`` the start and end of the instance, ``duration = end_time_i -
start_time_i`` and ``queue = start_time_i - start_time``. ``gpu_num = plan_gpu / 100`` and
``cpu_num = plan_cpu / 100`` are fractional (float64 columns), an empty ``plan_gpu`` (parameter
servers, with no ``gpu_type``) means 0 GPUs; ``node_num`` is ``inst_num``. There is no job id or
user: ``job_id`` is ``pai-<file line>`` and ``user`` is ``unknown``; ``type`` is ``Other`` and the
task's ``task_name`` is kept. ``status`` Terminated -> COMPLETED, Failed -> FAILED; Running and
Waiting are not final states and fail validation (load with ``errors="drop"``). Every other
column is kept as an extra column, as published.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from acmesim.jobs.checks import Check
from acmesim.trace.loaders import fields
from acmesim.trace.loaders.base import TRACE_FORMATS, JobColumns, TraceFormat
from acmesim.trace.loaders.csvfile import RawTrace

PAI_HEADER: tuple[str, ...] = (
    "task_name", "inst_num", "status", "start_time", "end_time", "plan_cpu", "plan_mem",
    "plan_gpu", "gpu_type", "status_j", "start_time_j", "end_time_j", "runtime", "status_i",
    "start_time_i", "end_time_i", "duration", "queue", "start_date",
)
"""Column order of ``pai_trace.csv`` (see the module docstring for the source)."""

PAI_STATES = {"Terminated": "COMPLETED", "Failed": "FAILED"}
"""PAI task status -> Acme final state (Running and Waiting are not final)."""

USED = frozenset({"inst_num", "status", "start_time", "plan_cpu", "plan_gpu", "start_time_i",
                  "end_time_i", "duration", "queue"})
ROUNDING_S = 1.0
TIME_COLUMNS = ("start_time", "start_time_i", "end_time_i")
"""Source columns of the submit, start and end times."""
PERCENT = 0.01


@TRACE_FORMATS.register("pai", "pai_trace", "alibaba-pai")
class PaiFormat(TraceFormat):
    """Alibaba PAI tasks, flattened to CSV (AcmeTrace ``trace_previous_work``)."""

    description = "Alibaba PAI pai_trace.csv (AcmeTrace trace_previous_work)"
    signature = frozenset({"plan_gpu", "plan_cpu", "inst_num"})
    required = tuple(sorted(USED))
    numeric = frozenset({"inst_num", "start_time", "end_time", "plan_cpu", "plan_mem",
                         "plan_gpu", "start_time_j", "end_time_j", "runtime", "start_time_i",
                         "end_time_i", "duration", "queue"})
    fractional_counts = True
    state_column = "status"
    time_columns = {"submit_time": "start_time", "start_time": "start_time_i",
                    "end_time": "end_time_i"}

    def read(self, raw: RawTrace) -> JobColumns:
        """Map PAI task columns to normalized jobs and cross-check duration and queue."""
        frame, checks = raw.frame, list[Check]()
        submit, start, end = (fields.timestamps(frame, c, checks, fmt=fields.EPOCH)
                              for c in TIME_COLUMNS)
        fields.interval_checks(frame, checks, (submit, start, end), TIME_COLUMNS,
                               abs_tol=ROUNDING_S)
        raw_state = fields.text(frame, "status", checks)
        lines = raw.line_numbers()
        gpus = fields.numbers(frame, "plan_gpu", checks, required=False, count=True,
                              integral=False, scale=PERCENT)
        return JobColumns(
            job_id=pd.Series(lines.astype(str), index=frame.index, dtype="str").radd("pai-"),
            user=pd.Series("unknown", index=frame.index, dtype="str"),
            type=pd.Series("Other", index=frame.index, dtype="str"),
            state=raw_state.map(PAI_STATES).fillna(raw_state),
            raw_state=raw_state,
            submit_time=submit, start_time=start, end_time=end,
            gpu_num=np.nan_to_num(gpus, nan=0.0),
            node_num=fields.numbers(frame, "inst_num", checks, count=True),
            cpu_num=fields.numbers(frame, "plan_cpu", checks, count=True, integral=False,
                                   scale=PERCENT),
            extras={c: frame[c] for c in frame.columns if c not in USED},
            checks=checks,
        )
