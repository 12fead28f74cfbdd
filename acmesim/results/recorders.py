"""Collectors the engine feeds while it runs: per-job outcomes and the cluster's step curve.

Both store plain arrays/lists (no per-event pandas work); tables are built once at the end.
"""

from __future__ import annotations

import math
from array import array

import numpy as np


class StepRecorder:
    """The cluster state after each scheduling pass: a right-continuous step function.

    Row ``k`` holds from ``time[k]`` until ``time[k + 1]``; a second pass at the same time
    overwrites the row, so the curve is the state after the last pass at each time.
    """

    FIELDS = ("busy_gpus", "allocated_gpus", "busy_nodes", "queue_length", "queued_gpus",
              "busy_load")
    """``busy_load``: sum of the running jobs' power ``load`` (mW above idle; 0 without a power
    model), a step of the same curve so power follows exactly the steps utilization does."""

    def __init__(self) -> None:
        self.time = array("d")
        self.busy_gpus = array("q")
        self.allocated_gpus = array("q")
        self.busy_nodes = array("q")
        self.queue_length = array("q")
        self.queued_gpus = array("q")
        self.busy_load = array("q")
        self._last: tuple[int, int, int, int, int, int] | None = None

    def record(self, now: float, busy_gpus: int, allocated_gpus: int, busy_nodes: int,
               queue_length: int, queued_gpus: int, busy_load: int = 0) -> None:
        """Add the state at ``now``: replaces a row at the same time, skips an unchanged one."""
        row = (busy_gpus, allocated_gpus, busy_nodes, queue_length, queued_gpus, busy_load)
        if row == self._last:
            return
        if self.time and self.time[-1] == now:
            self.busy_gpus[-1] = busy_gpus
            self.allocated_gpus[-1] = allocated_gpus
            self.busy_nodes[-1] = busy_nodes
            self.queue_length[-1] = queue_length
            self.queued_gpus[-1] = queued_gpus
            self.busy_load[-1] = busy_load
        else:
            self.time.append(now)
            self.busy_gpus.append(busy_gpus)
            self.allocated_gpus.append(allocated_gpus)
            self.busy_nodes.append(busy_nodes)
            self.queue_length.append(queue_length)
            self.queued_gpus.append(queued_gpus)
            self.busy_load.append(busy_load)
        self._last = row

    def arrays(self) -> dict[str, np.ndarray]:
        """The curve as numpy arrays (``time`` plus one array per field)."""
        out: dict[str, np.ndarray] = {"time": np.frombuffer(self.time, dtype=np.float64).copy()}
        for name in self.FIELDS:
            out[name] = np.frombuffer(getattr(self, name), dtype=np.int64).copy()
        return out


class JobRecorder:
    """Outcome of every simulated job, filled in when the job ends."""

    def __init__(self, size: int) -> None:
        self.start = [math.nan] * size
        self.end = [math.nan] * size
        self.held = [0.0] * size
        self.preemptions = [0] * size
        self.failures = [0] * size
        self.lost_gpu_time = [0.0] * size
        self.failure_lost_gpu_time = [0.0] * size
        self.restarts = [0] * size
        self.checkpoint_overhead = [0.0] * size
        self.recovery_wait = [0.0] * size
        self.work_done = [0.0] * size
        self.state = [""] * size
        self.grants: list[tuple[tuple[int, int], ...]] = [()] * size
        self.ended = 0

    def record(self, job, end: float, state: str, grants: tuple[tuple[int, int], ...]) -> None:
        """Store the outcome of ``job`` (a ``Job``) ending at ``end`` with ``state``.

        ``grants`` are the ``(node, GPU mask or threads)`` pairs of its last running interval.
        """
        i = job.index
        if self.state[i]:
            raise RuntimeError(f"job {job.job_id!r} ended twice")
        self.start[i] = job.start_time
        self.end[i] = end
        self.held[i] = job.held_time
        self.preemptions[i] = job.preemptions
        self.failures[i] = job.failures
        self.lost_gpu_time[i] = job.lost_gpu_time
        self.failure_lost_gpu_time[i] = job.failure_lost_gpu_time
        self.restarts[i] = job.restarts
        self.checkpoint_overhead[i] = job.stall_time
        self.recovery_wait[i] = job.recovery_wait
        self.work_done[i] = job.done_work
        self.state[i] = state
        self.grants[i] = grants
        self.ended += 1
