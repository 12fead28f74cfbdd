"""Column parsers shared by the trace formats: each returns values plus the checks it implies.

All work is vectorized; a field that is empty or cannot be parsed yields a ``Check`` whose mask
marks exactly the offending rows, so the reader can name the first bad line.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from acmesim.jobs import checks as rules
from acmesim.jobs.checks import Check

EPOCH = "epoch seconds"
"""Pseudo-format: timestamps are (possibly fractional) seconds since 1970-01-01 UTC."""


def column(frame: pd.DataFrame, name: str) -> pd.Series:
    """A raw column of the parsed file (all-missing when the file lacks it)."""
    if name in frame.columns:
        return frame[name]
    return pd.Series(np.full(len(frame), np.nan, dtype=object), index=frame.index)


def text(frame: pd.DataFrame, name: str, checks: list[Check], *,
         required: bool = True) -> pd.Series:
    """A text column as ``str`` values; empty fields are errors when ``required``."""
    raw = column(frame, name)
    if required:
        checks.append(rules.missing(raw, name, "a non-empty value"))
    return raw.astype("str")


def numbers(frame: pd.DataFrame, name: str, checks: list[Check], *, required: bool = True,
            count: bool = False, integral: bool = True, scale: float = 1.0,
            non_negative: bool = False) -> np.ndarray:
    """A numeric column as float64 (NaN when empty), checked for presence and parseability.

    Infinite values are always rejected. ``count`` adds the count rules: not negative, at most
    ``COUNT_LIMIT`` and, when ``integral``, a whole number; ``non_negative`` only the first
    (durations in seconds). ``scale`` multiplies the parsed values before those rules (PAI
    stores GPU and CPU counts in percent).
    """
    raw = column(frame, name)
    if raw.dtype == np.float64:
        values = raw.to_numpy(dtype=np.float64, copy=True)
    else:
        values = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=np.float64,
                                                              na_value=np.nan)
        checks.append(rules.unparsable(raw, np.isnan(values), name, "a number"))
    if required:
        checks.append(rules.missing(raw, name, "a number"))
    checks.append(rules.not_finite(values, raw, name))
    if scale != 1.0:
        values = values * scale
    if count or non_negative:
        checks.append(rules.negative(values, raw, name))
    if count:
        checks.append(rules.too_large(values, raw, name))
        if integral:
            checks.append(rules.not_integral(values, raw, name))
    return values


def timestamps(frame: pd.DataFrame, name: str, checks: list[Check], *, fmt: str,
               timezone: str | None = None, required: bool = True) -> pd.Series:
    """A timestamp column as timezone-aware UTC (``datetime64[ns, UTC]``; NaT when empty).

    ``fmt`` is a ``strptime`` format, ``ISO8601`` or ``EPOCH``. A format without ``%z`` reads
    naive local times, which are taken to be in ``timezone`` (ambiguous or missing DST times
    are errors); ``ISO8601`` takes each value's own UTC offset when it has one.
    """
    raw = column(frame, name)
    if required:
        checks.append(rules.missing(raw, name, "a timestamp"))
    if fmt == EPOCH:
        seconds = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=np.float64,
                                                               na_value=np.nan)
        parsed = epoch_seconds(seconds, raw.index)
        outside = ~np.isnan(seconds) & parsed.isna().to_numpy()
        expected = "seconds since 1970-01-01 UTC"
    else:
        if fmt == ISO8601:
            parsed = _iso_timestamps(raw, timezone or "UTC")
            expected = (f"an ISO 8601 timestamp like 2023-03-01 00:18:22+08:00 (no offset: "
                        f"{timezone or 'UTC'} local time)")
        elif "%z" in fmt:
            parsed = pd.to_datetime(raw, format=fmt, errors="coerce", utc=True)
            expected = f"a timestamp like {_example(fmt)}"
        else:
            naive = pd.to_datetime(raw, format=fmt, errors="coerce")
            parsed = naive.dt.tz_localize(timezone or "UTC", ambiguous="NaT",
                                          nonexistent="NaT").dt.tz_convert("UTC")
            expected = f"a timestamp like {_example(fmt)} ({timezone or 'UTC'} local time)"
        parsed, outside = _within_time_range(parsed)
    checks.append(rules.Check(OUT_OF_RANGE, name, outside, raw, rules.TIME_RANGE_TEXT))
    checks.append(rules.unparsable(raw, parsed.isna().to_numpy() & ~outside, name, expected,
                                   reason="unparsable timestamp"))
    return parsed


OUT_OF_RANGE = "timestamp out of range"

ISO8601 = "ISO8601"
"""Pseudo-format: ISO 8601 timestamps, each with its own UTC offset (``Z``, ``+08:00``) or none."""

_UTC_OFFSET = r"(?:Z|[+-]\d{2}:?\d{2})\s*$"


def _iso_timestamps(raw: pd.Series, timezone: str) -> pd.Series:
    """ISO 8601 texts as UTC: offsets as written, values without one in ``timezone``."""
    text = raw.astype("str")
    present = raw.notna().to_numpy()
    aware = present & text.str.contains(_UTC_OFFSET, regex=True).to_numpy(dtype=bool,
                                                                          na_value=False)
    parsed = pd.to_datetime(text.where(aware), format=ISO8601, errors="coerce", utc=True)
    naive_rows = present & ~aware
    if naive_rows.any():
        naive = pd.to_datetime(text.where(naive_rows), format=ISO8601, errors="coerce")
        local = naive.dt.tz_localize(timezone, ambiguous="NaT", nonexistent="NaT")
        parsed = parsed.where(aware, local.dt.tz_convert("UTC"))
    return parsed


def _within_time_range(parsed: pd.Series) -> tuple[pd.Series, np.ndarray]:
    """``parsed`` as ``datetime64[ns, UTC]`` with times outside ``TIME_RANGE`` set to NaT.

    pandas parses at microsecond resolution, so a year such as 1500 or 9999 parses; it only
    fails (with a raw ``OutOfBoundsDatetime``) when cast to nanoseconds. Returns the times and
    the mask of rows that were out of range.
    """
    earliest, latest = rules.TIME_RANGE
    outside = (parsed.notna() & ((parsed < earliest) | (parsed > latest))).to_numpy(dtype=bool)
    if outside.any():
        parsed = parsed.where(~outside)
    return parsed.astype("datetime64[ns, UTC]"), outside


def _range_seconds() -> tuple[float, float]:
    """``TIME_RANGE`` as epoch seconds."""
    earliest, latest = rules.TIME_RANGE
    return earliest.value / 1e9, latest.value / 1e9


def epoch_seconds(seconds: np.ndarray, index: pd.Index) -> pd.Series:
    """Epoch seconds as UTC timestamps; non-finite or out-of-range values become NaT."""
    low, high = _range_seconds()
    with np.errstate(invalid="ignore"):
        usable = np.isfinite(seconds) & (seconds >= low) & (seconds <= high)
    nanoseconds = np.round(np.where(usable, seconds, 0.0) * 1e9).astype(np.int64)
    stamps = pd.to_datetime(nanoseconds, unit="ns", utc=True)
    return pd.Series(stamps, index=index).where(usable)


def shifted(times: pd.Series, seconds: np.ndarray, raw: pd.Series, checks: list[Check], *,
            column: str, formula: str, reason: str = "derived time out of range") -> pd.Series:
    """``times + seconds`` as UTC timestamps; a result outside ``TIME_RANGE`` is NaT and a check.

    The check names ``column`` (the seconds' source column) with its raw value, so a huge
    ``duration`` is reported on its own field instead of overflowing.
    """
    base = pd.DatetimeIndex(times).as_unit("ns").asi8.astype(np.float64) / 1e9
    base[times.isna().to_numpy()] = np.nan
    target = base + seconds
    low, high = _range_seconds()
    with np.errstate(invalid="ignore"):
        inside = (target >= low) & (target <= high)
    known = np.isfinite(base) & ~np.isnan(seconds)
    checks.append(rules.Check(reason, column, known & ~inside, raw,
                              f"{formula} to be {rules.TIME_RANGE_TEXT}"))
    delta = pd.to_timedelta(np.where(inside, seconds, 0.0), unit="s")
    return (times + delta).where(inside)


def seconds_between(start: pd.Series, end: pd.Series) -> np.ndarray:
    """``end - start`` in float seconds (NaN where either is missing)."""
    delta = (end - start).to_numpy(dtype="timedelta64[ns]")
    result = delta.astype(np.int64).astype(np.float64) / 1e9
    result[np.isnat(delta)] = np.nan
    return result


def _example(fmt: str) -> str:
    """An example timestamp in ``strptime`` format ``fmt``."""
    sample = pd.Timestamp("2023-03-01 00:18:22", tz="Asia/Shanghai")
    return sample.strftime(fmt).replace("+0800", "+08:00")


def interval_checks(
    frame: pd.DataFrame,
    checks: list[Check],
    times: tuple[pd.Series, pd.Series, pd.Series],
    names: tuple[str, str, str],
    *,
    abs_tol: float,
) -> None:
    """Check the recorded ``duration`` (end - start) and ``queue`` (start - submit) columns.

    ``times`` are the parsed submit, start and end times; ``names`` their source column names,
    shown in the error's formula.
    """
    (submit, start, end), (submit_name, start_name, end_name) = times, names
    duration = numbers(frame, "duration", checks)
    queue = numbers(frame, "queue", checks)
    checks += [
        rules.disagreement(duration, seconds_between(start, end), frame["duration"],
                           column="duration", formula=f"{end_name} - {start_name}",
                           abs_tol=abs_tol),
        rules.disagreement(queue, seconds_between(submit, start), frame["queue"],
                           column="queue", formula=f"{start_name} - {submit_name}",
                           abs_tol=abs_tol),
    ]
