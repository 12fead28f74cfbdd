"""Shared base of the deprecated evaluation-replay schedulers ``eval_coupled``/``eval_decoupled``.

``scheduler=eval_decoupled scheduler.base=X`` is the old spelling of ``scheduler=X
eval=decoupled`` (``acmesim.evaluation.modes``), kept for one release: ``split_legacy`` turns
such a scheduler choice into the scheduler and evaluation choices it stands for, with a
deprecation message printed once, so both spellings run the same replay and write the same
files. As a scheduler it only delegates to ``base``; the evaluation itself is the ``eval``
extension's.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Sequence
from typing import Any, ClassVar

from acmesim.cluster.view import JobInfo, SchedulerView
from acmesim.core.config import Choice
from acmesim.core.errors import ConfigError
from acmesim.policies.scheduling import SCHEDULERS
from acmesim.policies.scheduling.base import Decision, Scheduler


@dataclasses.dataclass(frozen=True)
class BaseChoice:
    """Options every evaluation-replay scheduler has: which scheduler really decides."""

    base: str = "fifo"
    """The scheduler that decides starts (any registered scheduler name)."""
    base_options: dict = dataclasses.field(default_factory=dict)
    """Options of the base scheduler."""

    def __post_init__(self) -> None:
        name = SCHEDULERS.canonical(self.base)
        if issubclass(SCHEDULERS.get(name), EvalReplayScheduler):
            raise ConfigError(f"base scheduler {name!r} is itself an evaluation-replay "
                              f"scheduler; choose an ordinary one")
        SCHEDULERS.make_config(name, self.base_options)  # unknown or bad options fail now
        object.__setattr__(self, "base", name)
        object.__setattr__(self, "base_options", dict(self.base_options))


class EvalReplayScheduler(Scheduler):
    """Deprecated: delegates scheduling to ``base``; stands for ``eval=EVAL_MODE``."""

    EVAL_MODE: ClassVar[str]
    """The evaluation mode (``acmesim.evaluation.modes``) this old spelling stands for."""

    def __init__(self, config: Any) -> None:
        super().__init__(config)
        self.base = SCHEDULERS.create(config.base, config.base_options)

    def schedule(self, view: SchedulerView) -> Decision:
        """The base scheduler's decision."""
        return self.base.schedule(view)

    def on_arrival(self, job: JobInfo, view: SchedulerView) -> None:
        """Forwarded to the base scheduler."""
        self.base.on_arrival(job, view)

    def on_arrivals(self, jobs: Sequence[JobInfo], view: SchedulerView) -> None:
        """Forwarded to the base scheduler."""
        self.base.on_arrivals(jobs, view)

    def on_start(self, job: JobInfo, view: SchedulerView) -> None:
        """Forwarded to the base scheduler."""
        self.base.on_start(job, view)

    def on_requeue(self, job: JobInfo, view: SchedulerView) -> None:
        """Forwarded to the base scheduler."""
        self.base.on_requeue(job, view)

    def on_finish(self, job: JobInfo, view: SchedulerView) -> None:
        """Forwarded to the base scheduler."""
        self.base.on_finish(job, view)

    def summary_fields(self) -> dict[str, Any]:
        """The base scheduler's summary fields."""
        return self.base.summary_fields()


def is_legacy(name: str) -> bool:
    """Whether scheduler ``name`` is an old-spelling evaluation-replay scheduler (an unknown
    name, such as an unregistered instance's, is not)."""
    return SCHEDULERS.knows(name) and issubclass(SCHEDULERS.get(name), EvalReplayScheduler)


def split_legacy(scheduler: Choice) -> tuple[Choice, Choice] | None:
    """``(scheduler, eval)`` choices an old ``scheduler=eval_*`` choice stands for, else None.

    The options given to the old scheduler other than ``base``/``base_options`` become the
    evaluation mode's; ``base_options`` become the scheduler's. Prints the deprecation once.
    """
    if not is_legacy(scheduler.name):
        return None
    cls = SCHEDULERS.get(scheduler.name)
    options = dict(scheduler.options)
    base = SCHEDULERS.canonical(str(options.pop("base", BaseChoice.base)))
    base_options = dict(options.pop("base_options", None) or {})
    SCHEDULERS.make_config(scheduler.name, scheduler.options)  # the old options are valid
    warn_legacy(scheduler.name, base, cls.EVAL_MODE)
    return Choice(base, base_options), Choice(cls.EVAL_MODE, options)


_WARNED: set[str] = set()


def warn_legacy(old: str, base: str, mode: str) -> None:
    """Print, once per process and old name, how to spell ``scheduler=old`` now."""
    if old in _WARNED:
        return
    _WARNED.add(old)
    print(f"acmesim: deprecated: scheduler={old} scheduler.base={base} is now spelled "
          f"scheduler={base} eval={mode} (the old spelling goes away in the next release; "
          f"it runs exactly the same replay)", file=sys.stderr)

