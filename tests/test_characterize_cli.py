"""``acmesim synth`` and ``acmesim characterize`` through the CLI dispatcher."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from acmesim.cli import main
from acmesim.workload.formats import SEREN as SEREN_SCHEMA


@pytest.fixture(scope="module")
def kalos_trace(tmp_path_factory):
    path = tmp_path_factory.mktemp("synth") / "kalos.csv"
    assert main(["synth", "--profile", "kalos", "--days", "10", "--seed", "3",
                 "--out", str(path)]) == 0
    return path


def test_synth_writes_the_published_schema(tmp_path, capsys):
    out = tmp_path / "seren.csv"
    assert main(["synth", "--profile", "seren", "--days", "1", "--seed", "4",
                 "--out", str(out)]) == 0
    assert "wrote" in capsys.readouterr().out
    assert out.read_text().splitlines()[0] == ",".join(SEREN_SCHEMA.header)
    again = tmp_path / "again.csv"
    main(["synth", "--profile", "seren", "--days", "1", "--seed", "4", "--out", str(again)])
    assert again.read_bytes() == out.read_bytes()
    other = tmp_path / "other.csv"
    main(["synth", "--profile", "seren", "--days", "1", "--seed", "5", "--out", str(other)])
    assert other.read_bytes() != out.read_bytes()


def test_synth_unknown_profile_is_a_clean_error(tmp_path, capsys):
    assert main(["synth", "--profile", "summit", "--days", "1", "--out",
                 str(tmp_path / "x.csv")]) == 1
    err = capsys.readouterr().err
    assert "unknown workload profile 'summit'" in err and "seren" in err
    assert not (tmp_path / "x.csv").exists()


def test_characterize_prints_tables(kalos_trace, capsys):
    assert main(["characterize", str(kalos_trace)]) == 0
    text = capsys.readouterr().out
    assert "format kalos" in text and "run time = end - submit" in text
    for title in ("GPU jobs by type", "Final states of GPU jobs", "GPU-count CDF",
                  "Run time of GPU jobs", "Queueing delay of GPU jobs", "Arrivals"):
        assert title in text
    assert "Published" not in text


def test_characterize_json_with_profile(kalos_trace, capsys):
    assert main(["characterize", str(kalos_trace), "--profile", "kalos", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["format"] == "kalos" and result["profile"] == "kalos"
    assert result["stats"]["duration_origin"] == "submit_time"
    summary = result["summary"]
    assert summary["criteria"] == 20  # 4+4 types, 3+3 states, 1-GPU, mean GPUs, 4 medians
    assert summary["passed"] + summary["failed"] == summary["criteria"]
    shares = result["stats"]["type_job_share"]
    assert sum(shares.values()) == pytest.approx(1.0)
    raw = pd.read_csv(kalos_trace)
    gpu = raw[raw["gpu_num"] > 0]
    assert result["stats"]["jobs"]["gpu"] == len(gpu)
    assert shares["Eval"] == pytest.approx((gpu["type"] == "Eval").mean())
    row = next(r for r in result["comparison"] if r["group"] == "type share of jobs"
               and r["metric"] == "Eval")
    assert row["published"] == 0.928
    assert row["error"] == pytest.approx((shares["Eval"] - 0.928) * 100)


def test_characterize_profile_table_and_strict_exit(tmp_path, capsys):
    trace = tmp_path / "tiny.csv"
    trace.write_text(
        ",".join(SEREN_SCHEMA.header) + "\n"
        "1,u1,1,8,128,Eval,COMPLETED,2023-03-01 00:00:00+08:00,2023-03-01 00:00:05+08:00,"
        "2023-03-01 00:10:05+08:00,600,5,4800.0\n"
        "2,u1,2,16,256,Pretrain,CANCELLED,2023-03-01 00:01:00+08:00,"
        "2023-03-01 00:01:00+08:00,2023-03-01 05:01:00+08:00,18000,0,288000.0\n",
        encoding="utf-8")
    assert main(["characterize", str(trace), "--profile", "seren"]) == 0
    text = capsys.readouterr().out
    assert "calibration criteria pass" in text and "FAIL" in text and "pass" in text
    assert main(["characterize", str(trace), "--profile", "seren", "--strict"]) == 1


def test_characterize_duration_option_overrides_the_format(kalos_trace, capsys):
    main(["characterize", str(kalos_trace), "--json", "--duration", "start"])
    assert json.loads(capsys.readouterr().out)["stats"]["duration_origin"] == "start_time"


def test_characterize_missing_file_is_a_clean_error(tmp_path, capsys):
    assert main(["characterize", str(tmp_path / "nope.csv")]) == 1
    assert "nope.csv" in capsys.readouterr().err
