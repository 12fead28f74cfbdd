"""eval=decoupled: the trace's evaluation re-planned by the trial coordinator.

The trace Eval jobs are grouped into requests (``acmesim.evaluation.batches``); each request is
planned by the ``decoupled`` evaluation scheduler (acme_facts.md §5: decoupled model loading,
CPU metric jobs, prior-based split/merge/order) for ``request_gpus`` GPUs (0: the GPUs of all its
trace jobs together) and replayed as its trials (``acmesim.evaluation.replay_trials`` gives the
exact durations); metrics run as CPU jobs on the trials' nodes. The run's scheduler decides as
usual, so the effect shows on evaluation queueing and on every other job. Results:
``eval_requests.csv``, ``eval_jobs.csv`` and the eval_* summary fields.
Example: ``acmesim replay scheduler=acme_reservation eval=decoupled``.
"""

from __future__ import annotations

import dataclasses
from typing import cast

from acmesim.core.errors import ConfigError
from acmesim.evaluation import calibration as cal
from acmesim.evaluation.modes import EVALS, EvalMode
from acmesim.evaluation.schedulers import EvalScheduler
from acmesim.evaluation.schedulers.decoupled import DecoupledEvalScheduler


@dataclasses.dataclass(frozen=True)
class DecoupledOptions:
    """The coordinator's switches (metrics always leave the GPU) and the GPUs per request."""

    decouple_loading: bool = True
    """Load the model once per node instead of once per trial."""
    prior_packing: bool = True
    """Split and merge datasets into balanced trials using per-dataset priors."""
    long_metrics_first: bool = True
    """Start the trials whose metrics take longest first."""
    merge_below: float = cal.MERGE_BELOW
    """Merge datasets under this share of the balanced per-GPU work into one trial."""
    min_trial_s: float = cal.MIN_TRIAL_S
    """Never split a dataset into shards of less GPU work than this (s)."""
    request_gpus: int = 0
    """GPUs per evaluation request (0: the GPUs of all its trace jobs together)."""

    def __post_init__(self) -> None:
        if self.request_gpus < 0:
            raise ConfigError(f"request_gpus must be >= 0 (0: the request's own width), "
                              f"got {self.request_gpus!r}")
        self.planner_config()

    def planner_config(self) -> DecoupledEvalScheduler.Config:
        """The options of the ``decoupled`` evaluation planner (validated there)."""
        return DecoupledEvalScheduler.Config(
            decouple_loading=self.decouple_loading, decouple_metrics=True,
            prior_packing=self.prior_packing, long_metrics_first=self.long_metrics_first,
            merge_below=self.merge_below, min_trial_s=self.min_trial_s)


@EVALS.register("decoupled")
class DecoupledEval(EvalMode):
    """The trace's Eval jobs replayed as decoupled evaluation trials."""

    Config = DecoupledOptions

    def __init__(self, config: DecoupledOptions) -> None:
        from acmesim.evaluation.replay import EvalReplay  # pandas: not for --help

        planner = DecoupledEvalScheduler(config.planner_config())  # registered: has its name
        super().__init__(config, EvalReplay(cast(EvalScheduler, planner), config.request_gpus))
