"""The stand-alone execution model of one evaluation request (acme_facts.md §5).

A request planned by an evaluation scheduler plug-in (``acmesim.evaluation``) is *executed* on
nodes with GPUs, a shared NIC and CPU threads by an exact SimPy model (``execution``); ``runner``
plans and executes in one call; ``staged`` releases GPUs after inference.
"""

from __future__ import annotations

from acmesim.studies.evaluation.execution import EvalExecution, simulate
from acmesim.studies.evaluation.link import SharedLink
from acmesim.studies.evaluation.results import EvalResult, RequestSummary
from acmesim.studies.evaluation.runner import create_scheduler, evaluate, plan_request

__all__ = [
    "EvalExecution",
    "EvalResult",
    "RequestSummary",
    "SharedLink",
    "create_scheduler",
    "evaluate",
    "plan_request",
    "simulate",
]
