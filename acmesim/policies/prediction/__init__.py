"""Run-time predictors for schedulers: one module per family, each registered with ``PREDICTORS``.

A predictor estimates a job's run time (seconds of work at its requested GPU count) from what
is known when the job is submitted, and learns only from jobs that have finished, so a
scheduler using it never sees the future. ``PredictionLog`` measures how wrong the estimates
were, for the run's summary.
"""

from acmesim.core.registry import Registry

PREDICTORS: Registry = Registry("predictor", package=__name__)

from acmesim.policies.prediction.base import PredictionLog, RuntimePredictor  # noqa: E402

__all__ = ["PREDICTORS", "PredictionLog", "RuntimePredictor", "make_predictor"]


def make_predictor(name: str) -> RuntimePredictor:
    """The registered predictor ``name`` with its default options."""
    return PREDICTORS.create(name)
