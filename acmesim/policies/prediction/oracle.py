"""The oracle: every job's recorded run time, known in advance (an upper bound on prediction)."""

from __future__ import annotations

from acmesim.cluster.view import JobInfo
from acmesim.policies.prediction import PREDICTORS
from acmesim.policies.prediction.base import RuntimePredictor


@PREDICTORS.register("oracle", "perfect")
class Oracle(RuntimePredictor):
    """Predicts exactly the recorded run time (what size-aware papers call an oracle)."""

    exact = True

    def predict(self, job: JobInfo) -> float:
        """The job's recorded run time."""
        return job.recorded_run_time
