"""Hostile values in every published format: one validation path, file/line/column errors.

Each case edits one field of line 3 of a tiny sample in the exact published header (the samples
of ``tests/trace/data``), then checks that strict mode names the file, line, column, value and
reason, and that lenient mode drops exactly that row and counts it under that reason.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from acmesim.cluster import CLUSTERS
from acmesim.core.errors import TraceError
from acmesim.jobs.checks import COUNT_LIMIT
from acmesim.sim.trace_input import prepare_jobs
from acmesim.trace.loaders import load_trace, read_trace

DATA = Path(__file__).parent / "data"
SAMPLES = {"seren": "seren_example.csv", "kalos": "kalos_example.csv",
           "philly": "philly_sample.csv", "helios": "helios_sample.csv", "pai": "pai_sample.csv"}
LINE = 3
"""The edited line (the second data row); lines 2 and 3 are valid in every sample."""

FINITE, TOO_LARGE = "not a finite number", "count too large"
OUT_OF_RANGE, NUL = "timestamp out of range", "NUL byte in a field"


def edited(tmp_path: Path, sample: str, column: str, value: str, line: int = LINE) -> Path:
    """A copy of ``sample`` with field ``column`` of file line ``line`` replaced by ``value``."""
    rows = list(csv.reader(io.StringIO((DATA / SAMPLES[sample]).read_text(encoding="utf-8"))))
    rows[line - 1][rows[0].index(column)] = value
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    path = tmp_path / f"{sample}.csv"
    path.write_text(out.getvalue(), encoding="utf-8")
    return path


CASES = [
    # D5: non-finite and wrapping counts, non-finite durations, implausible counts
    ("seren", "gpu_num", "inf", FINITE),
    ("seren", "gpu_num", "1e19", TOO_LARGE),
    ("seren", "gpu_num", "9223372036854775808", TOO_LARGE),
    ("seren", "cpu_num", "1e18", TOO_LARGE),
    ("seren", "duration", "inf", FINITE),
    ("seren", "gpu_time", "inf", FINITE),
    ("kalos", "node_num", "-inf", FINITE),
    ("kalos", "queue", "inf", FINITE),
    ("kalos", "gpu_num", "1e19", TOO_LARGE),
    ("philly", "gpu_num", "inf", FINITE),
    ("philly", "duration", "inf", FINITE),
    ("philly", "duration", "1e300", "derived time out of range"),
    ("helios", "cpu_num", "1e18", TOO_LARGE),
    ("helios", "duration", "inf", FINITE),
    ("pai", "plan_gpu", "inf", FINITE),
    ("pai", "plan_cpu", "1e20", TOO_LARGE),
    ("pai", "duration", "inf", FINITE),
    ("pai", "queue", "inf", FINITE),
    # D6: timestamps pandas cannot hold (1677-09-21 .. 2262-04-11)
    ("seren", "submit_time", "1500-03-01 00:00:00+08:00", OUT_OF_RANGE),
    ("seren", "end_time", "9999-03-01 00:01:10+08:00", OUT_OF_RANGE),
    ("kalos", "fail_time", "2300-01-01 00:00:00+00:00", OUT_OF_RANGE),
    ("philly", "start_time", "1500/10/1 0:00", OUT_OF_RANGE),
    ("helios", "start_time", "3000-03-18 04:01:39", OUT_OF_RANGE),
    ("pai", "start_time_i", "1e12", OUT_OF_RANGE),
    ("pai", "start_time", "1e300", OUT_OF_RANGE),
    # NUL bytes, in a text field and in a numeric one
    ("seren", "user", "u\x00", NUL),
    ("kalos", "gpu_num", "8\x00", NUL),
    ("philly", "jobname", "job\x00x", NUL),
    ("helios", "vc", "\x00", NUL),
    ("pai", "task_name", "tf\x00", NUL),
]


@pytest.mark.parametrize(("sample", "column", "value", "reason"), CASES)
def test_strict_mode_names_file_line_column_value(tmp_path, sample, column, value, reason):
    path = edited(tmp_path, sample, column, value)
    with pytest.raises(TraceError) as info:
        load_trace(path, format=sample)
    error = info.value
    assert (error.path, error.line, error.column, error.reason) == (str(path), LINE, column,
                                                                    reason)
    assert error.value is not None and error.expected
    assert f"{path}, line {LINE}, column {column!r}: {reason}" in str(error)


@pytest.mark.parametrize(("sample", "column", "value", "reason"), CASES)
def test_drop_mode_drops_exactly_that_row_and_counts_it(tmp_path, sample, column, value,
                                                        reason):
    _, clean = read_trace(DATA / SAMPLES[sample], format=sample, errors="drop")
    jobs, report = read_trace(edited(tmp_path, sample, column, value), format=sample,
                              errors="drop")
    assert report.rows_kept == clean.rows_kept - 1 == len(jobs)
    assert report.dropped == {**clean.dropped, reason: 1}
    assert [p.line for p in report.examples if p.reason == reason] == [LINE]
    for name in ("gpu_num", "node_num", "cpu_num"):
        assert (jobs[name] >= 0).all() and (jobs[name] <= COUNT_LIMIT).all()


def test_the_largest_plausible_count_is_kept_exactly(tmp_path):
    path = edited(tmp_path, "seren", "cpu_num", str(COUNT_LIMIT))
    assert load_trace(path)["cpu_num"].tolist() == [128, COUNT_LIMIT]


def instant_job(tmp_path: Path, stamp: str) -> Path:
    """The Helios sample with line 3 submitted, started and ended at ``stamp`` (UTC)."""
    path = edited(tmp_path, "helios", "submit_time", stamp)
    for name, value in (("start_time", stamp), ("end_time", stamp), ("duration", "0"),
                        ("queue", "0")):
        path = _set(path, name, value)
    return path


@pytest.mark.parametrize(("stamp", "kept"), [
    ("1970-01-01 00:00:00", True), ("2262-04-11 00:00:00", True),
    ("1969-12-31 23:59:59", False), ("2262-04-11 00:00:01", False),
])
def test_the_edges_of_the_time_range(tmp_path, stamp, kept):
    jobs, report = read_trace(instant_job(tmp_path, stamp), errors="drop")
    if kept:
        assert report.dropped == {} and jobs["start_time"].iloc[1] == pd.Timestamp(stamp,
                                                                                   tz="UTC")
    else:
        assert report.dropped == {OUT_OF_RANGE: 1}
        assert report.examples[0].column == "submit_time"


# --- D9: too many fields on the first data row ---------------------------------------------

@pytest.mark.parametrize("sample", sorted(SAMPLES))
def test_extra_field_on_the_first_data_row_names_its_line(tmp_path, sample):
    text = (DATA / SAMPLES[sample]).read_text(encoding="utf-8").split("\n")
    width = len(next(csv.reader([text[0]])))
    text[1] += ",extra"
    path = tmp_path / "extra.csv"
    path.write_text("\n".join(text), encoding="utf-8")
    for errors in ("raise", "drop"):
        with pytest.raises(TraceError) as info:
            load_trace(path, errors=errors)
        assert info.value.line == 2
        assert f"row has {width + 1} fields" in str(info.value)
        assert f"expected {width} fields like the header" in str(info.value)


def test_extra_field_on_a_quoted_multiline_first_row_names_its_start_line(tmp_path):
    path = edited(tmp_path, "seren", "user", "u\nsecond line", line=2)
    text = path.read_text(encoding="utf-8").split("\n")
    text[2] += ",extra"  # the row that starts on line 2 ends on line 3
    path.write_text("\n".join(text), encoding="utf-8")
    with pytest.raises(TraceError) as info:
        load_trace(path)
    assert info.value.line == 2 and "row has 14 fields" in str(info.value)


# --- NUL bytes in the header ----------------------------------------------------------------

def test_nul_byte_in_the_header_is_named_on_line_1(tmp_path):
    path = tmp_path / "nul.csv"
    path.write_bytes((DATA / "seren_example.csv").read_bytes().replace(b"user", b"us\x00er", 1))
    with pytest.raises(TraceError) as info:
        load_trace(path, errors="drop")
    assert info.value.line == 1 and "NUL byte" in str(info.value)


# --- properties ------------------------------------------------------------------------------

SLOW = settings(max_examples=30, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])


@SLOW
@given(value=st.one_of(st.floats(allow_nan=False), st.integers(-2**70, 2**70)))
def test_any_gpu_count_is_kept_exactly_or_rejected_on_its_line(tmp_path, value):
    text = repr(value)
    gpus = float(value)
    duration = 2693  # line 3's duration: gpu_time must equal duration * gpu_num
    path = edited(tmp_path, "seren", "gpu_num", text)
    path = _set(path, "gpu_time", repr(duration * gpus) if np.isfinite(duration * gpus)
                else "0.0")
    try:
        jobs = load_trace(path)
    except TraceError as error:
        assert (error.line, error.column) == (LINE, "gpu_num")
        assert not (0 <= gpus <= COUNT_LIMIT and gpus == int(gpus))
        return
    assert 0 <= gpus <= COUNT_LIMIT and gpus == int(gpus)
    assert jobs["gpu_num"].tolist()[1] == int(gpus)


@SLOW
@given(year=st.integers(1, 9999), seconds=st.integers(0, 59))
def test_any_year_is_kept_exactly_or_rejected_on_its_line(tmp_path, year, seconds):
    stamp = f"{year:04d}-03-01 00:01:{seconds:02d}"
    jobs, report = read_trace(instant_job(tmp_path, stamp), errors="drop")
    if 1970 <= year <= 2262:
        assert report.dropped == {}
        assert jobs["end_time"].iloc[1] == pd.Timestamp(stamp, tz="UTC")
    else:
        assert report.dropped == {OUT_OF_RANGE: 1}
        assert [(p.line, p.column) for p in report.examples] == [(LINE, "submit_time")]


def _set(path: Path, column: str, value: str) -> Path:
    rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))
    rows[LINE - 1][rows[0].index(column)] = value
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    path.write_text(out.getvalue(), encoding="utf-8")
    return path


# --- the engine's own check of a table built in Python --------------------------------------

def test_engine_rejects_a_count_that_would_wrap_instead_of_casting_it():
    jobs = load_trace(DATA / "seren_example.csv")
    jobs["gpu_num"] = jobs["gpu_num"].astype(float)
    jobs.loc[1, "gpu_num"] = 1e19
    with pytest.raises(TraceError) as info:
        prepare_jobs(jobs, CLUSTERS.create("tiny").spec)
    assert info.value.column == "gpu_num" and "1e+19" in str(info.value)
    assert "-9223372036854775808" not in str(info.value)


def test_engine_rejects_a_time_outside_the_range_instead_of_overflowing():
    jobs = load_trace(DATA / "seren_example.csv")
    jobs["submit_time"] = jobs["submit_time"].astype("datetime64[us, UTC]")
    jobs.loc[1, "submit_time"] = pd.Timestamp("1500-01-01", tz="UTC")
    with pytest.raises(TraceError) as info:
        prepare_jobs(jobs, CLUSTERS.create("tiny").spec)
    assert info.value.column == "submit_time" and "1500-01-01" in str(info.value)
    assert "1970-01-01 to 2262-04-11" in str(info.value)
