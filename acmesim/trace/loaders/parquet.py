"""Normalized job tables as Parquet files: an exact, compact, fast form of a trace.

A CSV of tens of millions of rows is itself a bottleneck (parsing text, re-deriving
timestamps); Parquet stores the normalized table (``acmesim.trace.schema``) column by column
with its dtypes, so reading it back gives the very table that was written. ``write_parquet``
writes atomically (``core/atomic.py``); ``read_parquet_trace`` checks every normalized column
is present with its kind, then the rules of the job table (``acmesim.jobs.table``: final
states, counts, time order, unique ids, ``run_time`` and ``queue_time`` agreeing with the
timestamps, the cluster's capacity) and, in ``errors="raise"`` mode, stops at the first bad
row naming the file, the row and the column. A Parquet file has no lines: the ``line`` a
message gives is the row's line in a CSV of the same table (row ``i``, 0-based, is line
``i + 2``; the header is line 1), the number ``acmesim`` prints for CSV traces.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from acmesim.core.atomic import atomic_open
from acmesim.core.errors import TraceError
from acmesim.jobs import checks as rules
from acmesim.jobs import table as job_table
from acmesim.jobs.checks import ErrorMode, LoadReport
from acmesim.trace.schema import NORMALIZED_COLUMNS

SUFFIX = ".parquet"
"""File name ending that selects this reader and writer."""
FORMAT_NAME = "parquet"
"""The format a ``LoadReport`` names for a Parquet trace."""
TEXT_COLUMNS = ("job_id", "user", "type", "state")
TIME_COLUMNS = ("submit_time", "start_time", "end_time")
COUNT_COLUMNS = ("gpu_num", "node_num", "cpu_num")
SECONDS_COLUMNS = ("run_time", "queue_time")


def is_parquet(path: str | os.PathLike[str]) -> bool:
    """True when ``path`` names a Parquet trace (by its ending)."""
    return str(path).lower().endswith(SUFFIX)


def write_parquet(jobs: pd.DataFrame, path: str | os.PathLike[str],
                  metadata: Mapping[bytes, bytes] | None = None) -> None:
    """Write the normalized table ``jobs`` to ``path`` as Parquet, atomically; ``metadata``
    is added to the file's key-value metadata."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(jobs, preserve_index=False)
    if metadata:
        table = table.replace_schema_metadata({**(table.schema.metadata or {}), **metadata})
    with atomic_open(path, "wb") as handle:
        pq.write_table(table, handle, compression="zstd")


def read_parquet_trace(path: str | os.PathLike[str], *, errors: ErrorMode = "raise",
                       gpu_only: bool = False, cluster_gpus: int | None = None
                       ) -> tuple[pd.DataFrame, LoadReport]:
    """The validated normalized table of a Parquet trace and its ``LoadReport`` (see module)."""
    name = str(path)
    frame = _read(Path(path), name)
    _check_columns(frame, name)
    report = LoadReport(path=name, format=FORMAT_NAME, rows_read=len(frame))
    keep = rules.apply_check_chunks(_checks(frame, cluster_gpus), len(frame), errors=errors,
                                    path=name, line_of=_line, report=report)
    table = frame if keep.all() else frame[keep].reset_index(drop=True)
    table = _normalized_dtypes(table)
    if gpu_only:
        gpu = table["gpu_num"].to_numpy() > 0
        report.cpu_jobs_filtered = int((~gpu).sum())
        table = table[gpu].reset_index(drop=True)
    report.rows_kept = len(table)
    table.attrs["load_report"] = report
    if all(table[c].dtype.kind in "iu" for c in COUNT_COLUMNS):  # whole counts: every rule held
        job_table.mark_valid(table)
    return table, report


def _read(path: Path, name: str) -> pd.DataFrame:
    """The file's table; a missing, unreadable or non-Parquet file is a ``TraceError``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if not path.exists():
        raise TraceError(name, "no such file", expected="an existing Parquet trace")
    if path.is_dir():
        raise TraceError(name, "is a directory", expected="a Parquet trace file")
    try:
        # converted column by column, each Arrow column freed once converted: the table
        # is held once, not twice (tens of millions of rows)
        return pq.read_table(path).to_pandas(self_destruct=True, split_blocks=True)
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise TraceError(name, f"not a readable Parquet file: {exc}",
                         expected="a Parquet file written by acmesim (acmesim synth --out "
                                  "X.parquet) or one with the normalized columns") from None


def _check_columns(frame: pd.DataFrame, name: str) -> None:
    """Every normalized column present, each of its kind; else a ``TraceError`` naming it."""
    missing = [c for c in NORMALIZED_COLUMNS if c not in frame.columns]
    if missing:
        raise TraceError(name, f"missing column{'s' if len(missing) > 1 else ''} "
                         + ", ".join(missing), column=missing[0],
                         expected="the normalized columns " + ", ".join(NORMALIZED_COLUMNS))
    for column in TIME_COLUMNS:
        dtype = frame[column].dtype
        if not isinstance(dtype, pd.DatetimeTZDtype):
            raise TraceError(name, f"column of type {dtype}", column=column,
                             expected="timezone-aware timestamps (UTC)")
    for column in (*COUNT_COLUMNS, *SECONDS_COLUMNS):
        if frame[column].dtype.kind not in "iuf":
            raise TraceError(name, f"column of type {frame[column].dtype}", column=column,
                             expected="numbers")
    for column in TEXT_COLUMNS:
        dtype = frame[column].dtype
        if not (isinstance(dtype, pd.StringDtype) or dtype.kind == "O"):
            raise TraceError(name, f"column of type {dtype}", column=column, expected="text")


def _checks(frame: pd.DataFrame, cluster_gpus: int | None
            ) -> Iterator[tuple[int, list[rules.Check]]]:
    """The rules of the job table (``acmesim.jobs.table``; counts may be fractional), plus: a
    text column of a file holds text; a block of rows at a time (``table_check_chunks``)."""
    return job_table.table_check_chunks(frame, line_of=_line, fractional=True,
                                        cluster_gpus=cluster_gpus, extra=_text_checks)


def _text_checks(frame: pd.DataFrame) -> list[rules.Check]:
    """A text column of a file holds text (or nothing); a column of a text dtype does by its
    dtype (an ``object`` column is read value by value)."""
    checks = []
    for column in TEXT_COLUMNS:
        values = frame[column]
        if values.dtype == object:
            bad = ~values.map(lambda v: v is None or isinstance(v, str)).to_numpy(dtype=bool)
            checks.append(rules.Check("not text", column, bad, values, "text"))
    return checks


def _line(row: int) -> int:
    """The line of row ``row`` in a CSV of the same table (the header is line 1)."""
    return row + 2


def _normalized_dtypes(frame: pd.DataFrame) -> pd.DataFrame:
    """The table with the normalized dtypes: text as str, UTC times, float seconds (counts keep
    their own: int, or float for fractional GPU counts as some formats record them)."""
    out = frame.copy(deep=False)
    for column in TEXT_COLUMNS:
        if not isinstance(out[column].dtype, pd.StringDtype):
            out[column] = out[column].astype("str")
    for column in TIME_COLUMNS:
        out[column] = out[column].dt.tz_convert("UTC")
    for column in SECONDS_COLUMNS:
        out[column] = out[column].astype(np.float64)
    return out
