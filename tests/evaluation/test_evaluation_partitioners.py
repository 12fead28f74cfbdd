"""OpenCompass partitioners (naive, size) and the staged run, checked on hand-worked suites.

Hand-worked setup (exact in binary floating point), as in test_evaluation_execution:

- one node, 2 GPUs; NIC 8 Gb/s = 1 GB/s; model 1e9 params x 2 bytes = 2 GB, so a remote load
  takes 2 s alone and 4 s when two trials start loading together.
- suite, in suite order, (prep, inference, metric) seconds: B (0, 6, 1), E (0, 1, 0),
  A (3, 24, 2), D (0, 3, 5), C (0, 4, 0).
- size partitioner with 1 size unit per inference second and ``max_task_size = 10``:
  sizes A 24, B 6, C 4, D 3, E 1 (largest first). A > 10 -> ceil(24 / 10) = 3 chunks of
  (1, 8), each counted as 10. Next-fit over [A1 10, A2 10, A3 10, B 6, C 4, D 3, E 1]:
  A1 | A2 | A3 | B + C = 10 (fits: <= 10) | D + E = 4.
"""

from __future__ import annotations

import math

import pytest
from eval_tiny import CLUSTER, MODEL
from hypothesis import given, settings
from hypothesis import strategies as st

from acmesim.core.errors import ConfigError
from acmesim.evaluation import (
    Dataset,
    EvalPlan,
    EvalRequest,
    ExecutionOptions,
    one_trial_per_dataset,
    suite_request,
)
from acmesim.evaluation import calibration as cal
from acmesim.evaluation.partitioners import (
    GEN_TASK_COEF,
    HUMANEVAL_SAMPLES,
    MAX_TASK_SIZE_2023,
    naive_partition,
    size_partition,
    units_per_inference_s,
)
from acmesim.studies.evaluation import create_scheduler, evaluate, plan_request
from acmesim.studies.evaluation.staged import staged_summary

SUITE = (
    Dataset("B", 0.0, 6.0, 1.0),
    Dataset("E", 0.0, 1.0, 0.0),
    Dataset("A", 3.0, 24.0, 2.0),
    Dataset("D", 0.0, 3.0, 5.0),
    Dataset("C", 0.0, 4.0, 0.0),
)
REQUEST = EvalRequest("r", MODEL, SUITE)
SIZE = {"partitioner": "size", "max_task_size": 10.0}


def labels(trials):
    return [t.label for t in trials]


def timeline(result):
    """trial label -> (load_start, load_end, inference_end, metric_end or None, released)."""
    return {
        t.datasets: (t.load_start, t.load_end, t.inference_end,
                     None if math.isnan(t.metric_end) else t.metric_end, t.released)
        for t in result.trials
    }


def size_options() -> dict:
    """Coupled options whose gen_task_coef gives exactly 1 size unit per inference second."""
    coef = cal.PROFILE_INFERENCE_S / HUMANEVAL_SAMPLES
    assert units_per_inference_s(coef) == 1.0  # exact, so the hand-worked sizes hold
    return {**SIZE, "gen_task_coef": coef}


def test_size_partition_matches_the_hand_worked_tasks():
    trials = size_partition(REQUEST, 10.0, 1.0)
    assert create_scheduler("coupled", size_options()).plan(REQUEST, 2).trials == trials
    assert labels(trials) == ["A[1/3]", "A[2/3]", "A[3/3]", "B;C", "D;E"]
    assert [t.trial_id for t in trials] == ["t000", "t001", "t002", "t003", "t004"]
    a_chunks = [s for t in trials[:3] for s in t.shards]
    assert [(s.prep_s, s.inference_s) for s in a_chunks] == [(1.0, 8.0)] * 3


def test_split_strategy_gives_every_chunk_and_dataset_its_own_task():
    trials = size_partition(REQUEST, 10.0, 1.0, strategy="split")
    assert labels(trials) == ["A[1/3]", "A[2/3]", "A[3/3]", "B", "C", "D", "E"]


def test_coupled_size_makespan_worked_by_hand():
    # t=0: A1 -> gpu0, A2 -> gpu1, loading together: 4. Prep 4-5, inference 5-13, released 13.
    # t=13: A3 -> gpu0, B;C -> gpu1, loading together: 17.
    # A3: prep 17-18, inference 18-26, A's last chunk -> metric on the GPU 26-28, released 28.
    # B;C: B inference 17-23, metric 23-24; C inference 24-28, metric 0; released 28.
    # t=28: D;E loads alone 28-30; D inference 30-33, metric 33-38; E inference 38-39.
    result = evaluate(REQUEST, CLUSTER, "coupled", size_options())
    assert timeline(result) == {
        "A[1/3]": (0.0, 4.0, 13.0, None, 13.0),
        "A[2/3]": (0.0, 4.0, 13.0, None, 13.0),
        "A[3/3]": (13.0, 17.0, 26.0, 28.0, 28.0),
        "B;C": (13.0, 17.0, 28.0, 28.0, 28.0),
        "D;E": (28.0, 30.0, 39.0, 39.0, 39.0),
    }
    assert {d.dataset: d.metric_end for d in result.datasets} == {
        "B": 24.0, "E": 39.0, "A": 28.0, "D": 38.0, "C": 28.0}
    s = result.summary()
    assert (s.trials, s.makespan_s, s.time_to_first_result_s) == (5, 39.0, 24.0)
    assert s.gpu_time_held_s == 13.0 + 13.0 + 15.0 + 15.0 + 11.0


def test_naive_baseline_on_the_same_suite_worked_by_hand():
    # t=0: B -> gpu0, E -> gpu1, loaded together at 4. E: inference 4-5, released 5.
    # t=5: A -> gpu1, loads alone 5-7, prep 7-10, inference 10-34, metric 34-36.
    # B: inference 4-10, metric 10-11; t=11: D -> gpu0, load 11-13, inference 13-16,
    # metric 16-21; t=21: C -> gpu0, load 21-23, inference 23-27. Makespan 36 (A).
    s = evaluate(REQUEST, CLUSTER, "coupled").summary()
    assert (s.trials, s.makespan_s, s.time_to_first_result_s) == (5, 36.0, 5.0)


def test_staged_run_worked_by_hand():
    # Same size tasks, GPUs released after inference: A1, A2 as before (13); A3 and B;C
    # loaded at 17; A3 inference ends 26 -> D;E on gpu0 loads alone 26-28, D 28-31, E 31-32.
    # B;C: B 17-23, C 23-27. Barrier: last inference at 32.
    # Eval stage, suite order B(1) E(0) A(2) D(5) C(0) on 2 workers from 32:
    # B 32-33, E 32-32, A 32-34, D 33-38, C 34-34 -> makespan 38, first result 32.
    # On 1 worker: B 32-33, E 33, A 33-35, D 35-40, C 40 -> makespan 40, first result 33.
    plan = plan_request(REQUEST, CLUSTER, "coupled", size_options())
    two = staged_summary(plan, CLUSTER, eval_workers=2)
    assert (two.makespan_s, two.time_to_first_result_s) == (38.0, 32.0)
    assert two.gpu_time_held_s == 13.0 + 13.0 + 13.0 + 14.0 + 6.0
    assert two.scheduler == "coupled staged"
    one = staged_summary(plan, CLUSTER, eval_workers=1)
    assert (one.makespan_s, one.time_to_first_result_s) == (40.0, 33.0)


def test_a_dataset_exactly_at_the_cap_is_not_split_and_merging_may_fill_to_the_cap():
    suite = (Dataset("X", 0.0, 10.0, 0.0), Dataset("Y", 0.0, 7.0, 0.0),
             Dataset("Z", 0.0, 3.0, 0.0))
    trials = size_partition(EvalRequest("r", MODEL, suite), 10.0, 1.0)
    assert labels(trials) == ["X", "Y;Z"]


def test_chunks_count_as_a_full_task_so_they_never_share_one():
    # X (12) -> 2 chunks of 6, each counted as 10: Y (4) would fit beside 6 but stays alone.
    suite = (Dataset("X", 0.0, 12.0, 0.0), Dataset("Y", 0.0, 4.0, 0.0))
    trials = size_partition(EvalRequest("r", MODEL, suite), 10.0, 1.0)
    assert labels(trials) == ["X[1/2]", "X[2/2]", "Y"]
    assert [t.inference_s for t in trials] == [6.0, 6.0, 4.0]


def test_equal_sizes_keep_suite_order():
    suite = tuple(Dataset(n, 0.0, 2.0, 0.0) for n in ("P", "Q", "R"))
    assert labels(size_partition(EvalRequest("r", MODEL, suite), 4.0, 1.0)) == ["P;Q", "R"]


def test_naive_partition_groups_n_consecutive_datasets():
    assert labels(naive_partition(REQUEST, 2)) == ["B;E", "A;D", "C"]
    assert naive_partition(REQUEST) == one_trial_per_dataset(REQUEST)
    two = create_scheduler("coupled", {"datasets_per_task": 2}).plan(REQUEST, 2)
    assert labels(two.trials) == ["B;E", "A;D", "C"]


def test_coupled_default_is_still_one_trial_per_dataset():
    plan = create_scheduler("coupled").plan(REQUEST, 2)
    assert plan.trials == one_trial_per_dataset(REQUEST)
    assert plan.options == ExecutionOptions() and plan.scheduler == "coupled"


def test_size_plan_uses_no_runtime_information_about_the_cluster():
    scheduler = create_scheduler("coupled", {"partitioner": "size"})
    request = suite_request(0)
    assert scheduler.plan(request, 8).trials == scheduler.plan(request, 32).trials


def test_default_units_reproduce_opencompass_on_humaneval():
    # 164 problems x gen_task_coef 20 = 3,280 > 2,000 -> OpenCompass splits HumanEval in two
    # (step 2000 // 20 = 100 samples, evened out to 82 + 82).
    assert units_per_inference_s() * cal.PROFILE_INFERENCE_S == pytest.approx(164 * 20)
    assert (GEN_TASK_COEF, MAX_TASK_SIZE_2023) == (20, 2000)
    plan = create_scheduler("coupled", {"partitioner": "size"}).plan(suite_request(0), 8)
    counts = {s.dataset: s.count for t in plan.trials for s in t.shards}
    assert counts["HumanEval"] == 2


@pytest.mark.parametrize("options, match", [
    ({"partitioner": "sized"}, "partitioner must be one of naive, size"),
    ({"partitioner": "size", "max_task_size": 0}, "max_task_size must be > 0"),
    ({"gen_task_coef": -1}, "gen_task_coef must be > 0"),
    ({"strategy": "greedy"}, "strategy must be one of heuristic, split"),
    ({"datasets_per_task": 0}, "datasets_per_task must be >= 1"),
])
def test_bad_options_name_the_option_and_the_choices(options, match):
    with pytest.raises(ConfigError, match=match):
        create_scheduler("coupled", options)


def test_partitioner_functions_reject_bad_arguments():
    with pytest.raises(ConfigError, match="max_task_size must be a finite number > 0"):
        size_partition(REQUEST, math.inf, 1.0)
    with pytest.raises(ConfigError, match="strategy must be one of"):
        size_partition(REQUEST, 10.0, 1.0, strategy="x")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="per_task must be an integer >= 1"):
        naive_partition(REQUEST, 0)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(min_value=1, max_value=60), min_size=1, max_size=14),
    st.integers(min_value=1, max_value=25),
    st.sampled_from(["heuristic", "split"]),
)
def test_size_plans_cover_every_dataset_and_respect_the_cap(sizes, cap, strategy):
    suite = tuple(Dataset(f"d{i}", 0.5 * s, float(s), 1.0) for i, s in enumerate(sizes))
    request = EvalRequest("r", MODEL, suite)
    trials = size_partition(request, float(cap), 1.0, strategy)
    EvalPlan(request, trials, ExecutionOptions(), "test")  # validates coverage
    counted = []
    for trial in trials:
        shards = trial.shards
        if any(s.count > 1 for s in shards):
            assert len(shards) == 1  # a chunk never shares a task with a non-empty dataset
            assert shards[0].count == math.ceil(sizes[int(shards[0].dataset[1:])] / cap)
            counted.append(float(cap))
        else:
            counted.append(trial.inference_s)
            assert trial.inference_s <= cap or len(shards) == 1
            assert len(shards) == 1 or strategy == "heuristic"
    # Tasks come out largest first: the first item of each task never grows along the queue.
    firsts = [cap if t.shards[0].count > 1 else t.shards[0].inference_s for t in trials]
    assert firsts == sorted(firsts, reverse=True)
    assert sum(t.inference_s for t in trials) == pytest.approx(sum(sizes))
