"""eval_coupled: the trace's evaluation as recorded, reported per request, under a base scheduler.

Every trace Eval job runs unchanged (jobs.csv is exactly the base scheduler's); the Eval jobs
are grouped into requests (``acmesim.evaluation.batches``) and reported in
``eval_requests.csv`` / ``eval_jobs.csv``: the baseline for ``eval_decoupled``.
Example: ``acmesim replay scheduler=eval_coupled scheduler.base=acme_reservation``.
"""

from __future__ import annotations

import dataclasses

from acmesim.evaluation.replay import EvalReplay
from acmesim.evaluation.scheduling.base import BaseChoice, EvalReplayScheduler
from acmesim.policies.scheduling import SCHEDULERS


@SCHEDULERS.register("eval_coupled")
class EvalCoupled(EvalReplayScheduler):
    """The base scheduler on the unchanged trace, plus per-request evaluation results."""

    @dataclasses.dataclass(frozen=True)
    class Config(BaseChoice):
        """``base``: the scheduler that decides; ``base_options``: its options."""

    def __init__(self, config: Config) -> None:
        super().__init__(config, EvalReplay(planner=None))
