"""The taskdl profile: calibration against Helios' published statistics, feasibility, links."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from acmesim.analysis.characterize import characterize
from acmesim.analysis.compare_prior import profile_comparison
from acmesim.synth import check_feasibility, generate_trace, get_profile
from acmesim.synth.profile_taskdl import CLASS_JOB_SHARES
from acmesim.trace.gpu_util import gpu_time_weighted_util
from acmesim.trace.targets_prior import HELIOS, PHILLY

DAYS = 14


@pytest.fixture(scope="module")
def traces() -> list[pd.DataFrame]:
    return [generate_trace("taskdl", DAYS, seed) for seed in (0, 1)]


def _criteria(rows) -> dict[str, object]:
    return {f"{r.group}: {r.metric}": r for r in rows if r.tolerance is not None}


@pytest.mark.parametrize("seed_index", [0, 1])
def test_characterize_lands_within_15_percent_of_helios(traces, seed_index):
    jobs = traces[seed_index]
    rows = _criteria(profile_comparison(characterize(jobs), "taskdl", jobs))
    for key in ("run time, all GPU jobs (s): mean", "run time, all GPU jobs (s): median",
                "GPU demand: mean GPUs per GPU job"):
        assert rows[key].passed, (key, rows[key].measured, rows[key].published)
    gpu = jobs[jobs.gpu_num > 0]
    assert gpu.run_time.mean() == pytest.approx(HELIOS.run_time_mean, rel=0.15)
    assert gpu.run_time.median() == pytest.approx(HELIOS.run_time_median, rel=0.15)
    assert gpu.gpu_num.mean() == pytest.approx(HELIOS.mean_gpus, rel=0.15)


def test_job_and_state_shares_match_helios_by_count(traces):
    gpu = pd.concat(traces)
    gpu = gpu[gpu.gpu_num > 0]
    assert (gpu.gpu_num == 1).mean() == pytest.approx(HELIOS.one_gpu_share, abs=0.03)
    states = gpu.state.replace({"TIMEOUT": "FAILED", "NODE_FAIL": "FAILED"})
    for state, share in HELIOS.state_job_share.items():
        assert (states == state).mean() == pytest.approx(share, abs=0.03)


def test_class_shares_of_the_jobs_are_the_profile_assumptions(traces):
    gpu = pd.concat(traces)
    shares = gpu.workload.value_counts(normalize=True)
    for name, share in CLASS_JOB_SHARES["helios"].items():
        assert shares[name] == pytest.approx(share, abs=0.03)
    assert set(gpu.type) == {"Search", "RL", "Supervised"}


def test_trace_is_feasible_on_the_seren_sized_cluster(traces):
    profile = get_profile("taskdl")
    for jobs in traces:
        report = check_feasibility(jobs, profile.nodes, profile.gpus_per_node)
        assert report.ok, report.message
        assert jobs.gpu_num.max() <= profile.nodes * profile.gpus_per_node


def test_offered_load_is_seren_like(traces):
    for jobs in traces:
        gpu_time = (jobs.run_time * jobs.gpu_num).sum()
        load = gpu_time / (DAYS * 86400 * 2288)
        assert 0.45 < load < 0.75


def test_continuations_start_after_their_parent_completes(traces):
    jobs = traces[0].set_index("job_id", drop=False)
    children = jobs[jobs.parent_id != ""]
    assert len(children) > 100
    parents = jobs.loc[children.parent_id]
    assert (parents.state.to_numpy() == "COMPLETED").all()
    assert (children.submit_time.to_numpy() >= parents.end_time.to_numpy()).all()
    assert (children.task_group.to_numpy() == parents.task_group.to_numpy()).all()
    assert (children.task_stage.to_numpy() == parents.task_stage.to_numpy() + 1).all()


def test_searches_submit_their_first_rung_as_one_wave(traces):
    trials = traces[0][(traces[0].workload == "search") & (traces[0].task_stage == 0)]
    per_search = trials.groupby("task_group").agg(times=("submit_time", "nunique"),
                                                  users=("user", "nunique"),
                                                  size=("job_id", "size"))
    assert (per_search.times == 1).all() and (per_search.users == 1).all()
    assert per_search["size"].min() >= get_profile("taskdl").search.min_trials


def test_rl_runs_are_one_per_variant_and_seed_with_low_utilization(traces):
    jobs = traces[0]
    rl = jobs[jobs.workload == "rl"]
    assert not rl.duplicated(["task_group", "task_variant", "task_stage"]).any()
    assert (rl.gpu_num == 1).all() and (rl.cpu_num == get_profile("taskdl").rl.cpus).all()
    supervised = jobs[jobs.workload == "supervised"]
    assert rl.gpu_util.median() < 0.35 < supervised.gpu_util.median()


def test_gpu_time_weighted_median_utilization_is_philly_like(traces):
    for jobs in traces:
        gpu = jobs[jobs.gpu_num > 0]
        assert gpu_time_weighted_util(gpu) == pytest.approx(PHILLY.median_gpu_util, abs=0.06)
        assert gpu.gpu_util.between(0, 1).all()


def test_same_seed_same_bytes_and_seeds_differ(traces):
    again = generate_trace("taskdl", DAYS, 0)
    pd.testing.assert_frame_equal(again, traces[0])
    assert not np.array_equal(traces[0].run_time.to_numpy()[:100],
                              traces[1].run_time.to_numpy()[:100])


def test_philly_profile_lands_within_15_percent_of_philly():
    jobs = generate_trace("taskdl_philly", DAYS, 0)
    rows = _criteria(profile_comparison(characterize(jobs), "taskdl_philly", jobs))
    for key in ("run time, all GPU jobs (s): mean", "run time, all GPU jobs (s): median",
                "GPU demand: mean GPUs per GPU job"):
        assert rows[key].passed, (key, rows[key].measured, rows[key].published)
    assert jobs.gpu_num.max() <= PHILLY.max_gpus
