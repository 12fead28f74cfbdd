"""Shared base of the evaluation-replay schedulers: a base scheduler plus evaluation requests.

An evaluation-replay scheduler decides nothing itself: every pass and callback goes to its
``base`` scheduler (any registered scheduler, with ``base_options``). What it adds are the
engine's two optional job-table hooks (``acmesim.run.simulate``):

- ``rewrite_jobs(jobs, spec)``: before a scheduled replay, group the trace Eval jobs into
  requests and return the table to replay (``acmesim.evaluation.replay.EvalReplay``);
- ``result_tables(jobs_frame)``: after it, ``eval_requests.csv`` and ``eval_jobs.csv``; the
  eval_* summary fields then come with ``summary_fields()``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pandas as pd

from acmesim.cluster.spec import ClusterSpec
from acmesim.cluster.view import JobInfo, SchedulerView
from acmesim.core.errors import ConfigError
from acmesim.evaluation.replay import EvalReplay
from acmesim.policies.scheduling import SCHEDULERS
from acmesim.policies.scheduling.base import Decision, Scheduler
from acmesim.results.schema import TableSchema


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
    """Delegates scheduling to ``base``; rewrites and reports the trace's evaluation requests."""

    def __init__(self, config: Any, replay: EvalReplay) -> None:
        super().__init__(config)
        self.base = SCHEDULERS.create(config.base, config.base_options)
        self.replay = replay

    def rewrite_jobs(self, jobs: pd.DataFrame, spec: ClusterSpec) -> pd.DataFrame:
        """The job table to replay (engine hook, called before a scheduled replay)."""
        return self.replay.rewrite(jobs, spec)

    def result_tables(self, jobs_frame: pd.DataFrame) -> list[tuple[TableSchema, pd.DataFrame]]:
        """Extra result tables (engine hook, called after the replay, before summary_fields)."""
        return self.replay.tables(jobs_frame)

    def schedule(self, view: SchedulerView) -> Decision:
        """The base scheduler's decision."""
        return self.base.schedule(view)

    def on_arrival(self, job: JobInfo, view: SchedulerView) -> None:
        """Forwarded to the base scheduler."""
        self.base.on_arrival(job, view)

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
        """The base scheduler's summary fields plus the eval_* ones."""
        return {**self.base.summary_fields(), **self.replay.summary_fields()}
