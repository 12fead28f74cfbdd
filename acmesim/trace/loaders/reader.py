"""``load_trace``: any known trace file -> validated normalized job table (one row per trace row).

Steps: read the header, pick the format (given, or detected from the header), parse the rows,
let the format build normalized columns and its checks, add the checks common to all formats,
then either raise on the first bad row (``errors="raise"``) or drop bad rows and report them
(``errors="drop"``). The report is returned by ``read_trace`` and attached to the table as
``df.attrs["load_report"]``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from acmesim.core.errors import AcmesimError, ConfigError, TraceError
from acmesim.jobs import checks as rules
from acmesim.jobs import table as job_table
from acmesim.jobs.checks import ERROR_MODES, Check, ErrorMode, LoadReport
from acmesim.jobs.fields import BY_NAME
from acmesim.jobs.table import TIME_NAMES, mark_valid
from acmesim.trace.loaders import parquet
from acmesim.trace.loaders.base import TRACE_FORMATS, JobColumns, TraceFormat
from acmesim.trace.loaders.csvfile import RawTrace, read_file, read_rows
from acmesim.trace.schema import NORMALIZED_COLUMNS

PathLike = str | os.PathLike[str]


def load_trace(
    path: PathLike,
    format: str = "auto",  # noqa: A002 - public API name
    *,
    errors: ErrorMode = "raise",
    gpu_only: bool = False,
    cluster_gpus: int | None = None,
    format_options: Mapping[str, Any] | None = None,
    columns: Mapping[str, Any] | None = None,
) -> pd.DataFrame:
    """Read a trace file as normalized jobs; the ``LoadReport`` is in ``df.attrs``.

    ``format``: a registered format name or ``"auto"`` (detect from the header).
    ``errors``: ``"raise"`` stops at the first bad row with a ``TraceError`` naming file, line,
    column, value and expectation; ``"drop"`` drops bad rows and counts them per reason.
    ``gpu_only``: drop CPU-only jobs (``gpu_num == 0``) after validation (counted in the report).
    ``cluster_gpus``: reject jobs asking for more GPUs than this.
    ``format_options``: options of the format's typed ``Config`` (e.g. ``timezone``).
    ``columns``: the column map of ``format="csv"`` (normalized field -> file column, e.g.
    ``{"submit_time": "timestamp", "duration": "duration", "gpu_num": "num_gpus"}``); given
    with ``format="auto"``, it selects ``csv``.
    """
    jobs, _ = read_trace(path, format, errors=errors, gpu_only=gpu_only,
                         cluster_gpus=cluster_gpus, format_options=format_options,
                         columns=columns)
    return jobs


def read_trace(
    path: PathLike,
    format: str = "auto",  # noqa: A002 - public API name
    *,
    errors: ErrorMode = "raise",
    gpu_only: bool = False,
    cluster_gpus: int | None = None,
    format_options: Mapping[str, Any] | None = None,
    columns: Mapping[str, Any] | None = None,
) -> tuple[pd.DataFrame, LoadReport]:
    """Like ``load_trace`` but also return the ``LoadReport`` (rows read, kept, dropped)."""
    if errors not in ERROR_MODES:
        raise AcmesimError(f"errors must be one of {', '.join(ERROR_MODES)}, got {errors!r}")
    if parquet.is_parquet(path):
        _parquet_options(path, format, format_options, columns)
        return parquet.read_parquet_trace(path, errors=errors, gpu_only=gpu_only,
                                          cluster_gpus=cluster_gpus)
    format, format_options = _with_column_map(format, format_options, columns)  # noqa: A001
    raw = read_file(path)
    reader = _choose_format(raw, format, format_options)
    _require_columns(raw, reader)
    read_rows(raw, reader.numeric)
    report = LoadReport(path=raw.path, format=reader.registry_name, rows_read=len(raw.frame))
    jobs = reader.read(raw)
    blank = rules.Check("blank line", None, raw.frame.isna().all(axis=1).to_numpy(), None,
                        "a data row")
    nul = rules.nul_bytes(raw.frame) if raw.has_nul else []
    checks = [blank, *nul, *jobs.checks, *_common_checks(jobs, raw, reader, cluster_gpus)]
    keep = rules.apply_checks(checks, len(raw.frame), errors=errors, path=raw.path,
                              line_of=raw.line_of, report=report)
    table = _assemble(jobs, keep, fractional=reader.fractional_counts)
    if gpu_only:
        gpu = table["gpu_num"].to_numpy() > 0
        report.cpu_jobs_filtered = int((~gpu).sum())
        table = table[gpu].reset_index(drop=True)
    report.rows_kept = len(table)
    table.attrs["load_report"] = report
    if not reader.fractional_counts:  # every rule of the job table held: not checked again
        mark_valid(table)
    return table, report


def _parquet_options(path: PathLike, name: str, options: Mapping[str, Any] | None,
                     columns: Mapping[str, Any] | None) -> None:
    """A Parquet trace is a normalized table: no format, format options or column map."""
    if name not in ("auto", parquet.FORMAT_NAME) or options or columns:
        raise ConfigError(f"{path}: a Parquet trace holds the normalized columns; it takes no "
                          f"format ({name!r}), format options or column map")


def detect_format(path: PathLike) -> str:
    """The name of the registered format whose signature columns the file's header has."""
    return _detect(read_file(path))


def gpu_jobs(jobs: pd.DataFrame) -> pd.DataFrame:
    """The GPU jobs (``gpu_num > 0``) of a normalized table."""
    return jobs[jobs["gpu_num"] > 0].reset_index(drop=True)


def known_formats() -> dict[str, str]:
    """Registered format name -> one-line description."""
    return {name: TRACE_FORMATS.get(name).description for name in TRACE_FORMATS.names()}


COLUMN_MAP_FORMAT = "csv"
"""The format that reads its columns through a column map (``columns=``)."""


def _with_column_map(name: str, options: Mapping[str, Any] | None,
                     columns: Mapping[str, Any] | None) -> tuple[str, Mapping[str, Any] | None]:
    """``format`` and ``format_options`` with the ``columns`` map folded in."""
    if not columns:
        return name, options
    chosen = COLUMN_MAP_FORMAT if name == "auto" else TRACE_FORMATS.canonical(name)
    if chosen != COLUMN_MAP_FORMAT:
        raise ConfigError(f"a column map (columns=...) applies only to format "
                          f"{COLUMN_MAP_FORMAT!r}, not {chosen!r}")
    return chosen, {**(options or {}), "columns": dict(columns)}


def _choose_format(raw: RawTrace, name: str, options: Mapping[str, Any] | None) -> TraceFormat:
    """The format object for ``name`` (``auto``: detected from the header)."""
    chosen = _detect(raw) if name == "auto" else TRACE_FORMATS.canonical(name)
    return TRACE_FORMATS.create(chosen, options)


def _detect(raw: RawTrace) -> str:
    """Pick the format with the largest signature contained in the header."""
    candidates = [n for n in TRACE_FORMATS.names() if TRACE_FORMATS.get(n).matches(raw.header)]
    if not candidates:
        raise TraceError(raw.path, "unrecognised header " + ",".join(raw.header), line=1,
                         expected="the header of a known format: " + _describe_signatures()
                         + "; or format csv with a column map (traces/README.md)")
    size = max(len(TRACE_FORMATS.get(n).signature) for n in candidates)
    best = [n for n in candidates if len(TRACE_FORMATS.get(n).signature) == size]
    if len(best) > 1:
        raise TraceError(raw.path, f"header matches several formats: {', '.join(best)}",
                         line=1, expected="pass format= explicitly")
    return best[0]


def _describe_signatures() -> str:
    """``name (col, col, ...)`` for every known format."""
    return "; ".join(
        f"{name} (columns {', '.join(sorted(TRACE_FORMATS.get(name).signature))})"
        for name in TRACE_FORMATS.names() if TRACE_FORMATS.get(name).signature
    )


def _require_columns(raw: RawTrace, reader: TraceFormat) -> None:
    """Every column the format needs must be in the header."""
    missing = [c for c in reader.required if c not in raw.header]
    if missing:
        raise TraceError(raw.path, f"missing column{'s' if len(missing) > 1 else ''} "
                         + ", ".join(missing), line=1, column=missing[0],
                         expected=reader.expected_header())


def _common_checks(jobs: JobColumns, raw: RawTrace, reader: TraceFormat,
                   cluster_gpus: int | None) -> list[Check]:
    """The job table's own rules (``acmesim.jobs.table``) on the parsed columns, named by the
    file's columns: states, time order, unique ids, cluster capacity."""
    state_raw = jobs.raw_state if jobs.raw_state is not None else jobs.state
    names = {key: reader.time_columns[column] for key, column in TIME_NAMES.items()}
    state = job_table.values_check(BY_NAME["trace_state"], jobs.state, state_raw,
                               reader.state_column)
    times = {"submit": jobs.submit_time, "start": jobs.start_time, "end": jobs.end_time}
    return [state, *job_table.row_checks(
        times, jobs.job_id, jobs.gpu_num, names={**names, "job_id": reader.id_column},
        raw={key: _raw_column(raw, column) for key, column in names.items()},
        line_of=raw.line_of, cluster_gpus=cluster_gpus)]


def _raw_column(raw: RawTrace, column: str) -> pd.Series:
    """A column of the parsed file, or an all-missing one if the file lacks it."""
    if column in raw.frame.columns:
        return raw.frame[column]
    return pd.Series([None] * len(raw.frame), dtype=object)


def _assemble(jobs: JobColumns, keep: np.ndarray, *, fractional: bool) -> pd.DataFrame:
    """The normalized table of the kept rows, with final dtypes, in schema column order."""
    count_dtype = np.float64 if fractional else np.int64
    columns: dict[str, Any] = {
        "job_id": jobs.job_id, "user": jobs.user, "type": jobs.type, "state": jobs.state,
        "submit_time": jobs.submit_time, "start_time": jobs.start_time,
        "end_time": jobs.end_time,
    }
    frame = pd.DataFrame({name: _values(series, keep) for name, series in columns.items()})
    for name in ("job_id", "user", "type", "state"):
        frame[name] = frame[name].astype("str")
    start, end = frame["start_time"], frame["end_time"]
    frame["run_time"] = _seconds(start, end)
    frame["queue_time"] = _seconds(frame["submit_time"], start)
    for name in ("gpu_num", "node_num", "cpu_num"):
        frame[name] = getattr(jobs, name)[keep].astype(count_dtype)
    for name, values in jobs.extras.items():
        kept = _values(values, keep)
        if isinstance(kept, pd.Series) and kept.dtype == object:
            kept = kept.astype("str")
        frame[_extra_name(name)] = kept
    assert list(frame.columns[: len(NORMALIZED_COLUMNS)]) == list(NORMALIZED_COLUMNS)
    return frame


def _extra_name(name: str) -> str:
    """A source column's name in the normalized table (``source_<name>`` if it would clash)."""
    return f"source_{name}" if name in NORMALIZED_COLUMNS else name


def _values(values: Any, keep: np.ndarray) -> Any:
    """The kept rows of a Series or array, as a plain array-like without the old index."""
    if isinstance(values, pd.Series):
        return values[keep].reset_index(drop=True)
    return np.asarray(values)[keep]


def _seconds(start: pd.Series, end: pd.Series) -> np.ndarray:
    """``end - start`` in float seconds."""
    delta = (end - start).to_numpy(dtype="timedelta64[ns]")
    return delta.astype(np.int64) / 1e9
