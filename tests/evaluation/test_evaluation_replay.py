"""Evaluation requests in a cluster replay: hand-computed coupled and decoupled timelines.

Constants, from acme_facts.md §1/§5 through acmesim.evaluation.calibration:
a trace Eval job of r s on 1 GPU is a 7B (14 GB) checkpoint with inference 0.515 r, metric
0.190 r and preprocessing max(0, 0.295 r - 35.84 s), 35.84 s being 14 GB x 8 loaders through a
25 Gb/s NIC. A decoupled trial loads by a prefetch alone on the NIC (14 GB / 3.125 GB/s = 4.48 s)
plus a 16 GB/s host-to-GPU copy (0.875 s).
"""

from __future__ import annotations

import pandas as pd
import pytest
from factories import by_id, cluster, frame, job

from acmesim.core.errors import ConfigError, UnknownNameError, UnknownOptionError
from acmesim.evaluation.batches import group_eval_jobs
from acmesim.evaluation.metric_queue import fifo_starts
from acmesim.evaluation.modes import EVALS
from acmesim.policies.scheduling import SCHEDULERS
from acmesim.run import simulate

LOAD = 14e9 / (25e9 / 8) + 14e9 / 16e9  # 4.48 + 0.875 = 5.355 s
REMOTE_LOAD = 14e9 * 8 / (25e9 / 8)  # 35.84 s, the coupled reference load


def work(r: float) -> float:
    """Preprocessing + inference seconds of a 1-GPU trace Eval job of r s."""
    return max(0.0, 0.295 * r - 35.84) + 0.515 * r


def burst_and_pretrain() -> pd.DataFrame:
    """One request (u1, t=0: 1000 s, 1000 s, 200 s on 1 GPU) and an 8-GPU job behind it."""
    return frame([
        job(0, 1000, type="Eval", user="u1", job_id="e1"),
        job(0, 1000, type="Eval", user="u1", job_id="e2"),
        job(0, 200, type="Eval", user="u1", job_id="e3"),
        job(0, 500, gpus=8, type="Pretrain", user="u2", job_id="p"),
    ])


def replay(jobs, mode, **options):
    result = simulate(jobs, cluster(1), eval={"name": mode, **options}, audit=True)
    tables = {schema.file_name: table for schema, table in result.tables}
    return result, tables["eval_requests.csv"], tables["eval_jobs.csv"].set_index("job_id")


def test_coupled_replays_the_trace_jobs_and_reports_the_request():
    result, requests, datasets = replay(burst_and_pretrain(), "coupled")
    rows = by_id(result.jobs)
    assert [(rows[j]["start_time"], rows[j]["end_time"]) for j in ("e1", "e2", "e3", "p")] == [
        (0, 1000), (0, 1000), (0, 200), (1000, 1500)]
    (request,) = requests.to_dict("records")
    assert (request["request_id"], request["user"], request["jobs"], request["trials"]) == (
        "e1", "u1", 3, 3)
    assert request["queue_delay"] == 0 and request["makespan"] == 1000
    assert request["recorded_gpu_time"] == request["gpu_time_held"] == 2200
    assert request["metric_cpu_time"] == 0
    assert datasets["result_time"].to_dict() == {"e1": 1000, "e2": 1000, "e3": 200}
    assert result.summary["eval_gpu_time"] == result.summary["eval_recorded_gpu_time"] == 2200


def test_decoupled_splits_merges_and_moves_metrics_off_the_gpu():
    # Width 3 GPUs: W = (774.16 x 2 + 126.16) / 3 = 558.16. e1, e2: target 558.16 - 190 ->
    # ceil(774.16 / 368.16) = 3 shards each; e3 (126.16 < W / 4) is a trial of its own, last.
    result, requests, datasets = replay(burst_and_pretrain(), "decoupled")
    rows = by_id(result.jobs)
    shard = LOAD + work(1000) / 3  # 263.408 s
    small = LOAD + work(200)  # 131.515 s
    trials = [f"e1/t{i:03d}" for i in range(7)]
    assert sorted(rows) == sorted([*trials, "p"])
    for trial in trials[:6]:
        assert rows[trial]["start_time"] == 0
        assert rows[trial]["end_time"] == pytest.approx(shard, abs=1e-9)
    assert rows["e1/t006"]["end_time"] == pytest.approx(small, abs=1e-9)
    assert rows["p"]["start_time"] == pytest.approx(shard, abs=1e-9)  # was 1000 s coupled
    assert datasets.loc["e1", "trials"] == "e1/t000;e1/t001;e1/t002"
    assert datasets.loc["e3", "metric_start"] == pytest.approx(small, abs=1e-9)
    assert datasets.loc["e3", "result_time"] == pytest.approx(small + 38.0, abs=1e-9)
    assert datasets.loc["e1", "result_time"] == pytest.approx(shard + 190.0, abs=1e-9)
    (request,) = requests.to_dict("records")
    assert request["trials"] == 7 and request["queue_delay"] == 0
    assert request["makespan"] == pytest.approx(shard + 190.0, abs=1e-9)  # 453.4 s vs 1000 s
    assert request["gpu_time_held"] == pytest.approx(6 * shard + small, abs=1e-6)  # 1711.965
    assert request["recorded_gpu_time"] == 2200
    assert request["metric_cpu_time"] == pytest.approx(190 + 190 + 38)
    assert result.summary["eval_gpu_time"] == pytest.approx(6 * shard + small, abs=1e-6)
    assert result.summary["eval_recorded_gpu_time"] == 2200


def test_merged_trial_finishes_its_first_dataset_mid_trial():
    # 1000 s + two 100 s jobs, width 3: W = (774.16 + 2 x 51.5) / 3; the 1000 s job splits in 3
    # (capped at 3 slots), the two small ones (51.5 s < W / 4) merge into one trial, last.
    jobs = frame([job(0, 1000, type="Eval", job_id="big"),
                  job(0, 100, type="Eval", job_id="s1"),
                  job(0, 100, type="Eval", job_id="s2")])
    result, requests, datasets = replay(jobs, "decoupled")
    rows = by_id(result.jobs)
    merged = rows["big/t003"]
    assert merged["end_time"] == pytest.approx(LOAD + 2 * 51.5, abs=1e-9)
    assert datasets.loc["s1", "trials"] == datasets.loc["s2", "trials"] == "big/t003"
    assert datasets.loc["s1", "predictions_end"] == pytest.approx(LOAD + 51.5, abs=1e-9)
    assert datasets.loc["s1", "result_time"] == pytest.approx(LOAD + 51.5 + 19.0, abs=1e-9)
    assert datasets.loc["s2", "result_time"] == pytest.approx(LOAD + 103.0 + 19.0, abs=1e-9)
    big = LOAD + work(1000) / 3
    assert requests.loc[0, "makespan"] == pytest.approx(big + 190.0, abs=1e-9)
    assert requests.loc[0, "gpu_time_held"] == pytest.approx(3 * big + LOAD + 103.0, abs=1e-6)


def test_ablations_change_the_trials_exactly():
    unpacked = by_id(replay(burst_and_pretrain(), "decoupled", prior_packing=False)[0].jobs)
    assert sorted(unpacked) == ["e1/t000", "e1/t001", "e1/t002", "p"]
    assert unpacked["e1/t000"]["run_time"] == pytest.approx(LOAD + work(1000), abs=1e-9)
    assert unpacked["p"]["start_time"] == pytest.approx(LOAD + work(1000), abs=1e-9)
    remote = by_id(replay(burst_and_pretrain(), "decoupled", decouple_loading=False)[0].jobs)
    assert remote["e1/t000"]["run_time"] == pytest.approx(REMOTE_LOAD + work(1000) / 3, abs=1e-9)


def test_a_request_waits_for_gpus_in_both_modes():
    jobs = frame([job(0, 100, gpus=8, type="Other", job_id="busy"),
                  job(10, 1000, type="Eval", job_id="e1"),
                  job(10, 1000, type="Eval", job_id="e2")])
    # decoupled: width 2 -> W = 774.16, target 584.16 -> both jobs split in 2 shards
    expected = {"coupled": 90 + 1000, "decoupled": 90 + LOAD + 774.16 / 2 + 190}
    for name, makespan in expected.items():
        _, requests, _ = replay(jobs, name)
        assert requests.loc[0, "submit_time"] == 10
        assert requests.loc[0, "queue_delay"] == 90
        assert requests.loc[0, "makespan"] == pytest.approx(makespan, abs=1e-9), name


def test_grouping_rule_user_second_and_gpu_count():
    jobs = frame([
        job(0.0, 10, type="Eval", user="u1", job_id="a"),
        job(0.4, 10, type="Eval", user="u1", job_id="b"),  # same second: same request
        job(0.0, 10, gpus=2, type="Eval", user="u1", job_id="c"),  # other GPU count
        job(0.0, 10, type="Eval", user="u2", job_id="d"),  # other user
        job(1.0, 10, type="Eval", user="u1", job_id="e"),  # next second
        job(0.0, 10, gpus=0, type="Eval", user="u1", job_id="cpu"),  # CPU-only: not grouped
        job(0.0, 10, type="SFT", user="u1", job_id="sft"),
    ])
    batches = group_eval_jobs(jobs)
    members = {b.request_id: [jobs.job_id[r] for r in b.rows] for b in batches}
    assert members == {"a": ["a", "b"], "c": ["c"], "d": ["d"], "e": ["e"]}
    assert {b.request_id: b.gpu_num for b in batches}["c"] == 2


def test_rewritten_table_keeps_other_rows_and_places_trials_at_the_request():
    jobs = frame([job(0, 50, type="Other", job_id="o1"),
                  job(5, 1000, type="Eval", job_id="e1", start=7),
                  job(5, 300, type="Eval", job_id="e2", start=9),
                  job(6, 50, type="SFT", job_id="s1")])
    jobs["gpu_util"] = [0.5, 0.4, 0.4, 0.9]
    table = EVALS.create("decoupled", {"prior_packing": False}).rewrite(jobs, cluster(1))
    assert list(table.job_id) == ["o1", "e1/t000", "e1/t001", "s1"]
    assert table.set_index("job_id").loc[["o1", "s1"]].equals(jobs.set_index("job_id").loc[
        ["o1", "s1"]])
    trial = table.set_index("job_id").loc["e1/t000"]
    assert trial["submit_time"] == jobs.submit_time[1] and trial["start_time"] == jobs.start_time[1]
    assert trial["run_time"] == pytest.approx(LOAD + work(1000), abs=1e-9)
    assert trial["gpu_util"] == round(515 / (LOAD + work(1000)), 4)
    assert table["submit_time"].dtype == jobs["submit_time"].dtype


def test_trial_state_is_completed_only_when_every_source_job_completed():
    jobs = frame([job(0, 20, type="Eval", job_id="ok"),
                  job(0, 20, type="Eval", job_id="bad", state="FAILED")])
    result, _, _ = replay(jobs, "decoupled")  # both tiny: merged into one trial
    assert list(result.jobs.state) == ["FAILED"]


def test_coupled_jobs_table_equals_the_base_schedulers():
    jobs = frame([job(i * 7 % 50, 30 + 11 * i, gpus=1 + i % 3, type=("Eval", "SFT")[i % 2],
                      user=f"u{i % 3}") for i in range(30)])
    for base in ("fifo", "acme_reservation"):
        plain = simulate(jobs, cluster(2), base).jobs
        wrapped = simulate(jobs, cluster(2), base, eval="coupled")
        pd.testing.assert_frame_equal(plain, wrapped.jobs)


def test_recorded_mode_replays_the_trace_and_writes_no_eval_tables():
    result = simulate(burst_and_pretrain(), cluster(1), eval="decoupled", mode="recorded")
    assert sorted(result.jobs.job_id) == ["e1", "e2", "e3", "p"] and result.tables == []


def test_fifo_metric_queue_hand_computed():
    assert fifo_starts([0, 0, 0, 5], [10, 4, 3, 1], slots=2) == [0, 0, 4, 7]
    assert fifo_starts([0, 1, 2], [5, 5, 5], slots=1) == [0, 5, 10]
    assert fifo_starts([], [], slots=3) == []
    with pytest.raises(ValueError, match="slots"):
        fifo_starts([0], [1], slots=0)
    with pytest.raises(ValueError, match="non-decreasing"):
        fifo_starts([2, 1], [1, 1], slots=1)


def test_options_are_validated_when_the_config_is_built():
    with pytest.raises(UnknownNameError, match="fifo"):
        SCHEDULERS.make_config("eval_decoupled", {"base": "nope"})
    with pytest.raises(ConfigError, match="ordinary"):
        SCHEDULERS.make_config("eval_coupled", {"base": "eval_decoupled"})
    with pytest.raises(UnknownOptionError, match="preempt_depth"):
        SCHEDULERS.make_config("eval_coupled", {"base": "acme_reservation",
                                                "base_options": {"nope": 1}})
    with pytest.raises(ConfigError, match="merge_below"):
        SCHEDULERS.make_config("eval_decoupled", {"merge_below": 2.0})
    with pytest.raises(ConfigError, match="request_gpus"):
        SCHEDULERS.make_config("eval_decoupled", {"request_gpus": -1})
    with pytest.raises(ConfigError, match="merge_below"):
        EVALS.make_config("decoupled", {"merge_below": 2.0})
    with pytest.raises(ConfigError, match="request_gpus"):
        EVALS.make_config("decoupled", {"request_gpus": -1})
    config = SCHEDULERS.make_config("eval_decoupled", {"base": "reservation"})
    assert config.base == "acme_reservation"
