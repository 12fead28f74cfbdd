"""eval_decoupled (deprecated): ``scheduler=eval_decoupled scheduler.base=X`` is now
``scheduler=X eval=decoupled`` (``acmesim.evaluation.modes.decoupled``, with the same
options); kept for one release.

The decoupled mode re-plans each evaluation request with the trial coordinator (acme_facts.md
§5: decoupled model loading, CPU metric jobs, prior-based split/merge/order). The run lifecycle
turns this spelling into the new one (``split_legacy``), so both write the same files.
"""

from __future__ import annotations

import dataclasses

from acmesim.evaluation.modes.decoupled import DecoupledOptions
from acmesim.evaluation.scheduling.base import BaseChoice, EvalReplayScheduler
from acmesim.policies.scheduling import SCHEDULERS


@SCHEDULERS.register("eval_decoupled")
class EvalDecoupled(EvalReplayScheduler):
    """Deprecated spelling of ``eval=decoupled`` under the ``base`` scheduler."""

    EVAL_MODE = "decoupled"

    @dataclasses.dataclass(frozen=True)
    class Config(BaseChoice, DecoupledOptions):
        """Base scheduler, then the options of ``eval=decoupled``."""

        def __post_init__(self) -> None:
            BaseChoice.__post_init__(self)
            DecoupledOptions.__post_init__(self)
