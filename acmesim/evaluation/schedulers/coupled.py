"""The coupled baseline: one self-contained GPU trial per dataset, FIFO (what the trace records)."""

from __future__ import annotations

from acmesim.core.registry import NoOptions
from acmesim.evaluation.plan import EvalPlan, ExecutionOptions
from acmesim.evaluation.planning import one_trial_per_dataset
from acmesim.evaluation.schedulers import EVAL_SCHEDULERS
from acmesim.evaluation.spec import EvalRequest


@EVAL_SCHEDULERS.register("coupled", "baseline")
class CoupledEvalScheduler:
    """Each trial loads the model over the NIC, infers and computes its metric on its GPU."""

    def __init__(self, config: NoOptions) -> None:
        self.config = config

    def plan(self, request: EvalRequest, gpus: int) -> EvalPlan:
        """One trial per dataset in suite order, every technique off."""
        return EvalPlan(request, one_trial_per_dataset(request), ExecutionOptions(), "coupled")
