"""THE validator of the normalized job table, its rules derived from the job's declarations.

Every way a job table reaches the simulator goes through here: the trace readers
(``acmesim.trace.loaders``; a CSV format applies the same rules to its parsed columns, under the
file's own column names and lines, with ``row_checks``), ``acmesim.simulate`` with a DataFrame,
the engine's table (``acmesim.sim.trace_input``) and the evaluation rewrite
(``acmesim.evaluation.batches``), which read the table through ``validated``.

The rules: every input column of a declared field (``acmesim.jobs.fields.INPUT_FIELDS``) by its
``ColumnKind`` (text present; times timezone-aware, present, from 1970 to 2262; seconds finite
and >= 0; counts whole numbers from 0 to ``COUNT_LIMIT``) and its declared ``values``; then the
rows: start not before submission, end not before start, ``run_time`` and ``queue_time``
agreeing with the timestamps, unique job ids and, given a cluster size, no more GPUs than it has.
An optional column (``queue_time``, ``end_time``) is checked when the table has it.

A table is validated once: a valid table carries a mark (``mark_valid``, in ``DataFrame.attrs``)
holding a fingerprint of its input columns (their dtypes, lengths, a CRC of each NumPy column's
memory and each Arrow column's immutable array). ``validated`` accepts a marked table after
comparing fingerprints, far cheaper than the rules; a table changed since (a cell written in
place, rows added or dropped, a column replaced) no longer matches and is validated again, and
so is a table read back from a pickle.
"""

from __future__ import annotations

import dataclasses
import zlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np
import pandas as pd

from acmesim.core.errors import TraceError
from acmesim.jobs import checks as rules
from acmesim.jobs.checks import Check, ErrorMode, LoadReport
from acmesim.jobs.fields import INPUT_COLUMNS, INPUT_FIELDS, JobField, named

SOURCE = "job table"
"""How an error names a table that was not read from a file."""

TIME_SLACK_S = 1e-6
"""Seconds by which ``run_time`` / ``queue_time`` may differ from the timestamps (rounding)."""

VALUE_REASONS: dict[str, str] = {"trace_state": "not a final job state"}
"""The reason a field's value outside its declared ``values`` is given."""

MARK = "acmesim.valid_job_table"
"""The ``DataFrame.attrs`` key of the mark of a validated table."""

TIME_NAMES = {"submit": "submit_time", "start": "start_time", "end": "end_time"}
"""The normalized time columns the row rules compare."""


# ------------------------------------------------------------------ the rules of one column
def column_checks(f: JobField, raw: pd.Series, *, fractional: bool = False) -> list[Check]:
    """The rules of field ``f``'s column ``raw`` (its ``ColumnKind``, its ``values``)."""
    name = named(f.input)
    if f.column == "text":
        found = [] if f.optional else [rules.missing(raw, name, "text")]
        return [*found, *([values_check(f, raw, raw, name)] if f.values else [])]
    if f.column == "time":
        return _time_checks(raw, name, optional=f.optional)
    values, found = numbers(raw, name, optional=f.optional)
    if f.column == "seconds":
        return [*found, rules.negative_seconds(values, raw, name)]
    return [*found, *count_checks(values, raw, name, integral=not fractional)]


def values_check(f: JobField, values: pd.Series, raw: pd.Series, column: str) -> Check:
    """Rows whose value of ``f`` is present but not one of its declared ``values`` (``raw``:
    the values an error shows, e.g. a file's states before they were mapped)."""
    mask = (values.notna() & ~values.isin(list(f.values))).to_numpy(dtype=bool)
    return Check(VALUE_REASONS.get(f.name, "not an allowed value"), column, mask, raw,
                 "one of " + ", ".join(f.values))


def numbers(raw: pd.Series, name: str, *, optional: bool = False
            ) -> tuple[np.ndarray, list[Check]]:
    """A numeric column as float64 (NaN when empty) and the rules every number obeys: parsable,
    present (unless ``optional``), finite."""
    if raw.dtype.kind in "iufb":
        values = raw.to_numpy(dtype=np.float64, na_value=np.nan)
        found = []
    else:
        values = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=np.float64,
                                                              na_value=np.nan)
        found = [rules.unparsable(raw, np.isnan(values), name, "a number")]
    if not optional:
        found.append(rules.missing(raw, name, "a number"))
    found.append(rules.not_finite(values, raw, name))
    return values, found


def count_checks(values: np.ndarray, raw: pd.Series, name: str, *,
                 integral: bool = True) -> list[Check]:
    """The rules of a count: not negative, at most ``COUNT_LIMIT``, a whole number (when
    ``integral``)."""
    found = [rules.negative(values, raw, name), rules.too_large(values, raw, name)]
    if integral:
        found.append(rules.not_integral(values, raw, name))
    return found


def _time_checks(raw: pd.Series, name: str, *, optional: bool) -> list[Check]:
    """A timestamp column: present (unless ``optional``) and within ``TIME_RANGE``."""
    if not pd.api.types.is_datetime64_any_dtype(raw):
        raise TraceError(SOURCE, "not a timestamp column", column=name, value=str(raw.dtype),
                         expected="timezone-aware UTC timestamps")
    earliest, latest = rules.TIME_RANGE
    if getattr(raw.dtype, "tz", None) is None:
        earliest, latest = earliest.tz_localize(None), latest.tz_localize(None)
    outside = ((raw < earliest) | (raw > latest)).to_numpy(dtype=bool, na_value=False)
    found = [] if optional else [rules.missing(raw, name, "a timestamp")]
    return [*found, Check("timestamp out of range", name, outside, raw, rules.TIME_RANGE_TEXT)]


# ------------------------------------------------------------------ the rules of a row
def row_checks(times: Mapping[str, pd.Series | None], job_id: pd.Series, gpu_num: np.ndarray,
               *, names: dict[str, str], raw: dict[str, pd.Series],
               line_of: Callable[[int], int], place: str = "line",
               cluster_gpus: int | None = None, duplicates: Check | None = None
               ) -> list[Check]:
    """The rules across a row's columns: time order, unique ids, the cluster's size.

    ``times`` holds the normalized ``submit``, ``start`` and ``end`` times (``end`` may be
    None); ``names`` maps ``job_id`` and those times to the columns an error names, and ``raw``
    the times to the values it shows (a file's own, for a trace file). ``duplicates`` is the
    unique-id rule when it was found already (on the whole table, for a block of its rows).
    """
    checks = [_order(times, "submit", "start", names, raw, "start before submission")]
    if times.get("end") is not None:
        checks.append(_order(times, "start", "end", names, raw, "end before start"))
    checks.append(duplicates if duplicates is not None else rules.duplicated_ids(
        job_id, line_of, names.get("job_id", "job_id"), place))
    if cluster_gpus is not None:
        checks.append(rules.above(gpu_num, pd.Series(gpu_num), cluster_gpus, "gpu_num",
                                  "more GPUs than the cluster has"))
    return checks


def _order(times: Mapping[str, pd.Series | None], earlier: str, later: str,
           names: dict[str, str], raw: dict[str, pd.Series], reason: str) -> Check:
    """``later`` must not precede ``earlier``; the message quotes the named columns."""
    first, second = times[earlier], times[later]
    assert first is not None and second is not None
    return rules.time_order(first, second, raw_earlier=raw.get(earlier, first),
                            raw_later=raw.get(later, second), reason=reason,
                            column=names.get(later, TIME_NAMES[later]),
                            earlier_name=names.get(earlier, TIME_NAMES[earlier]))


def _agreement(frame: pd.DataFrame, column: str, earlier: pd.Series | None,
               later: pd.Series | None, formula: str) -> Check:
    """``column`` (seconds) must equal ``later - earlier`` (timestamps) within the slack."""
    assert earlier is not None and later is not None
    recorded = pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=np.float64,
                                                                      na_value=np.nan)
    return rules.disagreement(recorded, seconds_between(earlier, later), frame[column],
                              column=column, formula=formula, abs_tol=TIME_SLACK_S)


def seconds_between(earlier: pd.Series, later: pd.Series) -> np.ndarray:
    """``later - earlier`` in float seconds (NaN where either is missing)."""
    delta = (later - earlier).to_numpy(dtype="timedelta64[ns]")
    seconds = delta.astype(np.int64) / 1e9
    seconds[np.isnat(delta)] = np.nan
    return seconds


# ------------------------------------------------------------------ the table
CHUNK_ROWS = 1 << 20
"""Rows validated at a time (``table_check_chunks``): a block's masks and temporaries (about
150 bytes a row) stay a few hundred MB whatever the table's size."""


def table_check_chunks(frame: pd.DataFrame, *, line_of: Callable[[int], int],
                       place: str = "line", fractional: bool = False,
                       cluster_gpus: int | None = None, rows: int = CHUNK_ROWS,
                       extra: Callable[[pd.DataFrame], list[Check]] | None = None
                       ) -> Iterator[tuple[int, list[Check]]]:
    """``table_checks`` a block of ``rows`` rows at a time, as ``(first row, checks)`` for
    ``acmesim.jobs.checks.apply_check_chunks`` (each block's rows numbered from its first).
    Unique ids are a rule of the whole table: found once, then cut into the blocks. ``extra``
    adds a reader's own rules of a block (after the table's)."""
    duplicates = rules.duplicated_ids(frame["job_id"], line_of, "job_id", place)
    for first in range(0, max(len(frame), 1), rows):
        stop = min(len(frame), first + rows)
        block = frame.iloc[first:stop]
        checks = table_checks(block, line_of=line_of, place=place, fractional=fractional,
                              cluster_gpus=cluster_gpus,
                              duplicates=duplicates.window(first, stop))
        yield first, checks + (extra(block) if extra is not None else [])


def table_checks(frame: pd.DataFrame, *, line_of: Callable[[int], int], place: str = "line",
                 fractional: bool = False, cluster_gpus: int | None = None,
                 duplicates: Check | None = None) -> list[Check]:
    """Every rule of the normalized table ``frame`` (see the module docstring), in the order
    a row's first broken rule is named: its columns, the time order, then the durations
    (``duplicates``: the unique-id rule, when found already)."""
    present = [f for f in INPUT_FIELDS if f.input in frame.columns]
    checks: list[Check] = []
    for f in present:
        if f.column != "seconds":
            checks += column_checks(f, frame[f.input], fractional=fractional)
    has_end = "end_time" in frame.columns
    times = {key: _in_range(frame[name]) if key != "end" or has_end else None
             for key, name in TIME_NAMES.items()}
    raw = {key: frame[name] for key, name in TIME_NAMES.items() if name in frame.columns}
    gpus = pd.to_numeric(frame["gpu_num"], errors="coerce").to_numpy(dtype=np.float64,
                                                                     na_value=np.nan)
    checks += row_checks(times, frame["job_id"], gpus, names={}, raw=raw,
                         line_of=line_of, place=place, cluster_gpus=cluster_gpus,
                         duplicates=duplicates)
    for f in present:  # durations after the time order they follow from
        if f.column == "seconds":
            checks += column_checks(f, frame[f.input], fractional=fractional)
    if has_end:
        checks.append(_agreement(frame, "run_time", times["start"], times["end"],
                                 "end_time - start_time"))
    if "queue_time" in frame.columns:
        checks.append(_agreement(frame, "queue_time", times["submit"], times["start"],
                                 "start_time - submit_time"))
    return checks


def _in_range(times: pd.Series) -> pd.Series:
    """A timestamp column in nanoseconds, its times outside ``TIME_RANGE`` NaT (their own rule
    names them; the rules across columns then skip them instead of overflowing)."""
    earliest, latest = rules.TIME_RANGE
    if getattr(times.dtype, "tz", None) is None:
        earliest, latest = earliest.tz_localize(None), latest.tz_localize(None)
    return times.where((times >= earliest) & (times <= latest)).dt.as_unit("ns")


def require_columns(frame: pd.DataFrame, source: str = SOURCE) -> None:
    """Every column the engine reads must be in ``frame`` (else a ``TraceError`` naming them)."""
    missing = [c for c in INPUT_COLUMNS if c not in frame.columns]
    if missing:
        raise TraceError(source, f"missing column(s) {', '.join(missing)}",
                         expected="the normalized job table (acmesim.trace.schema)")


def validate_table(frame: pd.DataFrame, *, source: str = SOURCE, errors: ErrorMode = "raise",
                   line_of: Callable[[int], int] | None = None,
                   report: LoadReport | None = None, fractional: bool = False,
                   cluster_gpus: int | None = None) -> np.ndarray:
    """Check ``frame`` against every rule; raise on the first bad row, or return the rows to
    keep (``errors="drop"``, counted in ``report``).

    A file's table names a row by its ``line_of``; a table built in Python by its position
    and job id (``row 3 (job_id 'j3')``).
    """
    require_columns(frame, source)
    name_row = None if line_of is not None else _row_name(frame)
    chunks = table_check_chunks(frame, line_of=line_of or (lambda row: row),
                                place="line" if line_of is not None else "row",
                                fractional=fractional, cluster_gpus=cluster_gpus)
    return rules.apply_check_chunks(chunks, len(frame), errors=errors, path=source,
                                    line_of=line_of or (lambda row: row),
                                    report=report or LoadReport(path=source, format=""),
                                    name_row=name_row)


def _row_name(frame: pd.DataFrame) -> Callable[[int], str]:
    """``row N (job_id 'x')`` for row position ``N`` of ``frame``."""
    ids = frame["job_id"]
    return lambda row: f"row {row} (job_id {ids.iloc[row]!r})"


def validated(frame: pd.DataFrame, *, source: str = SOURCE) -> pd.DataFrame:
    """``frame``, valid: a table whose mark matches it as it is, else validated (a
    ``TraceError`` names the first bad row) and marked."""
    if not is_marked(frame):
        validate_table(frame, source=source)
        mark_valid(frame)
    return frame


# ------------------------------------------------------------------ the mark
@dataclasses.dataclass(frozen=True, eq=False)
class ValidMark:
    """A validated table's fingerprint: per input column its name, dtype, length and either a
    CRC of its memory (NumPy columns, which may be written in place) or the Arrow array itself
    (immutable: a changed column is a new array; kept here so its memory cannot be reused)."""

    fingerprint: tuple[tuple[str, str, int, Any], ...]

    def __deepcopy__(self, memo: dict[int, Any]) -> ValidMark:
        return self  # immutable; pandas deep-copies ``attrs`` on most operations

    def __reduce__(self) -> tuple[Any, ...]:
        return (ValidMark, ((),))  # a pickled table is validated again once read back

    def matches(self, other: tuple[tuple[str, str, int, Any], ...]) -> bool:
        """Whether ``other`` (a table's fingerprint now) is this one."""
        return len(other) == len(self.fingerprint) and all(
            a[:3] == b[:3] and (a[3] is b[3] if not isinstance(a[3], int) else a[3] == b[3])
            for a, b in zip(self.fingerprint, other, strict=True))


def mark_valid(frame: pd.DataFrame) -> pd.DataFrame:
    """Mark ``frame`` as a valid job table (its reader or ``validated`` checked every rule)."""
    frame.attrs[MARK] = ValidMark(fingerprint(frame))
    return frame


def is_marked(frame: pd.DataFrame) -> bool:
    """Whether ``frame`` carries the mark of a valid table that still matches it."""
    mark = frame.attrs.get(MARK)
    return isinstance(mark, ValidMark) and mark.matches(fingerprint(frame))


def fingerprint(frame: pd.DataFrame) -> tuple[tuple[str, str, int, Any], ...]:
    """Name, dtype, length and contents (``_contents``) of every input column ``frame`` has."""
    return tuple((column, str(frame[column].dtype), len(frame), _contents(frame[column]))
                 for column in dict.fromkeys(named(f.input) for f in INPUT_FIELDS)
                 if column in frame.columns)


def _contents(series: pd.Series) -> Any:
    """What stands for a column's contents: its Arrow array (immutable), else a CRC-32 of its
    memory (object columns: of their values' hashes)."""
    values = series.array
    arrow = getattr(values, "_pa_array", None)
    if arrow is not None:
        return arrow
    array: np.ndarray
    if isinstance(values, pd.arrays.DatetimeArray):
        array = pd.DatetimeIndex(values).asi8
    else:
        array = np.asarray(values)
    if array.dtype.kind == "O":
        array = pd.util.hash_array(array)
    return zlib.crc32(np.ascontiguousarray(array).view(np.uint8).data)


# ------------------------------------------------------------------ typed columns
def times_ns(frame: pd.DataFrame, column: str) -> np.ndarray:
    """A (validated) timestamp column as int64 nanoseconds since the epoch."""
    return pd.DatetimeIndex(frame[column]).as_unit("ns").asi8


def floats(frame: pd.DataFrame, column: str) -> np.ndarray:
    """A (validated) number column as float64 (NaN where empty)."""
    series = frame[column]
    if series.dtype.kind not in "iufb":
        series = pd.to_numeric(series, errors="coerce")
    return series.to_numpy(dtype=np.float64, na_value=np.nan)


def ints(frame: pd.DataFrame, column: str) -> np.ndarray:
    """A (validated) count column as int64."""
    return floats(frame, column).astype(np.int64) if frame[column].dtype.kind != "i" \
        else frame[column].to_numpy(dtype=np.int64)


def texts(frame: pd.DataFrame, column: str) -> np.ndarray:
    """A text column as an object array of ``str`` (converted only when not held as text)."""
    series = frame[column]
    if not pd.api.types.is_string_dtype(series.dtype) or series.dtype == object:
        series = series.astype(str)
    return series.to_numpy(dtype=object)
