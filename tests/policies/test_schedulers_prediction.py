"""Run-time predictors and their error report: hand-computed values."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest

from acmesim.policies.prediction import PREDICTORS, PredictionLog
from acmesim.policies.prediction.history import SERENS_MEAN_DURATION


def job(index: int, user: str = "u1", kind: str = "SFT", gpus: int = 8, run: float = 100.0):
    """A stand-in with the JobInfo fields predictors read."""
    return SimpleNamespace(index=index, user=user, type=kind, gpu_num=gpus, recorded_run_time=run)


def test_oracle_predicts_the_recorded_run_time():
    assert PREDICTORS.create("oracle").predict(job(0, run=321.0)) == 321.0


def test_user_history_starts_from_the_prior_and_learns_only_on_finish():
    predictor = PREDICTORS.create("user_history")
    assert predictor.predict(job(0)) == SERENS_MEAN_DURATION
    predictor.observe(job(0, "u1", gpus=8, run=100.0))
    predictor.observe(job(1, "u1", gpus=8, run=300.0))
    predictor.observe(job(2, "u1", gpus=1, run=10.0))
    predictor.observe(job(3, "u2", gpus=4, run=50.0))
    # same user and GPU count: mean(100, 300)
    assert predictor.predict(job(9, "u1", gpus=8)) == 200.0
    # same user, new GPU count: mean of all u1 jobs (100, 300, 10)
    assert predictor.predict(job(9, "u1", gpus=2)) == pytest.approx(410 / 3)
    # new user: mean of every finished job
    assert predictor.predict(job(9, "u3", gpus=8)) == pytest.approx(460 / 4)


def test_type_history_groups_by_job_type():
    predictor = PREDICTORS.create("type_history", {"prior": 5.0})
    assert predictor.predict(job(0, kind="Eval")) == 5.0
    predictor.observe(job(0, "a", "Eval", 1, 20.0))
    predictor.observe(job(1, "b", "Eval", 1, 40.0))
    assert predictor.predict(job(2, "c", "Eval", 1)) == 30.0


def test_prediction_log_keeps_the_first_estimate_and_scores_it():
    log = PredictionLog("demo")
    assert log.remember(job(0), 150.0) == 150.0
    assert log.remember(job(0), 999.0) == 150.0  # the first estimate is kept
    log.remember(job(1), 0.0)
    log.score(job(0, run=100.0))   # error +50, relative 0.5
    log.score(job(1, run=0.5))     # error -0.5, relative 0.5 / max(0.5, 1) = 0.5
    log.score(job(2, run=7.0))     # never estimated: ignored
    summary = log.summary()
    assert summary["prediction_jobs"] == 2
    assert summary["prediction_mae"] == pytest.approx(25.25)
    assert summary["prediction_mre"] == pytest.approx(0.5)
    assert summary["prediction_bias"] == pytest.approx(24.75)


def test_empty_log_reports_nan():
    summary = PredictionLog("demo").summary()
    assert summary["prediction_jobs"] == 0 and math.isnan(summary["prediction_mae"])
