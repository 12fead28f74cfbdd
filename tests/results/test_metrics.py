"""Result tables: exact time-weighted utilization, summary statistics, schema and docs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from factories import cluster, frame, job

from acmesim.core.errors import ConfigError
from acmesim.faults import FaultInjector
from acmesim.policies.checkpoint import CHECKPOINTS
from acmesim.policies.failure import FAILURES
from acmesim.policies.recovery import RECOVERIES
from acmesim.results import docs
from acmesim.results.schema import JOBS, SUMMARY, TABLES, UTILIZATION
from acmesim.results.summary import summary_row
from acmesim.results.utilization import integral, utilization_table
from acmesim.run import simulate

DOCS = Path(__file__).resolve().parents[2] / "docs" / "results.md"


def curve(times, busy):
    zeros = np.zeros(len(times), dtype=np.int64)
    return {"time": np.asarray(times, dtype=float), "busy_gpus": np.asarray(busy),
            "allocated_gpus": np.asarray(busy), "busy_nodes": zeros, "queue_length": zeros,
            "queued_gpus": zeros}


def test_integral_of_a_step_function_is_exact():
    times, values = np.array([10.0, 20.0, 50.0]), np.array([4, 2, 0])
    at = np.array([0.0, 10.0, 15.0, 20.0, 35.0, 80.0])
    assert list(integral(times, values, at)) == [0, 0, 20, 40, 70, 100]


def test_utilization_intervals_are_time_weighted_and_the_last_one_is_partial():
    table = utilization_table(curve([0, 30, 90], [8, 4, 0]), end=150, interval=60,
                              total_gpus=16)
    assert list(table.interval_start) == [0, 60, 120]
    assert list(table.interval_end) == [60, 120, 150]
    assert list(table.busy_gpus) == [6.0, 2.0, 0.0]  # (8*30 + 4*30)/60, (4*30)/60
    assert list(table.gpu_utilization) == [6 / 16, 2 / 16, 0.0]
    assert list(table.columns) == UTILIZATION.names
    with pytest.raises(ConfigError, match="utilization_interval"):
        utilization_table(curve([0], [1]), end=10, interval=0, total_gpus=8)


def test_summary_statistics_by_hand():
    rows = [job(0, 10, 8, type="Eval"), job(0, 20, 8, type="Eval"), job(0, 30, 8),
            job(0, 40, 8, type="Pretrain")]
    result = simulate(frame(rows), cluster(4), "fifo", "consolidate")
    s = result.summary
    assert (s["jct_mean"], s["jct_p50"]) == (25.0, 25.0)
    assert (s["jct_mean_eval"], s["jct_mean_pretrain"], s["jct_mean_other"]) == (15, 40, 30)
    assert np.isnan(s["jct_mean_sft"])
    assert s["makespan"] == 40 and s["queue_delay_p99"] == 0
    assert s["gpu_utilization"] == (8 * 100) / (32 * 40)
    assert s["jobs_completed"] == 4 and s["simulated_jobs"] == 4


def test_utilization_of_a_run_matches_its_gpu_time():
    rows = [job(0, 100, 8), job(50, 100, 4), job(60, 20, 8, nodes=1)]
    result = simulate(frame(rows), cluster(2), "fifo", "consolidate",
                      utilization_interval=30)
    util = result.utilization
    area = float(((util.interval_end - util.interval_start) * util.busy_gpus).sum())
    assert area == pytest.approx(result.summary["gpu_time"], rel=1e-12)
    assert list(result.jobs.columns) == JOBS.names


@pytest.mark.parametrize("recovery", ["manual", "automatic", "hot_spare"])
def test_utilization_of_a_run_with_failures_matches_its_gpu_time(tmp_path, recovery):
    # a transient fault (manual: the job is held; automatic: it restarts in place) and a node
    # failure (requeued, or swapped for a spare), each freeing GPUs at a time no job ends
    faults = tmp_path / "faults.csv"
    faults.write_text("time,node,kind,detection_delay,repair_time\n"
                      "30,n0000,nccl_timeout,0,0\n70,n0001,node_failure,0,50\n")
    injector = FaultInjector(FAILURES.create("trace", {"path": str(faults)}),
                             CHECKPOINTS.create("none"), RECOVERIES.create(recovery))
    rows = [job(0, 100, 8), job(10, 100, 4), job(20, 200, 8), job(60, 20, 2)]
    result = simulate(frame(rows), cluster(3), "fifo", "consolidate", utilization_interval=30,
                      extensions=[injector], seed=1)
    assert result.jobs["failures"].sum() >= 2
    util = result.utilization
    area = float(((util.interval_end - util.interval_start) * util.busy_gpus).sum())
    assert area == pytest.approx(result.summary["gpu_time"], rel=1e-12)


def test_summary_row_has_every_schema_column_and_rejects_unknown_ones():
    row = summary_row({"run_id": "r", "error": "boom"})
    assert list(row) == SUMMARY.names and row["error"] == "boom" and row["makespan"] is None
    with pytest.raises(KeyError, match="not_a_column"):
        summary_row({"not_a_column": 1})


def test_every_column_is_documented_once_and_docs_are_generated_from_the_schema():
    for table in TABLES:
        assert len(table.names) == len(set(table.names))
        assert all(c.meaning and c.unit for c in table.columns)
    text = DOCS.read_text(encoding="utf-8")
    assert text == docs.render(), "docs/results.md is stale: run python -m acmesim.results.docs"
    for table in TABLES:
        for name in table.names:
            assert f"| `{name}` |" in text
