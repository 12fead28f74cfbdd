"""Shared machinery of the priority schedulers: a keyed pending queue and run-time estimates.

A subclass says how to rank a pending job (``key``, lowest first) and optionally which lane a
job queues in and which jobs a rule admits (quotas). Each pass starts the best job that fits,
then the next, until nothing that fits is left (or, with ``head_of_line``, until the best job
does not fit). Estimates come from a predictor (``acmesim.policies.prediction``); the first
estimate of each job is kept and scored against its recorded run time when it finishes.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import Any

from acmesim.cluster.view import JobInfo, SchedulerView
from acmesim.policies.prediction import PredictionLog, make_predictor
from acmesim.policies.scheduling._shapes import Capacity, ShapeQueues
from acmesim.policies.scheduling.base import NOTHING, Decision, Scheduler


class Estimates:
    """A predictor plus the log scoring it: each job's first estimate is kept and scored."""

    def __init__(self, predictor_name: str) -> None:
        self.predictor = make_predictor(predictor_name)
        self.exact = self.predictor.exact
        self.log = PredictionLog(self.predictor.registry_name)

    def total(self, job: JobInfo) -> float:
        """Estimated total run time of ``job`` (its first estimate)."""
        if self.exact:
            return job.recorded_run_time
        known = self.log.estimates.get(job.index)
        if known is not None:
            return known
        return self.log.remember(job, self.predictor.predict(job))

    def remaining(self, job: JobInfo) -> float:
        """Estimated work left as of the last start or requeue (never negative)."""
        if self.exact:
            return max(job.recorded_run_time - job.work_done, 0.0)
        return max(self.total(job) - job.work_done, 0.0)

    def finished(self, job: JobInfo) -> None:
        """Score the job's estimate and let the predictor learn from it."""
        if self.exact:
            self.log.count_exact()
            return
        self.log.score(job)
        self.predictor.observe(job)

    def summary(self) -> dict[str, Any]:
        """The prediction-error fields of the run's summary."""
        return self.log.summary()


class PriorityScheduler(Scheduler):
    """Starts pending jobs in ascending ``key`` order; subclasses define the key."""

    idle_without_pending = True
    """``schedule`` does nothing while the queue is empty (a subclass whose passes change
    its state with no job pending says False)."""

    def __init__(self, config: Any = None) -> None:
        options = getattr(type(self), "Config", None)
        if config is None and options is not None:
            config = options()
        super().__init__(config)
        self.queue = ShapeQueues()
        self.strict = bool(getattr(config, "head_of_line", False))
        name = getattr(config, "predictor", None)
        self.estimates = Estimates(name) if name else None
        self._lane: Callable[[JobInfo], Hashable] | None = (
            None if type(self).lane is PriorityScheduler.lane else self.lane)
        """``lane``, or None when the subclass keeps the default (one lane)."""

    # ------------------------------------------------------------------ what subclasses say
    def key(self, job: JobInfo, view: SchedulerView) -> Any:
        """Priority of a pending job (lower starts first); ties go to the earlier job."""
        raise NotImplementedError

    def lane(self, job: JobInfo) -> Hashable:
        """Separate queue a job waits in (so a rule refusing one lane never hides another)."""
        return None

    def admit(self, job: JobInfo) -> bool:
        """A policy rule a job must pass to start now, besides fitting (default: none)."""
        return True

    admit_rule: Callable[[JobInfo], bool] | None = None
    """Set to ``self.admit`` by subclasses that override ``admit`` (skips the call otherwise)."""

    # ------------------------------------------------------------------ estimates
    def remaining_estimate(self, job: JobInfo) -> float:
        """Estimated work left as of the last start or requeue (never negative)."""
        assert self.estimates is not None
        return self.estimates.remaining(job)

    # ------------------------------------------------------------------ callbacks
    def on_arrival(self, job: JobInfo, view: SchedulerView) -> None:
        """Queue the new job under its key (``on_arrivals`` of the one job)."""
        self.on_arrivals((job,), view)

    def on_arrivals(self, jobs: Sequence[JobInfo], view: SchedulerView) -> None:
        """Queue the new jobs under their keys, in submission order (a subclass that does more
        on an arrival overrides this, not ``on_arrival``)."""
        push, key, lane = self.queue.push, self.key, self._lane
        if lane is None:
            for job in jobs:
                push(job, key(job, view))
        else:
            for job in jobs:
                push(job, key(job, view), lane(job))

    def on_requeue(self, job: JobInfo, view: SchedulerView) -> None:
        """Queue the stopped job again under its (new) key."""
        lane = self._lane
        self.queue.push(job, self.key(job, view), None if lane is None else lane(job))

    def on_start(self, job: JobInfo, view: SchedulerView) -> None:
        """The job left the queue."""
        self.queue.remove(job)

    def on_finish(self, job: JobInfo, view: SchedulerView) -> None:
        """Score the job's estimate and let the predictor learn from it."""
        if self.estimates is not None:
            self.estimates.finished(job)

    # ------------------------------------------------------------------ passes
    def schedule(self, view: SchedulerView) -> Decision:
        """Start the best pending jobs that fit."""
        if not self.queue:
            return NOTHING
        return Decision(start=self.fill(view))

    def fill(self, view: SchedulerView) -> Iterator[JobInfo]:
        """Yield the best job that can start now, again and again, until none can.

        A lone pending job (most passes of a replay) is the best of its queue without
        comparing the shapes' heads: it starts if the counts, the policy's rule and the
        placement all let it, as ``ShapeQueues.best`` would decide."""
        queue = self.queue
        pending = queue.entries  # (read rather than ``len(queue)``: a call fewer, every pass)
        if not pending:
            return  # the common end of a pass whose planned jobs emptied the queue
        capacity = Capacity(view.cluster)
        cpu_jobs = bool(view.queues.get("cpu"))
        if len(pending) == 1 and not (capacity.max_single == 0 and not cpu_jobs):
            job = queue.peek()
            rule = self.admit_rule
            if (job is None or not capacity.admits(job) or (rule is not None and not rule(job))
                    or not view.fits(job)):
                return
            yield job
            capacity.refresh(view.cluster)
        while pending and not (capacity.max_single == 0 and not cpu_jobs):  # Capacity.empty
            job = queue.best(view, capacity, self.strict, self.admit_rule)
            if job is None:
                return
            yield job
            capacity.refresh(view.cluster)

    def summary_fields(self) -> dict[str, Any]:
        """Prediction-error fields for the run's summary (none without a predictor)."""
        return self.estimates.summary() if self.estimates is not None else {}
