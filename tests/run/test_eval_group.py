"""``eval=none|coupled|decoupled``: a config group of its own, with any scheduler.

The old spelling ``scheduler=eval_* scheduler.base=X`` must keep working for one release with a
deprecation printed once, and write exactly the files of the new spelling.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from cli_trace import write_tiny_trace
from factories import cluster, frame, job

import acmesim
from acmesim.cli.hydra import help_text, load_registries
from acmesim.cli.main import main
from acmesim.core.config import Choice, ReplayConfig
from acmesim.evaluation.scheduling import base as legacy
from acmesim.run import run_replay

WALL_CLOCK = ["wall_time", "events_per_second"]


@pytest.fixture(autouse=True)
def fresh_warnings(monkeypatch):
    """Each test sees the deprecation as a new process would (printed once)."""
    monkeypatch.setattr(legacy, "_WARNED", set())


def eval_burst():
    """Three Eval jobs of one request, plus other work competing for the GPUs."""
    return frame([job(0, 1000, type="Eval", job_id="e1"), job(0, 200, type="Eval", job_id="e2"),
                  job(0, 300, type="Eval", job_id="e3"),
                  job(1, 500, gpus=8, type="Pretrain", job_id="p"),
                  job(2, 100, gpus=2, type="SFT", job_id="s")])


def files_equal(a: Path, b: Path) -> None:
    names = sorted(p.name for p in a.iterdir() if p.suffix in (".csv", ".yaml"))
    assert names == sorted(p.name for p in b.iterdir() if p.suffix in (".csv", ".yaml"))
    assert "eval_requests.csv" in names
    for name in names:
        if name != "summary.csv":
            assert (a / name).read_bytes() == (b / name).read_bytes(), name
    pd.testing.assert_frame_equal(pd.read_csv(a / "summary.csv").drop(columns=WALL_CLOCK),
                                  pd.read_csv(b / "summary.csv").drop(columns=WALL_CLOCK))


def test_the_old_cli_spelling_writes_the_files_of_the_new_one(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    trace = write_tiny_trace(tmp_path / "tiny.csv")
    common = ["replay", "progress=false", f"trace.path={trace.name}", "cluster=tiny"]
    assert main([*common, "scheduler=acme_reservation", "eval=decoupled",
                 "eval.prior_packing=false", "hydra.run.dir=new"]) == 0
    printed = capsys.readouterr()
    assert "deprecated" not in printed.err
    assert "checkpoint none, eval decoupled, mode scheduled" in printed.out
    assert main([*common, "scheduler=eval_decoupled", "scheduler.base=acme_reservation",
                 "scheduler.prior_packing=false", "hydra.run.dir=old"]) == 0
    err = capsys.readouterr().err
    assert err.count("deprecated") == 1
    assert "scheduler=acme_reservation eval=decoupled" in err
    files_equal(Path("new"), Path("old"))
    summary = pd.read_csv(Path("old", "summary.csv"))
    assert (summary.loc[0, "scheduler"], summary.loc[0, "eval"]) == ("acme_reservation",
                                                                     "decoupled")


def test_the_old_library_spelling_writes_the_files_of_the_new_one(tmp_path, capsys):
    jobs = eval_burst()
    old = ReplayConfig(cluster=Choice("tiny"), progress=False, scheduler=Choice(
        "eval_decoupled", {"base": "sjf", "merge_below": 0.5}))
    new = ReplayConfig(cluster=Choice("tiny"), progress=False, scheduler=Choice("sjf"),
                       eval=Choice("decoupled", {"merge_below": 0.5}))
    assert run_replay(old, tmp_path / "old", jobs=jobs).error is None
    assert run_replay(old, tmp_path / "again", jobs=jobs).error is None
    assert run_replay(new, tmp_path / "new", jobs=jobs).error is None
    assert capsys.readouterr().err.count("deprecated") == 1  # printed once per process
    files_equal(tmp_path / "new", tmp_path / "old")


def test_simulate_takes_either_spelling_and_the_old_instance_too():
    jobs = eval_burst()
    new = acmesim.simulate(jobs, cluster(2), "easy_backfill", eval="coupled")
    old = acmesim.simulate(jobs, cluster(2), {"name": "eval_coupled", "base": "easy_backfill"})
    instance = acmesim.simulate(jobs, cluster(2), legacy.SCHEDULERS.create(
        "eval_coupled", {"base": "easy_backfill"}))
    for other in (old, instance):
        pd.testing.assert_frame_equal(new.jobs, other.jobs)
        pd.testing.assert_frame_equal(new.eval_requests, other.eval_requests)
        assert other.summary["scheduler"] == "easy_backfill"
        assert other.summary["eval"] == "coupled"
    assert old.config == new.config


@pytest.mark.parametrize("scheduler", ["fifo", "sjf", "easy_backfill", "acme_reservation"])
def test_decoupled_evaluation_combines_with_any_scheduler(scheduler):
    jobs = eval_burst()
    plain = acmesim.simulate(jobs, cluster(2), scheduler)
    decoupled = acmesim.simulate(jobs, cluster(2), scheduler, eval="decoupled")
    assert plain.eval_requests is None and "eval_requests" not in plain.summary
    assert decoupled.summary["eval_requests"] == 1 == len(decoupled.eval_requests)
    trials = decoupled.jobs[decoupled.jobs.type == "Eval"].job_id
    assert trials.str.startswith("e1/t").all() and len(trials) >= 1  # the request's trials
    others = decoupled.jobs[decoupled.jobs.type != "Eval"].set_index("job_id")
    assert set(others.index) == {"p", "s"}
    assert decoupled.summary["eval_gpu_time"] < decoupled.summary["eval_recorded_gpu_time"]


def test_a_recorded_replay_attaches_no_evaluation_mode():
    result = acmesim.simulate(eval_burst(), cluster(2), eval="decoupled", mode="recorded")
    assert result.summary["eval"] == "none" and result.tables == []
    assert sorted(result.jobs.job_id) == ["e1", "e2", "e3", "p", "s"]


def test_help_lists_the_eval_group_with_its_options():
    text = help_text(load_registries())
    lines = text.splitlines()
    group, end = lines.index("  eval:"), lines.index("  power:")
    block = lines[group + 1:end]
    names = [line.strip() for line in block if not line.startswith(" " * 8)]
    assert names == ["coupled", "decoupled", "none"]
    assert any(line.strip().startswith("request_gpus=0") and "GPUs per evaluation" in line
               for line in block)
    assert "scheduler=acme_reservation eval=decoupled" in text


def test_a_bad_old_spelling_is_reported_in_the_summary_not_raised(tmp_path):
    bad = ReplayConfig(progress=False, scheduler=Choice("eval_decoupled", {"base": "nope"}))
    result = run_replay(bad, tmp_path, jobs=eval_burst())
    assert result.error is not None and "unknown scheduler 'nope'" in result.error
    summary = pd.read_csv(tmp_path / "summary.csv")
    assert "unknown scheduler 'nope'" in summary.loc[0, "error"]
    assert not (tmp_path / "complete.json").exists()
