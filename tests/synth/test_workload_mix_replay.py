"""A replay reports busy-but-idle GPU time from the trace's per-job GPU utilization."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from factories import cluster, frame, job

from acmesim.results.gpu_busy import gpu_busy_fields
from acmesim.results.schema import SUMMARY
from acmesim.run import simulate
from acmesim.synth import generate_trace


def _table(utils: list[float]) -> pd.DataFrame:
    jobs = frame([job(0, 100, gpus=1), job(0, 10, gpus=8), job(5, 40, gpus=2)])
    jobs["gpu_util"] = utils
    return jobs


def test_busy_and_idle_gpu_time_hand_computed():
    result = simulate(_table([0.25, 1.0, np.nan]), cluster(nodes=2), "fifo", mode="recorded")
    # job 0: 100 GPU-s at 25 % -> 25 busy, 75 idle; job 1: 80 GPU-s fully busy;
    # job 2 has no utilization and is left out of both sums
    assert result.summary["gpu_util_jobs"] == 2
    assert result.summary["busy_gpu_time"] == pytest.approx(105.0)
    assert result.summary["idle_gpu_time"] == pytest.approx(75.0)


def test_fields_are_absent_without_a_utilization_column():
    jobs = _table([0.5, 0.5, 0.5]).drop(columns="gpu_util")
    result = simulate(jobs, cluster(nodes=2), "fifo", mode="recorded")
    assert "busy_gpu_time" not in result.summary
    assert {"gpu_util_jobs", "busy_gpu_time", "idle_gpu_time"} <= set(SUMMARY.names)


def test_matching_is_by_job_id_whatever_the_row_order():
    jobs = _table([0.25, 1.0, 0.5])
    shuffled = jobs.iloc[[2, 0, 1]].reset_index(drop=True)
    result = simulate(jobs, cluster(nodes=2), "fifo", mode="recorded")
    assert gpu_busy_fields(result.jobs, shuffled) == gpu_busy_fields(result.jobs, jobs)


def test_taskdl_replay_idles_more_of_its_gpu_time_than_seren():
    taskdl = generate_trace("taskdl", 2, 1)
    seren = generate_trace("mix", 2, 1)
    seren = seren[seren.workload == "llm"]
    shares = []
    for jobs in (taskdl, seren):
        summary = simulate(jobs, "seren", "fifo", mode="recorded").summary
        shares.append(summary["idle_gpu_time"]
                      / (summary["idle_gpu_time"] + summary["busy_gpu_time"]))
    assert shares[0] > 0.35 and shares[1] < 0.2
