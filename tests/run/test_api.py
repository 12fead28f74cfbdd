"""``acmesim.simulate``: everything the CLI does, from Python, one lifecycle for both.

The oracle is the CLI itself: the API's ``save(dir)`` must write the CLI's files byte for byte
(the wall-clock fields aside) for a run with faults, checkpoints, recovery, power and
decoupled evaluation at once.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pandas as pd
import pytest
from cli_trace import write_tiny_trace
from factories import cluster, frame, job

import acmesim
from acmesim.cli.main import main
from acmesim.core.config import Choice
from acmesim.core.errors import ConfigError
from acmesim.policies.checkpoint import CHECKPOINTS
from acmesim.policies.scheduling import SCHEDULERS
from acmesim.results.schema import FAILURES, SUMMARY

WALL_CLOCK = ["wall_time", "events_per_second"]
"""The only summary fields that may differ between two runs of one configuration."""

FAULTY = ["cluster=tiny", "scheduler=acme_reservation", "eval=decoupled",
          "failure=acme", "failure.gpu_failures_per_1000_gpu_days=1500.0",
          "checkpoint=young", "recovery=hot_spare", "recovery.spare_fraction=0.25",
          "power=acme", "seed=4"]
"""A CLI run that exercises every extension (faults strike: checked below)."""


def faulty_simulate(trace, **kwargs):
    """The API call spelling ``FAULTY``."""
    return acmesim.simulate(
        trace, cluster="tiny", scheduler="acme_reservation", eval="decoupled",
        failure={"name": "acme", "gpu_failures_per_1000_gpu_days": 1500.0},
        checkpoint="young", recovery={"name": "hot_spare", "spare_fraction": 0.25},
        power="acme", seed=4, **kwargs)


@pytest.fixture
def tiny(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return write_tiny_trace(tmp_path / "tiny.csv")


def cli(*overrides: str, run_dir: str = "cli") -> Path:
    assert main(["replay", "progress=false", *overrides, f"hydra.run.dir={run_dir}"]) == 0
    return Path(run_dir)


def summary_without_wall_clock(path: Path) -> pd.DataFrame:
    return pd.read_csv(path / "summary.csv").drop(columns=WALL_CLOCK)


def assert_same_run_files(a: Path, b: Path) -> None:
    """Every file byte-identical but summary.csv (wall clock) and the record vouching for it."""
    names = sorted(p.name for p in a.iterdir() if p.is_file())
    assert names == sorted(p.name for p in b.iterdir() if p.is_file())
    for name in names:
        if name not in ("summary.csv", "complete.json"):
            assert (a / name).read_bytes() == (b / name).read_bytes(), name
    pd.testing.assert_frame_equal(summary_without_wall_clock(a), summary_without_wall_clock(b))
    record_a, record_b = (json.loads((d / "complete.json").read_text()) for d in (a, b))
    assert record_a["config_sha256"] == record_b["config_sha256"]
    record_a["files"].pop("summary.csv"), record_b["files"].pop("summary.csv")
    assert record_a["files"] == record_b["files"]


def test_the_api_saves_exactly_the_files_of_the_cli(tiny, tmp_path):
    run_dir = cli(f"trace.path={tiny.name}", *FAULTY)
    run_id = pd.read_csv(run_dir / "summary.csv")["run_id"][0]
    result = faulty_simulate(tiny, run_id=run_id)
    summary = result.summary
    assert summary["failure_events"] > 0 and summary["failures"] > 0  # faults did strike
    assert summary["eval_requests"] > 0 and summary["energy_kwh"] > 0
    assert len(result.failures) == summary["failure_events"]
    result.save(tmp_path / "api")
    assert_same_run_files(run_dir, tmp_path / "api")
    # the in-memory tables are the files' (read back with the CLI's own dtypes)
    jobs = pd.read_csv(run_dir / "jobs.csv", dtype={"job_id": str, "user": str})
    assert list(jobs.job_id) == list(result.jobs.job_id)
    assert (tmp_path / "api" / "summary.csv").read_text().count("\n") == 2


def test_a_path_and_its_dataframe_give_the_same_result(tiny):
    by_path = faulty_simulate(tiny)
    by_frame = faulty_simulate(acmesim.load_trace(tiny))
    for name in ("jobs", "utilization", "failures"):
        pd.testing.assert_frame_equal(getattr(by_path, name), getattr(by_frame, name))
    pd.testing.assert_frame_equal(by_path.eval_requests, by_frame.eval_requests)
    pd.testing.assert_frame_equal(by_path.eval_jobs, by_frame.eval_jobs)
    left, right = (dict(r.summary) for r in (by_path, by_frame))
    for field in WALL_CLOCK:
        left.pop(field), right.pop(field)
    assert list(left) == list(right) and left["rows_dropped"] == 0
    assert pd.Series(left, dtype=object).equals(pd.Series(right, dtype=object))  # NaN == NaN


def test_failures_work_from_a_notebook():
    jobs = frame([job(i * 100, 5000, gpus=8, nodes=1, type="Pretrain") for i in range(6)])
    result = acmesim.simulate(jobs, cluster(4), failure="acme", checkpoint="young")
    assert result.summary["failure"] == "acme" and result.summary["checkpoint"] == "young"
    assert list(result.failures.columns) == FAILURES.names
    assert result.summary["failure_events"] == len(result.failures)
    assert result.summary["trace_outcomes"] == "replay"
    stormy = acmesim.simulate(jobs, cluster(4), failure={"name": "exponential",
                                                         "node_mtbf_hours": 0.5})
    assert stormy.summary["failure_events"] == len(stormy.failures) > 0
    assert stormy.summary["failures"] > 0 and stormy.summary["lost_gpu_hours_failures"] > 0


def test_every_spelling_of_a_plug_in_builds_the_same_run():
    jobs = frame([job(i * 30, 400 + 50 * i, gpus=4, type="Pretrain") for i in range(8)])
    fixed = CHECKPOINTS.get("fixed")
    spellings = [
        {"checkpoint": {"name": "fixed", "interval_min": 2.0}, "scheduler": "sjf"},
        {"checkpoint": Choice("fixed", {"interval_min": 2.0}), "scheduler": Choice("sjf")},
        {"checkpoint": fixed.Config(interval_min=2.0), "scheduler": SCHEDULERS.create("sjf")},
        {"checkpoint": CHECKPOINTS.create("fixed", {"interval_min": 2.0}),
         "scheduler": {"name": "sjf"}},
    ]
    results = [acmesim.simulate(jobs, cluster(1), **spelling) for spelling in spellings]
    assert results[0].summary["lost_gpu_hours_checkpoints"] > 0  # the option took effect
    for other in results[1:]:
        pd.testing.assert_frame_equal(results[0].jobs, other.jobs)
        assert other.config == results[0].config


def test_the_summary_is_the_saved_one_and_wall_time_covers_the_whole_run(tmp_path):
    jobs = frame([job(i, 100, gpus=2) for i in range(50)])
    result = acmesim.simulate(jobs, cluster(2), run_id="r1")
    summary = result.summary
    assert list(summary) == [n for n in SUMMARY.names if n in summary]  # schema order
    loop_time = summary["events"] / summary["events_per_second"]
    assert summary["wall_time"] >= loop_time > 0  # the loop is only a part of the run
    result.save(tmp_path)
    saved = pd.read_csv(tmp_path / "summary.csv", keep_default_na=False)
    assert saved["wall_time"][0] == summary["wall_time"]
    assert saved["run_id"][0] == "r1" and saved["error"][0] == ""
    assert list(result.summary_table.columns) == SUMMARY.names


def test_saving_twice_replaces_the_first_files(tmp_path):
    jobs = frame([job(0, 50, type="Eval", job_id="e1"), job(0, 60, type="Eval", job_id="e2")])
    acmesim.simulate(jobs, cluster(1), eval="coupled").save(tmp_path)
    assert (tmp_path / "eval_requests.csv").exists()
    acmesim.simulate(jobs, cluster(1)).save(tmp_path)
    assert not (tmp_path / "eval_requests.csv").exists()
    assert (tmp_path / "complete.json").exists()


def test_a_trace_that_is_neither_a_file_nor_a_source_fails_clearly():
    with pytest.raises(ConfigError, match=r"no such file.*sample"):
        acmesim.simulate("no_such_trace.csv")
    with pytest.raises(ConfigError, match="expected a registered name"):
        acmesim.simulate(frame([job(0, 1)]), cluster(1), scheduler=3.5)


def test_the_old_engine_import_still_works_with_a_warning():
    import importlib
    import sys

    sys.modules.pop("acmesim.engine", None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        engine = importlib.import_module("acmesim.engine")
    assert engine.simulate is acmesim.simulate
    assert any(issubclass(w.category, DeprecationWarning) and "acmesim.simulate" in
               str(w.message) for w in caught)
