"""Calibration, the synthetic suite, trace Eval job expansion, input validation, result columns."""

from __future__ import annotations

import dataclasses
import math

import pytest

from acmesim.core.errors import ConfigError
from acmesim.core.rng import RngStreams
from acmesim.evaluation import (
    Dataset,
    EvalCluster,
    EvalRequest,
    ModelSpec,
    SuiteCalibration,
    request_from_eval_job,
    request_from_eval_jobs,
    suite_request,
    synthetic_suite,
)
from acmesim.evaluation import calibration as cal
from acmesim.evaluation.suite import SUITE_CATALOG
from acmesim.evaluation.trace import reference_load_s
from acmesim.studies.evaluation import evaluate, results


def test_derived_constants_follow_from_the_cited_ones():
    assert cal.PROFILE_JOB_S == pytest.approx(42.0 / 0.19)  # 221.05 s
    assert cal.PROFILE_INFERENCE_SHARE == pytest.approx(0.515)
    assert cal.PROFILE_LOAD_S == pytest.approx(14e9 * 8 / (25e9 / 8))  # 35.84 s
    assert cal.PROFILE_LOAD_S + cal.PROFILE_PREP_S > 60.0  # "over 1 minute"
    assert cal.SEREN_EVAL_LOG_SIGMA == pytest.approx(math.log(391 / 129) / 0.6744897501960817)


def test_suite_has_63_named_datasets_and_is_deterministic_per_seed():
    names = [name for name, _ in SUITE_CATALOG]
    assert len(names) == len(set(names)) == cal.SUITE_SIZE
    assert {"MMLU", "C-Eval", "GSM8K", "HumanEval", "MBPP"} <= set(names)
    assert synthetic_suite(3) == synthetic_suite(3)
    assert synthetic_suite(3) != synthetic_suite(4)
    # The order is a seeded permutation of the catalog; a dataset's times do not depend on it.
    assert sorted(d.name for d in synthetic_suite(3)) == sorted(names)
    assert [d.name for d in synthetic_suite(3)] != [d.name for d in synthetic_suite(4)]
    z = RngStreams(3).stream("eval_suite").standard_normal(len(names))
    mmlu = {d.name: d for d in synthetic_suite(3)}["MMLU"]
    expected = cal.PROFILE_INFERENCE_S * math.exp(cal.SEREN_EVAL_LOG_SIGMA * z[names.index("MMLU")])
    assert mmlu.inference_s == pytest.approx(expected, rel=1e-12)


def test_suite_follows_its_documented_rules():
    suite = synthetic_suite(0)
    kinds = dict(SUITE_CATALOG)
    for d in suite:
        assert d.metric_s <= cal.MAX_METRIC_S
        if d.name == "HumanEval":
            assert (d.prep_s, d.inference_s, d.metric_s) == (
                cal.PROFILE_PREP_S, cal.PROFILE_INFERENCE_S, cal.PROFILE_METRIC_IDLE_S)
        elif kinds[d.name] == "judge":
            assert d.metric_s == cal.MAX_METRIC_S
        else:
            assert d.prep_s == pytest.approx(cal.PREP_PER_INFERENCE * d.inference_s)
            assert d.metric_s == pytest.approx(
                min(cal.METRIC_PER_INFERENCE * d.inference_s, cal.MAX_METRIC_S))
    # Pinning HumanEval does not shift the other draws; sigma = 0 puts all at the median.
    flat = synthetic_suite(0, SuiteCalibration(log_sigma=0.0))
    assert {d.inference_s for d in flat} == {cal.PROFILE_INFERENCE_S}


def test_profiled_job_reproduces_the_cited_shares_on_a_full_node():
    # 8 HumanEval trials on one Seren node, coupled: each loads 14 GB at 25/8 Gb/s (35.84 s),
    # so each job is 221.05 s: 29.5% loading + prep, 19.0% (42 s) idle metric.
    humaneval = suite_request(0).dataset("HumanEval")
    copies = tuple(dataclasses.replace(humaneval, name=f"HumanEval-{i}") for i in range(8))
    result = evaluate(EvalRequest("p", ModelSpec("7B"), copies), EvalCluster(1), "coupled")
    for t in result.trials:
        held = t.released - t.load_start
        assert held == pytest.approx(cal.PROFILE_JOB_S)
        load_prep = t.inference_end - t.inference_s - t.load_start
        assert load_prep / held == pytest.approx(0.295)
        assert (t.released - t.inference_end) / held == pytest.approx(0.190)


@pytest.mark.parametrize("gpu_num", [1, 2, 8])
def test_expanded_eval_jobs_replay_their_run_time_on_a_full_node(gpu_num):
    # A node full of identical g-GPU trials of r >= 121.5 s replays coupled in exactly r.
    assert reference_load_s(gpu_num) == pytest.approx(35.84)
    run_time = 600.0
    jobs = [(f"j{i}", gpu_num, run_time) for i in range(8 // gpu_num)]
    request = request_from_eval_jobs("req", jobs)
    assert request.model.gpus == gpu_num and request.model.params == 7e9 * gpu_num
    result = evaluate(request, EvalCluster(1), "coupled")
    assert [t.released for t in result.trials] == pytest.approx([run_time] * len(jobs))


def test_expansion_shares_and_short_jobs():
    (d,) = request_from_eval_job("j", 1, 100.0, submit_time=5.0).datasets
    assert (d.inference_s, d.metric_s) == pytest.approx((51.5, 19.0))
    assert d.prep_s == 0.0  # 29.5 s < the 35.84 s load: loading cannot be shorter
    assert request_from_eval_job("j", 1, 100.0, submit_time=5.0).submit_time == 5.0


def test_expansion_rejects_bad_jobs_naming_them():
    with pytest.raises(ConfigError, match=r"'j7'.*gpu_num must be an integer >= 1, got 0"):
        request_from_eval_job("j7", 0, 10.0)
    with pytest.raises(ConfigError, match=r"'j8'.*run_time.*got nan"):
        request_from_eval_job("j8", 1, math.nan)
    with pytest.raises(ConfigError, match=r"must share gpu_num; got a \(1 GPUs\), b \(2 GPUs\)"):
        request_from_eval_jobs("r", [("a", 1, 10.0), ("b", 2, 10.0)])
    with pytest.raises(ConfigError, match="no Eval jobs"):
        request_from_eval_jobs("r", [])


def test_specs_reject_bad_values_with_clear_messages():
    with pytest.raises(ConfigError, match="dataset 'x': inference_s must be a finite number"):
        Dataset("x", 1.0, -2.0, 0.0)
    with pytest.raises(ConfigError, match=r"duplicate dataset names \['x'\]"):
        EvalRequest("r", ModelSpec("m"), (Dataset("x", 0, 1, 0), Dataset("x", 0, 1, 0)))
    with pytest.raises(ConfigError, match="no datasets"):
        EvalRequest("r", ModelSpec("m"), ())
    with pytest.raises(ConfigError, match="gpus must be an integer >= 1"):
        ModelSpec("m", gpus=0)
    with pytest.raises(ConfigError, match="nic_gbps must be a finite number > 0"):
        EvalCluster(1, nic_gbps=0.0)
    with pytest.raises(ConfigError, match="leaves 0, fewer than one metric job's 4"):
        EvalCluster(1, trial_cpu_threads=16)


def test_result_frames_have_the_declared_columns():
    result = evaluate(suite_request(0), EvalCluster(1), "decoupled")
    assert list(result.trials_frame()) == list(results.TRIAL_COLUMNS)
    assert list(result.datasets_frame()) == list(results.DATASET_COLUMNS)
    assert list(result.prefetches_frame()) == list(results.PREFETCH_COLUMNS)
    assert list(result.requests_frame()) == list(results.REQUEST_COLUMNS)
    assert len(result.datasets_frame()) == 63


def test_paper_setup_speed_up_grows_with_nodes():
    # Not a golden number: only the direction the paper reports (1 node < 4 nodes), and that
    # the coordinator is faster than the baseline at both sizes.
    request = suite_request(0)
    speedups = []
    for nodes in (1, 4):
        cluster = EvalCluster(nodes)
        coupled = evaluate(request, cluster, "coupled").summary().makespan_s
        decoupled = evaluate(request, cluster, "decoupled").summary().makespan_s
        speedups.append(coupled / decoupled)
    assert 1.0 < speedups[0] < speedups[1]
