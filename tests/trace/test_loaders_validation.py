"""Every validation rule: strict mode names file, line, column, value; lenient mode counts."""

from __future__ import annotations

import gzip
from pathlib import Path

import pandas as pd
import pytest

from acmesim.core.errors import AcmesimError, ConfigError, TraceError, UnknownNameError
from acmesim.trace.loaders import load_trace, read_trace

DATA = Path(__file__).parent / "data"
HEADER = "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,"\
         "duration,queue,gpu_time"


def seren_line(job_id="1", *, user="u1", nodes="1", gpus="8", cpus="16", type_="Eval",
               state="COMPLETED", submit="2023-03-01 00:00:00+08:00",
               start="2023-03-01 00:00:10+08:00", end="2023-03-01 00:01:10+08:00",
               duration="60", queue="10", gpu_time=None) -> str:
    """One Seren row; gpu_time defaults to duration * gpus like the published rows."""
    if gpu_time is None:
        gpu_time = f"{float(duration) * float(gpus)}"
    return ",".join([job_id, user, nodes, gpus, cpus, type_, state, submit, start, end,
                     duration, queue, gpu_time])


def write(tmp_path: Path, *rows: str, header: str = HEADER, name="trace.csv") -> Path:
    path = tmp_path / name
    path.write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    return path


def good_rows(n: int) -> list[str]:
    return [seren_line(str(i)) for i in range(1, n + 1)]


def error_of(path: Path, **kwargs) -> TraceError:
    with pytest.raises(TraceError) as info:
        load_trace(path, **kwargs)
    return info.value


# --- the rows themselves -------------------------------------------------------------------

@pytest.mark.parametrize(("bad", "column", "value", "reason"), [
    (dict(submit="2023-03-01 00:00:00"), "submit_time", "2023-03-01 00:00:00",
     "unparsable timestamp"),
    (dict(start="yesterday"), "start_time", "yesterday", "unparsable timestamp"),
    (dict(end=""), "end_time", None, "missing value"),
    (dict(gpus="-8", gpu_time="-480.0"), "gpu_num", -8, "negative count"),
    (dict(cpus=""), "cpu_num", None, "missing value"),
    (dict(nodes="two"), "node_num", "two", "unparsable value"),
    (dict(gpus="1.5", gpu_time="90.0"), "gpu_num", 1.5, "count is not a whole number"),
    (dict(user=""), "user", None, "missing value"),
    (dict(state="RUNNING"), "state", "RUNNING", "not a final job state"),
    (dict(end="2023-03-01 00:00:05+08:00", duration="-5"), "end_time",
     "2023-03-01 00:00:05+08:00", "end before start"),
    (dict(start="2023-02-28 23:59:00+08:00", queue="-60", duration="130"), "start_time",
     "2023-02-28 23:59:00+08:00", "start before submission"),
    (dict(duration="75"), "duration", 75, "duration disagrees with end_time - start_time"),
    (dict(queue="12"), "queue", 12, "queue disagrees with start_time - submit_time"),
    (dict(gpu_time="481.0"), "gpu_time", 481, "gpu_time disagrees with duration * gpu_num"),
])
def test_strict_mode_names_line_column_value_and_reason(tmp_path, bad, column, value, reason):
    path = write(tmp_path, *good_rows(3), seren_line("4", **bad), *good_rows(0))
    error = error_of(path)
    assert (error.path, error.line, error.column, error.reason) == (str(path), 5, column, reason)
    assert error.value == value
    assert error.expected
    text = str(error)
    assert f"{path}, line 5, column {column!r}: {reason}" in text


def test_expected_values_are_spelled_out(tmp_path):
    error = error_of(write(tmp_path, seren_line(duration="75")))
    assert error.expected == "60 (= end_time - start_time) within 1 s"
    error = error_of(write(tmp_path, seren_line(start="x")))
    assert "2023-03-01 00:18:22+08:00" in error.expected  # an example of the right format
    error = error_of(write(tmp_path, seren_line(state="RUNNING")))
    assert error.expected == "one of COMPLETED, CANCELLED, FAILED, TIMEOUT, NODE_FAIL"


def test_one_second_rounding_and_tiny_relative_gpu_time_slack_are_accepted(tmp_path):
    path = write(tmp_path, seren_line("1", duration="61", gpu_time="488.0"),
                 seren_line("2", queue="9"),
                 seren_line("3", gpus="1000", duration="60", gpu_time="60000.05"))
    jobs = load_trace(path)
    assert jobs["run_time"].tolist() == [60.0, 60.0, 60.0]  # from timestamps, not the file


def test_duplicate_job_id_points_at_both_lines(tmp_path):
    path = write(tmp_path, seren_line("7"), seren_line("8"), seren_line("7"))
    error = error_of(path)
    assert (error.line, error.column, error.value) == (4, "job_id", "7")
    assert "first used on line 2" in error.expected


def test_job_larger_than_the_cluster(tmp_path):
    path = write(tmp_path, seren_line("1", gpus="8"), seren_line("2", gpus="4096"))
    assert len(load_trace(path)) == 2
    error = error_of(path, cluster_gpus=2288)
    assert (error.line, error.column, error.value) == (3, "gpu_num", 4096)
    assert error.reason == "more GPUs than the cluster has" and error.expected == "at most 2288"


def test_strict_mode_reports_the_earliest_bad_line_whatever_the_rule(tmp_path):
    path = write(tmp_path, seren_line("1"), seren_line("2", gpu_time="1.0"),
                 seren_line("3", end=""))
    assert error_of(path).line == 3  # the gpu_time rule comes after "missing" but its row first


def test_missing_column_is_named_on_the_header_line(tmp_path):
    header = HEADER.replace(",queue", "")
    row = seren_line().rsplit(",", 2)
    path = write(tmp_path, f"{row[0]},{row[2]}", header=header)
    error = error_of(path, format="seren")
    assert (error.line, error.column) == (1, "queue")
    assert "missing column queue" in str(error)


# --- lenient mode --------------------------------------------------------------------------

def test_lenient_mode_drops_bad_rows_and_reports_counts_and_examples(tmp_path):
    path = write(tmp_path,
                 seren_line("1"),
                 seren_line("2", end="", duration="60"),            # line 3: missing
                 seren_line("3", gpus="-1", gpu_time="-60.0"),      # line 4: negative
                 seren_line("4", duration="99"),                    # line 5: disagreement
                 seren_line("1"),                                   # line 6: duplicate
                 seren_line("6", end="", gpus="-1"),                # line 7: counted once
                 seren_line("7"))
    jobs, report = read_trace(path, errors="drop")
    assert jobs["job_id"].tolist() == ["1", "7"]
    assert report.rows_read == 7 and report.rows_kept == 2 and report.rows_dropped == 5
    assert report.dropped == {"missing value": 2, "negative count": 1,
                              "duration disagrees with end_time - start_time": 1,
                              "duplicate job id": 1}
    assert [p.line for p in report.examples] == [3, 4, 5, 6, 7]
    assert report.examples[1].column == "gpu_num" and report.examples[1].value == -1
    assert jobs.attrs["load_report"] is report
    assert "dropped 2 rows: missing value" in report.summary()


def test_unknown_error_mode_is_rejected(tmp_path):
    with pytest.raises(AcmesimError, match="errors must be one of raise, drop"):
        load_trace(write(tmp_path, seren_line()), errors="ignore")  # type: ignore[arg-type]


# --- CPU jobs and states -------------------------------------------------------------------

def test_cpu_jobs_and_all_final_states_are_kept_and_filterable(tmp_path):
    states = ["COMPLETED", "CANCELLED", "FAILED", "TIMEOUT", "NODE_FAIL"]
    rows = [seren_line(str(i), state=s, gpus="0" if i % 2 else "8")
            for i, s in enumerate(states)]
    path = write(tmp_path, *rows)
    jobs = load_trace(path)
    assert jobs["state"].tolist() == states
    assert (jobs["gpu_num"] == 0).sum() == 2
    gpu, report = read_trace(path, gpu_only=True)
    assert gpu["job_id"].tolist() == ["0", "2", "4"]
    assert report.cpu_jobs_filtered == 2 and report.rows_kept == 3 and report.dropped == {}


# --- the file itself -----------------------------------------------------------------------

def test_missing_file_directory_and_empty_file(tmp_path):
    assert "no such file" in str(error_of(tmp_path / "nope.csv"))
    assert "is a directory" in str(error_of(tmp_path))
    empty = tmp_path / "empty.csv"
    empty.write_text("\n\n")
    assert "the file is empty" in str(error_of(empty))


def test_header_only_file_is_an_empty_trace(tmp_path):
    jobs = load_trace(write(tmp_path))
    assert len(jobs) == 0 and list(jobs.columns)[:3] == ["job_id", "user", "type"]


def test_bad_utf8_is_located(tmp_path):
    path = write(tmp_path, *good_rows(2))
    path.write_bytes(path.read_bytes() + seren_line("9", user="u\xff").encode("latin-1"))
    error = error_of(path)
    assert (error.line, error.column) == (4, "user") and "not valid UTF-8" in str(error)


def test_row_with_too_many_fields_and_unclosed_quote(tmp_path):
    path = write(tmp_path, *good_rows(2), seren_line("3") + ",extra")
    error = error_of(path)
    assert error.line == 4 and "row has 14 fields" in str(error) and "13 fields" in str(error)
    path = write(tmp_path, *good_rows(2), seren_line("3", user='"u3'))
    assert error_of(path).line == 4


def test_blank_line_inside_the_file_is_reported_not_skipped(tmp_path):
    path = write(tmp_path, seren_line("1"), "", seren_line("2"))
    error = error_of(path)
    assert (error.line, error.column, error.reason) == (3, None, "blank line")
    jobs, report = read_trace(path, errors="drop")
    assert len(jobs) == 2 and report.dropped == {"blank line": 1}


def test_line_numbers_stay_right_after_a_quoted_line_break(tmp_path):
    path = write(tmp_path, seren_line("1", user='"multi\nline"'), seren_line("2", queue="99"))
    error = error_of(path)
    assert (error.line, error.column) == (4, "queue")
    assert load_trace(write(tmp_path, seren_line("1", user='"a\nb"')))["user"].tolist() == [
        "a\nb"]


def test_gzip_bom_and_windows_line_endings(tmp_path):
    text = "\r\n".join([HEADER, *good_rows(2)]) + "\r\n"
    gz = tmp_path / "trace_seren.csv.gz"
    gz.write_bytes(gzip.compress(b"\xef\xbb\xbf" + text.encode()))
    assert load_trace(gz)["job_id"].tolist() == ["1", "2"]
    broken = tmp_path / "broken.csv.gz"
    broken.write_bytes(b"not gzip")
    assert "not a readable gzip file" in str(error_of(broken))


def test_duplicate_header_column(tmp_path):
    error = error_of(write(tmp_path, header=HEADER + ",user"))
    assert (error.line, error.column) == (1, "user")


# --- formats, detection, options -----------------------------------------------------------

def test_unknown_header_lists_known_formats_and_their_columns(tmp_path):
    path = write(tmp_path, "1,2", header="alpha,beta")
    error = error_of(path)
    assert error.line == 1
    for fragment in ("unrecognised header alpha,beta", "seren (columns gpu_time, job_id",
                     "kalos (columns gpu_time, job_id, mem_per_pod_GB", "philly (columns",
                     "helios (columns", "pai (columns inst_num, plan_cpu, plan_gpu)"):
        assert fragment in str(error)


def test_unknown_format_name_lists_valid_names(tmp_path):
    with pytest.raises(UnknownNameError, match="valid trace format names: csv, helios, kalos, pai"):
        load_trace(write(tmp_path, seren_line()), format="slurm")


def test_format_aliases_and_explicit_format(tmp_path):
    path = write(tmp_path, seren_line())
    assert load_trace(path, format="acme-seren").attrs["load_report"].format == "seren"


def test_kalos_file_read_as_seren_fails_on_the_duration_convention():
    error = error_of(DATA / "kalos_example.csv", format="seren")
    assert (error.line, error.column) == (2, "duration")
    assert error.expected == "8 (= end_time - start_time) within 1 s"


def test_timezone_option_for_naive_timestamps():
    utc = load_trace(DATA / "helios_sample.csv")
    local = load_trace(DATA / "helios_sample.csv", format_options={"timezone": "Asia/Shanghai"})
    shift = (utc["start_time"] - local["start_time"]).unique().tolist()
    assert shift == [pd.Timedelta(hours=8)]
    assert local["run_time"].equals(utc["run_time"])
    with pytest.raises(ConfigError, match="unknown time zone 'Mars/Olympus'"):
        load_trace(DATA / "helios_sample.csv", format_options={"timezone": "Mars/Olympus"})
    with pytest.raises(ConfigError, match="has no option 'timezone'"):
        load_trace(DATA / "seren_example.csv", format_options={"timezone": "UTC"})


def test_numeric_looking_text_is_kept_verbatim(tmp_path):
    path = write(tmp_path, seren_line("007", user="1e5"), seren_line("7", user="00"))
    jobs = load_trace(path)  # "007" and "7" are different ids, not duplicates
    assert jobs["job_id"].tolist() == ["007", "7"]
    assert jobs["user"].tolist() == ["1e5", "00"]


def test_last_line_without_newline_and_trailing_blank_lines(tmp_path):
    path = tmp_path / "trace.csv"
    path.write_text(HEADER + "\n" + seren_line("1") + "\n" + seren_line("2", queue="3"))
    assert error_of(path).line == 3
    path.write_text(HEADER + "\n" + seren_line("1") + "\n\n\n")
    assert load_trace(path)["job_id"].tolist() == ["1"]
