"""``acmesim synth`` and ``acmesim characterize`` through the CLI dispatcher."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from png_checks import assert_png

import acmesim.analysis.plots
from acmesim.cli import main
from acmesim.trace.formats import SEREN as SEREN_SCHEMA


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
    # every published value printed is a criterion with a tolerance and a verdict
    assert summary["criteria"] == len(result["comparison"]) > 20
    assert all(r["tolerance_kind"] and r["passed"] in (True, False)
               for r in result["comparison"])
    assert summary["passed"] + summary["failed"] == summary["criteria"]
    groups = {r["group"] for r in result["comparison"]}
    assert not any(g.startswith(("queueing of", "arrivals")) for g in groups)  # not published
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
    assert "criteria pass" in text and "FAIL" in text and "pass" in text
    assert "queueing of Eval (s): p90" in text and "arrivals, all jobs" in text
    assert main(["characterize", str(trace), "--profile", "seren", "--strict"]) == 1


def test_characterize_duration_option_overrides_the_format(kalos_trace, capsys):
    main(["characterize", str(kalos_trace), "--json", "--duration", "start"])
    assert json.loads(capsys.readouterr().out)["stats"]["duration_origin"] == "start_time"


def test_characterize_missing_file_is_a_clean_error(tmp_path, capsys):
    assert main(["characterize", str(tmp_path / "nope.csv")]) == 1
    assert "nope.csv" in capsys.readouterr().err


TRACE_FIGURES = ["trace_type_shares.png", "trace_state_shares.png", "trace_gpu_demand.png",
                 "trace_durations.png"]


def test_characterize_plot_writes_and_prints_the_papers_figures(kalos_trace, tmp_path, capsys):
    out = tmp_path / "figures"
    assert main(["characterize", str(kalos_trace), "--plot", str(out)]) == 0
    text = capsys.readouterr().out
    assert "GPU jobs by type" in text  # the tables are still printed
    printed = [Path(line) for line in text.split("figures written:", 1)[1].split()]
    assert [p.name for p in printed] == TRACE_FIGURES
    for path in printed:
        assert path.parent == out
        assert path.stat().st_size > 0
        assert_png(path)


def test_characterize_plot_with_json_lists_the_figures(kalos_trace, tmp_path, capsys):
    out = tmp_path / "json_figures"
    assert main(["characterize", str(kalos_trace), "--json", "--plot", str(out)]) == 0
    result = json.loads(capsys.readouterr().out)  # still valid JSON
    assert result["figures"] == [str(out / name) for name in TRACE_FIGURES]
    for name in TRACE_FIGURES:
        assert_png(out / name)


def test_characterize_plot_measures_run_time_as_the_tables_do(kalos_trace, tmp_path,
                                                               monkeypatch):
    drawn = []
    monkeypatch.setattr(acmesim.analysis.plots, "plot_trace",
                        lambda jobs, out_dir: drawn.append(jobs) or [])
    main(["characterize", str(kalos_trace), "--plot", str(tmp_path), "--json"])
    main(["characterize", str(kalos_trace), "--plot", str(tmp_path), "--json",
          "--duration", "start"])
    kalos, from_start = drawn
    from_submit = (kalos["end_time"] - kalos["submit_time"]).dt.total_seconds()
    assert kalos["run_time"].tolist() == from_submit.tolist()  # Kalos counts from submission
    from_start_s = (from_start["end_time"] - from_start["start_time"]).dt.total_seconds()
    assert from_start["run_time"].tolist() == from_start_s.tolist()
    assert (kalos["run_time"] > from_start["run_time"]).any()  # some jobs queued
