"""OpenCompass task partitioners: the coupled baseline's ways of cutting a suite into GPU tasks.

The lab's evaluation toolkit, OpenCompass (GitHub ``open-compass/opencompass``), turns a
(model x datasets) evaluation into *inference tasks* with a partitioner; each task is one GPU
job that builds the model once and infers its datasets (or dataset chunks) in order
(``opencompass/tasks/openicl_infer.py``, ``OpenICLInferTask.run``). The runners launch tasks in
the partitioner's order, at most ``max_num_workers`` at a time (``opencompass/runners/slurm.py``,
``local.py``). Two partitioners are reproduced here:

- ``naive_partition`` = ``NaivePartitioner(n=1)`` (``opencompass/partitioners/naive.py``): tasks
  of ``n`` consecutive datasets in config order, default one per dataset. With ``n = 1`` this is
  ``planning.one_trial_per_dataset``.
- ``size_partition`` = ``SizePartitioner`` (``opencompass/partitioners/size.py``, stored commit
  11ce034): no runtime priors, only an *estimated size* per dataset,
  ``test samples x factor`` (``factor = gen_task_coef`` for generation datasets, else the number
  of PPL labels, x10 for a few long-output datasets). Then:

  1. datasets are sorted by estimated size, largest first (stable);
  2. a dataset with ``size > max_task_size`` is split into ``k`` equal chunks, ``k`` about
     ``ceil(size / max_task_size)`` (``split_dataset``); every chunk is *counted* as
     ``max_task_size``, so a chunk never shares a task (with a non-empty dataset);
  3. ``strategy="heuristic"`` (default): chunks and whole datasets, sorted by counted size
     (largest first, stable), are packed next-fit: a task is closed when the next item would
     push it over ``max_task_size``. ``strategy="split"``: one task per chunk or dataset.

Defaults, cited: ``gen_task_coef = 20`` (``size.py``; the ``--gen-task-coef`` flag of
``run.py``); ``max_task_size = 2000`` is the default of the ``--max-partition-size`` flag in the
early ``run.py`` (stored commit 014b24d), which ``run.py`` applies with ``--slurm`` or when the
config has no ``infer`` section, and the value in the docs' "Efficient Evaluation" guide. The
class default in ``size.py`` (11ce034) and the current CLI (``opencompass/cli/main.py``, 01338e4)
is 40000.

Size in simulated seconds (our suite has times, not sample counts): a dataset's estimated size
is ``inference_s x units_per_inference_s``, anchored on the profiled HumanEval job: 164 problems
(``openai/openai_humaneval`` dataset card) x ``gen_task_coef`` (its OpenCompass config
``humaneval_gen_8e312c.py`` is a generation task, not in the x10 list) = 3,280 size units for
its 113.84 s of inference (``calibration.PROFILE_INFERENCE_S``), 28.81 units per second. The
estimate is thus exactly proportional to the true inference time, which is *kinder* to this
baseline than OpenCompass's sample-count proxy. ``k = ceil(size / max_task_size)`` on these real
numbers; OpenCompass rounds through integer sample counts, which can differ by one chunk.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

from acmesim.core.errors import ConfigError
from acmesim.evaluation import calibration as cal
from acmesim.evaluation.plan import Shard, Trial
from acmesim.evaluation.spec import Dataset, EvalRequest

GEN_TASK_COEF: int = 20
"""SizePartitioner's size factor for generation datasets (OpenCompass ``size.py``, ``run.py``)."""

MAX_TASK_SIZE_2023: int = 2000
"""``--max-partition-size`` default of the early OpenCompass ``run.py`` (stored commit 014b24d)."""

MAX_TASK_SIZE_CURRENT: int = 40000
"""SizePartitioner class default (``size.py`` 11ce034) and current CLI default (``cli/main.py``)."""

HUMANEVAL_SAMPLES: int = 164
"""Test problems of HumanEval (``openai/openai_humaneval`` dataset card: 164 examples)."""

Strategy = Literal["heuristic", "split"]
STRATEGIES: tuple[str, ...] = ("heuristic", "split")


def units_per_inference_s(gen_task_coef: float = GEN_TASK_COEF) -> float:
    """Estimated-size units per second of inference: HumanEval's 164 x coef over 113.84 s."""
    return HUMANEVAL_SAMPLES * gen_task_coef / cal.PROFILE_INFERENCE_S


def estimated_size(dataset: Dataset, units_per_s: float) -> float:
    """SizePartitioner's cost estimate of ``dataset``, in its size units."""
    return dataset.inference_s * units_per_s


def _numbered(groups: Sequence[Sequence[Shard]], gpu_num: int) -> tuple[Trial, ...]:
    """Trials ``t000, t001, ...`` from shard groups, in the given (launch) order."""
    return tuple(Trial(f"t{i:03d}", tuple(g), gpu_num) for i, g in enumerate(groups))


def _chunks(dataset: Dataset, count: int) -> list[Shard]:
    """``count`` equal chunks of ``dataset`` (one whole shard when ``count`` is 1)."""
    return [
        Shard(dataset.name, i, count, dataset.prep_s / count, dataset.inference_s / count)
        for i in range(count)
    ]


def naive_partition(request: EvalRequest, per_task: int = 1) -> tuple[Trial, ...]:
    """NaivePartitioner: tasks of ``per_task`` consecutive datasets, in suite order."""
    if not (isinstance(per_task, int) and per_task >= 1):
        raise ConfigError(f"naive partitioner: per_task must be an integer >= 1, got {per_task!r}")
    suite = request.datasets
    groups = [
        [shard for d in suite[i:i + per_task] for shard in _chunks(d, 1)]
        for i in range(0, len(suite), per_task)
    ]
    return _numbered(groups, request.model.gpus)


def size_partition(
    request: EvalRequest,
    max_task_size: float,
    units_per_s: float,
    strategy: Strategy = "heuristic",
) -> tuple[Trial, ...]:
    """SizePartitioner: split datasets over ``max_task_size``, pack the rest next-fit."""
    _check(max_task_size, units_per_s, strategy)
    items: list[tuple[float, list[Shard]]] = []
    by_size = sorted(request.datasets, key=lambda d: estimated_size(d, units_per_s), reverse=True)
    for dataset in by_size:
        size = estimated_size(dataset, units_per_s)
        if size > max_task_size:
            count = math.ceil(size / max_task_size)
            items.extend((max_task_size, [chunk]) for chunk in _chunks(dataset, count))
        else:
            items.append((size, _chunks(dataset, 1)))
    # OpenCompass re-sorts the items by counted size here; they are already in that order.
    if strategy == "split":
        return _numbered([shards for _, shards in items], request.model.gpus)
    return _numbered(_next_fit(items, max_task_size), request.model.gpus)


def _next_fit(items: Sequence[tuple[float, list[Shard]]], capacity: float) -> list[list[Shard]]:
    """Group items in order; close a group when the next item would take it over ``capacity``."""
    groups: list[list[Shard]] = []
    current: list[Shard] = []
    load = 0.0
    for index, (size, shards) in enumerate(items):
        load += size
        current.extend(shards)
        last = index == len(items) - 1
        if last or load + items[index + 1][0] > capacity:
            groups.append(current)
            current, load = [], 0.0
    return groups


def _check(max_task_size: float, units_per_s: float, strategy: str) -> None:
    """Reject sizes that are not finite and > 0, and unknown strategies."""
    for key, value in (("max_task_size", max_task_size), ("units_per_s", units_per_s)):
        if not (isinstance(value, int | float) and math.isfinite(value) and value > 0):
            raise ConfigError(f"size partitioner: {key} must be a finite number > 0, "
                              f"got {value!r}")
    if strategy not in STRATEGIES:
        raise ConfigError(f"size partitioner: strategy must be one of {', '.join(STRATEGIES)}, "
                          f"got {strategy!r}")
