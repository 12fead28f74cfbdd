"""The coordinator's trial order, built by sorting units (a split dataset's shards, or one whole
or merged group), is the order of every group sorted by its own key, as the planner's
docstring defines it (step 4); checked against that definition written out here."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from acmesim.evaluation.plan import Shard
from acmesim.evaluation.planning import (
    _first_fit,
    _numbered,
    _shard_count,
    _split,
    _whole,
    balanced_share,
    gpu_cost_s,
    prior_packed_trials,
)
from acmesim.evaluation.spec import Dataset, EvalRequest, ModelSpec


def by_group_key(request, gpus, *, merge_below, min_trial_s, long_metrics_first,
                 metrics_on_gpu):
    """Step 4 as written: every group (each shard of a split dataset alone) sorted by its key."""
    share = balanced_share(request, gpus, min_trial_s, metrics_on_gpu)
    position = {d.name: i for i, d in enumerate(request.datasets)}
    metric_of = {d.name: d.metric_s for d in request.datasets}

    def key(group: Sequence[Shard]):
        work = sum(s.gpu_work_s for s in group)
        metric = max(metric_of[s.dataset] for s in group)
        return (-(work + (metric if long_metrics_first else 0.0)), position[group[0].dataset],
                group[0].index)

    groups, small = [], []
    slots = max(1, gpus // request.model.gpus)
    for dataset in request.datasets:
        count = min(_shard_count(dataset.gpu_work_s, max(share - dataset.metric_s,
                                                         min_trial_s)), slots)
        if count > 1:
            groups.extend([shard] for shard in _split(dataset, count))
        elif gpu_cost_s(dataset, metrics_on_gpu) < merge_below * share and (
                dataset.metric_s < share):
            small.append([_whole(dataset)])
        else:
            groups.append([_whole(dataset)])
    cost = {d.name: gpu_cost_s(d, metrics_on_gpu) for d in request.datasets}
    groups.extend(_first_fit(sorted(small, key=key), cost, share))
    return _numbered(sorted(groups, key=key), request.model.gpus)


seconds = st.sampled_from([0.0, 1.0, 30.0, 60.0, 120.0]) | st.floats(0, 5000)
datasets = st.lists(st.tuples(seconds, seconds, seconds), min_size=1, max_size=12)


@settings(max_examples=300, deadline=None)
@given(datasets, st.sampled_from([1, 2, 4]), st.integers(1, 64),
       st.sampled_from([0.0, 0.25, 1.0]), st.sampled_from([0.0, 60.0, 600.0]),
       st.booleans(), st.booleans())
def test_trials_are_in_the_order_of_their_groups_keys(times, model_gpus, gpus, merge_below,
                                                     min_trial_s, long_first, on_gpu):
    request = EvalRequest("r", ModelSpec("m", gpus=model_gpus),
                          tuple(Dataset(f"d{i}", p, n, m) for i, (p, n, m) in enumerate(times)))
    options = {"merge_below": merge_below, "min_trial_s": min_trial_s,
               "long_metrics_first": long_first, "metrics_on_gpu": on_gpu}
    assert prior_packed_trials(request, gpus, **options) == by_group_key(request, gpus,
                                                                        **options)
