"""The coupled baseline: self-contained GPU trials, FIFO in the partitioner's order.

Every trial loads the model over the NIC, infers its datasets (or chunks) and computes each
completed dataset's metric on its GPU. How the suite is cut into trials is the ``partitioner``
option, after OpenCompass (``acmesim.evaluation.partitioners``): ``naive`` (default, one trial
per dataset in suite order: what the trace records) or ``size`` (SizePartitioner: split large
datasets and pack small ones by estimated size, largest first; no runtime priors).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from acmesim.core.errors import ConfigError
from acmesim.evaluation import partitioners as part
from acmesim.evaluation.plan import EvalPlan, ExecutionOptions, Trial
from acmesim.evaluation.schedulers import EVAL_SCHEDULERS
from acmesim.evaluation.spec import EvalRequest


@EVAL_SCHEDULERS.register("coupled", "baseline")
class CoupledEvalScheduler:
    """Each trial loads the model over the NIC, infers and computes its metrics on its GPU."""

    @dataclass(frozen=True)
    class Config:
        """Partitioner and its OpenCompass parameters (defaults cited in ``partitioners``)."""

        partitioner: Literal["naive", "size"] = "naive"
        datasets_per_task: int = 1
        max_task_size: float = part.MAX_TASK_SIZE_2023
        gen_task_coef: float = part.GEN_TASK_COEF
        strategy: Literal["heuristic", "split"] = "heuristic"

        def __post_init__(self) -> None:
            if self.partitioner not in PARTITIONERS:
                raise ConfigError(f"partitioner must be one of {', '.join(PARTITIONERS)}, "
                                  f"got {self.partitioner!r}")
            if not self.datasets_per_task >= 1:
                raise ConfigError(f"datasets_per_task must be >= 1, got {self.datasets_per_task!r}")
            for key in ("max_task_size", "gen_task_coef"):
                if not getattr(self, key) > 0:
                    raise ConfigError(f"{key} must be > 0, got {getattr(self, key)!r}")
            if self.strategy not in part.STRATEGIES:
                raise ConfigError(f"strategy must be one of {', '.join(part.STRATEGIES)}, "
                                  f"got {self.strategy!r}")

    def __init__(self, config: Config) -> None:
        self.config = config

    def plan(self, request: EvalRequest, gpus: int) -> EvalPlan:
        """The partitioner's trials in launch order, every decoupling technique off."""
        trials = PARTITIONERS[self.config.partitioner](request, self.config)
        return EvalPlan(request, trials, ExecutionOptions(), "coupled")


def _naive(request: EvalRequest, config: CoupledEvalScheduler.Config) -> tuple[Trial, ...]:
    """NaivePartitioner with ``datasets_per_task`` datasets per trial."""
    return part.naive_partition(request, config.datasets_per_task)


def _size(request: EvalRequest, config: CoupledEvalScheduler.Config) -> tuple[Trial, ...]:
    """SizePartitioner with the configured size cap, coefficient and strategy."""
    units = part.units_per_inference_s(config.gen_task_coef)
    return part.size_partition(request, config.max_task_size, units, config.strategy)


PARTITIONERS = {"naive": _naive, "size": _size}
"""Partitioner option value -> planner (a table, not a chain of name tests)."""
