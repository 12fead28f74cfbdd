"""eval=none: the trace's Eval jobs are replayed as jobs like any other (nothing attached)."""

from __future__ import annotations

from acmesim.core.registry import NoOptions
from acmesim.evaluation.modes import EVALS, EvalMode


@EVALS.register("none")
class NoEval(EvalMode):
    """No evaluation mode: no rewrite, no evaluation tables."""

    enabled = False

    def __init__(self, config: NoOptions) -> None:
        super().__init__(config, None)
