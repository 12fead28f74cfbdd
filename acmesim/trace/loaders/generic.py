"""Any CSV job log, read through a column map: ``format="csv"``.

The options say which file column holds each normalized field (``columns``), and how to read
times. Required: ``submit_time``, ``gpu_num`` and one of ``end_time`` or ``duration``;
everything else is optional:

- ``start_time``: absent -> the job started when it was submitted (queue 0);
- ``end_time`` and ``duration``: either gives the end (``end = start + duration``); with both,
  they must agree within ``ROUNDING_S``;
- ``node_num`` (absent -> 0: not recorded, the engine packs ``gpu_num`` onto whole nodes),
  ``cpu_num`` (absent -> 0), ``job_id`` (absent -> ``csv-<file line>``), ``user``, ``type``
  and ``state`` (absent -> the ``default_*`` options); ``states`` maps the file's state names
  to the Acme final states.

A time column that holds numbers counts ``time_unit`` units (seconds by default) from ``epoch``
(default 1970-01-01 UTC; the engine only uses times relative to the earliest submission, so
"seconds from the trace start" needs no epoch). A time column that holds text is parsed as ISO
8601 (``time_format`` may give a ``strptime`` format instead), each value with its own UTC
offset, values without one in ``timezone``. ``duration`` is in ``time_unit`` units too.
Every column the map does not name is kept as an extra column. Validation is the built-in
formats' own (``acmesim.trace.loaders.fields``); errors name the file's columns.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Literal

import numpy as np
import pandas as pd

from acmesim.core.errors import ConfigError
from acmesim.jobs import checks as rules
from acmesim.jobs.checks import Check
from acmesim.trace.csv_columns import CsvColumns
from acmesim.trace.loaders import fields
from acmesim.trace.loaders.base import TRACE_FORMATS, JobColumns, LocalTimeConfig, TraceFormat
from acmesim.trace.loaders.csvfile import RawTrace
from acmesim.trace.schema import FINAL_STATES

TimeUnit = Literal["ns", "us", "ms", "s", "min", "h", "d"]
UNIT_SECONDS: dict[str, float] = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0,
                                  "h": 3600.0, "d": 86400.0}
"""Seconds per ``time_unit``."""

ROUNDING_S = 1.0
"""Slack allowed between a recorded duration and ``end_time - start_time`` (chosen: the
1-s resolution of the published traces)."""

REQUIRED_FIELDS = ("submit_time", "gpu_num")


@dataclasses.dataclass(frozen=True)
class CsvConfig(LocalTimeConfig):
    """Options of the ``csv`` format: the column map and how to read times and defaults."""

    columns: Any = dataclasses.field(default_factory=CsvColumns)
    """normalized field -> file column (``CsvColumns`` or a mapping with its keys)"""
    time_unit: TimeUnit = "s"
    """unit of numeric time columns and of duration"""
    epoch: str = ""
    """the time a numeric time column's 0 stands for (empty: 1970-01-01 UTC)"""
    time_format: str = fields.ISO8601
    """how text time columns are written: ISO8601 or a strptime format such as %Y/%m/%d %H:%M"""
    default_user: str = "unknown"
    """user of every job when no user column is mapped"""
    default_type: str = "Other"
    """type of every job when no type column is mapped"""
    default_state: str = "COMPLETED"
    """final state of every job when no state column is mapped"""
    states: dict[str, str] = dataclasses.field(default_factory=dict)
    """the file's state names -> Acme final states (e.g. Pass: COMPLETED)"""

    def __post_init__(self) -> None:
        super().__post_init__()
        columns = CsvColumns.of(self.columns)
        object.__setattr__(self, "columns", columns)
        missing = [name for name in REQUIRED_FIELDS if not getattr(columns, name)]
        if not (columns.end_time or columns.duration):
            missing.append("end_time or duration")
        if missing:
            raise ConfigError("trace format 'csv' needs the file column of "
                              + ", ".join(missing) + " in its column map (e.g. "
                              "trace.columns.submit_time=timestamp, columns={'submit_time': "
                              "'timestamp', ...} in Python)")
        if self.time_unit not in UNIT_SECONDS:
            raise ConfigError(f"trace format 'csv': time_unit must be one of "
                              f"{', '.join(UNIT_SECONDS)}, got {self.time_unit!r}")
        bad = sorted({self.default_state, *self.states.values()} - set(FINAL_STATES))
        if bad:
            raise ConfigError(f"trace format 'csv': {', '.join(bad)} is not a final state; "
                              f"use one of {', '.join(FINAL_STATES)}")
        self.epoch_time()

    def epoch_time(self) -> pd.Timestamp:
        """The UTC time a numeric time column's 0 stands for."""
        if not self.epoch:
            return rules.TIME_RANGE[0]
        try:
            stamp = pd.Timestamp(self.epoch)
        except (ValueError, TypeError):
            raise ConfigError(f"trace format 'csv': epoch {self.epoch!r} is not a timestamp "
                              "(e.g. 2017-10-01 00:00:00+00:00)") from None
        if stamp.tzinfo is None:
            stamp = stamp.tz_localize(self.timezone)
        return stamp.tz_convert("UTC")


@TRACE_FORMATS.register("csv", "generic")
class CsvFormat(TraceFormat):
    """Any CSV job log, through a column map and time options (never auto-detected)."""

    description = "any CSV job log, through a column map (format csv, options columns=...)"
    Config = CsvConfig
    config: CsvConfig

    def __init__(self, config: CsvConfig | None = None) -> None:
        super().__init__(config)
        self.columns = self.config.columns.mapped()
        self.required = tuple(dict.fromkeys(self.columns.values()))
        self.numeric = frozenset(column for name, column in self.columns.items()
                                 if name not in ("job_id", "user", "type", "state"))
        self.state_column = self.columns.get("state", self.columns["submit_time"])
        self.id_column = self.columns.get("job_id", self.columns["submit_time"])
        submit = self.columns["submit_time"]
        start = self.columns.get("start_time", submit)
        self.time_columns = {"submit_time": submit, "start_time": start,
                             "end_time": self.columns.get("end_time") or self.columns["duration"]}

    def expected_header(self) -> str:
        """The columns the column map names."""
        pairs = ", ".join(f"{name}={column}" for name, column in self.columns.items())
        return f"the columns the csv column map names ({pairs})"

    def read(self, raw: RawTrace) -> JobColumns:
        """Map the file's columns to normalized jobs with the shared field rules."""
        frame, names = raw.frame, self.columns
        checks: list[Check] = []
        submit = self._time(frame, names["submit_time"], checks)
        start = self._time(frame, names["start_time"], checks) if "start_time" in names \
            else submit
        end = self._end(frame, start, checks)
        raw_state = self._text(frame, "state", self.config.default_state, checks)
        state = raw_state.map(self.config.states).fillna(raw_state) if self.config.states \
            else raw_state
        return JobColumns(
            job_id=self._ids(raw, checks), state=state, raw_state=raw_state,
            user=self._text(frame, "user", self.config.default_user, checks),
            type=self._text(frame, "type", self.config.default_type, checks),
            submit_time=submit, start_time=start, end_time=end,
            gpu_num=fields.numbers(frame, names["gpu_num"], checks, count=True),
            node_num=self._count(frame, "node_num", checks),
            cpu_num=self._count(frame, "cpu_num", checks),
            extras={c: frame[c] for c in raw.header if c not in set(names.values())},
            checks=checks,
        )

    def _time(self, frame: pd.DataFrame, column: str, checks: list[Check]) -> pd.Series:
        """A time column: numbers of ``time_unit`` from ``epoch``, or timestamps as text."""
        numeric = frame[column].dtype.kind in "iuf" and self.config.time_format == fields.ISO8601
        if not numeric:
            return fields.timestamps(frame, column, checks, fmt=self.config.time_format,
                                     timezone=self.config.timezone)
        offsets = fields.numbers(frame, column, checks) * UNIT_SECONDS[self.config.time_unit]
        epoch = pd.Series(self.config.epoch_time(), index=frame.index).astype(
            "datetime64[ns, UTC]")
        return fields.shifted(epoch, offsets, frame[column], checks, column=column,
                              formula=f"epoch + {column} {self.config.time_unit}",
                              reason=fields.OUT_OF_RANGE)

    def _end(self, frame: pd.DataFrame, start: pd.Series, checks: list[Check]) -> pd.Series:
        """The end time: the end column, or start + duration (checked when both are given)."""
        names, unit = self.columns, UNIT_SECONDS[self.config.time_unit]
        if "duration" not in names:  # then the end column is mapped (``Config`` needs one)
            return self._time(frame, names["end_time"], checks)
        end = self._time(frame, names["end_time"], checks) if "end_time" in names else None
        column = names["duration"]
        seconds = fields.numbers(frame, column, checks, non_negative=True) * unit
        start_name = names.get("start_time", names["submit_time"])
        if end is None:
            return fields.shifted(start, seconds, frame[column], checks, column=column,
                                  formula=f"{start_name} + {column}")
        checks.append(rules.disagreement(
            seconds, fields.seconds_between(start, end), frame[column], column=column,
            formula=f"{names['end_time']} - {start_name}", abs_tol=ROUNDING_S,
            render=lambda value: rules.display_value(value / unit)))
        return end

    def _text(self, frame: pd.DataFrame, name: str, default: str, checks: list[Check]) -> pd.Series:
        """A mapped text column, or ``default`` on every row."""
        if name in self.columns:
            return fields.text(frame, self.columns[name], checks)
        return pd.Series(default, index=frame.index, dtype="str")

    def _count(self, frame: pd.DataFrame, name: str, checks: list[Check]) -> np.ndarray:
        """A mapped count column, or 0 on every row."""
        if name in self.columns:
            return fields.numbers(frame, self.columns[name], checks, count=True)
        return np.zeros(len(frame))

    def _ids(self, raw: RawTrace, checks: list[Check]) -> pd.Series:
        """The mapped job ids, or ``csv-<file line>``."""
        if "job_id" in self.columns:
            return fields.text(raw.frame, self.columns["job_id"], checks)
        lines = raw.line_numbers().astype(str)
        return pd.Series(lines, index=raw.frame.index, dtype="str").radd("csv-")
