"""The Acme writer: byte-exact published rows, the Kalos duration quirk, determinism, atomicity."""

from __future__ import annotations

import csv
from pathlib import Path

import pandas as pd
import pytest
from disk_full import disk_full

from acmesim.core.errors import AcmesimError
from acmesim.trace.formats import KALOS, SEREN, write_acme_csv
from acmesim.trace.loaders import load_trace

DATA = Path(__file__).parent / "data"
SEREN_EXAMPLE = DATA / "seren_example.csv"  # verbatim from schema_examples.md
KALOS_EXAMPLE = DATA / "kalos_example.csv"  # verbatim from schema_examples.md
# More published rows, as rendered by pd.read_csv of the released files in the public notebook
# sunedin/ai-datacenter-power-profiling:notebooks/CheckDataset.ipynb (NaN written back as "").
SEREN_MORE = DATA / "seren_published_rows.csv"
KALOS_MORE = DATA / "kalos_published_rows.csv"


def utc(*stamps: str) -> pd.Series:
    return pd.Series(pd.to_datetime(list(stamps), utc=True)).astype("datetime64[ns, UTC]")


def seren_jobs() -> pd.DataFrame:
    """The two published Seren example rows, typed in by hand as a normalized table."""
    return pd.DataFrame({
        "job_id": ["5778432", "5778469"], "user": ["u5907", "u5907"],
        "type": ["Other", "Other"], "state": ["FAILED", "COMPLETED"],
        "submit_time": utc("2023-02-28 16:18:22", "2023-02-28 16:23:58"),
        "start_time": utc("2023-02-28 16:18:54", "2023-02-28 16:24:11"),
        "end_time": utc("2023-02-28 16:20:51", "2023-02-28 17:09:04"),
        "run_time": [117.0, 2693.0], "queue_time": [32.0, 13.0],
        "gpu_num": [8, 8], "node_num": [1, 1], "cpu_num": [128, 128],
    })


def kalos_jobs() -> pd.DataFrame:
    """The two published Kalos example rows as a normalized table (run_time = end - start)."""
    return pd.DataFrame({
        "job_id": ["dlctk696s0jbvitv", "dlc1t2ypl09b8qtp"], "user": ["uf794", "uf794"],
        "type": ["Other", "Other"], "state": ["FAILED", "CANCELLED"],
        "submit_time": utc("2023-05-17 11:00:58", "2023-05-17 11:28:42"),
        "start_time": utc("2023-05-17 11:01:08", "2023-05-17 11:28:54"),
        "end_time": utc("2023-05-17 11:01:16", "2023-05-17 11:30:04"),
        "run_time": [8.0, 70.0], "queue_time": [10.0, 12.0],
        "gpu_num": [64, 64], "node_num": [8, 8], "cpu_num": [960, 960],
        "mem_per_pod_GB": [1000.0, 1000.0], "shared_mem_per_pod": [100.0, 100.0],
    })


def test_published_kalos_rows_count_duration_from_submission():
    # Independent of acmesim: read the published rows with the csv module and do the arithmetic.
    rows = list(csv.DictReader(KALOS_EXAMPLE.open()))
    for row in rows + list(csv.DictReader(KALOS_MORE.open())):
        submit, start, end = (pd.Timestamp(row[c]) for c in ("submit_time", "start_time",
                                                             "end_time"))
        assert float(row["duration"]) == (end - submit).total_seconds()
        assert float(row["duration"]) != (end - start).total_seconds()
        assert float(row["queue"]) == (start - submit).total_seconds()
        assert float(row["gpu_time"]) == float(row["duration"]) * int(row["gpu_num"])
    seren = list(csv.DictReader(SEREN_EXAMPLE.open())) + list(csv.DictReader(SEREN_MORE.open()))
    for row in seren:
        start, end = pd.Timestamp(row["start_time"]), pd.Timestamp(row["end_time"])
        assert float(row["duration"]) == (end - start).total_seconds()


@pytest.mark.parametrize(("jobs", "cluster", "example"), [
    (seren_jobs, "seren", SEREN_EXAMPLE), (kalos_jobs, "kalos", KALOS_EXAMPLE)])
def test_writer_reproduces_published_rows_byte_for_byte(tmp_path, jobs, cluster, example):
    out = tmp_path / f"{cluster}.csv"
    write_acme_csv(jobs(), out, cluster)
    assert out.read_bytes() == example.read_bytes()


@pytest.mark.parametrize(("example", "cluster"), [
    (SEREN_EXAMPLE, "seren"), (KALOS_EXAMPLE, "kalos"), (SEREN_MORE, "seren"),
    (KALOS_MORE, "kalos")])
def test_published_file_round_trips_through_reader_and_writer(tmp_path, example, cluster):
    jobs = load_trace(example)  # strict: every published row passes every consistency rule
    out = tmp_path / "again.csv"
    write_acme_csv(jobs, out, cluster)
    assert out.read_bytes() == example.read_bytes()
    pd.testing.assert_frame_equal(load_trace(out), jobs)


def test_reader_gives_hand_computed_normalized_rows():
    seren = load_trace(SEREN_EXAMPLE)
    pd.testing.assert_frame_equal(seren, seren_jobs(), check_dtype=False)
    kalos = load_trace(KALOS_EXAMPLE)
    assert kalos["run_time"].tolist() == [8.0, 70.0]  # end - start, not the file's 18 and 82
    assert kalos["queue_time"].tolist() == [10.0, 12.0]
    assert kalos["fail_time"].iloc[0] == kalos["end_time"].iloc[0]
    assert pd.isna(kalos["fail_time"].iloc[1]) and pd.isna(kalos["stop_time"].iloc[0])
    assert kalos["stop_time"].iloc[1] == kalos["end_time"].iloc[1]
    assert kalos["shared_mem_per_pod"].tolist() == [100.0, 100.0]


def test_writer_derives_kalos_outcome_times_and_leaves_unknown_memory_empty(tmp_path):
    jobs = kalos_jobs().drop(columns=["mem_per_pod_GB", "shared_mem_per_pod"])
    out = tmp_path / "k.csv"
    write_acme_csv(jobs, out, "kalos")
    rows = list(csv.DictReader(out.open()))
    assert [r["fail_time"] for r in rows] == ["2023-05-17 11:01:16+00:00", ""]
    assert [r["stop_time"] for r in rows] == ["", "2023-05-17 11:30:04+00:00"]
    assert [r["mem_per_pod_GB"] for r in rows] == ["", ""]
    assert list(rows[0]) == list(KALOS.header)


def test_writer_is_deterministic_and_quotes_only_when_needed(tmp_path):
    jobs = seren_jobs()
    jobs.loc[0, "user"] = 'a,"b"'
    first, second = tmp_path / "1.csv", tmp_path / "2.csv"
    write_acme_csv(jobs, first, "seren")
    write_acme_csv(jobs, second, "seren")
    assert first.read_bytes() == second.read_bytes()
    assert ',"a,""b""",' in first.read_text()
    assert load_trace(first)["user"].tolist() == ['a,"b"', "u5907"]


def test_writer_rounds_to_whole_seconds_and_stays_self_consistent(tmp_path):
    jobs = seren_jobs()
    jobs["end_time"] = jobs["end_time"] + pd.Timedelta(milliseconds=600)
    out = tmp_path / "s.csv"
    write_acme_csv(jobs, out, "seren")
    back = load_trace(out)  # would raise if duration/gpu_time disagreed with the timestamps
    assert back["run_time"].tolist() == [118.0, 2694.0]


def test_writer_failure_leaves_no_file(tmp_path):
    out = tmp_path / "s.csv"
    with pytest.raises(AcmesimError, match="missing columns.*cpu_num"):
        write_acme_csv(seren_jobs().drop(columns=["cpu_num"]), out, "seren")
    with pytest.raises(AcmesimError, match="unknown Acme cluster 'mars'"):
        write_acme_csv(seren_jobs(), out, "mars")  # type: ignore[arg-type]
    assert list(tmp_path.iterdir()) == []


def test_a_write_that_fails_half_way_keeps_the_previous_file(tmp_path, monkeypatch):
    out = tmp_path / "s.csv"
    write_acme_csv(seren_jobs(), out, "seren")
    before = out.read_bytes()
    changed = seren_jobs()
    changed.loc[0, "user"] = "u0001"
    with monkeypatch.context() as patch:
        disk_full(patch, {"s.csv"})
        with pytest.raises(OSError, match="No space left"):
            write_acme_csv(changed, out, "seren")
    assert out.read_bytes() == before  # a non-atomic writer leaves 25 bytes here
    assert list(tmp_path.iterdir()) == [out]  # and no partial temporary file
    write_acme_csv(changed, out, "seren")
    assert out.read_bytes() != before and load_trace(out)["user"].tolist()[0] == "u0001"


def test_empty_table_writes_only_the_header(tmp_path):
    out = tmp_path / "s.csv"
    write_acme_csv(seren_jobs().iloc[:0], out, "seren")
    assert out.read_text() == ",".join(SEREN.header) + "\n"
    assert len(load_trace(out)) == 0
