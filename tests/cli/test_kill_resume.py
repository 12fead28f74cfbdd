"""SIGKILL at seeded random moments of a real sweep: never taken as complete, rerun identical.

A sweep of two runs is started in a separate process into a sweep directory that holds the
finished runs of another configuration, and killed with SIGKILL at a moment drawn from a seeded
stream: a milestone of the sweep (one of its runs has begun, or has written one of its files)
plus a random delay of up to 10 ms, so the kills land while the runs simulate and write. What
the kill leaves must never be taken as a complete run of the killed configuration, and rerunning
the sweep must give files byte-identical to an uninterrupted sweep. The configurations alternate
so every kill lands in a directory holding a finished run of the other one (issue 12, D1).
This test starts three processes: a few seconds, unlike the in-process tests.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from acmesim.cli import main
from acmesim.results.rundirs import COMPLETE, read_run

COMMON = ("trace=synthetic", "trace.days=0.1", "trace.seed=1,2", "cluster=small",
          "oversize_jobs=skip", "progress=false")
SCHEDULERS = ("fifo", "sjf")
FILES = ("config.yaml", "jobs.csv", "failures.csv", "utilization.csv")
KILLS = 3


def sweep_args(scheduler: str, sweep_dir: str) -> list[str]:
    return ["replay", "-m", *COMMON, f"scheduler={scheduler}", f"hydra.sweep.dir={sweep_dir}"]


def comparable(run: Path) -> dict[str, bytes]:
    """A run's result bytes (summary.csv without the wall-clock fields; None: missing)."""
    files = {name: (run / name).read_bytes() if (run / name).is_file() else None
             for name in FILES}
    summary = pd.read_csv(run / "summary.csv", keep_default_na=False)
    files["summary.csv"] = summary.drop(columns=["wall_time", "events_per_second"]).to_csv()
    return files


def snapshot(sweep_dir: Path) -> dict[str, dict[str, bytes]]:
    return {run: comparable(sweep_dir / run) for run in ("0", "1")}


def scheduler_of(run: Path) -> str | None:
    try:
        return yaml.safe_load((run / "config.yaml").read_text())["scheduler"]["name"]
    except (OSError, TypeError, KeyError, yaml.YAMLError):
        return None


MILESTONES = [(run, name) for run in ("0", "1")
              for name in ("config.yaml", "jobs.csv", "utilization.csv", "summary.csv")]
"""(run, file): the moment that run of the sweep has written that file."""


def reach(process: subprocess.Popen, milestone: tuple[str, str], scheduler: str) -> bool:
    """Wait until the sweep of ``scheduler`` reaches ``milestone``; False if it ended first."""
    run, name = Path("S", milestone[0]), milestone[1]
    deadline = time.monotonic() + 180
    while scheduler_of(run) != scheduler or not (run / name).exists():
        if process.poll() is not None:
            return False
        assert time.monotonic() < deadline, "the sweep did not get there within 180 s"
        time.sleep(0.001)
    return True


def test_sigkill_at_random_moments_is_never_taken_as_complete(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(sweep_args("sjf", "ref")) == 0
    reference = {"sjf": snapshot(Path("ref")), "fifo": None}
    assert main(sweep_args("fifo", "S")) == 0
    reference["fifo"] = snapshot(Path("S"))
    assert reference["fifo"] != reference["sjf"]
    rng = np.random.default_rng(20240612)
    chosen = rng.choice(len(MILESTONES), KILLS, replace=False)
    moments = [(MILESTONES[i], rng.uniform(0.0, 0.01)) for i in chosen]
    for number, (milestone, delay) in enumerate(moments):
        target = SCHEDULERS[(number + 1) % 2]
        process = subprocess.Popen([sys.executable, "-m", "acmesim.cli",
                                    *sweep_args(target, "S")],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if reach(process, milestone, target):
            time.sleep(delay)
        process.send_signal(signal.SIGKILL)
        process.wait()
        for run in ("0", "1"):
            record = read_run(Path("S", run))
            print(f"kill {number} at {milestone} +{delay:.3f} s: run {run}: {record.status} "
                  f"({scheduler_of(Path('S', run))}) {record.error}")
            if record.status == COMPLETE:  # only a run that truly finished may say so
                assert comparable(Path("S", run)) == reference[scheduler_of(Path("S", run))][run]
        assert main(sweep_args(target, "S")) == 0
        assert snapshot(Path("S")) == reference[target], f"kill {number} at {milestone}"
