"""The five published formats read from tiny files in their exact headers; auto-detection."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from acmesim.core.errors import TraceError
from acmesim.trace.loaders import (
    detect_format,
    gpu_jobs,
    known_formats,
    load_trace,
    read_trace,
)
from acmesim.trace.loaders.helios import HELIOS_HEADER
from acmesim.trace.loaders.pai import PAI_HEADER
from acmesim.trace.loaders.philly import PHILLY_HEADER
from acmesim.trace.schema import NORMALIZED_COLUMNS

DATA = Path(__file__).parent / "data"
SAMPLES = {
    "seren": "seren_example.csv", "kalos": "kalos_example.csv", "philly": "philly_sample.csv",
    "helios": "helios_sample.csv", "pai": "pai_sample.csv",
}


def utc(text: str) -> pd.Timestamp:
    return pd.Timestamp(text, tz="UTC")


@pytest.mark.parametrize(("name", "file"), SAMPLES.items())
def test_auto_detection_from_the_header(name, file):
    assert detect_format(DATA / file) == name
    jobs, report = read_trace(DATA / file, errors="drop")
    assert report.format == name
    assert list(jobs.columns[: len(NORMALIZED_COLUMNS)]) == list(NORMALIZED_COLUMNS)
    assert str(jobs["submit_time"].dtype) == "datetime64[ns, UTC]"
    assert np.all(jobs["run_time"] == (jobs["end_time"] - jobs["start_time"]).dt.total_seconds())
    assert np.all(jobs["queue_time"]
                  == (jobs["start_time"] - jobs["submit_time"]).dt.total_seconds())


def test_every_registered_format_has_a_sample_and_a_description():
    assert set(known_formats()) == set(SAMPLES) | {"csv"}  # csv: tests/trace/test_loaders_csv.py
    assert all(known_formats().values())


def test_gpu_jobs_helper_keeps_only_gpu_jobs():
    jobs = load_trace(DATA / "helios_sample.csv")
    gpu = gpu_jobs(jobs)
    assert gpu["job_id"].tolist() == ["Venus/363167", "Venus/394948", "Venus/396689",
                                      "Uranus/1953484"]
    assert len(jobs) == 6  # the input is left alone


@pytest.mark.parametrize(("file", "header"), [("philly_sample.csv", PHILLY_HEADER),
                                              ("helios_sample.csv", HELIOS_HEADER),
                                              ("pai_sample.csv", PAI_HEADER)])
def test_samples_use_the_documented_headers(file, header):
    assert (DATA / file).read_text().splitlines()[0] == ",".join(header)


def test_philly_states_durations_and_nodes():
    jobs = load_trace(DATA / "philly_sample.csv")
    assert jobs["job_id"].iloc[2] == "application_1508364558011_47887-attempt3"
    assert jobs["state"].tolist() == ["CANCELLED", "COMPLETED", "FAILED", "COMPLETED", "FAILED"]
    assert jobs["type"].unique().tolist() == ["Other"]
    assert jobs["run_time"].tolist() == [13138.0, 30.0, 102.0, 69.0, 95.0]
    assert jobs["queue_time"].tolist() == [16.0, 11.0, 207.0, 10.0, 190.0]
    assert jobs["node_num"].tolist() == [1, 1, 2, 1, 2]
    assert jobs["gpu_num"].tolist() == [1, 1, 4, 1, 4]
    assert jobs["cpu_num"].tolist() == [0] * 5
    # start as published; end = start + duration (the published 03:39 is minute-truncated)
    assert jobs["start_time"].iloc[0] == utc("2017-10-01 00:00")
    assert jobs["end_time"].iloc[0] == utc("2017-10-01 03:38:58")
    assert jobs["submit_time"].iloc[4] == utc("2017-11-18 23:56:50")
    # Excel-mangled identifiers stay text, exactly as published
    assert jobs["user"].iloc[3] == "6.60E+100" and jobs["vc"].iloc[0] == "6.21E+12"
    assert jobs["gpu_alloc"].iloc[2] == "[2, 2]"


def test_philly_published_end_more_than_a_minute_off_is_rejected(tmp_path):
    lines = (DATA / "philly_sample.csv").read_text().splitlines()
    lines[2] = lines[2].replace(",30,11", ",300,11")  # 0:00 + 300 s is not ~0:01
    path = tmp_path / "philly_trace.csv"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(TraceError) as info:
        load_trace(path)
    assert (info.value.line, info.value.column) == (3, "end_time")
    assert info.value.value == "2017/10/1 0:01"
    assert info.value.expected == "2017-10-01 00:05:00+00:00 (= start_time + duration) within 60 s"


def test_helios_ids_times_and_extras():
    jobs = load_trace(DATA / "helios_sample.csv")
    assert jobs["job_id"].tolist()[:2] == ["Venus/363167", "Venus/394656"]
    assert jobs["state"].tolist()[:4] == ["TIMEOUT", "TIMEOUT", "FAILED", "COMPLETED"]
    assert jobs["start_time"].iloc[0] == utc("2020-03-18 04:01:39")
    assert jobs["run_time"].iloc[0] == 1209615.0  # = the published duration
    assert jobs["cluster"].tolist()[-1] == "Uranus" and jobs["vc"].iloc[0] == "vccJW"
    assert jobs["gpu_num"].tolist() == [32, 0, 8, 4, 8, 0]


def test_helios_single_cluster_log_without_cluster_column(tmp_path):
    lines = (DATA / "helios_sample.csv").read_text().splitlines()
    cut = [",".join(f for i, f in enumerate(line.split(",")) if i != 1) for line in lines]
    path = tmp_path / "cluster_log.csv"
    path.write_text("\n".join(cut) + "\n")
    jobs = load_trace(path)
    assert jobs["job_id"].iloc[0] == "363167" and "cluster" not in jobs.columns


def test_pai_needs_lenient_mode_for_unfinished_tasks():
    with pytest.raises(TraceError) as info:
        load_trace(DATA / "pai_sample.csv")
    assert (info.value.line, info.value.column) == (5, "end_time_i")
    jobs, report = read_trace(DATA / "pai_sample.csv", errors="drop")
    assert report.dropped == {"missing value": 2}
    assert [p.line for p in report.examples] == [5, 6]
    assert jobs["job_id"].tolist() == ["pai-2", "pai-3", "pai-4", "pai-7", "pai-8"]
    assert jobs["gpu_num"].tolist() == [0.5, 1.0, 0.5, 0.25, 0.1]  # plan_gpu / 100
    assert jobs["cpu_num"].tolist() == [6.0, 6.0, 6.0, 1.0, 6.0]  # plan_cpu / 100
    assert jobs["node_num"].tolist() == [1.0] * 5
    assert jobs["run_time"].tolist() == [2607.0, 51.0, 5933.0, 2249.0, 5640.0]
    assert jobs["queue_time"].tolist() == [5.0, 98.0, 9.0, 5.0, 1487.0]
    assert jobs["submit_time"].iloc[0] == pd.Timestamp(2693235, unit="s", tz="UTC")
    assert jobs["source_end_time"].iloc[0] == 2695847.0  # PAI's own end_time, renamed
    assert jobs["task_name"].iloc[0] == "tensorflow" and jobs["user"].iloc[0] == "unknown"


def test_pai_running_task_is_not_a_final_state(tmp_path):
    lines = (DATA / "pai_sample.csv").read_text().splitlines()
    lines[1] = lines[1].replace("Terminated", "Running", 1)
    path = tmp_path / "pai_trace.csv"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(TraceError) as info:
        load_trace(path, errors="raise")
    assert (info.value.line, info.value.column, info.value.value) == (2, "status", "Running")


def test_pai_cpu_only_task_counts_as_zero_gpus(tmp_path):
    lines = (DATA / "pai_sample.csv").read_text().splitlines()
    fields = lines[1].split(",")
    fields[7] = fields[8] = ""  # plan_gpu, gpu_type empty like the parameter-server rows
    path = tmp_path / "pai_trace.csv"
    path.write_text("\n".join([lines[0], ",".join(fields)]) + "\n")
    jobs, report = read_trace(path, gpu_only=True)
    assert len(jobs) == 0 and report.cpu_jobs_filtered == 1
