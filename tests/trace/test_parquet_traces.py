"""Parquet traces: ``synth --out X.parquet`` writes the normalized table, ``trace=file`` reads it.

The round trip is exact (the table read is the table generated, and the CSV of the same trace
reads to the same table and replays to the same bytes); a bad Parquet file is refused with the
file, the line (row + 2, as in a CSV of the table) and the column, like a bad CSV.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from acmesim import load_trace
from acmesim.cli import main
from acmesim.core.errors import ConfigError, TraceError
from acmesim.synth import generate_trace
from acmesim.trace.formats import write_acme_csv
from acmesim.trace.loaders.parquet import write_parquet
from acmesim.trace.loaders.reader import read_trace


@pytest.fixture(scope="module")
def trace():
    return generate_trace("seren", 1, 4)


@pytest.fixture
def small(trace):
    """Ten GPU jobs of the trace, as a fresh copy a test may spoil."""
    return trace[trace["gpu_num"] > 0].head(10).reset_index(drop=True).copy()


def test_parquet_reads_back_the_generated_table_and_equals_its_csv(trace, tmp_path):
    write_parquet(trace, tmp_path / "t.parquet")
    write_acme_csv(trace, tmp_path / "t.csv", "seren")
    from_parquet = load_trace(tmp_path / "t.parquet")
    pd.testing.assert_frame_equal(from_parquet, trace)
    pd.testing.assert_frame_equal(from_parquet, load_trace(tmp_path / "t.csv"))
    assert from_parquet.attrs["load_report"].rows_kept == len(trace)


def test_csv_and_parquet_of_one_trace_replay_to_identical_files(tmp_path, capsys):
    assert main(["synth", "--profile", "seren", "--days", "0.3", "--seed", "2",
                 "--out", str(tmp_path / "t.parquet")]) == 0
    assert "normalized Parquet" in capsys.readouterr().out
    write_acme_csv(load_trace(tmp_path / "t.parquet"), tmp_path / "t.csv", "seren")
    for suffix in ("csv", "parquet"):
        assert main(["replay", "trace=file", f"trace.path={tmp_path / f't.{suffix}'}",
                     "scheduler=easy_backfill", f"hydra.run.dir={tmp_path / suffix}",
                     "progress=false"]) == 0
    for name in ("jobs.csv", "utilization.csv"):
        assert (tmp_path / "csv" / name).read_bytes() == (tmp_path / "parquet" / name).read_bytes()
    summaries = [pd.read_csv(tmp_path / s / "summary.csv") for s in ("csv", "parquet")]
    same = [c for c in summaries[0].columns
            if c not in ("wall_time", "events_per_second", "run_id", "trace_path")]
    pd.testing.assert_frame_equal(summaries[0][same], summaries[1][same])


def _spoiled(frame: pd.DataFrame, tmp_path: Path) -> Path:
    path = tmp_path / "bad.parquet"
    write_parquet(frame, path)
    return path


@pytest.mark.parametrize(("spoil", "where", "reason"), [
    (lambda f: f.__setitem__("gpu_num", f["gpu_num"].where(f.index != 3, -8)),
     "line 5, column 'gpu_num'", "negative count (got -8"),
    (lambda f: f.__setitem__("state", f["state"].where(f.index != 0, "RUNNING")),
     "line 2, column 'state'", "not a final job state (got 'RUNNING'"),
    (lambda f: f.__setitem__("job_id", f["job_id"].where(f.index != 6, f["job_id"][2])),
     "line 8, column 'job_id'", "duplicate job id"),
    (lambda f: f.__setitem__("run_time", f["run_time"] + np.where(f.index == 4, 5.0, 0.0)),
     "line 6, column 'run_time'", "run_time disagrees with end_time - start_time"),
    (lambda f: f.__setitem__("end_time", f["end_time"].where(
        f.index != 1, f["start_time"] - pd.Timedelta(seconds=1))),
     "line 3, column 'end_time'", "end before start"),
    (lambda f: f.__setitem__("cpu_num", f["cpu_num"].astype(float).where(f.index != 2, np.inf)),
     "line 4, column 'cpu_num'", "not a finite number"),
])
def test_a_bad_row_is_named_by_file_line_and_column(small, tmp_path, spoil, where, reason):
    spoil(small)
    path = _spoiled(small, tmp_path)
    with pytest.raises(TraceError) as caught:
        load_trace(path)
    text = str(caught.value)
    assert text.startswith(f"{path}, {where}: ") and reason in text, text


def test_drop_mode_drops_bad_rows_and_counts_them(small, tmp_path):
    small["gpu_num"] = small["gpu_num"].where(~small.index.isin([1, 7]), -1)
    table, report = read_trace(_spoiled(small, tmp_path), errors="drop")
    assert len(table) == 8 and report.dropped == {"negative count": 2}
    assert [p.line for p in report.examples] == [3, 9]
    pd.testing.assert_frame_equal(table, small[small["gpu_num"] >= 0].reset_index(drop=True))


@pytest.mark.parametrize(("spoil", "message"), [
    (lambda f: f.drop(columns=["queue_time"]), "missing column queue_time"),
    (lambda f: f.assign(submit_time=f["submit_time"].dt.tz_localize(None)),
     "column 'submit_time': column of type datetime64[ns] (expected timezone-aware"),
    (lambda f: f.assign(gpu_num=f["gpu_num"].astype(str)),
     "column 'gpu_num': column of type str (expected numbers)"),
])
def test_a_bad_column_is_named(small, tmp_path, spoil, message):
    path = _spoiled(spoil(small), tmp_path)
    with pytest.raises(TraceError, match=re.escape(message)):
        load_trace(path)


def test_a_file_that_is_not_parquet_is_refused_without_a_traceback(tmp_path, capsys):
    path = tmp_path / "trace.parquet"
    path.write_text("job_id,user\n1,u1\n")
    with pytest.raises(TraceError, match=re.escape(f"{path}: not a readable Parquet file")):
        load_trace(path)
    assert main(["replay", "trace=file", f"trace.path={path}", f"hydra.run.dir={tmp_path}/o"]) == 1
    err = capsys.readouterr().err
    assert "not a readable Parquet file" in err and "Traceback" not in err
    with pytest.raises(TraceError, match="no such file"):
        load_trace(tmp_path / "absent.parquet")


def test_a_parquet_trace_takes_no_format_options(small, tmp_path):
    path = _spoiled(small, tmp_path)
    with pytest.raises(ConfigError, match="takes no format"):
        load_trace(path, format="seren")
    with pytest.raises(ConfigError, match="takes no format"):
        load_trace(path, columns={"gpu_num": "g"})


def test_cluster_capacity_and_gpu_only_apply_as_for_csv(trace, tmp_path):
    path = _spoiled(trace, tmp_path)
    table = load_trace(path, gpu_only=True)
    assert (table["gpu_num"] > 0).all()
    assert table.attrs["load_report"].cpu_jobs_filtered == int((trace["gpu_num"] == 0).sum())
    with pytest.raises(TraceError, match="more GPUs than the cluster has"):
        load_trace(path, cluster_gpus=4)
