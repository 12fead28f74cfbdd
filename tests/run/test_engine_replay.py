"""``run_replay``: files written atomically and deterministically; failures still summarized."""

from __future__ import annotations

import pandas as pd
import pytest
import yaml
from disk_full import disk_full
from factories import frame, job

from acmesim.core.config import Choice, ReplayConfig
from acmesim.policies.placement import PLACEMENTS
from acmesim.results.rundirs import COMPLETE, read_run
from acmesim.results.schema import JOBS, SUMMARY, UTILIZATION
from acmesim.run import run_replay

ROWS = [job(t * 7 % 300, 30 + t % 50, [1, 2, 4, 8, 16][t % 5], 2 if t % 5 == 4 else 1,
            type=["Eval", "SFT", "Pretrain"][t % 3]) for t in range(60)]


def config(**kwargs):
    base = dict(cluster=Choice("tiny"), utilization_interval=60.0, run_id="r1")
    return ReplayConfig(**{**base, **kwargs})


def test_run_writes_every_file_with_schema_columns(tmp_path):
    result = run_replay(config(), tmp_path, jobs=frame(ROWS))
    assert result.error is None
    assert set(result.paths) == {"config", "jobs", "failures", "utilization", "summary"}
    jobs = pd.read_csv(tmp_path / "jobs.csv")
    assert list(jobs.columns) == JOBS.names and len(jobs) == len(ROWS)
    assert list(pd.read_csv(tmp_path / "utilization.csv").columns) == UTILIZATION.names
    summary = pd.read_csv(tmp_path / "summary.csv", keep_default_na=False)
    assert list(summary.columns) == SUMMARY.names and len(summary) == 1
    assert summary.loc[0, "error"] == "" and summary.loc[0, "run_id"] == "r1"
    recorded = yaml.safe_load((tmp_path / "config.yaml").read_text())
    assert recorded["cluster"] == {"name": "tiny", "options": {}}
    assert recorded["run_id"] == "r1" and recorded["mode"] == "scheduled"
    assert not list(tmp_path.glob(".*.tmp"))


def test_same_config_gives_byte_identical_tables(tmp_path):
    for mode in ("scheduled", "recorded"):
        a, b = tmp_path / f"{mode}a", tmp_path / f"{mode}b"
        run_replay(config(mode=mode), a, jobs=frame(ROWS))
        run_replay(config(mode=mode), b, jobs=frame(ROWS))
        for name in ("jobs.csv", "failures.csv", "utilization.csv", "config.yaml"):
            assert (a / name).read_bytes() == (b / name).read_bytes()
        summaries = [pd.read_csv(d / "summary.csv", keep_default_na=False) for d in (a, b)]
        timing = ["wall_time", "events_per_second"]  # the only machine-dependent fields
        assert summaries[0].drop(columns=timing).equals(summaries[1].drop(columns=timing))
        assert summaries[0].loc[0, "simulated_jobs"] == len(ROWS)


@pytest.mark.parametrize("table", ["jobs.csv", "utilization.csv", "summary.csv"])
def test_a_write_failing_half_way_leaves_no_partial_table(tmp_path, monkeypatch, table):
    assert run_replay(config(), tmp_path, jobs=frame(ROWS)).error is None
    with monkeypatch.context() as patch:
        disk_full(patch, {table})
        try:
            result = run_replay(config(), tmp_path, jobs=frame(ROWS))
        except OSError:  # the summary itself could not be written
            result = None
    if result is not None:
        assert "No space left" in result.error
    target = tmp_path / table
    assert not target.exists() or target.read_bytes().count(b"\n") > 1  # never 25 bytes
    assert not list(tmp_path.glob(".*.tmp"))
    assert read_run(tmp_path).status != COMPLETE


def test_failed_run_still_writes_its_summary_and_no_stale_tables(tmp_path):
    assert run_replay(config(), tmp_path, jobs=frame(ROWS)).error is None
    huge = ROWS + [job(0, 10, 64, nodes=8, job_id="huge")]
    result = run_replay(config(), tmp_path, jobs=frame(huge))
    assert "huge" in result.error and "oversize_jobs=skip" in result.error
    summary = pd.read_csv(tmp_path / "summary.csv", keep_default_na=False)
    assert "huge" in summary.loc[0, "error"] and summary.loc[0, "run_id"] == "r1"
    assert not (tmp_path / "jobs.csv").exists() and not (tmp_path / "utilization.csv").exists()
    skipped = run_replay(config(oversize_jobs="skip"), tmp_path, jobs=frame(huge))
    assert skipped.error is None and skipped.summary["oversize_jobs_skipped"] == 1


def test_unknown_plugin_name_is_reported_with_the_valid_ones(tmp_path):
    result = run_replay(config(placement=Choice("nearest")), tmp_path, jobs=frame(ROWS))
    assert f"valid placement names: {', '.join(PLACEMENTS.names())}" in result.error


def test_progress_callback_receives_fractions(tmp_path):
    calls = []
    run_replay(config(), tmp_path, jobs=frame(ROWS), progress=lambda f, n: calls.append((f, n)))
    assert calls and calls[-1] == (1.0, len(ROWS))
    calls.clear()
    run_replay(config(progress=False), tmp_path, jobs=frame(ROWS),
               progress=lambda f, n: calls.append((f, n)))
    assert calls == []


def test_failure_and_checkpoint_groups_are_applied_not_ignored(tmp_path):
    # node MTBF 30 min: frequent faults, yet the 2-node jobs still find two nodes up (at 3 min,
    # with day-long repairs, they never would: the run stops with the runaway error)
    result = run_replay(config(failure=Choice("weibull", {"node_mtbf_hours": 0.5}),
                               checkpoint=Choice("young")), tmp_path, jobs=frame(ROWS))
    assert result.error is None
    assert result.summary["failure"] == "weibull" and result.summary["failure_events"] > 0
    assert len(pd.read_csv(tmp_path / "failures.csv")) == result.summary["failure_events"]
