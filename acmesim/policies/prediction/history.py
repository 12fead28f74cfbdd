"""History predictors: the mean run time of similar jobs that have already finished.

``user_history`` follows the estimator of the Helios/Lucid simulators (S-Lab-System-Group/Lucid,
``simulation/estimator/estimator.py``, ``NaiveEstimator``, used for QSSF, Helios SC '21): the
mean duration of the same user's earlier jobs with the same GPU count if there are any, else of
all the user's earlier jobs, else of every earlier job. The Acme trace has no job names, so the
name matching of that estimator is left out. ``type_history`` does the same per job type
instead of per user. Only finished jobs are learned from (``observe``), so an estimate never
uses the future. Before any job has finished, the estimate is ``prior`` (default: Seren's mean
GPU-job duration, 1,414 s, acme_facts.md §2.4, R-SUM).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Hashable

from acmesim.cluster.view import JobInfo
from acmesim.policies.prediction import PREDICTORS
from acmesim.policies.prediction.base import RuntimePredictor

SERENS_MEAN_DURATION = 1414.0
"""Mean GPU-job duration of Seren in seconds (acme_facts.md §2.4, R-SUM)."""


class RunningMean:
    """Count and sum of observed run times per key; the mean of a key in O(1)."""

    def __init__(self) -> None:
        self.sums: dict[Hashable, list[float]] = {}

    def add(self, key: Hashable, value: float) -> None:
        """Add one observation under ``key``."""
        entry = self.sums.get(key)
        if entry is None:
            self.sums[key] = [1.0, value]
        else:
            entry[0] += 1.0
            entry[1] += value

    def mean(self, key: Hashable) -> float | None:
        """The mean of ``key``'s observations, or None if it has none."""
        entry = self.sums.get(key)
        return None if entry is None else entry[1] / entry[0]


@dataclasses.dataclass(frozen=True)
class HistoryConfig:
    """Options of the history predictors."""

    prior: float = SERENS_MEAN_DURATION
    """Estimate used before any job has finished (s)."""


class GroupHistory(RuntimePredictor):
    """Mean run time of finished jobs of the same group and GPU count, then group, then all."""

    Config = HistoryConfig
    group: Callable[[JobInfo], str] = staticmethod(lambda job: job.user)

    def __init__(self, config: HistoryConfig | None = None) -> None:
        super().__init__(config or HistoryConfig())
        self.by_shape = RunningMean()
        self.by_group = RunningMean()
        self.overall = RunningMean()

    def predict(self, job: JobInfo) -> float:
        """The most specific mean with at least one finished job behind it."""
        group = self.group(job)
        for table, key in ((self.by_shape, (group, job.gpu_num)), (self.by_group, group),
                           (self.overall, None)):
            mean = table.mean(key)
            if mean is not None:
                return mean
        return self.config.prior

    def observe(self, job: JobInfo) -> None:
        """Learn the finished job's recorded run time."""
        group = self.group(job)
        self.by_shape.add((group, job.gpu_num), job.recorded_run_time)
        self.by_group.add(group, job.recorded_run_time)
        self.overall.add(None, job.recorded_run_time)


@PREDICTORS.register("user_history", "user")
class UserHistory(GroupHistory):
    """Per-user history (the Helios QSSF estimator without job names)."""

    group = staticmethod(lambda job: job.user)


@PREDICTORS.register("type_history", "type")
class TypeHistory(GroupHistory):
    """Per-job-type history (Eval, Pretrain, SFT, ...)."""

    group = staticmethod(lambda job: job.type)
