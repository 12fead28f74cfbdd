"""``acmesim replay`` end to end with the real engine and plug-ins, in-process."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from cli_trace import ROWS, write_tiny_trace

from acmesim.cli import main


@pytest.fixture
def trace(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return write_tiny_trace(tmp_path / "tiny_seren.csv")


def replay(*args: str) -> int:
    return main(["replay", "progress=false", *args])


def test_replay_of_a_trace_file_writes_every_table(trace, capsys):
    assert replay(f"trace.path={trace.name}", "cluster=tiny", "hydra.run.dir=run") == 0
    run = Path("run")
    for name in ("jobs.csv", "utilization.csv", "summary.csv", "config.yaml"):
        assert (run / name).is_file(), name
    jobs = pd.read_csv(run / "jobs.csv")
    assert sorted(jobs["job_id"].astype(str)) == sorted(r[0] for r in ROWS)
    summary = pd.read_csv(run / "summary.csv", keep_default_na=False)
    assert summary.loc[0, "error"] == ""
    assert summary.loc[0, "cluster"] == "tiny"
    out = capsys.readouterr().out
    assert "jobs             8" in out
    assert "Pretrain" in out and "Eval" in out and "results in" in out


def test_rerun_with_the_same_config_and_seed_is_byte_identical(trace):
    args = (f"trace.path={trace.name}", "cluster=tiny", "seed=5", "mode=scheduled")
    assert replay(*args, "hydra.run.dir=a") == 0
    assert replay(*args, "hydra.run.dir=b") == 0
    for name in ("jobs.csv", "utilization.csv"):
        assert Path("a", name).read_bytes() == Path("b", name).read_bytes(), name


def test_recorded_mode_reproduces_the_trace_start_times(trace):
    assert replay(f"trace.path={trace.name}", "cluster=tiny", "mode=recorded",
                  "hydra.run.dir=rec") == 0
    jobs = pd.read_csv(Path("rec", "jobs.csv"))
    assert (jobs["start_time"] == jobs["recorded_start_time"]).all()


def test_a_trace_error_is_reported_in_the_summary_and_the_exit_code(trace, capsys):
    bad = trace.parent / "bad.csv"
    text = trace.read_text().splitlines()
    text[3] = text[3].replace(",SFT,", ",SFT,").replace(",8,128,", ",eight,128,")
    bad.write_text("\n".join(text) + "\n")
    assert replay("trace.path=bad.csv", "cluster=tiny", "hydra.run.dir=bad") == 1
    err = capsys.readouterr().err
    assert "bad.csv" in err and "Traceback" not in err
    summary = pd.read_csv(Path("bad", "summary.csv"), keep_default_na=False)
    assert "bad.csv" in summary.loc[0, "error"]


def test_no_overrides_replays_the_bundled_sample(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["replay"]) == 0
    runs = list(Path("outputs").iterdir())
    assert len(runs) == 1
    for name in ("jobs.csv", "utilization.csv", "summary.csv", "config.yaml"):
        assert (runs[0] / name).is_file(), name
    out = capsys.readouterr().out
    assert "replayed trace 'sample' on cluster 'seren'" in out
    for label in ("jobs", "makespan", "GPU utilization", "mean JCT", "GPU-hours lost",
                  "job type", "results in"):
        assert label in out, label
