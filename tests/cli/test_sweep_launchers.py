"""Sweeps through Hydra's launcher plugins, for real: joblib (parallel), submitit's LOCAL
executor (the one Slurm sweeps use, run on this machine) and Ray (a local Ray instance on
127.0.0.1, started by the sweep and stopped by the test; skipped without the ``ray`` extra).
Two tiny runs each, and each launcher's result files equal the basic launcher's."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest

from acmesim.cli import main


def run_sweep(trace: Path, launcher: list[str], sweep_dir: str = "sweep") -> int:
    return main(["replay", "-m", *launcher, f"trace.path={trace.name}", "cluster=tiny",
                 "seed=1,2", "progress=false", f"hydra.sweep.dir={sweep_dir}"])


RESULT_FILES = ("config.yaml", "jobs.csv", "failures.csv", "utilization.csv")
WALL_CLOCK = ["wall_time", "events_per_second"]  # the only machine-dependent summary fields


def result_bytes(run: Path) -> dict[str, bytes | str]:
    """A run's result files as bytes; summary.csv without its wall-clock fields, and the
    completion record without the summary's checksum (which covers those fields)."""
    files: dict[str, bytes | str] = {name: (run / name).read_bytes() for name in RESULT_FILES}
    summary = pd.read_csv(run / "summary.csv", keep_default_na=False)
    files["summary.csv"] = summary.drop(columns=WALL_CLOCK).to_csv()
    record = json.loads((run / "complete.json").read_text("utf-8"))
    del record["files"]["summary.csv"]
    files["complete.json"] = json.dumps(record, sort_keys=True)
    return files


def assert_same_results_as_basic_launcher(trace: Path, sweep_dir: str = "sweep") -> None:
    assert run_sweep(trace, [], "basic") == 0
    for run in ("0", "1"):
        assert result_bytes(Path(sweep_dir, run)) == result_bytes(Path("basic", run)), run


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
    assert_same_results_as_basic_launcher(trace)


def test_submitit_local_launcher_runs_the_sweep(trace, capsys):
    code = run_sweep(trace, ["hydra/launcher=submitit_local",
                                      "hydra.launcher.timeout_min=2"])
    assert code == 0
    assert Path("sweep", ".submitit").is_dir()  # the jobs really went through submitit
    check_sweep(capsys)
    assert_same_results_as_basic_launcher(trace)


@pytest.fixture
def local_ray(monkeypatch):
    """The Ray launcher's options for a local Ray instance on 127.0.0.1 with two CPUs (no
    dashboard, no usage report); the instance is stopped afterwards."""
    ray = pytest.importorskip("ray", reason="Ray not installed (pip install -e '.[ray]')")
    pytest.importorskip("hydra_plugins.hydra_ray_launcher",
                        reason="hydra-ray-launcher not installed (pip install -e '.[ray]')")
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")
    # Ray replaces a loopback node address by the machine's routable one unless multi-node
    # clustering is off (read when ray is imported, hence also the constant): off, this
    # single-node instance uses 127.0.0.1 only.
    monkeypatch.setenv("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    monkeypatch.setattr(ray._private.ray_constants, "ENABLE_RAY_CLUSTER", False)
    assert not ray.is_initialized()
    yield ray, ["hydra/launcher=ray", "hydra.launcher.ray.init.address=local",
                "+hydra.launcher.ray.init.num_cpus=2",
                "+hydra.launcher.ray.init.include_dashboard=false",
                "+hydra.launcher.ray.init._node_ip_address=127.0.0.1",
                "+hydra.launcher.ray.remote.num_cpus=1"]
    ray.shutdown()
    assert os.environ["RAY_USAGE_STATS_ENABLED"] == "0"


def test_ray_launcher_runs_the_sweep_on_a_local_ray(trace, local_ray, capsys):
    ray, launcher = local_ray
    assert run_sweep(trace, launcher) == 0
    nodes = ray.nodes()  # the sweep really ran on the Ray instance it started
    assert [node["NodeManagerAddress"] for node in nodes] == ["127.0.0.1"]
    assert nodes[0]["Resources"]["CPU"] == 2
    check_sweep(capsys)
    assert_same_results_as_basic_launcher(trace)
