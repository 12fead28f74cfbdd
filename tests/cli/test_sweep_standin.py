"""``acmesim replay -m`` with the basic launcher, in-process, against stand-in plug-ins."""

from __future__ import annotations

from pathlib import Path

import yaml

from acmesim.cli import main


def sweep(*args: str) -> int:
    return main(["replay", "-m", "hydra.sweep.dir=sweep", *args])


def test_multirun_runs_every_combination_in_its_own_directory(standins, capsys):
    assert sweep("scheduler=fifo,easy", "seed=1,2") == 0
    combos = {(c.scheduler.name, c.seed) for c, _ in standins}
    assert combos == {("fifo", 1), ("fifo", 2), ("easy_backfill", 1), ("easy_backfill", 2)}
    dirs = {run_dir.name for _, run_dir in standins}
    assert dirs == {"0", "1", "2", "3"}
    for _, run_dir in standins:
        overrides = yaml.safe_load((run_dir / ".hydra" / "overrides.yaml").read_text())
        assert any(o.startswith("scheduler=") for o in overrides)
        assert (run_dir / "summary.csv").is_file()
    out = capsys.readouterr().out
    assert "sweep of 4 runs" in out and "4 complete" in out
    assert "acmesim collect" in out


# Re-running a sweep into the same directory is tested against the real engine, with
# interrupted runs, in test_run_lifecycle.py and test_kill_resume.py.


def test_a_failed_run_makes_the_sweep_exit_nonzero(standins, capsys):
    assert sweep("seed=1,13") == 1
    out = capsys.readouterr().out
    assert "1 complete, 1 failed" in out
    assert "unlucky seed" in out


def test_runs_of_a_sweep_are_named_by_overrides_not_by_the_clock(standins):
    assert sweep("seed=1,2") == 0
    ids = sorted(c.run_id for c, _ in standins)
    assert ids == ["seed=1", "seed=2"]
    assert Path("sweep", "multirun.yaml").is_file()
