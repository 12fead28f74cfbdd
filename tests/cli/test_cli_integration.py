"""``acmesim replay`` end to end with the real engine and plug-ins, in-process."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest
import yaml
from cli_trace import ROWS

from acmesim.cli import main


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
    assert "GPU-hours lost   0 = failures 0 + preemptions 0 + checkpoint stalls 0" in out
    assert "failure events" not in out and "ETTR" not in out  # no failure model: no such lines


def test_rerun_with_the_same_config_and_seed_is_byte_identical(trace):
    args = (f"trace.path={trace.name}", "cluster=tiny", "seed=5", "mode=scheduled")
    assert replay(*args, "hydra.run.dir=a") == 0
    assert replay(*args, "hydra.run.dir=b") == 0
    for name in ("jobs.csv", "utilization.csv"):
        assert Path("a", name).read_bytes() == Path("b", name).read_bytes(), name


def test_rerun_under_failures_is_byte_identical(trace):
    # node MTBF of an hour on 4 nodes for ~5 h of jobs: faults, holds, restarts and the
    # automatic policy's random escalations to a person all come from the seed
    args = (f"trace.path={trace.name}", "cluster=tiny", "seed=5", "failure=exponential",
            "failure.node_mtbf_hours=1", "checkpoint=young", "recovery=automatic",
            "recovery.manual_fraction=0.5")
    assert replay(*args, "hydra.run.dir=a") == 0
    assert replay(*args, "hydra.run.dir=b") == 0
    assert len(pd.read_csv(Path("a", "failures.csv"))) > 0
    assert pd.read_csv(Path("a", "jobs.csv"))["failures"].sum() > 0
    for name in ("jobs.csv", "utilization.csv", "failures.csv"):
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


NUMBER = r"([\d.,]+)"


def shown(out: str, label: str) -> float:
    """The number the report prints after ``label``."""
    return float(re.search(rf"^  {re.escape(label)} +{NUMBER}", out, re.M)[1].replace(",", ""))


def test_summary_shows_gpu_hours_lost_by_cause_and_failure_figures(trace, capsys):
    # one node fault at 30 min on n0000, where the first 16-GPU pretraining job runs
    (trace.parent / "faults.csv").write_text(
        "time,node,kind,detection_delay,repair_time\n1800,n0000,node_failure,0,3600\n")
    assert replay(f"trace.path={trace.name}", "cluster=tiny", "failure=trace",
                  "failure.path=faults.csv", "hydra.run.dir=run") == 0
    out = capsys.readouterr().out
    summary = pd.read_csv(Path("run", "summary.csv")).iloc[0]
    jobs = pd.read_csv(Path("run", "jobs.csv"), dtype={"job_id": str}).set_index("job_id")
    # no checkpoints: the fault rolls job 101 back to its start, 16 GPUs x its time run so far
    rolled_back_hours = (1800 - jobs.loc["101", "start_time"]) * 16 / 3600
    assert summary["lost_gpu_hours_failures"] >= rolled_back_hours > 0
    loss = re.search(rf"GPU-hours lost +{NUMBER} = failures {NUMBER} \+ preemptions {NUMBER} "
                     rf"\+ checkpoint stalls {NUMBER}", out)
    assert loss, out
    total, failures, preemptions, checkpoints = (float(v.replace(",", "")) for v in loss.groups())
    assert failures == pytest.approx(summary["lost_gpu_hours_failures"], abs=0.05)
    assert preemptions == pytest.approx(summary["lost_gpu_hours_preemptions"], abs=0.05)
    assert checkpoints == pytest.approx(summary["lost_gpu_hours_checkpoints"], abs=0.05)
    assert total == pytest.approx(failures + preemptions + checkpoints, abs=0.05)
    assert shown(out, "failure events") == 1 == summary["failure_events"]
    assert shown(out, "interruptions") == 1 == summary["failures"]
    assert summary["node_downtime_hours"] == 1.0  # repair_time 3600 s, well inside the run
    assert "node downtime    1 node-h" in out
    assert shown(out, "ETTR Pretrain") == pytest.approx(summary["ettr_pretrain"], abs=5e-4)
    assert summary["ettr_pretrain"] < 1.0  # the rolled-back work was run twice


def test_relative_failure_path_is_recorded_as_the_file_it_named(trace):
    sub = trace.parent / "faults"
    sub.mkdir()
    (sub / "f.csv").write_text("time,node,kind\n600,n0001,host_maintenance\n")
    assert replay(f"trace.path={trace.name}", "cluster=tiny", "failure=trace",
                  "failure.path=faults/f.csv", "hydra.run.dir=out/run") == 0
    recorded = yaml.safe_load(Path("out", "run", "config.yaml").read_text())
    assert recorded["failure"]["options"]["path"] == str((sub / "f.csv").resolve())
    assert recorded["trace"]["options"]["path"] == str(trace.resolve())
    assert len(pd.read_csv(Path("out", "run", "failures.csv"))) == 1
