"""Evaluation scheduler plug-ins; every module in this package registers one.

A plug-in turns an ``EvalRequest`` into an ``EvalPlan`` (trials + execution techniques) with
``plan(request, gpus)``, where ``gpus`` is how many GPUs the request may use at once. Planning
is pure data, so a cluster replay can expand trace Eval jobs into trials with the same plug-ins.
"""

from __future__ import annotations

from typing import Protocol

from acmesim.core.registry import Registry
from acmesim.evaluation.plan import EvalPlan
from acmesim.evaluation.spec import EvalRequest


class EvalScheduler(Protocol):
    """What an evaluation scheduler plug-in provides."""

    def plan(self, request: EvalRequest, gpus: int) -> EvalPlan:
        """Cut ``request`` into trials for ``gpus`` concurrently usable GPUs."""
        ...


EVAL_SCHEDULERS: Registry[EvalScheduler] = Registry("eval_scheduler", package=__name__)
"""Registry of evaluation schedulers: ``coupled`` (baseline) and ``decoupled`` (coordinator)."""
