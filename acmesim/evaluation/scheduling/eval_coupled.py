"""eval_coupled (deprecated): ``scheduler=eval_coupled scheduler.base=X`` is now ``scheduler=X
eval=coupled`` (``acmesim.evaluation.modes.coupled``); kept for one release.

The coupled mode replays the trace's Eval jobs as recorded and reports them per request
(``acmesim.evaluation.batches``: one user's Eval jobs of one second and GPU count), the
baseline of the decoupled trial coordinator (acme_facts.md §5). The run lifecycle turns this
spelling into the new one (``split_legacy``), so both write the same files.
"""

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
