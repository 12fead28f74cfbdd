"""Planners: cut a dataset suite into trials, from known per-dataset times (the priors).

``one_trial_per_dataset`` is the coupled baseline (what the trace records). ``prior_packed_trials``
is the coordinator's prior-based elastic scheduling (acme_facts.md §5, technique 3):

A dataset's *work* is ``prep_s + inference_s``; its *GPU cost* is its work, plus ``metric_s``
when metrics run on the GPU (``metrics_on_gpu``, i.e. metric decoupling is off).

1. The balanced share is ``W = max(sum of GPU costs / slots, min_trial_s)``, where
   ``slots = gpus // model.gpus`` trials can run at once.
2. Split: a dataset's metric is not split (it runs once, after its last shard), so its critical
   path is ``work / k + metric_s``. The dataset becomes ``k = ceil(work / target)`` equal
   shards with ``target = max(W - metric_s, min_trial_s)``, so that path fits in ``W`` where it
   can; ``k`` is at most ``slots``.
3. Merge: datasets with ``GPU cost < merge_below * W`` and ``metric_s < W`` are packed first-fit,
   in order-key order, into trials of at most ``W`` GPU cost, saving model loads. Datasets with a
   long metric never wait behind merged work.
4. Order: a trial's key is ``work + longest metric of its datasets`` (plain work when
   ``long_metrics_first`` is off); trials and the datasets inside a merged trial are sorted by
   decreasing key, ties by suite position. The execution model dispatches this queue greedily to
   the next free GPU: longest-processing-time-first list scheduling (round-robin over the sorted
   queue while every GPU is free).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from acmesim.evaluation.plan import Shard, Trial
from acmesim.evaluation.spec import Dataset, EvalRequest


def _whole(dataset: Dataset) -> Shard:
    """The whole dataset as a single shard."""
    return Shard(dataset.name, 0, 1, dataset.prep_s, dataset.inference_s)


_new = tuple.__new__
"""Builds a named tuple from its fields without the Python-level ``__new__`` call (the same
tuple): a cluster replay plans about 170,000 shards and trials on 60 days of Seren."""


def _split(dataset: Dataset, count: int) -> list[Shard]:
    """``count`` equal shards of ``dataset``."""
    name, prep, inference = dataset.name, dataset.prep_s / count, dataset.inference_s / count
    return [_new(Shard, (name, i, count, prep, inference)) for i in range(count)]


def _numbered(groups: Sequence[Sequence[Shard]], gpu_num: int) -> tuple[Trial, ...]:
    """Trials ``t000, t001, ...`` from shard groups, in the given order."""
    return tuple([_new(Trial, (trial_id, tuple(g), gpu_num))
                  for trial_id, g in zip(_trial_ids(len(groups)), groups, strict=True)])


_TRIAL_IDS: list[str] = []
"""``t000, t001, ...`` as far as a plan has needed them (formatted once per process)."""


def _trial_ids(count: int) -> list[str]:
    """The first ``count`` trial ids ``t000, t001, ...``."""
    if len(_TRIAL_IDS) < count:
        _TRIAL_IDS.extend(f"t{i:03d}" for i in range(len(_TRIAL_IDS), count))
    return _TRIAL_IDS[:count]


def one_trial_per_dataset(request: EvalRequest) -> tuple[Trial, ...]:
    """The coupled baseline: one trial per dataset, in suite order."""
    return _numbered([[_whole(d)] for d in request.datasets], request.model.gpus)


def gpu_cost_s(dataset: Dataset, metrics_on_gpu: bool) -> float:
    """Seconds the dataset holds a GPU apart from loading: work, plus metric when on the GPU."""
    return dataset.gpu_work_s + (dataset.metric_s if metrics_on_gpu else 0.0)


def balanced_share(
    request: EvalRequest, gpus: int, min_trial_s: float, metrics_on_gpu: bool = False
) -> float:
    """Step 1: GPU-cost seconds per concurrent trial slot, at least ``min_trial_s``."""
    slots = max(1, gpus // request.model.gpus)
    total = sum(gpu_cost_s(d, metrics_on_gpu) for d in request.datasets)
    return max(total / slots, min_trial_s)


def prior_packed_trials(
    request: EvalRequest,
    gpus: int,
    *,
    merge_below: float,
    min_trial_s: float,
    long_metrics_first: bool = True,
    metrics_on_gpu: bool = False,
) -> tuple[Trial, ...]:
    """The coordinator's planner: split large datasets, merge small ones, order by priority."""
    share = balanced_share(request, gpus, min_trial_s, metrics_on_gpu)
    position = {d.name: i for i, d in enumerate(request.datasets)}
    metric_of = {d.name: d.metric_s for d in request.datasets}

    def key(group: Sequence[Shard]) -> tuple[float, int, int]:
        first = group[0]
        if len(group) == 1:  # most groups: the same key without the generators
            work, metric = first.prep_s + first.inference_s, metric_of[first.dataset]
        else:
            work = sum(s.gpu_work_s for s in group)
            metric = max(metric_of[s.dataset] for s in group)
        weight = work + (metric if long_metrics_first else 0.0)
        return (-weight, position[first.dataset], first.index)

    # Units of consecutive trials: a split dataset's shards (one group each, index order),
    # or one whole or merged group. Each dataset is in one unit, so no two units share the
    # key's position, and the shards of a dataset differ only in index: ordering the units by
    # their first group's key and expanding them is the order of every group by its key.
    units: list[list[Sequence[Shard]]] = []
    small: list[list[Shard]] = []
    slots = max(1, gpus // request.model.gpus)
    for dataset in request.datasets:
        target = max(share - dataset.metric_s, min_trial_s)
        count = min(_shard_count(dataset.gpu_work_s, target), slots)
        if count > 1:
            units.append([(shard,) for shard in _split(dataset, count)])
        elif gpu_cost_s(dataset, metrics_on_gpu) < merge_below * share and (
            dataset.metric_s < share
        ):
            small.append([_whole(dataset)])
        else:
            units.append([[_whole(dataset)]])
    cost = {d.name: gpu_cost_s(d, metrics_on_gpu) for d in request.datasets}
    units.extend([group] for group in _first_fit(sorted(small, key=key), cost, share))
    units.sort(key=lambda unit: key(unit[0]))
    return _numbered([group for unit in units for group in unit], request.model.gpus)


def _shard_count(work: float, target: float) -> int:
    """``ceil(work / target)``, robust to rounding when work is an exact multiple of target."""
    if target <= 0 or work <= target:
        return 1
    return max(1, math.ceil(work / target * (1.0 - 1e-12)))


def _first_fit(
    items: Sequence[list[Shard]], cost: dict[str, float], capacity: float
) -> list[list[Shard]]:
    """Pack whole-dataset items, in the given order, into bins of at most ``capacity`` cost."""
    bins: list[list[Shard]] = []
    loads: list[float] = []
    for item in items:
        work = cost[item[0].dataset]
        for i, load in enumerate(loads):
            if load + work <= capacity:
                bins[i].extend(item)
                loads[i] += work
                break
        else:
            bins.append(list(item))
            loads.append(work)
    return bins
