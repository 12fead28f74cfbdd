"""The two published Acme trace schemas and a byte-exact writer for them.

Source of every detail: the AcmeTrace release README as quoted in
``/work/shared/reference/acmetrace/schema_examples.md`` (headers, column order, example rows).

Conventions read off the example rows (checked by hand, and in ``tests/test_loaders_writer.py``):

- Seren: timestamps carry ``+08:00``; ``duration = end - start`` (row 5778432: 00:18:54 ->
  00:20:51 = 117 s), ``queue = start - submit`` written as an int (32), ``gpu_time =
  duration * gpu_num`` written as a float (117 * 8 = ``936.0``).
- Kalos: timestamps carry ``+00:00``; ``duration = end - submit``, i.e. it *includes* the queue
  (row dlctk696s0jbvitv: submit 11:00:58, start 11:01:08, end 11:01:16 -> run 8 s + queue 10 s =
  duration ``18``; row dlc1t2ypl09b8qtp: 70 s run + 12 s queue = ``82``), ``queue`` is a float
  (``10.0``), ``gpu_time = duration * gpu_num`` (18 * 64 = ``1152.0``), ``mem_per_pod_GB`` an int
  (``1000``), ``shared_mem_per_pod`` a float (``100.0``), ``fail_time`` set (= end) for the failed
  row, ``stop_time`` set (= end) for the cancelled row, other fields empty strings.

The normalized ``run_time`` is always ``end - start`` whatever the source's ``duration`` means.
"""

from __future__ import annotations

import csv
import dataclasses
import os
from typing import Literal

import numpy as np
import pandas as pd

from acmesim.core.atomic import atomic_open
from acmesim.core.errors import AcmesimError
from acmesim.workload.schema import FAILED_STATES

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
    jobs: pd.DataFrame, path: str | os.PathLike[str], cluster: Literal["seren", "kalos"]
) -> None:
    """Write a normalized job table as the published Acme CSV of ``cluster``, atomically.

    Timestamps are written at the schema's 1-second resolution (rounded to the nearest second);
    ``duration``, ``queue`` and ``gpu_time`` are computed from the rounded timestamps with the
    cluster's convention, so the file is self-consistent. Kalos ``fail_time``/``stop_time`` are
    taken from the table when present, else set to ``end_time`` for failed/cancelled jobs;
    missing ``mem_per_pod_GB``/``shared_mem_per_pod`` columns are written as empty fields.
    """
    schema = acme_schema(cluster)
    text = format_acme_columns(jobs, schema)
    with atomic_open(path, "w", encoding="utf-8", newline="") as handle:
        text.to_csv(handle, index=False, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)


def acme_schema(cluster: str) -> AcmeSchema:
    """The published schema of Acme cluster ``cluster`` (``seren`` or ``kalos``)."""
    try:
        return ACME_SCHEMAS[cluster]
    except KeyError:
        raise AcmesimError(
            f"unknown Acme cluster {cluster!r}; known: {', '.join(sorted(ACME_SCHEMAS))}"
        ) from None


def format_acme_columns(jobs: pd.DataFrame, schema: AcmeSchema) -> pd.DataFrame:
    """The table as text columns, exactly as they appear in ``schema``'s file (vectorized)."""
    missing = [c for c in ("job_id", "user", "type", "state", "submit_time", "start_time",
                           "end_time", "gpu_num", "node_num", "cpu_num") if c not in jobs.columns]
    if missing:
        raise AcmesimError(f"cannot write {schema.file_name}: missing columns {missing}")
    seconds = {c: _epoch_seconds(jobs[c]) for c in ("submit_time", "start_time", "end_time")}
    seconds.update(_outcome_times(jobs, schema, seconds["end_time"]))
    duration = seconds["end_time"] - seconds[schema.duration_origin]
    derived = {
        "duration": duration,
        "queue": seconds["start_time"] - seconds["submit_time"],
        "gpu_time": duration * _int_values(jobs["gpu_num"], "gpu_num"),
    }
    out: dict[str, np.ndarray] = {}
    for column, kind in schema.columns.items():
        if kind == "timestamp":
            out[column] = _format_timestamps(seconds[column], schema)
        elif column in derived:
            out[column] = _format_number(derived[column].astype(np.float64), kind)
        elif column in jobs.columns:
            out[column] = _format_column(jobs[column], kind)
        else:
            out[column] = np.full(len(jobs), "", dtype=object)
    return pd.DataFrame(out, dtype=object)


def _outcome_times(
    jobs: pd.DataFrame, schema: AcmeSchema, end_seconds: np.ndarray
) -> dict[str, np.ndarray]:
    """Kalos ``fail_time``/``stop_time`` in epoch seconds (NaN when empty)."""
    rules = {"fail_time": jobs["state"].isin(FAILED_STATES).to_numpy(),
             "stop_time": (jobs["state"] == "CANCELLED").to_numpy()}
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
    stamps = pd.to_datetime(values, utc=True)
    nanos = stamps.array.as_unit("ns").asi8.astype(np.float64)
    seconds = np.round(nanos / 1e9)
    seconds[stamps.isna().to_numpy()] = np.nan
    return seconds


def _format_timestamps(seconds: np.ndarray, schema: AcmeSchema) -> np.ndarray:
    """Epoch seconds -> ``YYYY-MM-DD HH:MM:SS+HH:MM`` in the schema's offset; NaN -> ``""``."""
    missing = np.isnan(seconds)
    local = np.where(missing, 0, seconds + schema.offset_seconds).astype(np.int64)
    text = np.datetime_as_string(local.astype("datetime64[s]"), unit="s")
    text = np.strings.add(np.strings.replace(text, "T", " "), schema.utc_offset)
    result = text.astype(object)
    result[missing] = ""
    return result


def _format_column(values: pd.Series, kind: ColumnKind) -> np.ndarray:
    """One pass-through column in its schema text form."""
    if kind == "text":
        result = values.astype(object).to_numpy(copy=True)
        result[pd.isna(values).to_numpy()] = ""
        return result.astype(str).astype(object)
    numbers = pd.to_numeric(values, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    return _format_number(numbers, kind)


def _format_number(numbers: np.ndarray, kind: ColumnKind) -> np.ndarray:
    """Numbers as ints (``117``) or Python float reprs (``936.0``); NaN -> ``""``."""
    missing = np.isnan(numbers)
    if kind == "int":
        whole = np.where(missing, 0, numbers)
        integral = whole == np.round(whole)
        text = np.where(integral, whole.astype(np.int64).astype(str), whole.astype(str))
    else:
        text = np.where(missing, 0.0, numbers).astype(str)
    result = text.astype(object)
    result[missing] = ""
    return result


def _int_values(values: pd.Series, column: str) -> np.ndarray:
    """A count column as float64 (NaN where missing), for derived products."""
    return pd.to_numeric(values, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
