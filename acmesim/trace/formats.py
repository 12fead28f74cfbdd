"""The two published Acme trace schemas and a byte-exact writer for them.

Source of every detail: the AcmeTrace release README's headers, column order and example rows
(quoted in ``schema_examples.md``, see ``docs/sources.md``).

Conventions read off the example rows (checked by hand, and in
``tests/trace/test_loaders_writer.py``):

- Seren: timestamps carry ``+08:00``; ``duration = end - start`` (row 5778432: 00:18:54 ->
  00:20:51 = 117 s), ``queue = start - submit`` written as an int (32), ``gpu_time =
  duration * gpu_num`` written as a float (117 * 8 = ``936.0``).
- Kalos: timestamps carry ``+00:00``; ``duration = end - submit``, i.e. it *includes* the queue
  (row dlctk696s0jbvitv: submit 11:00:58, start 11:01:08, end 11:01:16 -> run 8 s + queue 10 s =
  duration ``18``; row dlc1t2ypl09b8qtp: 70 s run + 12 s queue = ``82``), ``queue`` is a float
  (``10.0``), ``gpu_time = duration * gpu_num`` (18 * 64 = ``1152.0``), ``mem_per_pod_GB`` an int
  (``1000``), ``shared_mem_per_pod`` a float (``100.0``), ``fail_time`` set (= end) for the failed
  row, ``stop_time`` set (= end) for the cancelled row, other fields empty strings.

The release README's note 2 says ``duration`` is ``end_time - start_time`` for both files; the
Kalos rows contradict it, and so do further published Kalos rows (e.g. ``dlc729ngkzgal94e``:
submit 03:42:17, start 03:42:31, end 03:43:25, ``duration`` 68 = end - submit, ``gpu_time``
8704 = 68 * 128, in the ``pd.read_csv`` output of ``trace_kalos.csv`` shown in the public notebook
``sunedin/ai-datacenter-power-profiling:notebooks/CheckDataset.ipynb``). Both writer and reader
follow the rows. The normalized ``run_time`` is always ``end - start`` whatever the source's
``duration`` means.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Literal

import numpy as np
import pandas as pd

from acmesim.core.atomic import atomic_open
from acmesim.core.errors import AcmesimError
from acmesim.trace.schema import FAILED_STATES

ColumnKind = Literal["text", "int", "float", "timestamp"]


@dataclasses.dataclass(frozen=True)
class AcmeSchema:
    """One published Acme CSV schema: header, text form of each column, time conventions."""

    name: str
    file_name: str
    columns: dict[str, ColumnKind]
    utc_offset: str
    duration_origin: Literal["start_time", "submit_time"]

    @property
    def header(self) -> tuple[str, ...]:
        """The exact header of the published file, in order."""
        return tuple(self.columns)

    @property
    def offset_seconds(self) -> int:
        """The UTC offset of the file's timestamps, in seconds (``+08:00`` -> 28800)."""
        sign = -1 if self.utc_offset.startswith("-") else 1
        hours, minutes = self.utc_offset[1:].split(":")
        return sign * (int(hours) * 3600 + int(minutes) * 60)


SEREN = AcmeSchema(
    name="seren",
    file_name="trace_seren.csv",
    columns={
        "job_id": "text", "user": "text", "node_num": "int", "gpu_num": "int", "cpu_num": "int",
        "type": "text", "state": "text", "submit_time": "timestamp", "start_time": "timestamp",
        "end_time": "timestamp", "duration": "int", "queue": "int", "gpu_time": "float",
    },
    utc_offset="+08:00",
    duration_origin="start_time",
)
"""trace_seren.csv (schema_examples.md)."""

KALOS = AcmeSchema(
    name="kalos",
    file_name="trace_kalos.csv",
    columns={
        "job_id": "text", "user": "text", "node_num": "int", "gpu_num": "int", "cpu_num": "int",
        "mem_per_pod_GB": "int", "shared_mem_per_pod": "float", "type": "text", "state": "text",
        "submit_time": "timestamp", "start_time": "timestamp", "end_time": "timestamp",
        "fail_time": "timestamp", "stop_time": "timestamp", "duration": "int", "queue": "float",
        "gpu_time": "float",
    },
    utc_offset="+00:00",
    duration_origin="submit_time",
)
"""trace_kalos.csv (schema_examples.md); note ``duration`` counts from submission."""

ACME_SCHEMAS: dict[str, AcmeSchema] = {"seren": SEREN, "kalos": KALOS}
"""Acme cluster name -> its published schema."""

DERIVED_COLUMNS: tuple[str, ...] = ("duration", "queue", "gpu_time")
"""Columns the file carries but the normalized table derives from the timestamps."""

TIMESTAMP_FORMAT = "%Y-%m-%d %H:%M:%S%z"
"""``strptime`` form of the published timestamps (``2023-03-01 00:18:22+08:00``)."""


def write_acme_csv(
    jobs: pd.DataFrame, path: str | os.PathLike[str], cluster: str
) -> None:
    """Write a normalized job table as the published Acme CSV of ``cluster``, atomically.

    ``cluster`` is ``seren`` or ``kalos`` (another name is an ``AcmesimError``).

    Timestamps are written at the schema's 1-second resolution (rounded to the nearest second);
    ``duration``, ``queue`` and ``gpu_time`` are computed from the rounded timestamps with the
    cluster's convention, so the file is self-consistent. Kalos ``fail_time``/``stop_time`` are
    taken from the table when present, else set to ``end_time`` for failed (FAILED, TIMEOUT,
    NODE_FAIL) and cancelled jobs respectively; missing ``mem_per_pod_GB`` and
    ``shared_mem_per_pod`` columns are written as empty fields. Output is byte-deterministic.
    """
    schema = acme_schema(cluster)
    fields = format_acme_fields(jobs, schema)
    with atomic_open(path, "w", encoding="utf-8", newline="") as handle:
        handle.write(",".join(schema.header) + "\n")
        if len(jobs):
            handle.write("\n".join(map(",".join, zip(*fields.values(), strict=True))))
            handle.write("\n")


def acme_schema(cluster: str) -> AcmeSchema:
    """The published schema of Acme cluster ``cluster`` (``seren`` or ``kalos``)."""
    try:
        return ACME_SCHEMAS[cluster]
    except KeyError:
        raise AcmesimError(
            f"unknown Acme cluster {cluster!r}; known: {', '.join(sorted(ACME_SCHEMAS))}"
        ) from None


REQUIRED_FOR_WRITING: tuple[str, ...] = (
    "job_id", "user", "type", "state", "submit_time", "start_time", "end_time",
    "gpu_num", "node_num", "cpu_num",
)
"""Normalized columns the writer needs; the rest of the file is derived or optional."""


def format_acme_fields(jobs: pd.DataFrame, schema: AcmeSchema) -> dict[str, list[str]]:
    """Every column of ``schema``'s file as a list of CSV field texts, built column-wise."""
    missing = [c for c in REQUIRED_FOR_WRITING if c not in jobs.columns]
    if missing:
        raise AcmesimError(f"cannot write {schema.file_name}: missing columns {missing}")
    seconds = {c: _epoch_seconds(jobs[c]) for c in ("submit_time", "start_time", "end_time")}
    seconds.update(_outcome_times(jobs, schema, seconds["end_time"]))
    duration = seconds["end_time"] - seconds[schema.duration_origin]
    derived = {
        "duration": duration,
        "queue": seconds["start_time"] - seconds["submit_time"],
        "gpu_time": duration * _numbers(jobs["gpu_num"]),
    }
    fields: dict[str, list[str]] = {}
    for column, kind in schema.columns.items():
        if kind == "timestamp":
            fields[column] = _format_timestamps(seconds[column], schema.offset_seconds,
                                                schema.utc_offset)
        elif column in derived:
            fields[column] = _format_numbers(derived[column], kind)
        elif column not in jobs.columns:
            fields[column] = [""] * len(jobs)
        elif kind == "text":
            fields[column] = _format_text(jobs[column])
        else:
            fields[column] = _format_numbers(_numbers(jobs[column]), kind)
    return fields


def _outcome_times(
    jobs: pd.DataFrame, schema: AcmeSchema, end_seconds: np.ndarray
) -> dict[str, np.ndarray]:
    """Kalos ``fail_time``/``stop_time`` in epoch seconds (NaN when empty)."""
    states = jobs["state"].astype(str)
    rules = {"fail_time": states.isin(FAILED_STATES).to_numpy(),
             "stop_time": (states == "CANCELLED").to_numpy()}
    times: dict[str, np.ndarray] = {}
    for column, mask in rules.items():
        if schema.columns.get(column) != "timestamp":
            continue
        if column in jobs.columns:
            times[column] = _epoch_seconds(jobs[column])
        else:
            times[column] = np.where(mask, end_seconds, np.nan)
    return times


def _epoch_seconds(values: pd.Series) -> np.ndarray:
    """Timestamps as float epoch seconds rounded to whole seconds (NaN for NaT)."""
    stamps = pd.DatetimeIndex(pd.to_datetime(values, utc=True)).as_unit("ns")
    seconds = np.round(stamps.asi8.astype(np.float64) / 1e9)
    seconds[stamps.isna()] = np.nan
    return seconds


_SECONDS_PER_DAY = 86400
_CLOCK_TABLE: np.ndarray | None = None


def _clock_table() -> np.ndarray:
    """``HH:MM:SS`` for every second of a day, as an (86400, 8) byte matrix (built once)."""
    global _CLOCK_TABLE
    if _CLOCK_TABLE is None:
        second = np.arange(_SECONDS_PER_DAY, dtype=np.int64)
        text = np.datetime_as_string(second.astype("datetime64[s]"), unit="s").astype("S19")
        _CLOCK_TABLE = text.view(np.uint8).reshape(-1, 19)[:, 11:19].copy()
    return _CLOCK_TABLE


def _format_timestamps(seconds: np.ndarray, offset: int, suffix: str) -> list[str]:
    """Epoch seconds -> ``YYYY-MM-DD HH:MM:SS+HH:MM`` local to ``offset``; NaN -> ``""``.

    Dates come from a table of the distinct days and clock times from a table of the 86,400
    seconds of a day, assembled as a byte matrix: no per-row formatting.
    """
    missing = np.isnan(seconds)
    local = np.where(missing, 0, seconds + offset).astype(np.int64)
    days, day_index = np.unique(local // _SECONDS_PER_DAY, return_inverse=True)
    day_text = np.datetime_as_string(days.astype("datetime64[D]"), unit="D").astype("S10")
    width = 19 + len(suffix)
    matrix = np.empty((len(local), width), dtype=np.uint8)
    matrix[:, :10] = day_text.view(np.uint8).reshape(-1, 10)[day_index.ravel()]
    matrix[:, 10] = ord(" ")
    matrix[:, 11:19] = _clock_table()[local % _SECONDS_PER_DAY]
    matrix[:, 19:] = np.frombuffer(suffix.encode("ascii"), dtype=np.uint8)
    text = matrix.view(f"S{width}").ravel().astype(f"U{width}").astype(object)
    text[missing] = ""
    return text.tolist()


def _numbers(values: pd.Series) -> np.ndarray:
    """A numeric column as float64, NaN where missing or not a number."""
    return pd.to_numeric(values, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)


_DIRECT_TABLE_LIMIT = 1 << 16
"""Integer columns spanning at most this many values are formatted through a direct table."""

_EXACT_INT_LIMIT = 1e16
"""Below this, an integral float prints as Python's ``repr`` does: digits then ``.0``."""


def _format_numbers(numbers: np.ndarray, kind: ColumnKind) -> list[str]:
    """Numbers as ints (``117``) or Python float reprs (``936.0``); NaN -> ``""``."""
    missing = np.isnan(numbers)
    filled = np.where(missing, 0.0, numbers)
    plain = (filled == np.round(filled)) & (np.abs(filled) < _EXACT_INT_LIMIT)
    whole = np.where(plain, filled, 0.0).astype(np.int64)
    low = int(whole.min()) if len(whole) else 0
    span = int(whole.max()) - low + 1 if len(whole) else 1
    if 0 < span <= _DIRECT_TABLE_LIMIT:  # small range (counts): index a table, no sorting
        values, index = np.arange(low, low + span), whole - low
    else:
        values, index = np.unique(whole, return_inverse=True)
    table = values.astype(str).astype(object)
    if kind == "float":
        table = table + ".0"
    text = table[index.ravel()]
    other = ~plain
    if other.any():
        text[other] = list(map(repr, filled[other].tolist()))
    text[missing] = ""
    return text.tolist()


def _format_text(values: pd.Series) -> list[str]:
    """A text column, CSV-quoted only where a field holds a comma, quote or line break."""
    text = values.astype("str").fillna("")
    special = text.str.contains(r'[",\r\n]', regex=True).to_numpy(dtype=bool)
    if special.any():
        text = text.astype(object)
        text[special] = '"' + text[special].str.replace('"', '""', regex=False) + '"'
    return text.tolist()
