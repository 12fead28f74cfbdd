"""What a power model is: per-state GPU draw, server overheads, conversion, job utilization.

GPU states (every GPU of the cluster is in exactly one at any time):

- ``idle``: not held by a running job (free, on a node out of service, or left over in a
  multi-node job's whole nodes beyond its ``gpu_num``);
- ``waiting``: held by a running job that is not computing: restart overhead (failure
  detection and diagnosis on the job's own nodes, restart, checkpoint restore, any start-up
  latency the engine adds as overhead) and checkpoint stalls;
- ``running``: held by a running job that computes, at the job's GPU utilization ``u``.

A GPU server draws its GPUs plus ``node_w`` (CPUs, memory, NICs, storage) at the GPUs, and
``1 / efficiency`` of that at the wall (power-supply conversion loss).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    import numpy as np


@runtime_checkable
class PowerModelProtocol(Protocol):
    """What the engine calls on a power model (``power=NAME``, registry ``POWERS``).

    Built as ``cls(config)``. Nothing is accounted unless ``enabled``. Otherwise, before the
    run, ``draw_factor`` once for all jobs (stream ``power.factor``; one factor per GPU server
    of each job) and ``running_w`` for their utilizations at each job's mean factor
    (``job_factor``); the constant draws (``idle_w``, ``waiting_w`` per GPU, ``node_w`` per
    server, watts) and the conversion ``efficiency`` turn the GPU states into power.
    """

    enabled: bool
    """False only for ``power=none``."""
    idle_w: float
    """Draw of a GPU not held by a running job (W)."""
    waiting_w: float
    """Draw of a GPU held by a job that is not computing (W)."""
    node_w: float
    """Draw of a server beside its GPUs (W)."""
    efficiency: float
    """Power-supply efficiency in (0, 1]: the wall draws ``1 / efficiency`` of the servers."""

    def running_w(self, util: np.ndarray, factor: np.ndarray | None = None) -> np.ndarray:
        """Draw of a computing GPU at utilization ``util`` (fraction in [0, 1]), watts."""
        ...

    def draw_factor(self, rng: np.random.Generator, servers: np.ndarray) -> np.ndarray | None:
        """A model factor for each GPU server of each job, job by job (``servers[j]`` of job
        ``j``; None: the model uses none)."""
        ...


class PowerModel(PowerModelProtocol):
    """Base of the power plug-ins: subclasses set the constants from their ``Config``."""

    enabled = True
    """False only for ``power=none``: nothing is accounted and the energy columns stay empty."""

    idle_w: float
    waiting_w: float
    node_w: float
    efficiency: float

    def __init__(self, config) -> None:
        self.config = config

    def running_w(self, util: np.ndarray, factor: np.ndarray | None = None) -> np.ndarray:
        """Draw of a computing GPU at utilization ``util`` (fraction in [0, 1]), watts.

        ``factor`` is the job's mean of its servers' ``draw_factor`` values (``job_factor``;
        models that use none ignore it).
        """
        raise NotImplementedError

    def draw_factor(self, rng: np.random.Generator, servers: np.ndarray) -> np.ndarray | None:
        """A model factor for each GPU server of each job, job by job (None: none used)."""
        return None


def job_factor(factors: np.ndarray, servers: np.ndarray) -> np.ndarray:
    """Each job's mean of its servers' ``factors`` (``servers[j]`` consecutive ones for job
    ``j``; 0 for a job of no server). A job's GPUs draw ``running_w`` at it: linear in the
    factor, it is the mean of the servers' draws (every server of a multi-node job holds the
    same number of its GPUs)."""
    import numpy as np
    servers = np.asarray(servers, dtype=np.int64)
    owner = np.repeat(np.arange(len(servers)), servers)
    sums = np.bincount(owner, weights=factors, minlength=len(servers))
    return sums / np.maximum(servers, 1)


def check_draws(idle_w: float, waiting_w: float, node_w: float, efficiency: float) -> None:
    """Reject negative draws and an efficiency outside (0, 1]."""
    for name, value in (("idle_w", idle_w), ("waiting_w", waiting_w), ("node_w", node_w)):
        if not value >= 0:
            raise ValueError(f"{name} must be >= 0 watts, got {value!r}")
    if not 0 < efficiency <= 1:
        raise ValueError(f"efficiency must be in (0, 1], got {efficiency!r}")
