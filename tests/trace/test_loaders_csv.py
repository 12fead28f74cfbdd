"""``format="csv"``: any CSV job log through a column map, from Python and from the CLI."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from acmesim import load_trace
from acmesim.cli import main
from acmesim.core.errors import ConfigError, TraceError
from acmesim.trace.loaders import read_trace

PHILLY_LAYOUT = "timestamp,duration,num_gpus,gpu_time,cluster"
ROWS = [  # timestamp: seconds from the trace start; duration: seconds
    "0,3600,8,28800,philly",
    "120,60,1,60,philly",
    "600,7200,16,115200,philly",
    "610,30,0,0,philly",
]
COLUMNS = {"submit_time": "timestamp", "duration": "duration", "gpu_num": "num_gpus"}
EPOCH = pd.Timestamp("1970-01-01", tz="UTC")


def write(tmp_path: Path, *rows: str, header: str = PHILLY_LAYOUT) -> Path:
    path = tmp_path / "jobs.csv"
    path.write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    return path


def error_of(path: Path, **kwargs) -> TraceError:
    with pytest.raises(TraceError) as info:
        load_trace(path, format="csv", **kwargs)
    return info.value


def test_philly_layout_reads_with_a_three_column_map(tmp_path):
    jobs = load_trace(write(tmp_path, *ROWS), format="csv", columns=COLUMNS)
    assert jobs["submit_time"].tolist() == [EPOCH + pd.Timedelta(seconds=s)
                                            for s in (0, 120, 600, 610)]
    assert (jobs["start_time"] == jobs["submit_time"]).all()  # no start column: queue 0
    assert jobs["run_time"].tolist() == [3600.0, 60.0, 7200.0, 30.0]
    assert jobs["queue_time"].tolist() == [0.0] * 4
    assert jobs["gpu_num"].tolist() == [8, 1, 16, 0]
    assert jobs["node_num"].tolist() == [0] * 4 and jobs["cpu_num"].tolist() == [0] * 4
    assert jobs["job_id"].tolist() == ["csv-2", "csv-3", "csv-4", "csv-5"]
    assert set(jobs["user"]) == {"unknown"} and set(jobs["type"]) == {"Other"}
    assert set(jobs["state"]) == {"COMPLETED"}
    assert jobs["gpu_time"].tolist() == ["28800", "60", "115200", "0"]  # unmapped: verbatim
    assert jobs["cluster"].tolist() == ["philly"] * 4


def test_auto_with_a_column_map_means_csv_and_auto_alone_never_picks_it(tmp_path):
    path = write(tmp_path, *ROWS)
    assert load_trace(path, columns=COLUMNS).attrs["load_report"].format == "csv"
    with pytest.raises(TraceError, match="unrecognised header.*format csv with a column map"):
        load_trace(path)


def test_time_unit_and_epoch(tmp_path):
    path = write(tmp_path, "1500,250,8,2000,philly")
    jobs = load_trace(path, format="csv", columns=COLUMNS,
                      format_options={"time_unit": "ms", "epoch": "2017-10-01 08:00:00+08:00"})
    assert jobs["submit_time"].iloc[0] == pd.Timestamp("2017-10-01 00:00:01.5", tz="UTC")
    assert jobs["run_time"].iloc[0] == 0.25
    jobs = load_trace(path, format="csv", columns=COLUMNS,
                      format_options={"time_unit": "min", "epoch": "2017-10-01",
                                      "timezone": "Asia/Shanghai"})
    shanghai = pd.Timestamp("2017-10-02 01:00", tz="Asia/Shanghai")  # 1500 min = 25 h later
    assert jobs["submit_time"].iloc[0] == shanghai
    assert jobs["run_time"].iloc[0] == 250 * 60.0


def test_absolute_times_with_offsets_states_and_every_optional_column(tmp_path):
    header = "id,who,kind,status,submitted,started,ended,gpus,nodes,cpus"
    path = write(tmp_path,
                 "a,u1,Eval,Pass,2023-03-01 00:00:00+08:00,2023-03-01T00:00:10+08:00,"
                 "2023-02-28T16:01:10Z,8,1,16",
                 "b,u2,SFT,Killed,2023-03-01 09:00:00,2023-03-01 09:00:00,"
                 "2023-03-01 10:00:00,16,2,32", header=header)
    columns = {"job_id": "id", "user": "who", "type": "kind", "state": "status",
               "submit_time": "submitted", "start_time": "started", "end_time": "ended",
               "gpu_num": "gpus", "node_num": "nodes", "cpu_num": "cpus"}
    jobs = load_trace(path, format="csv", columns=columns,
                      format_options={"timezone": "Asia/Shanghai",
                                      "states": {"Pass": "COMPLETED", "Killed": "CANCELLED"}})
    assert jobs["submit_time"].tolist() == [pd.Timestamp("2023-02-28 16:00", tz="UTC"),
                                            pd.Timestamp("2023-03-01 01:00", tz="UTC")]
    assert jobs["queue_time"].tolist() == [10.0, 0.0]
    assert jobs["run_time"].tolist() == [60.0, 3600.0]
    assert jobs["state"].tolist() == ["COMPLETED", "CANCELLED"]
    assert jobs[["job_id", "user", "type"]].values.tolist() == [["a", "u1", "Eval"],
                                                                ["b", "u2", "SFT"]]
    assert jobs["node_num"].tolist() == [1, 2] and jobs["cpu_num"].tolist() == [16, 32]


def test_a_strptime_time_format(tmp_path):
    path = write(tmp_path, "2017/10/1 0:05,60,1", header="submitted,duration,gpus")
    jobs = load_trace(path, format="csv",
                      columns={"submit_time": "submitted", "duration": "duration",
                               "gpu_num": "gpus"},
                      format_options={"time_format": "%Y/%m/%d %H:%M"})
    assert jobs["end_time"].iloc[0] == pd.Timestamp("2017-10-01 00:06", tz="UTC")


# --- the built-in formats' validation and messages -----------------------------------------

def test_missing_mapped_column_is_named_on_the_header_line(tmp_path):
    error = error_of(write(tmp_path, *ROWS), columns={**COLUMNS, "gpu_num": "gpus"})
    assert (error.line, error.column) == (1, "gpus")
    assert "missing column gpus" in str(error) and "gpu_num=gpus" in error.expected


@pytest.mark.parametrize(("row", "column", "value", "reason"), [
    ("120,60,eight,60,philly", "num_gpus", "eight", "unparsable value"),
    ("120,60,-1,60,philly", "num_gpus", -1, "negative count"),
    ("120,60,1.5,60,philly", "num_gpus", 1.5, "count is not a whole number"),
    ("120,60,1e19,60,philly", "num_gpus", 10**19, "count too large"),
    ("120,-5,1,60,philly", "duration", -5, "negative count"),
    ("120,inf,1,60,philly", "duration", float("inf"), "not a finite number"),
    (",60,1,60,philly", "timestamp", None, "missing value"),
    ("1e300,60,1,60,philly", "timestamp", 1e300, "timestamp out of range"),
    ("120,1e300,1,60,philly", "duration", 1e300, "derived time out of range"),
    ("120,60,1,60,phi\x00lly", "cluster", "phi\x00lly", "NUL byte in a field"),
])
def test_bad_values_name_file_line_column_as_the_built_in_formats(tmp_path, row, column, value,
                                                                  reason):
    path = write(tmp_path, ROWS[0], row, ROWS[2])
    error = error_of(path, columns=COLUMNS)
    assert (error.path, error.line, error.column, error.reason) == (str(path), 3, column,
                                                                    reason)
    assert error.value == value and error.expected
    jobs, report = read_trace(path, format="csv", columns=COLUMNS, errors="drop")
    assert report.dropped == {reason: 1} and len(jobs) == 2


def test_end_and_duration_must_agree_and_text_times_must_parse(tmp_path):
    header = "submitted,ended,duration,gpus"
    columns = {"submit_time": "submitted", "end_time": "ended", "duration": "duration",
               "gpu_num": "gpus"}
    path = write(tmp_path, "2023-03-01 00:00:00,2023-03-01 00:01:00,60,1",
                 "2023-03-01 00:00:00,2023-03-01 00:01:00,75,1", header=header)
    error = error_of(path, columns=columns)
    assert (error.line, error.column, error.reason) == (3, "duration",
                                                        "duration disagrees with ended - "
                                                        "submitted")
    assert error.expected == "60 (= ended - submitted) within 1 s"
    path = write(tmp_path, "yesterday,2023-03-01 00:01:00,60,1", header=header)
    error = error_of(path, columns=columns)
    assert (error.line, error.column, error.reason) == (2, "submitted", "unparsable timestamp")
    assert "ISO 8601" in error.expected


def test_end_before_start_and_duplicate_ids_use_the_file_columns(tmp_path):
    header = "id,submitted,ended,gpus"
    columns = {"job_id": "id", "submit_time": "submitted", "end_time": "ended",
               "gpu_num": "gpus"}
    path = write(tmp_path, "a,100,50,1", header=header)
    error = error_of(path, columns=columns)
    assert (error.line, error.column, error.reason) == (2, "ended", "end before start")
    path = write(tmp_path, "a,100,150,1", "a,100,150,1", header=header)
    error = error_of(path, columns=columns)
    assert (error.line, error.column, error.reason) == (3, "id", "duplicate job id")


@pytest.mark.parametrize(("kwargs", "message"), [
    (dict(columns={"submit_time": "timestamp"}), "needs the file column of gpu_num, end_time "
     "or duration"),
    (dict(columns={**COLUMNS, "gpus": "num_gpus"}), "unknown column key(s) gpus"),
    (dict(columns=COLUMNS, format_options={"default_state": "DONE"}), "DONE is not a final"),
    (dict(columns=COLUMNS, format_options={"epoch": "soon"}), "epoch 'soon' is not"),
    (dict(columns=COLUMNS, format_options={"time_unit": "week"}), "time_unit must be one of"),
    (dict(format="seren", columns=COLUMNS), "applies only to format 'csv', not 'seren'"),
])
def test_bad_options_are_config_errors(tmp_path, kwargs, message):
    kwargs.setdefault("format", "csv")
    with pytest.raises(ConfigError) as info:
        load_trace(write(tmp_path, *ROWS), **kwargs)
    assert message in str(info.value)


QUICK = settings(max_examples=25, deadline=None,
                 suppress_health_check=[HealthCheck.function_scoped_fixture])


@QUICK
@given(st.lists(st.tuples(st.integers(0, 10**9), st.integers(0, 10**8), st.integers(0, 4096)),
                min_size=1, max_size=20))
def test_any_valid_rows_are_read_exactly(tmp_path, rows):
    path = write(tmp_path, *(f"{t},{d},{g},{d * g},c" for t, d, g in rows))
    jobs = load_trace(path, format="csv", columns=COLUMNS)
    assert jobs["run_time"].tolist() == [float(d) for _, d, _ in rows]
    assert ((jobs["submit_time"] - EPOCH).dt.total_seconds().tolist()
            == [float(t) for t, _, _ in rows])
    assert jobs["gpu_num"].tolist() == [g for _, _, g in rows]


# --- from the command line -------------------------------------------------------------------

def test_cli_replays_the_philly_layout_through_trace_columns(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, *ROWS)
    code = main(["replay", "progress=false", "trace.path=jobs.csv", "trace.format=csv",
                 "trace.columns.submit_time=timestamp", "trace.columns.duration=duration",
                 "trace.columns.gpu_num=num_gpus", "cluster=tiny", "hydra.run.dir=run"])
    assert code == 0, capsys.readouterr().err
    jobs = pd.read_csv(Path("run", "jobs.csv"))
    assert jobs["job_id"].tolist() == ["csv-2", "csv-3", "csv-4"]  # the CPU-only job skipped
    assert jobs["submit_time"].tolist() == [0.0, 120.0, 600.0]
    assert jobs["recorded_run_time"].tolist() == [3600.0, 60.0, 7200.0]
    summary = pd.read_csv(Path("run", "summary.csv"), keep_default_na=False)
    assert summary.loc[0, "error"] == "" and summary.loc[0, "input_jobs"] == 4
    code = main(["replay", "progress=false", "trace.path=jobs.csv", "trace.format=csv",
                 "trace.columns.submit_time=timestamp", "trace.columns.duration=duration",
                 "trace.columns.gpu_num=num_gpus", "+trace.format_options.time_unit=ms",
                 "cluster=tiny", "hydra.run.dir=ms"])
    assert code == 0
    assert pd.read_csv(Path("ms", "jobs.csv"))["recorded_run_time"].tolist() == [3.6, 0.06, 7.2]


def test_cli_names_a_mistyped_column_key_and_a_bad_value(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, ROWS[0], "120,60,eight,60,philly")
    code = main(["replay", "trace.path=jobs.csv", "trace.format=csv",
                 "trace.columns.gpus=num_gpus", "hydra.run.dir=typo"])
    err = capsys.readouterr().err
    assert code != 0 and "no option 'columns.gpus'" in err and "columns.gpu_num" in err
    assert not Path("typo").exists()
    code = main(["replay", "progress=false", "trace.path=jobs.csv", "trace.format=csv",
                 "trace.columns.submit_time=timestamp", "trace.columns.duration=duration",
                 "trace.columns.gpu_num=num_gpus", "cluster=tiny", "hydra.run.dir=bad"])
    err = capsys.readouterr().err
    assert code == 1
    assert "jobs.csv, line 3, column 'num_gpus': unparsable value (got 'eight'" in err
