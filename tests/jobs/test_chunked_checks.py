"""The job table's rules applied a block of rows at a time give exactly the whole table's
outcome (``apply_check_chunks``, ``table_check_chunks``), and ``repeated`` is pandas'
``duplicated`` without its hash table."""

from __future__ import annotations

import factories
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acmesim.core.errors import TraceError
from acmesim.jobs import checks as rules
from acmesim.jobs import table
from acmesim.jobs.checks import LoadReport


def _spoil(frame: pd.DataFrame, row: int, kind: int) -> None:
    """Break one rule (or two) on ``row`` of ``frame``, in place."""
    if kind == 0 and row > 0:
        frame.loc[row, "job_id"] = frame.loc[row // 2, "job_id"]  # a repeated id
    elif kind == 1:
        frame.loc[row, "state"] = "PENDING"
    elif kind == 2:
        frame.loc[row, "run_time"] = frame.loc[row, "run_time"] + 5.0
    elif kind == 3:
        frame.loc[row, "start_time"] = frame.loc[row, "submit_time"] - pd.Timedelta(seconds=9)
    elif kind == 4:
        frame.loc[row, "node_num"] = 1.5
    elif kind == 5:
        frame.loc[row, "gpu_num"] = 7
        frame.loc[row, "user"] = None


def _table(size: int, spoils: list[tuple[int, int]]) -> pd.DataFrame:
    frame = factories.frame([factories.job(i, 10.0 + i, 1 + i % 3) for i in range(size)])
    frame = frame.astype({"node_num": float, "user": object})
    for row, kind in spoils:
        _spoil(frame, row % size, kind)
    return frame


def _outcome(frame: pd.DataFrame, errors: str, rows: int | None):
    """What validating ``frame`` gives: the error text, or the kept rows and the report."""
    report = LoadReport(path="t", format="")
    options = {"line_of": lambda row: row + 2, "fractional": True, "cluster_gpus": 6}
    try:
        if rows is None:
            keep = rules.apply_checks(table.table_checks(frame, **options), len(frame),
                                      errors=errors, path="t", line_of=lambda r: r + 2,
                                      report=report)
        else:
            keep = rules.apply_check_chunks(
                table.table_check_chunks(frame, rows=rows, **options), len(frame),
                errors=errors, path="t", line_of=lambda r: r + 2, report=report)
    except TraceError as error:
        return str(error)
    return (keep.tolist(), list(report.dropped.items()), [str(p) for p in report.examples])


@settings(max_examples=60, deadline=None)
@given(size=st.integers(1, 14),
       spoils=st.lists(st.tuples(st.integers(0, 20), st.integers(0, 5)), max_size=12),
       rows=st.integers(1, 5), errors=st.sampled_from(["raise", "drop"]))
def test_rules_by_blocks_of_rows_equal_the_rules_on_the_whole_table(size, spoils, rows, errors):
    frame = _table(size, spoils)
    assert _outcome(frame, errors, rows) == _outcome(frame, errors, None)


def test_blocks_keep_three_examples_a_rule_and_the_rule_order_of_the_counts():
    frame = _table(12, [(r, 2) for r in range(1, 12)] + [(11, 1), (10, 1)])
    kept, dropped, examples = _outcome(frame, "drop", 2)
    assert kept == [True] + [False] * 11
    assert [reason for reason, _ in dropped] == [
        "not a final job state", "run_time disagrees with end_time - start_time"]
    assert dict(dropped) == {"not a final job state": 2,
                             "run_time disagrees with end_time - start_time": 9}
    assert [e.split(":")[0] for e in examples] == [
        "line 3, column 'run_time'", "line 4, column 'run_time'", "line 5, column 'run_time'",
        "line 12, column 'state'", "line 13, column 'state'"]


def test_a_repeated_id_in_a_later_block_names_the_first_row_of_an_earlier_one():
    frame = _table(9, [])
    frame.loc[7, "job_id"] = frame.loc[1, "job_id"]
    with pytest.raises(TraceError, match="first used on line 3"):
        rules.apply_check_chunks(
            table.table_check_chunks(frame, line_of=lambda r: r + 2, rows=2), len(frame),
            errors="raise", path="t", line_of=lambda r: r + 2, report=LoadReport("t", ""))


@settings(max_examples=80, deadline=None)
@given(values=st.lists(st.one_of(st.none(), st.sampled_from(["a", "b", "ab", "", "c"])),
                       max_size=30),
       block=st.integers(1, 4), dtype=st.sampled_from(["str", "string[pyarrow]"]))
def test_repeated_equals_duplicated(values, block, dtype):
    expected = pd.Series(values, dtype=object).duplicated(keep="first").to_numpy()
    ids = pd.Series(values, dtype=dtype)
    assert getattr(ids.array, "_pa_array", None) is not None  # the sorted path, not the fallback
    old = rules.SORTED_BLOCK
    rules.SORTED_BLOCK = block
    try:
        assert np.array_equal(rules.repeated(ids), expected)
    finally:
        rules.SORTED_BLOCK = old
