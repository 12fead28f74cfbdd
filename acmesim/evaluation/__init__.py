"""Evaluation scheduling: coupled trials vs the decoupled trial coordinator (acme_facts.md §5).

A request (checkpoint x dataset suite) is *planned* by an evaluation scheduler plug-in into trials
(``EVAL_SCHEDULERS``: ``coupled``, ``decoupled``). Planning is pure data, so the cluster replay
reuses it: ``replay`` rewrites a trace's Eval jobs into planned trials, ``modes`` is the ``eval``
config group (``none``, ``coupled``, ``decoupled``: the extension that applies it under any
scheduler), and ``scheduling`` holds the deprecated ``eval_coupled``/``eval_decoupled``
spelling. The stand-alone SimPy execution model of one request is ``acmesim.studies.evaluation``.
"""

from __future__ import annotations

from acmesim.evaluation.plan import EvalPlan, ExecutionOptions, Shard, Trial
from acmesim.evaluation.planning import (
    balanced_share,
    one_trial_per_dataset,
    prior_packed_trials,
)
from acmesim.evaluation.schedulers import EVAL_SCHEDULERS, EvalScheduler
from acmesim.evaluation.spec import Dataset, EvalCluster, EvalRequest, ModelSpec
from acmesim.evaluation.suite import SuiteCalibration, suite_request, synthetic_suite
from acmesim.evaluation.trace import (
    dataset_from_eval_job,
    request_from_eval_job,
    request_from_eval_jobs,
)

__all__ = [
    "EVAL_SCHEDULERS",
    "Dataset",
    "EvalCluster",
    "EvalPlan",
    "EvalRequest",
    "EvalScheduler",
    "ExecutionOptions",
    "ModelSpec",
    "Shard",
    "SuiteCalibration",
    "Trial",
    "balanced_share",
    "dataset_from_eval_job",
    "one_trial_per_dataset",
    "prior_packed_trials",
    "request_from_eval_job",
    "request_from_eval_jobs",
    "suite_request",
    "synthetic_suite",
]
