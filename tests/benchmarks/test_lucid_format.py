"""The conversion of a job table to the Lucid simulator's input (``benchmarks/lucid_format.py``).

Lucid itself is not installed here; these tests check the files it would read against values
computed by hand for a four-job trace.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pandas as pd
import pytest
from factories import frame, job

PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "lucid_format.py"
SPEC = importlib.util.spec_from_file_location("lucid_format", PATH)
LUCID = importlib.util.module_from_spec(SPEC)
sys.modules[SPEC.name] = LUCID
SPEC.loader.exec_module(LUCID)

SEPT_1 = 153 * 86400
"""Seconds from Lucid's origin (2020-04-01) to its Sept window (2020-09-01)."""


def _trace():
    return frame([job(0, 10, 8, type="Pretrain", user="u1"), job(0, 5, 2, user="u2"),
                  job(0, 7, 1, user="u2"), job(3, 1, 16, nodes=2, type="Eval", user="u3")])


def _written(tmp_path, preorder):
    LUCID.write_lucid_input(_trace(), tmp_path, nodes=4, preorder=preorder)
    return pd.read_csv(tmp_path / "cluster_full_log.csv", dtype=str)


@pytest.mark.parametrize("preorder", [False, True])
def test_converted_jobs_match_hand_computed_rows(tmp_path, preorder):
    rows = _written(tmp_path, preorder)
    assert list(rows.columns) == list(LUCID.COLUMNS)
    assert rows["job_id"].tolist() == ["anchor", "j0", "j1", "j2", "j3"]
    tie = ["000000", "000001", "000002"] if preorder else ["000000"] * 3
    assert rows["submit_time"].tolist() == [
        "2020-04-01 00:00:00.000000", *(f"2020-09-01 00:00:00.{us}" for us in tie),
        "2020-09-01 00:00:03.000000"]
    assert rows["duration"].tolist() == ["1", "10", "5", "7", "1"]
    assert rows["gpu_num"].tolist() == ["1", "8", "2", "1", "16"]
    assert rows["cpu_num"].tolist() == ["1", "128", "32", "16", "256"]
    assert set(rows["vc"]) == {LUCID.VC_NAME}
    assert rows["user"].tolist() == ["anchor", "u1", "u2", "u2", "u3"]
    assert rows["jobname"].tolist()[1:] == ["Pretrain", "Other", "Other", "Eval"]
    assert (tmp_path / "vc_config.csv").read_text() == f",num\n{LUCID.VC_NAME},4\n"


@pytest.mark.parametrize("preorder", [False, True])
def test_lucid_reads_the_seconds_acmesim_replays(tmp_path, preorder):
    rows = _written(tmp_path, preorder)
    stamps = pd.to_datetime(rows["submit_time"])
    seconds = ((stamps - stamps.iloc[0]) // pd.Timedelta(seconds=1)).tolist()
    assert seconds == [0, SEPT_1, SEPT_1, SEPT_1, SEPT_1 + 3]
    window = (stamps >= LUCID.WINDOW[0]) & (stamps <= LUCID.WINDOW[1])
    assert window.tolist() == [False, True, True, True, True]
    # pre-ordered, no two jobs share a submit time, so any sort keeps acmesim's order
    assert stamps.is_unique == preorder


def test_partial_gangs_are_the_multi_node_jobs_not_a_multiple_of_a_node():
    table = frame([job(0, 1, 12, nodes=2), job(0, 1, 16, nodes=2), job(0, 1, 6),
                   job(0, 1, 20, nodes=3)])
    assert LUCID.partial_gangs(table).tolist() == [0, 3]


def test_a_zero_length_job_is_rejected_by_row_and_column():
    table = frame([job(0, 3, 1), job(1, 0, 1)])
    with pytest.raises(ValueError, match=r"row 1 \(job_id 'j1'\), column run_time: got 0.0"):
        LUCID.lucid_table(table)


def test_a_trace_longer_than_the_window_is_rejected():
    table = frame([job(0, 3, 1), job(26 * 86400, 3, 1)])
    with pytest.raises(ValueError, match="longer than Lucid's Venus_Sept window"):
        LUCID.lucid_table(table)


def test_queue_delays_come_back_by_position():
    log = pd.DataFrame({"job_id": ["anchor", "j1", "j0"], "submit_time": [0, 10, 10],
                        "start_time": [0, 15, 10]})
    assert LUCID.lucid_queue_delays(log).tolist() == [0.0, 5.0]
