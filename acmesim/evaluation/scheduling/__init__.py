"""The deprecated evaluation-replay scheduler plug-ins ``eval_coupled`` and ``eval_decoupled``.

They are the old spelling of the ``eval`` group (``acmesim.evaluation.modes``): ``split_legacy``
turns them into ``scheduler=base eval=mode``. They register themselves with the scheduler
registry when this package is imported; ``SCHEDULERS`` here is that registry with them in it:
what the run lifecycle (``acmesim.run``) and the CLI choose a scheduler from.
"""

from acmesim.evaluation.scheduling import eval_coupled, eval_decoupled
from acmesim.evaluation.scheduling.base import split_legacy
from acmesim.policies.scheduling import SCHEDULERS

__all__ = ["SCHEDULERS", "eval_coupled", "eval_decoupled", "split_legacy"]
