"""The trial coordinator: decoupled loading and metrics, prior-based packing (acme_facts.md §5).

Each technique has its own switch, so every subset can be run for ablations; with all three off
it plans and executes exactly like ``coupled``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from acmesim.core.errors import ConfigError
from acmesim.evaluation import calibration as cal
from acmesim.evaluation.plan import EvalPlan, ExecutionOptions
from acmesim.evaluation.planning import one_trial_per_dataset, prior_packed_trials
from acmesim.evaluation.schedulers import EVAL_SCHEDULERS
from acmesim.evaluation.spec import EvalRequest


@EVAL_SCHEDULERS.register("decoupled", "coordinator")
class DecoupledEvalScheduler:
    """Plans with per-dataset priors and runs trials with decoupled loading and metrics."""

    @dataclass(frozen=True)
    class Config:
        """Technique switches and planner parameters (see ``acmesim.evaluation.planning``)."""

        decouple_loading: bool = True
        decouple_metrics: bool = True
        prior_packing: bool = True
        long_metrics_first: bool = True
        merge_below: float = cal.MERGE_BELOW
        min_trial_s: float = cal.MIN_TRIAL_S

        def __post_init__(self) -> None:
            if not 0.0 <= self.merge_below <= 1.0:
                raise ConfigError(f"merge_below must be in [0, 1], got {self.merge_below!r}")
            if not self.min_trial_s >= 0.0:
                raise ConfigError(f"min_trial_s must be >= 0, got {self.min_trial_s!r}")

    single_dataset_whole: ClassVar[bool] = True
    """A one-dataset request with one trial slot (``gpus`` under twice the model's GPUs) is
    planned as one trial ``t000`` of the whole dataset, executed with ``execution_options``:
    a cluster replay builds such plans without calling ``plan``
    (``acmesim.evaluation.replay_trials.decoupled_requests``)."""

    def __init__(self, config: Config) -> None:
        self.config = config

    def execution_options(self) -> ExecutionOptions:
        """The execution techniques of every plan."""
        return ExecutionOptions(self.config.decouple_loading, self.config.decouple_metrics)

    def plan(self, request: EvalRequest, gpus: int) -> EvalPlan:
        """Packed (or one-per-dataset) trials with the configured execution techniques."""
        c = self.config
        if c.prior_packing:
            trials = prior_packed_trials(
                request, gpus, merge_below=c.merge_below, min_trial_s=c.min_trial_s,
                long_metrics_first=c.long_metrics_first, metrics_on_gpu=not c.decouple_metrics,
            )
        else:
            trials = one_trial_per_dataset(request)
        return EvalPlan(request, trials, self.execution_options(), "decoupled")
