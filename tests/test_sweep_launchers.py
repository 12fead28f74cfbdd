"""Sweeps through Hydra's launcher plugins, for real: joblib (parallel) and submitit's LOCAL
executor (the one Slurm sweeps use, run on this machine). Two tiny runs each."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from cli_trace import write_tiny_trace

from acmesim.cli import main


@pytest.fixture
def trace(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return write_tiny_trace(tmp_path / "tiny_seren.csv")


def run_sweep(trace: Path, launcher: list[str]) -> int:
    return main(["replay", "-m", *launcher, f"trace.path={trace.name}", "cluster=tiny",
                 "seed=1,2", "progress=false", "hydra.sweep.dir=sweep"])


def check_sweep(capsys) -> None:
    out = capsys.readouterr().out
    assert "sweep of 2 runs" in out and "2 complete" in out
    assert main(["collect", "sweep"]) == 0
    table = pd.read_csv(Path("sweep", "sweep_summary.csv"), keep_default_na=False)
    assert sorted(table["seed"]) == [1, 2]
    assert (table["status"] == "complete").all()
    assert (table["simulated_jobs"] == 8).all()
    jobs = [Path("sweep", str(run), "jobs.csv") for run in table["run"]]
    assert all(p.is_file() for p in jobs)


def test_joblib_launcher_runs_the_sweep_in_parallel(trace, capsys):
    code = run_sweep(trace, ["hydra/launcher=joblib", "hydra.launcher.n_jobs=2"])
    assert code == 0
    check_sweep(capsys)


def test_submitit_local_launcher_runs_the_sweep(trace, capsys):
    code = run_sweep(trace, ["hydra/launcher=submitit_local",
                                      "hydra.launcher.timeout_min=2"])
    assert code == 0
    assert Path("sweep", ".submitit").is_dir()  # the jobs really went through submitit
    check_sweep(capsys)
