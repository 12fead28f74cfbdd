"""OpenCompass's own two-stage run: all inference tasks first, then every metric as a CPU task.

OpenCompass's ``run.py`` (mode ``all``) runs the *infer* stage to completion, then the *eval*
stage: ``NaivePartitioner`` makes one ``OpenICLEvalTask`` per dataset (in config order), which
needs no GPU by default (``num_gpus`` from ``eval_cfg``, default 0:
``opencompass/tasks/openicl_eval.py``), and the runner runs at most ``max_num_workers`` of them
at once (``--max-num-workers``, default 32: ``run.py``, ``opencompass/cli/main.py``). So GPUs are
released after inference, as with decoupled metrics, but no metric starts before the *last*
inference of the whole request has finished.

``staged_summary`` runs a plan's trials with their GPUs released after inference (the metric
times it simulates are discarded), puts the stage barrier at the request's last inference end,
and serves every dataset's metric FIFO in suite order on ``eval_workers`` CPU workers
(``metric_queue.fifo_starts``). CPU workers are taken to be outside the evaluated nodes (Slurm
places CPU-only tasks anywhere), so they never wait for the nodes' spare threads.
"""

from __future__ import annotations

import dataclasses

from acmesim.evaluation.metric_queue import fifo_starts
from acmesim.evaluation.plan import EvalPlan
from acmesim.evaluation.spec import EvalCluster
from acmesim.studies.evaluation.execution import simulate
from acmesim.studies.evaluation.results import RequestSummary

EVAL_WORKERS: int = 32
"""OpenCompass ``--max-num-workers`` default (``run.py`` 014b24d, ``cli/main.py`` 01338e4)."""


def staged_summary(
    plan: EvalPlan, cluster: EvalCluster, eval_workers: int = EVAL_WORKERS
) -> RequestSummary:
    """``plan`` run alone on ``cluster`` with every metric after the last inference."""
    inference_only = dataclasses.replace(
        plan, options=dataclasses.replace(plan.options, decouple_metrics=True))
    result = simulate([inference_only], cluster)
    request = plan.request
    submit = request.submit_time
    barrier = max(d.inference_end for d in result.datasets)
    durations = [d.metric_s for d in request.datasets]
    starts = fifo_starts([barrier] * len(durations), durations, eval_workers)
    ends = [s + m for s, m in zip(starts, durations, strict=True)]
    return dataclasses.replace(
        result.summary(),
        scheduler=f"{plan.scheduler} staged",
        makespan_s=max(ends) - submit,
        time_to_first_result_s=min(ends) - submit,
    )
