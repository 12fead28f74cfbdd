"""One call from a request to its result: build the plug-in, plan, simulate."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from acmesim.evaluation.plan import EvalPlan
from acmesim.evaluation.schedulers import EVAL_SCHEDULERS, EvalScheduler
from acmesim.evaluation.spec import EvalCluster, EvalRequest
from acmesim.studies.evaluation.execution import simulate
from acmesim.studies.evaluation.results import EvalResult


def create_scheduler(name: str, options: Mapping[str, Any] | None = None) -> EvalScheduler:
    """The evaluation scheduler plug-in ``name`` built from validated ``options``."""
    return EVAL_SCHEDULERS.create(name, options)


def plan_request(
    request: EvalRequest,
    cluster: EvalCluster,
    scheduler: str = "decoupled",
    options: Mapping[str, Any] | None = None,
) -> EvalPlan:
    """Plan ``request`` with plug-in ``scheduler`` for all GPUs of ``cluster``."""
    return create_scheduler(scheduler, options).plan(request, cluster.gpus)


def evaluate(
    request: EvalRequest,
    cluster: EvalCluster,
    scheduler: str = "decoupled",
    options: Mapping[str, Any] | None = None,
) -> EvalResult:
    """Plan ``request`` with ``scheduler`` and run it alone on ``cluster``."""
    return simulate([plan_request(request, cluster, scheduler, options)], cluster)
