"""Vectorized validation of job rows: one boolean mask per rule, mapped back to file lines.

A rule is a ``Check`` (a mask of offending rows plus what was expected); the rules of the job
table are built from the job's declarations by ``acmesim.jobs.table``, and a trace format adds
the rules of its own file columns (``acmesim.trace.loaders``). ``apply_checks`` then either
raises a ``TraceError`` for the first offending row in file order (strict mode) or drops every
offending row and returns a ``LoadReport`` saying how many rows were dropped for which reason,
with examples (lenient mode).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from acmesim.core.errors import TraceError

ErrorMode = Literal["raise", "drop"]
ERROR_MODES: tuple[str, ...] = ("raise", "drop")

EXAMPLES_PER_REASON = 3
"""How many example rows a report keeps for each reason a row was dropped."""

COUNT_LIMIT = 1_000_000
"""Largest GPU, node or CPU-thread count one row may record (chosen bound, not a published one).

The largest Acme cluster has 2,416 GPUs on 302 nodes of 128 CPU threads (acme_facts.md §1
(R-README)); a million leaves room for any real cluster while rejecting garbage such as
``cpu_num=1e18``, which would otherwise pass unnoticed on a GPU job, and the values that wrap
to -9223372036854775808 when cast to int64.
"""

TIME_RANGE: tuple[pd.Timestamp, pd.Timestamp] = (pd.Timestamp("1970-01-01", tz="UTC"),
                                                 pd.Timestamp("2262-04-11", tz="UTC"))
"""Earliest and latest accepted time: the simulator holds times as int64 nanoseconds since
1970-01-01 UTC, which end on 2262-04-11 (pandas' limit); within this range every difference of
two times fits as well. Epoch-second formats (PAI) start at 0 = 1970-01-01."""

TIME_RANGE_TEXT = "a time from 1970-01-01 to 2262-04-11 UTC"

NUL_REASON = "NUL byte in a field"
"""Reason of the rule that rejects (or, in drop mode, drops) any row with a NUL byte."""

EXACT_INTEGERS = 2.0**53
"""Floats below this are shown as the whole numbers they are; larger ones (``1e+19``) as floats."""

Expected = str | Callable[[int], str]


@dataclasses.dataclass(frozen=True)
class Check:
    """One validation rule evaluated on every row: ``mask`` marks the rows that break it."""

    reason: str
    column: str | None
    mask: np.ndarray
    values: Any = None
    expected: Expected | None = None

    def value_at(self, row: int) -> Any:
        """The offending value of ``row`` as it should be shown to a user."""
        if self.values is None:
            return None
        value = self.values.iloc[row] if isinstance(self.values, pd.Series) else self.values[row]
        return display_value(value)

    def expected_at(self, row: int) -> str | None:
        """What the rule expected at ``row``."""
        return self.expected(row) if callable(self.expected) else self.expected

    def window(self, first: int, stop: int) -> Check:
        """The rule on rows ``first`` to ``stop`` (excluded) alone, numbered from ``first``."""
        values = self.values
        if isinstance(values, pd.Series):
            values = values.iloc[first:stop]
        elif values is not None:
            values = values[first:stop]
        expected = self.expected
        if callable(expected):
            expected = _shifted(expected, first)
        return Check(self.reason, self.column, self.mask[first:stop], values, expected)


@dataclasses.dataclass(frozen=True)
class Problem:
    """One dropped or rejected row: why, where (file line and column) and the bad value."""

    reason: str
    line: int
    column: str | None
    value: Any
    expected: str | None

    def __str__(self) -> str:
        where = f"line {self.line}" + (f", column {self.column!r}" if self.column else "")
        text = f"{where}: {self.reason}"
        if self.value is not None:
            text += f" (got {self.value!r}" + (f", expected {self.expected})" if self.expected
                                               else ")")
        elif self.expected:
            text += f" (expected {self.expected})"
        return text


@dataclasses.dataclass
class LoadReport:
    """What loading a trace did: rows read, kept and dropped (per reason, with examples)."""

    path: str
    format: str
    rows_read: int = 0
    rows_kept: int = 0
    dropped: dict[str, int] = dataclasses.field(default_factory=dict)
    examples: list[Problem] = dataclasses.field(default_factory=list)
    cpu_jobs_filtered: int = 0

    @property
    def rows_dropped(self) -> int:
        """Rows dropped because they failed validation (lenient mode only)."""
        return sum(self.dropped.values())

    def reasons_text(self) -> str:
        """The dropped rows per reason, ``reason: count`` pairs joined by ``; ``."""
        return "; ".join(f"{reason}: {count}" for reason, count in self.dropped.items())

    def summary_fields(self) -> dict[str, Any]:
        """The ``rows_dropped`` and ``rows_dropped_by_reason`` fields of a run's summary."""
        return {"rows_dropped": self.rows_dropped, "rows_dropped_by_reason": self.reasons_text()}

    def summary(self) -> str:
        """A few human-readable lines describing the load."""
        lines = [f"{self.path} ({self.format}): read {self.rows_read} rows, kept {self.rows_kept}"]
        for reason, count in self.dropped.items():
            lines.append(f"  dropped {count} rows: {reason}")
        if self.cpu_jobs_filtered:
            lines.append(f"  filtered {self.cpu_jobs_filtered} CPU-only jobs (gpu_only=True)")
        lines.extend(f"  e.g. {problem}" for problem in self.examples)
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()


def drop_fields(jobs: pd.DataFrame) -> dict[str, Any]:
    """A run's ``rows_dropped`` summary fields, from the ``LoadReport`` a loaded table carries.

    A table that was not read from a file (a synthetic trace) dropped nothing.
    """
    report = jobs.attrs.get("load_report")
    if not isinstance(report, LoadReport):
        report = LoadReport(path="", format="")
    return report.summary_fields()


def display_value(value: Any) -> Any:
    """A value as a user would recognise it: integral floats as ints, missing as None."""
    if value is None or value is pd.NaT:
        return None
    if isinstance(value, float | np.floating):
        if np.isnan(value):
            return None
        exact = float(value).is_integer() and abs(float(value)) < EXACT_INTEGERS
        return int(value) if exact else float(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, pd.Timestamp):
        return str(value)
    return value


def apply_checks(
    checks: Sequence[Check],
    n_rows: int,
    *,
    errors: ErrorMode,
    path: str,
    line_of: Callable[[int], int],
    report: LoadReport,
    name_row: Callable[[int], str] | None = None,
) -> np.ndarray:
    """Enforce ``checks``: raise on the first bad row, or return the mask of rows to keep.

    In ``drop`` mode each dropped row is counted once, under the first rule (in ``checks``
    order) that it breaks; ``report`` receives the counts and examples. A table without file
    lines (a DataFrame) names the bad row by ``name_row`` instead.
    """
    return apply_check_chunks([(0, checks)], n_rows, errors=errors, path=path,
                              line_of=line_of, report=report, name_row=name_row)


def apply_check_chunks(
    chunks: Iterable[tuple[int, Sequence[Check]]],
    n_rows: int,
    *,
    errors: ErrorMode,
    path: str,
    line_of: Callable[[int], int],
    report: LoadReport,
    name_row: Callable[[int], str] | None = None,
) -> np.ndarray:
    """``apply_checks`` on a table checked a block of rows at a time: ``chunks`` yields
    ``(first row, checks of the rows from it)`` in row order, the same rules in the same order
    for every block, each check's rows numbered from the block's first (so only one block's
    masks and temporaries are alive at once). The outcome is exactly ``apply_checks``'s on the
    whole table: the same error, or the same rows kept, counts (in rule order) and examples."""
    bad = np.zeros(n_rows, dtype=bool) if errors != "raise" else None
    counts: list[int] = []
    reasons: list[str] = []
    for first, checks in chunks:
        at = _shifted(line_of, first)
        if bad is None:
            _raise_first(checks, path, at, None if name_row is None else _shifted(name_row, first))
            continue
        if not counts:
            counts, reasons = [0] * len(checks), [check.reason for check in checks]
        _drop_block(checks, bad, first, counts, report, at)
    if bad is None:
        return np.ones(n_rows, dtype=bool)
    for reason, count in zip(reasons, counts, strict=True):
        if count:
            report.dropped[reason] = report.dropped.get(reason, 0) + count
    report.examples.sort(key=lambda problem: problem.line)
    return ~bad


def _drop_block(checks: Sequence[Check], bad: np.ndarray, first: int, counts: list[int],
                report: LoadReport, line_of: Callable[[int], int]) -> None:
    """Mark the rows of one block that break a rule in ``bad`` (from row ``first``), adding to
    each rule's count and, up to ``EXAMPLES_PER_REASON`` a rule over all blocks, its examples."""
    for k, check in enumerate(checks):
        block = bad[first:first + len(check.mask)]
        fresh = check.mask & ~block
        count = int(fresh.sum())
        if count:
            room = EXAMPLES_PER_REASON - min(counts[k], EXAMPLES_PER_REASON)
            for row in np.flatnonzero(fresh)[:room]:
                report.examples.append(_problem(check, int(row), line_of))
            counts[k] += count
            block |= fresh


def _shifted(numbering: Callable[[int], Any], first: int) -> Callable[[int], Any]:
    """``numbering`` of a block's row ``row`` (the table's row ``first + row``)."""
    return numbering if first == 0 else (lambda row: numbering(first + row))


def _raise_first(checks: Sequence[Check], path: str, line_of: Callable[[int], int],
                 name_row: Callable[[int], str] | None) -> None:
    """Raise a ``TraceError`` for the earliest offending row (earliest rule on ties)."""
    first: tuple[int, Check] | None = None
    for check in checks:
        if check.mask.any():
            row = int(np.argmax(check.mask))
            if first is None or row < first[0]:
                first = (row, check)
    if first is None:
        return
    row, check = first
    problem = _problem(check, row, line_of)
    if name_row is not None:
        raise TraceError(path, f"{name_row(row)}: {check.reason}", column=check.column,
                         value=problem.value, expected=problem.expected)
    raise TraceError(path, check.reason, line=problem.line, column=check.column,
                     value=problem.value, expected=problem.expected)


def _problem(check: Check, row: int, line_of: Callable[[int], int]) -> Problem:
    """The ``Problem`` describing ``row`` under ``check``."""
    return Problem(check.reason, line_of(row), check.column, check.value_at(row),
                   check.expected_at(row))


def missing(raw: pd.Series, column: str, expected: str) -> Check:
    """Rows whose field ``column`` is empty."""
    return Check("missing value", column, raw.isna().to_numpy(), None, expected)


def unparsable(raw: pd.Series, parsed_missing: np.ndarray, column: str, expected: str,
               reason: str = "unparsable value") -> Check:
    """Rows with a non-empty field that could not be parsed."""
    return Check(reason, column, raw.notna().to_numpy() & parsed_missing, raw, expected)


def negative(values: np.ndarray, raw: pd.Series, column: str) -> Check:
    """Rows with a negative count."""
    return Check("negative count", column, values < 0, raw, "a count >= 0")


def negative_seconds(values: np.ndarray, raw: pd.Series, column: str) -> Check:
    """Rows with a negative duration."""
    return Check("negative duration", column, values < 0, raw, "seconds >= 0")


def not_finite(values: np.ndarray, raw: pd.Series, column: str) -> Check:
    """Rows holding ``inf`` or ``-inf`` where a finite number is needed."""
    return Check("not a finite number", column, np.isinf(values), raw, "a finite number")


def too_large(values: np.ndarray, raw: pd.Series, column: str) -> Check:
    """Rows whose count exceeds ``COUNT_LIMIT``."""
    with np.errstate(invalid="ignore"):
        mask = np.isfinite(values) & (values > COUNT_LIMIT)
    return Check("count too large", column, mask, raw, f"a count of at most {COUNT_LIMIT:,}")


def nul_bytes(frame: pd.DataFrame) -> list[Check]:
    """One check per text column holding a NUL byte (the caller tests the bytes first)."""
    checks = []
    for name in frame.columns:
        values = frame[name]
        if values.dtype.kind in "iufb":
            continue
        mask = values.astype("str").str.contains("\x00", regex=False).to_numpy(
            dtype=bool, na_value=False)
        if mask.any():
            checks.append(Check(NUL_REASON, str(name), mask, values,
                                "text without NUL (\\x00) bytes"))
    return checks


def not_integral(values: np.ndarray, raw: pd.Series, column: str) -> Check:
    """Rows whose count is not a whole number."""
    with np.errstate(invalid="ignore"):
        mask = np.isfinite(values) & (values != np.round(values))
    return Check("count is not a whole number", column, mask, raw, "a whole number")


def time_order(earlier: pd.Series, later: pd.Series, *, raw_earlier: pd.Series,
               raw_later: pd.Series, reason: str, column: str, earlier_name: str) -> Check:
    """Rows where timestamp ``later`` precedes ``earlier`` (both present)."""
    mask = (later < earlier).to_numpy(dtype=bool, na_value=False)
    return Check(reason, column, mask, raw_later,
                 lambda row: f"{column} not before {earlier_name} "
                             f"{display_value(raw_earlier.iloc[row])}")


def disagreement(
    recorded: np.ndarray,
    derived: np.ndarray,
    raw: pd.Series,
    *,
    column: str,
    formula: str,
    abs_tol: float = 0.0,
    rel_tol: float = 0.0,
    render: Callable[[float], Any] = display_value,
) -> Check:
    """Rows where a recorded quantity differs from the value the other columns imply.

    ``render`` shows a derived value to the user (e.g. epoch seconds as a timestamp).
    """
    with np.errstate(invalid="ignore"):
        tolerance = np.maximum(abs_tol, rel_tol * np.abs(derived))
        mask = np.abs(recorded - derived) > tolerance
    mask &= np.isfinite(recorded) & np.isfinite(derived)

    def expected(row: int) -> str:
        slack = f" within {abs_tol:g} s" if abs_tol else f" within relative {rel_tol:g}"
        return f"{render(derived[row])} (= {formula}){slack}"

    return Check(f"{column} disagrees with {formula}", column, mask, raw, expected)


def duplicated_ids(ids: pd.Series, line_of: Callable[[int], int], column: str,
                   place: str = "line") -> Check:
    """Rows repeating a job id already seen on an earlier line (``place``: row, in a table)."""
    mask = repeated(ids)
    if not mask.any():
        return Check("duplicate job id", column, mask)
    first_row = pd.Series(np.arange(len(ids))).groupby(ids.to_numpy()).transform("min")

    def expected(row: int) -> str:
        return f"a unique job id (first used on {place} {line_of(int(first_row.iloc[row]))})"

    return Check("duplicate job id", column, mask, ids, expected)


SORTED_BLOCK = 1 << 20
"""Sorted ids compared at a time by ``repeated`` (their copies stay a few tens of MB)."""


def repeated(ids: pd.Series) -> np.ndarray:
    """Rows whose value equals an earlier row's (``Series.duplicated(keep="first")``).

    A column of Arrow text is compared in a stable sort of its values, a block of neighbours at
    a time (8 bytes a row, where a hash table of tens of millions of ids takes several GB);
    in such a sort, every row equal to the row before it repeats an earlier one."""
    import pyarrow.compute as pc

    arrow = getattr(ids.array, "_pa_array", None)
    if arrow is None:
        return ids.duplicated(keep="first").to_numpy()
    order = pc.array_sort_indices(arrow).to_numpy()
    mask = np.zeros(len(ids), dtype=bool)
    for first in range(1, len(order), SORTED_BLOCK):
        rows = order[first:first + SORTED_BLOCK]
        here, before = arrow.take(rows), arrow.take(order[first - 1:first - 1 + len(rows)])
        same = pc.fill_null(pc.equal(here, before), False)
        same = pc.or_(same, pc.and_(pc.is_null(here), pc.is_null(before)))
        mask[rows[same.to_numpy(zero_copy_only=False)]] = True
    return mask


def outside(values: pd.Series, allowed: Sequence[str], column: str, reason: str) -> Check:
    """Rows whose value is present but not one of ``allowed``."""
    mask = (values.notna() & ~values.isin(list(allowed))).to_numpy()
    return Check(reason, column, mask, values, "one of " + ", ".join(allowed))


def above(values: np.ndarray, raw: pd.Series, limit: int, column: str, reason: str) -> Check:
    """Rows whose value exceeds ``limit``."""
    return Check(reason, column, values > limit, raw, f"at most {limit}")
