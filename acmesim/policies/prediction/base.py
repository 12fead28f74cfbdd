"""The predictor interface and the log that scores a scheduler's run-time estimates."""

from __future__ import annotations

import math
from typing import Any, ClassVar, Protocol, runtime_checkable

from acmesim.cluster.view import JobInfo


@runtime_checkable
class PredictorProtocol(Protocol):
    """What a scheduler calls on a run-time predictor (``scheduler.predictor=NAME``, registry
    ``PREDICTORS``).

    Built as ``cls(config)``. ``predict`` when the scheduler ranks a job (its first estimate
    is the one scored, ``PredictionLog``), ``observe`` once per finished job, in finishing
    order. ``exact`` says the estimate is the recorded run time (errors are then not scored).
    """

    exact: ClassVar[bool]
    """True when ``predict`` returns the recorded run time (its errors are zero by definition)."""

    def predict(self, job: JobInfo) -> float:
        """Estimated run time of ``job`` from what is known now."""
        ...

    def observe(self, job: JobInfo) -> None:
        """``job`` has finished: learn from its recorded run time."""
        ...


class RuntimePredictor(PredictorProtocol):
    """Estimates a job's run time (s of work at ``gpu_num``); learns from finished jobs only."""

    registry_name: ClassVar[str] = "predictor"
    exact: ClassVar[bool] = False
    """True when ``predict`` returns the recorded run time (its errors are zero by definition)."""

    def __init__(self, config: Any = None) -> None:
        self.config = config

    def predict(self, job: JobInfo) -> float:
        """Estimated run time of ``job`` from what is known now (never its recorded run time,
        except for the oracle)."""
        raise NotImplementedError

    def observe(self, job: JobInfo) -> None:
        """``job`` has finished: learn from its recorded run time."""


class PredictionLog:
    """Remembers the estimate made for each job and scores it when the job finishes.

    Errors compare the estimate with the recorded run time: absolute error in seconds, and
    relative error ``|estimate - actual| / max(actual, 1 s)`` (the floor keeps zero-length jobs
    from dividing by zero).
    """

    def __init__(self, predictor_name: str) -> None:
        self.predictor_name = predictor_name
        self.estimates: dict[int, float] = {}
        self.jobs = 0
        self.abs_error = 0.0
        self.rel_error = 0.0
        self.signed_error = 0.0

    def remember(self, job: JobInfo, estimate: float) -> float:
        """Keep the first estimate made for ``job``; returns the kept one."""
        return self.estimates.setdefault(job.index, estimate)

    def count_exact(self) -> None:
        """One more job scored by an exact predictor (zero error)."""
        self.jobs += 1

    def score(self, job: JobInfo) -> None:
        """``job`` finished: add its estimate's error to the totals."""
        estimate = self.estimates.pop(job.index, None)
        if estimate is None:
            return
        actual = job.recorded_run_time
        self.jobs += 1
        self.abs_error += abs(estimate - actual)
        self.rel_error += abs(estimate - actual) / max(actual, 1.0)
        self.signed_error += estimate - actual

    def summary(self) -> dict[str, Any]:
        """The ``prediction_*`` fields of the run's summary."""
        n = self.jobs
        return {
            "predictor": self.predictor_name,
            "prediction_jobs": n,
            "prediction_mae": self.abs_error / n if n else math.nan,
            "prediction_mre": self.rel_error / n if n else math.nan,
            "prediction_bias": self.signed_error / n if n else math.nan,
        }
