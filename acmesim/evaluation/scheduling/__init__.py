"""The evaluation-replay scheduler plug-ins ``eval_coupled`` and ``eval_decoupled``.

They wrap any registered scheduler and rewrite the trace's Eval jobs (``acmesim.evaluation.
replay``), so they live with the evaluation domain, above the policies, and register themselves
with the scheduler registry when this package is imported. ``SCHEDULERS`` here is that registry
with them in it: what the run lifecycle (``acmesim.run``) and the CLI choose a scheduler from.
"""

from acmesim.evaluation.scheduling import eval_coupled, eval_decoupled
from acmesim.policies.scheduling import SCHEDULERS

__all__ = ["SCHEDULERS", "eval_coupled", "eval_decoupled"]
