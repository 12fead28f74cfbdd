"""Planners and the scheduler registry: split, merge, order, coverage checks, plug-in errors."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acmesim.core.errors import ConfigError, UnknownNameError, UnknownOptionError
from acmesim.evaluation import (
    EVAL_SCHEDULERS,
    Dataset,
    EvalPlan,
    EvalRequest,
    ExecutionOptions,
    ModelSpec,
    Shard,
    Trial,
    balanced_share,
    one_trial_per_dataset,
    prior_packed_trials,
)
from acmesim.studies.evaluation import create_scheduler

MODEL = ModelSpec("m", params=1e9)
SUITE = (
    Dataset("A", 1.0, 8.0, 6.0),
    Dataset("B", 1.0, 3.0, 1.0),
    Dataset("C", 1.0, 1.0, 0.0),
    Dataset("D", 0.5, 0.5, 0.5),
)
REQUEST = EvalRequest("r", MODEL, SUITE)


def labels(trials):
    return [t.label for t in trials]


def test_coupled_planner_is_one_trial_per_dataset_in_suite_order():
    trials = one_trial_per_dataset(REQUEST)
    assert labels(trials) == ["A", "B", "C", "D"]
    assert [t.trial_id for t in trials] == ["t000", "t001", "t002", "t003"]
    assert all(t.gpu_num == 1 for t in trials)


def test_balanced_share_counts_metrics_only_when_they_hold_the_gpu():
    assert balanced_share(REQUEST, 2, 0.0) == 16.0 / 2
    assert balanced_share(REQUEST, 2, 0.0, metrics_on_gpu=True) == 23.5 / 2
    assert balanced_share(REQUEST, 2, 100.0) == 100.0
    two_gpu = EvalRequest("r", ModelSpec("m", gpus=2), SUITE)
    assert balanced_share(two_gpu, 4, 0.0) == 16.0 / 2  # 4 GPUs = 2 slots of 2


def test_split_makes_room_for_the_metric_and_is_capped_by_slots():
    # 8 GPUs: W = 16 / 8 = 2. A: target max(2 - 6, .5) = .5 -> ceil(9 / .5) = 18, capped at 8.
    # B: target max(2 - 1, .5) = 1 -> 4 shards of (.25, .75). C: work 2 = W -> whole.
    trials = prior_packed_trials(REQUEST, 8, merge_below=0.0, min_trial_s=0.5)
    by_dataset = {}
    for t in trials:
        for s in t.shards:
            by_dataset.setdefault(s.dataset, []).append(s)
    assert len(by_dataset["A"]) == 8
    assert all(s.prep_s == 1 / 8 and s.inference_s == 1.0 for s in by_dataset["A"])
    assert [(s.prep_s, s.inference_s) for s in by_dataset["B"]] == [(0.25, 0.75)] * 4
    assert [s.count for s in by_dataset["C"]] == [1]


def test_min_trial_s_prevents_tiny_shards():
    trials = prior_packed_trials(REQUEST, 8, merge_below=0.0, min_trial_s=60.0)
    assert labels(trials) == ["A", "B", "C", "D"]  # W = 60: nothing is split


def test_merge_and_order_match_the_hand_worked_plans():
    # See test_evaluation_execution: metrics on the GPU -> W = 11.75, A in 2 shards, C;D merged.
    on_gpu = prior_packed_trials(REQUEST, 2, merge_below=0.25, min_trial_s=1.0,
                                 metrics_on_gpu=True)
    assert labels(on_gpu) == ["A[1/2]", "A[2/2]", "B", "C;D"]
    # Metrics decoupled -> W = 8; merge threshold 2 keeps C (work 2) alone.
    off_gpu = prior_packed_trials(REQUEST, 2, merge_below=0.25, min_trial_s=1.0)
    assert labels(off_gpu) == ["A[1/2]", "A[2/2]", "B", "C", "D"]


def test_long_metric_first_versus_plain_longest_work_first():
    suite = (Dataset("big", 0.0, 10.0, 0.0), Dataset("judge", 0.0, 4.0, 30.0))
    request = EvalRequest("r", MODEL, suite)
    kwargs = {"merge_below": 0.0, "min_trial_s": 100.0}
    first = prior_packed_trials(request, 2, long_metrics_first=True, **kwargs)
    plain = prior_packed_trials(request, 2, long_metrics_first=False, **kwargs)
    assert labels(first) == ["judge", "big"]
    assert labels(plain) == ["big", "judge"]


def test_datasets_with_long_metrics_are_never_merged():
    suite = (Dataset("long", 0.0, 90.0, 0.0), Dataset("s1", 0.0, 1.0, 0.0),
             Dataset("s2", 0.0, 1.0, 0.0), Dataset("judge", 0.0, 1.0, 500.0))
    request = EvalRequest("r", MODEL, suite)
    trials = prior_packed_trials(request, 1, merge_below=0.5, min_trial_s=0.0)
    # W = 93: s1, s2 merge; judge (metric 500 >= W) stays alone and goes first.
    assert labels(trials) == ["judge", "long", "s1;s2"]


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.tuples(*[st.integers(min_value=0, max_value=50)] * 3), min_size=1, max_size=12),
    st.integers(min_value=1, max_value=16),
    st.booleans(),
)
def test_packed_plans_cover_every_dataset_exactly(times, gpus, on_gpu):
    suite = tuple(Dataset(f"d{i}", *map(float, t)) for i, t in enumerate(times))
    request = EvalRequest("r", MODEL, suite)
    trials = prior_packed_trials(request, gpus, merge_below=0.25, min_trial_s=5.0,
                                 metrics_on_gpu=on_gpu)
    plan = EvalPlan(request, trials, ExecutionOptions(), "test")  # validates coverage
    assert sum(t.inference_s for t in plan.trials) == pytest.approx(sum(t[1] for t in times))
    assert sum(t.prep_s for t in plan.trials) == pytest.approx(sum(t[0] for t in times))
    assert max(s.count for t in trials for s in t.shards) <= gpus
    assert len({t.trial_id for t in trials}) == len(trials)


def test_plan_rejects_missing_or_duplicated_shards():
    whole = Trial("t0", (Shard("A", 0, 1, 1.0, 8.0),), 1)
    with pytest.raises(ConfigError, match="expected datasets"):
        EvalPlan(REQUEST, (whole,), ExecutionOptions(), "x")
    others = one_trial_per_dataset(REQUEST)[1:]
    half = Trial("t9", (Shard("A", 0, 2, 0.5, 4.0),), 1)
    with pytest.raises(ConfigError, match="0..k-1"):
        EvalPlan(REQUEST, (half, *others), ExecutionOptions(), "x")
    with pytest.raises(ConfigError, match="0..k-1"):
        EvalPlan(REQUEST, (whole, whole, *others), ExecutionOptions(), "x")


def test_registry_lists_both_plug_ins_and_their_aliases():
    assert EVAL_SCHEDULERS.names() == ["coupled", "decoupled"]
    assert EVAL_SCHEDULERS.canonical("coordinator") == "decoupled"
    assert EVAL_SCHEDULERS.canonical("baseline") == "coupled"


def test_registry_errors_name_the_valid_choices():
    with pytest.raises(UnknownNameError, match="valid eval_scheduler names: coupled, decoupled"):
        create_scheduler("opencompass")
    with pytest.raises(UnknownOptionError, match="decouple_loading"):
        create_scheduler("decoupled", {"decouple_load": False})
    with pytest.raises(UnknownOptionError, match="partitioner"):
        create_scheduler("coupled", {"prior_packing": True})
    with pytest.raises(ConfigError, match="must be bool"):
        create_scheduler("decoupled", {"prior_packing": "yes"})
    with pytest.raises(ConfigError, match="merge_below"):
        create_scheduler("decoupled", {"merge_below": 2})


def test_each_switch_reaches_the_plan():
    plan = create_scheduler("decoupled", {"decouple_metrics": False}).plan(REQUEST, 2)
    assert plan.options == ExecutionOptions(decouple_loading=True, decouple_metrics=False)
    assert plan.scheduler == "decoupled"
    unpacked = create_scheduler("decoupled", {"prior_packing": False}).plan(REQUEST, 2)
    assert unpacked.trials == one_trial_per_dataset(REQUEST)
    coupled = create_scheduler("coupled").plan(REQUEST, 2)
    assert coupled.options == ExecutionOptions() and coupled.scheduler == "coupled"
