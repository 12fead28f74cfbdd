"""The oracle: every job's recorded run time, known in advance (an upper bound on prediction)."""

from __future__ import annotations

from acmesim.model.view import JobInfo
from acmesim.prediction import PREDICTORS
from acmesim.prediction.base import RuntimePredictor


@PREDICTORS.register("oracle", "perfect")
class Oracle(RuntimePredictor):
    """Predicts exactly the recorded run time (what size-aware papers call an oracle)."""

    exact = True

    def predict(self, job: JobInfo) -> float:
        """The job's recorded run time."""
        return job.run_time
