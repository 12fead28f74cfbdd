"""Mixtures of the Acme and task-DL profiles by share of GPU time, and per-job GPU utilization."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from acmesim.core.errors import ConfigError, UnknownNameError
from acmesim.synth import check_feasibility, generate_trace, get_profile
from acmesim.synth.mixture import (
    expected_gpu_time_per_day,
    generate_mixture,
    mixture_scales,
)
from acmesim.trace.gpu_util import (
    UtilModel,
    busy_gpu_time,
    gpu_time_weighted_util,
    weighted_quantile,
    with_gpu_util,
)

DAYS = 14


def _llm_share(jobs: pd.DataFrame) -> float:
    gpu_time = jobs.run_time * jobs.gpu_num
    return float(gpu_time[jobs.workload == "llm"].sum() / gpu_time.sum())


@pytest.fixture(scope="module")
def mostly_llm() -> pd.DataFrame:
    return generate_mixture({"seren": 0.8, "taskdl": 0.2}, DAYS, 3)


@pytest.fixture(scope="module")
def mostly_taskdl() -> pd.DataFrame:
    return generate_mixture({"seren": 0.2, "taskdl": 0.8}, DAYS, 3)


def test_scales_follow_the_shares_of_gpu_time():
    seren, taskdl = get_profile("seren"), get_profile("taskdl")
    scales = mixture_scales({"seren": 0.3, "taskdl": 0.7})
    reference = expected_gpu_time_per_day(seren)
    assert scales["seren"] == pytest.approx(0.3)
    assert scales["taskdl"] == pytest.approx(0.7 * reference / expected_gpu_time_per_day(taskdl))
    kalos = mixture_scales({"taskdl": 0.5, "kalos": 0.5})
    assert kalos["taskdl"] == pytest.approx(0.5)
    assert kalos["kalos"] * expected_gpu_time_per_day(get_profile("kalos")) == pytest.approx(
        0.5 * expected_gpu_time_per_day(taskdl))


def test_realized_gpu_time_shares_follow_the_requested_shares(mostly_llm, mostly_taskdl):
    assert 0.65 < _llm_share(mostly_llm) < 0.93
    assert 0.07 < _llm_share(mostly_taskdl) < 0.35


def test_mixed_traces_are_feasible_on_seren(mostly_llm, mostly_taskdl):
    seren = get_profile("seren")
    for jobs in (mostly_llm, mostly_taskdl):
        report = check_feasibility(jobs, seren.nodes, seren.gpus_per_node)
        assert report.ok, report.message
        assert jobs.job_id.is_unique


def test_each_component_keeps_its_types_and_workload_labels(mostly_llm):
    llm = mostly_llm[mostly_llm.workload == "llm"]
    task = mostly_llm[mostly_llm.workload != "llm"]
    assert set(llm.type) <= {"Eval", "Pretrain", "SFT", "MLLM", "Debug", "Other"}
    assert set(task.type) <= {"Search", "RL", "Supervised"}
    assert set(task.workload) == {"search", "rl", "supervised"}
    assert (llm[llm.gpu_num == 0].gpu_util.isna()).all()
    assert llm[llm.gpu_num > 0].gpu_util.notna().all() and task.gpu_util.notna().all()


def test_restart_chains_and_continuations_follow_their_parent(mostly_llm):
    jobs = mostly_llm.set_index("job_id", drop=False)
    children = jobs[jobs.parent_id != ""]
    assert {"llm", "search"} <= set(children.workload)
    parents = jobs.loc[children.parent_id]
    assert (children.submit_time.to_numpy() >= parents.end_time.to_numpy()).all()
    assert (children.workload.to_numpy() == parents.workload.to_numpy()).all()


def test_mix_profile_is_the_half_and_half_mixture():
    a = generate_trace("mix", 2, 7)
    b = generate_mixture({"seren": 0.5, "taskdl": 0.5}, 2, 7)
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(generate_mixture({"seren": 0.5, "taskdl": 0.5}, 2, 8))


def test_utilization_contrast_llm_near_full_taskdl_near_half(mostly_llm, mostly_taskdl):
    llm = mostly_llm[(mostly_llm.workload == "llm") & (mostly_llm.gpu_num > 0)]
    task = mostly_taskdl[mostly_taskdl.workload != "llm"]
    assert gpu_time_weighted_util(llm) > 0.9
    assert gpu_time_weighted_util(task) < 0.6
    busy, allocated = busy_gpu_time(mostly_taskdl[mostly_taskdl.gpu_num > 0])
    assert 0 < busy < allocated


@pytest.mark.parametrize("shares, error", [
    ({}, ConfigError), ({"seren": 0.5, "taskdl": 0.4}, ConfigError),
    ({"seren": 1.2, "taskdl": -0.2}, ConfigError), ({"seren": 0.5, "nope": 0.5},
                                                    UnknownNameError)])
def test_bad_mixtures_are_clear_errors(shares, error):
    with pytest.raises(error):
        generate_mixture(shares, 1, 0)


def test_acme_traces_get_near_full_utilization_for_pretraining():
    jobs = with_gpu_util(generate_trace("seren", 7, 2), seed=2)
    gpu = jobs[jobs.gpu_num > 0]
    assert jobs[jobs.gpu_num == 0].gpu_util.isna().all()
    assert gpu.gpu_util.between(0, 1).all()
    # acme_facts.md §6/§7: median GPU utilization 97-99 % in Seren (GPU-time weighted)
    assert 0.95 <= gpu_time_weighted_util(gpu) <= 0.995
    assert gpu[gpu.type == "Pretrain"].gpu_util.median() > 0.95
    assert gpu[gpu.type == "Eval"].gpu_util.median() < 0.7
    again = with_gpu_util(jobs.drop(columns="gpu_util"), seed=2)
    np.testing.assert_array_equal(again.gpu_util.to_numpy(), jobs.gpu_util.to_numpy())


def test_existing_utilization_is_kept():
    jobs = pd.DataFrame({"type": ["Eval", "Eval", "Other"], "gpu_num": [1, 2, 0],
                         "gpu_util": [0.25, np.nan, np.nan]})
    out = with_gpu_util(jobs, seed=0)
    assert out.gpu_util.iloc[0] == 0.25
    assert 0 <= out.gpu_util.iloc[1] <= 1 and np.isnan(out.gpu_util.iloc[2])


def test_weighted_quantile_hand_computed():
    values, weights = np.array([0.9, 0.1, 0.5]), np.array([1.0, 3.0, 1.0])
    assert weighted_quantile(values, weights, 0.5) == 0.1  # 3 of 5 weight units at 0.1
    assert weighted_quantile(values, weights, 0.7) == 0.5
    assert weighted_quantile(values, weights, 1.0) == 0.9
    assert np.isnan(weighted_quantile(np.array([np.nan]), np.array([1.0]), 0.5))


def test_util_model_validation_and_range():
    with pytest.raises(ValueError):
        UtilModel(1.2, 4.0)
    draws = UtilModel(0.3, 5.0).draw(np.random.default_rng(0), 20_000)
    assert draws.min() >= 0 and draws.max() <= 1
    assert draws.mean() == pytest.approx(0.3, abs=0.01)
