"""eval_coupled (deprecated): ``scheduler=eval_coupled scheduler.base=X`` is now ``scheduler=X
eval=coupled`` (``acmesim.evaluation.modes.coupled``); kept for one release."""

from __future__ import annotations

import dataclasses

from acmesim.evaluation.scheduling.base import BaseChoice, EvalReplayScheduler
from acmesim.policies.scheduling import SCHEDULERS


@SCHEDULERS.register("eval_coupled")
class EvalCoupled(EvalReplayScheduler):
    """Deprecated spelling of ``eval=coupled`` under the ``base`` scheduler."""

    EVAL_MODE = "coupled"

    @dataclasses.dataclass(frozen=True)
    class Config(BaseChoice):
        """``base``: the scheduler that decides; ``base_options``: its options."""
