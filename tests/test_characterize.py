"""``characterize`` and ``compare`` on hand-computed tiny tables."""

from __future__ import annotations

import dataclasses
import json
import math

import pandas as pd
import pytest

from acmesim.analysis.characterize import (
    batch_stats,
    characterize,
    compare,
    comparison_summary,
    row_to_dict,
    to_jsonable,
)
from acmesim.workload.targets import SEREN, TOLERANCES, Tolerance

T0 = pd.Timestamp("2023-03-01 00:00:00", tz="UTC")  # a Wednesday, 08:00 in Shanghai

# job, user, type, state, gpus, submit, start, end (seconds after T0)
ROWS = [
    ("1", "a", "Eval", "COMPLETED", 1, 0, 0, 100),
    ("2", "a", "Eval", "FAILED", 1, 0, 10, 40),
    ("3", "b", "Pretrain", "CANCELLED", 16, 0, 20, 1020),
    ("4", "b", "SFT", "TIMEOUT", 8, 100, 100, 300),
    ("5", "c", "Other", "NODE_FAIL", 2, 200, 230, 280),
    ("6", "c", "Other", "COMPLETED", 0, 300, 301, 311),
]


def tiny(rows=ROWS) -> pd.DataFrame:
    """A normalized job table of ``rows``."""
    frame = pd.DataFrame(rows, columns=["job_id", "user", "type", "state", "gpu_num",
                                        "submit", "start", "end"])
    for name in ("submit", "start", "end"):
        frame[f"{name}_time"] = T0 + pd.to_timedelta(frame[name], unit="s")
    frame["run_time"] = (frame["end"] - frame["start"]).astype(float)
    frame["queue_time"] = (frame["start"] - frame["submit"]).astype(float)
    frame["node_num"] = (frame["gpu_num"] + 7).floordiv(8).clip(lower=1)
    frame["cpu_num"] = frame["gpu_num"] * 16
    return frame.drop(columns=["submit", "start", "end"])


@pytest.fixture(scope="module")
def stats():
    return characterize(tiny())


def test_counts(stats):
    assert stats["jobs"] == {"all": 6, "gpu": 5, "cpu": 1}
    assert stats["span_days"] == pytest.approx(300 / 86400)
    assert stats["total_gpu_time"] == 100 + 30 + 16 * 1000 + 8 * 200 + 2 * 50


def test_type_shares_by_jobs_and_gpu_time(stats):
    assert stats["type_job_share"] == pytest.approx(
        {"Eval": 0.4, "Pretrain": 0.2, "SFT": 0.2, "Other": 0.2})
    assert list(stats["type_job_share"]) == ["Eval", "Pretrain", "SFT", "Other"]  # paper order
    total = 17830.0
    assert stats["type_gpu_time_share"] == pytest.approx(
        {"Eval": 130 / total, "Pretrain": 16000 / total, "SFT": 1600 / total,
         "Other": 100 / total})


def test_timeout_and_node_fail_count_as_failed(stats):
    assert stats["state_job_share"] == pytest.approx(
        {"COMPLETED": 0.2, "CANCELLED": 0.2, "FAILED": 0.6})
    total = 17830.0
    assert stats["state_gpu_time_share"] == pytest.approx(
        {"COMPLETED": 100 / total, "CANCELLED": 16000 / total, "FAILED": 1730 / total})


def test_gpu_demand(stats):
    assert stats["one_gpu_share"] == pytest.approx(0.4)
    assert stats["mean_gpus"] == pytest.approx(5.6)
    assert stats["median_gpus"] == 2.0
    assert stats["gpu_cdf_jobs"][1] == pytest.approx(0.4)
    assert stats["gpu_cdf_jobs"][8] == pytest.approx(0.8)
    assert stats["gpu_cdf_jobs"][16] == pytest.approx(1.0)
    assert stats["gpu_cdf_gpu_time"][8] == pytest.approx(1830 / 17830)
    assert stats["gpu_percentiles"]["Eval"] == {25: 1.0, 50: 1.0, 75: 1.0}


def test_run_time_percentiles_interpolate_linearly(stats):
    eval_runs = stats["run_time_percentiles"]["Eval"]  # runs 30 and 100
    assert eval_runs[25] == pytest.approx(47.5)
    assert eval_runs[50] == pytest.approx(65.0)
    assert eval_runs[99] == pytest.approx(99.3)
    assert stats["run_time"]["mean"] == pytest.approx(276.0)
    assert stats["run_time"]["median"] == pytest.approx(100.0)
    assert stats["run_time"]["max"] == 1000.0
    assert stats["run_time_share_le_65536"]["Pretrain"] == 1.0


def test_duration_from_submission_is_the_kalos_convention():
    stats = characterize(tiny(), duration_origin="submit_time")
    assert stats["run_time_percentiles"]["Eval"][50] == pytest.approx(70.0)  # 100 and 40
    assert stats["total_gpu_time"] == 100 + 40 + 16 * 1020 + 8 * 200 + 2 * 80
    with pytest.raises(ValueError, match="duration_origin"):
        characterize(tiny(), duration_origin="end_time")


def test_queueing(stats):
    assert stats["queue_time"] == {"mean": pytest.approx(12.0), "median": pytest.approx(10.0)}
    assert stats["queue_percentiles"]["Other"][50] == 30.0
    assert stats["queue_mean_by_type"]["Eval"] == pytest.approx(5.0)


def test_cpu_jobs(stats):
    assert stats["cpu"]["jobs"] == 1
    assert stats["cpu"]["run_time_mean"] == 10.0
    assert stats["cpu"]["queue_median"] == 1.0
    assert stats["cpu"]["state_job_share"]["COMPLETED"] == 1.0


def test_arrivals(stats):
    a = stats["arrivals"]
    assert a["jobs_per_day"] == pytest.approx(6 / (300 / 86400))
    assert a["gpu_jobs_per_day"] == pytest.approx(5 / (300 / 86400))
    assert a["hourly_share"][8] == 1.0 and sum(a["hourly_share"]) == pytest.approx(1.0)
    assert a["weekday_share"][2] == 1.0  # Wednesday
    assert a["interarrival_cv"] == pytest.approx(1.0)  # gaps 0, 0, 100, 100
    assert a["same_second_share"] == pytest.approx(0.5)


def test_batches_are_same_user_same_second_groups():
    rows = [(str(i), "e", "Eval", "COMPLETED", 1, 50, 50, 60) for i in range(12)]
    rows += [("x1", "e", "Eval", "COMPLETED", 1, 51, 51, 60),
             ("x2", "f", "Eval", "COMPLETED", 1, 50, 50, 60),
             ("x3", "f", "SFT", "COMPLETED", 8, 52, 52, 60)]
    frame = tiny(rows=rows)
    batches = batch_stats(frame)
    assert batches["count"] == 1 and batches["mean_size"] == 12.0 and batches["max_size"] == 12
    assert batches["share_of_gpu_jobs"] == pytest.approx(12 / 15)
    assert batches["eval_share_in_batches"] == pytest.approx(12 / 14)


def test_tolerances():
    points, relative = Tolerance("points", 2.0), Tolerance("relative", 0.25)
    assert points.error(0.67, 0.649) == pytest.approx(2.1)
    assert not points.passes(0.67, 0.649) and points.passes(0.668, 0.649)
    assert relative.error(150.0, 120.0) == pytest.approx(0.25)
    assert relative.passes(150.0, 120.0) and not relative.passes(151.0, 120.0)


def _targets_matching(stats):
    """Seren targets with every criterion set to what ``stats`` measured."""
    return dataclasses.replace(
        SEREN,
        type_job_share={t: stats["type_job_share"].get(t, 0.0) for t in SEREN.type_job_share},
        type_gpu_time_share={t: stats["type_gpu_time_share"].get(t, 0.0)
                             for t in SEREN.type_gpu_time_share},
        state_job_share=dict(stats["state_job_share"]),
        state_gpu_time_share=dict(stats["state_gpu_time_share"]),
        one_gpu_share=stats["one_gpu_share"], mean_gpus=stats["mean_gpus"],
        duration_percentiles={t: {50: stats["run_time_percentiles"][t][50]}
                              for t in stats["run_time_percentiles"]},
        duration_share_le_65536={t: 1.0 for t in stats["run_time_percentiles"]},
    )


def test_compare_passes_when_measured_equals_published(stats):
    rows = compare(stats, _targets_matching(stats))
    summary = comparison_summary(rows)
    # 6 + 6 types, 3 + 3 states, 1-GPU share, mean GPUs, 4 medians
    assert summary == {"criteria": 24, "passed": 24, "failed": 0}


def test_compare_flags_what_is_off(stats):
    targets = dataclasses.replace(_targets_matching(stats), mean_gpus=4.0,
                                  state_job_share={"COMPLETED": 0.25, "CANCELLED": 0.2,
                                                   "FAILED": 0.55})
    rows = {(r.group, r.metric): r for r in compare(stats, targets)}
    mean = rows[("GPU demand", "mean GPUs per GPU job")]
    assert mean.error == pytest.approx(0.4) and mean.passed is False
    completed = rows[("state share of jobs", "COMPLETED")]
    assert completed.error == pytest.approx(-5.0) and completed.passed is False
    failed = rows[("state share of jobs", "FAILED")]
    assert failed.error == pytest.approx(5.0) and failed.passed is False
    assert rows[("queueing, GPU jobs (s)", "mean")].passed is None  # informative only
    missing = rows[("type share of jobs", "MLLM")]  # a type absent from the trace measures 0
    assert missing.measured == 0.0
    real = {(r.group, r.metric): r for r in compare(stats, SEREN)}
    mllm = real[("type share of jobs", "MLLM")]  # published 2.9 %: 2.9 points off > 2
    assert mllm.error == pytest.approx(-2.9) and mllm.passed is False
    assert mllm.tolerance is TOLERANCES["type_job_share"]


def test_json_ready_output(stats):
    rows = compare(stats, SEREN)
    text = json.dumps({"stats": to_jsonable(stats), "rows": [row_to_dict(r) for r in rows]})
    back = json.loads(text)
    assert back["stats"]["gpu_cdf_jobs"]["8"] == pytest.approx(0.8)
    row = next(r for r in back["rows"] if r["metric"] == "Pretrain"
               and r["group"] == "type share of GPU time")
    assert row["published"] == 0.695 and row["error_unit"] == "points"
    assert row["passed"] is False and row["tolerance"] == 2.0
    assert to_jsonable({"x": math.nan}) == {"x": None}
