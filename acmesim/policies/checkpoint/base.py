"""The checkpoint-policy contract: options shared by every policy, the plan a policy returns.

A policy answers one question per job: *how often does it checkpoint and what does each checkpoint
cost?* Cost follows from model size (``acmesim.policies.checkpoint.model_size``) and storage
(``acmesim.policies.checkpoint.cost``); the interval follows from the job's own MTBF, which
falls with its size (``acmesim.policies.failure.rates``). The engine passes the failure model's job
MTBF when it has one; otherwise the policy uses its own ``gpu_failures_per_1000_gpu_days`` (or
``node_mtbf_hours``).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any, Literal, Protocol, runtime_checkable

from acmesim.core.bounds import option_values, require_positive
from acmesim.policies.checkpoint.cost import CheckpointCost, StorageModel, state_bytes
from acmesim.policies.checkpoint.model_size import model_params
from acmesim.policies.failure.rates import (
    LLAMA3_GPU_FAILURES_PER_1000_GPU_DAYS,
    job_mtbf_from_gpu_rate,
    job_mtbf_from_node_mtbf,
)
from acmesim.policies.job_shape import JobShape

MIN_INTERVAL_S = 1.0
"""Guard: no policy checkpoints more often than once a second (a zero-cost checkpoint would)."""

CHECKPOINTING_TYPES: tuple[str, ...] = ("Pretrain", "SFT", "MLLM", "Debug", "Other")
"""Job types that train a model and so checkpoint; evaluation is inference only."""


@dataclasses.dataclass(frozen=True)
class CheckpointPlan:
    """How one job checkpoints: interval and per-checkpoint costs, all in seconds.

    ``interval`` is compute time between checkpoints (``inf``: never checkpoint); ``stall`` the
    time training blocks per checkpoint; ``persist`` the background write after the stall (async;
    the checkpoint only survives a failure once it is written); ``restore`` the time to load the
    checkpoint at a restart; ``mtbf`` the job MTBF the interval was computed from.
    """

    interval: float
    stall: float
    persist: float
    restore: float
    state_bytes: float
    params: float
    mode: str
    mtbf: float

    @property
    def enabled(self) -> bool:
        """True when the job checkpoints at all."""
        return math.isfinite(self.interval)


def no_checkpoints(mtbf: float = math.inf) -> CheckpointPlan:
    """The plan of a job that never checkpoints (a failure restarts it from scratch)."""
    return CheckpointPlan(math.inf, 0.0, 0.0, 0.0, 0.0, 0.0, "none", mtbf)


@runtime_checkable
class CheckpointPolicyProtocol(Protocol):
    """What the engine calls on a checkpoint policy (``checkpoint=NAME``, registry
    ``CHECKPOINTS``).

    Built as ``cls(config, **context)``. ``plan`` once per GPU job on its arrival, with the
    failure model's ``job_mtbf`` for the job's size when the model knows it (None otherwise);
    the engine then paces the job's work by the plan (stalls, persisted checkpoints, restores).
    A policy none of whose plans ever checkpoints may say so with a class attribute
    ``never_checkpoints = True`` (read with a default of False, so it is optional): a run
    without modeled failures then skips the per-job preparation altogether.
    """

    def plan(self, job: Any, mtbf: float | None = None) -> CheckpointPlan:
        """The checkpoint plan for ``job`` (a ``JobShape`` source); ``mtbf`` in seconds."""
        ...


@dataclasses.dataclass(frozen=True)
class CheckpointOptions:
    """Options every checkpointing policy accepts (see ``checkpoint_cost`` for the defaults)."""

    mode: Literal["sync", "async"] = "async"
    """sync: training stalls for the whole write; async: only for the copy to host memory."""
    bytes_per_param: float = 16.0
    """Checkpoint bytes per model parameter (16: mixed-precision Adam)."""
    model_params_b: float | None = None
    """Model size in billions of parameters (null: from the job's type and GPUs)."""
    storage_gbps: float = 2.5
    """Storage bandwidth available to one job (GB/s)."""
    storage_gbps_per_node: float = 3.125
    """Storage bandwidth per node of the job (GB/s)."""
    host_copy_gbps_per_gpu: float = 4.0
    """Device-to-host copy bandwidth per GPU for async checkpoints (GB/s)."""
    overhead_s: float = 15.0
    """Fixed cost of every checkpoint and restore (s)."""
    gpu_failures_per_1000_gpu_days: float = LLAMA3_GPU_FAILURES_PER_1000_GPU_DAYS
    """Failure rate the interval assumes without a failure model."""
    node_mtbf_hours: float | None = None
    """Node MTBF the interval assumes instead (h; null: use the GPU rate)."""
    job_types: tuple[str, ...] = CHECKPOINTING_TYPES
    """job types that checkpoint."""

    def __post_init__(self) -> None:
        if self.mode not in ("sync", "async"):
            raise ValueError(f"mode must be 'sync' or 'async', got {self.mode!r}")
        require_positive(**option_values(
            self, "bytes_per_param", "model_params_b", "node_mtbf_hours"))
        self.storage()  # validates the bandwidths

    def storage(self) -> StorageModel:
        """The storage model these options describe."""
        return StorageModel(
            self.storage_gbps,
            self.storage_gbps_per_node,
            self.host_copy_gbps_per_gpu,
            self.overhead_s,
        )


class CheckpointPolicy(CheckpointPolicyProtocol):
    """Base of the checkpointing policies: cost from model size, interval from the job MTBF."""

    Config = CheckpointOptions

    def __init__(self, config: CheckpointOptions, **context: Any) -> None:
        self.config = config
        self._storage = config.storage()

    def plan(self, job: Any, mtbf: float | None = None) -> CheckpointPlan:
        """The checkpoint plan for ``job``; ``mtbf`` (seconds) overrides the policy's own rate."""
        shape = JobShape.of(job)
        job_mtbf = self.job_mtbf(shape) if mtbf is None else float(mtbf)
        if shape.job_type not in self.config.job_types or shape.gpu_num <= 0:
            return no_checkpoints(job_mtbf)
        params = self.params(shape)
        size = state_bytes(params, self.config.bytes_per_param)
        cost = self._storage.cost(size, shape.gpu_num, shape.node_num, self.config.mode)
        interval = max(self.interval(cost, job_mtbf), MIN_INTERVAL_S)
        return CheckpointPlan(
            interval, cost.stall, cost.persist, cost.restore, size, params, self.config.mode,
            job_mtbf,
        )

    def params(self, shape: JobShape) -> float:
        """Model parameters of the job: the fixed ``model_params_b`` or the size rule."""
        if self.config.model_params_b is not None:
            return self.config.model_params_b * 1e9
        return model_params(shape.gpu_num)

    def job_mtbf(self, shape: JobShape) -> float:
        """The job's MTBF in seconds from the policy's own failure-rate options."""
        if self.config.node_mtbf_hours is not None:
            return job_mtbf_from_node_mtbf(shape.node_num, self.config.node_mtbf_hours)
        return job_mtbf_from_gpu_rate(shape.gpu_num, self.config.gpu_failures_per_1000_gpu_days)

    def interval(self, cost: CheckpointCost, mtbf: float) -> float:
        """Compute seconds between checkpoints given one checkpoint's cost and the job MTBF."""
        raise NotImplementedError


def formula_interval(formula: Callable[[float, float], float], cost: CheckpointCost,
                     mtbf: float) -> float:
    """``formula(stall, mtbf)``, never shorter than an async write (else writes pile up).

    The analytic optima take the blocking stall as ``δ``. An asynchronous checkpoint cannot start
    before the previous one is written, so its interval is at least ``persist``. A job that cannot
    fail (``mtbf = inf``) never checkpoints.
    """
    if math.isinf(mtbf):
        return math.inf
    return max(formula(cost.stall, mtbf), cost.persist)
