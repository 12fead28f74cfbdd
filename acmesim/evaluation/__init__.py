"""Evaluation scheduling: coupled trials vs the decoupled trial coordinator (acme_facts.md §5).

A request (checkpoint x dataset suite) is *planned* by an evaluation scheduler plug-in into trials
(``EVAL_SCHEDULERS``: ``coupled``, ``decoupled``), then *executed* on nodes with GPUs, a shared NIC
and CPU threads by an exact SimPy model. Planning is pure data, so a cluster replay can reuse it.
"""

from __future__ import annotations

from acmesim.evaluation.execution import EvalExecution, simulate
from acmesim.evaluation.link import SharedLink
from acmesim.evaluation.plan import EvalPlan, ExecutionOptions, Shard, Trial
from acmesim.evaluation.planning import (
    balanced_share,
    one_trial_per_dataset,
    prior_packed_trials,
)
from acmesim.evaluation.results import EvalResult, RequestSummary
from acmesim.evaluation.runner import create_scheduler, evaluate, plan_request
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
    "EvalExecution",
    "EvalPlan",
    "EvalRequest",
    "EvalResult",
    "EvalScheduler",
    "ExecutionOptions",
    "ModelSpec",
    "RequestSummary",
    "Shard",
    "SharedLink",
    "SuiteCalibration",
    "Trial",
    "balanced_share",
    "create_scheduler",
    "dataset_from_eval_job",
    "evaluate",
    "one_trial_per_dataset",
    "plan_request",
    "prior_packed_trials",
    "request_from_eval_job",
    "request_from_eval_jobs",
    "simulate",
    "suite_request",
    "synthetic_suite",
]
