"""eval=coupled: the trace's evaluation as recorded, reported per request.

Every trace Eval job runs unchanged (``jobs.csv`` is exactly the scheduler's alone); the Eval
jobs are grouped into requests (``acmesim.evaluation.batches``) and reported in
``eval_requests.csv`` / ``eval_jobs.csv``: the baseline for ``eval=decoupled``.
Example: ``acmesim replay scheduler=acme_reservation eval=coupled``.
"""

from __future__ import annotations

from acmesim.core.registry import NoOptions
from acmesim.evaluation.modes import EVALS, EvalMode


@EVALS.register("coupled")
class CoupledEval(EvalMode):
    """The unchanged trace, plus per-request evaluation results."""

    def __init__(self, config: NoOptions) -> None:
        from acmesim.evaluation.replay import EvalReplay  # pandas: not for --help

        super().__init__(config, EvalReplay(planner=None))
