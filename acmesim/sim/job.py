"""Runtime state of one job inside the engine (policies read it as ``JobInfo``)."""

from __future__ import annotations

import math
from typing import Protocol

from acmesim.cluster.cluster import Grant

PENDING = "pending"
RUNNING = "running"
HELD = "held"
DONE = "done"

NAN = math.nan


class CheckpointPacing(Protocol):
    """How a checkpointing job's work turns into wall time (``acmesim.faults.pacing``)."""

    def wall(self, done: float, work: float) -> float:
        """Wall seconds to compute from ``done`` to ``work`` (the end), stalls included."""
        ...

    def advance(self, done: float, work: float, elapsed: float) -> tuple[float, float]:
        """(work reached, seconds stalled) ``elapsed`` wall seconds into computing from ``done``."""
        ...

    def persisted(self, done: float, work: float, elapsed: float) -> float | None:
        """Work of the last checkpoint persisted ``elapsed`` seconds into the interval (None:
        none)."""
        ...


class Job:
    """One job from arrival to its end: static trace fields plus engine progress.

    Work accounting: ``run_time`` is the recorded work (s at ``gpu_num`` GPUs); a running
    interval first spends ``overhead`` seconds restarting, then does work. ``done_work`` is the
    work saved when the interval began; ``remaining_work = run_time - done_work``. A job with a
    ``pace`` (a ``CheckpointPacing``) also stalls for its checkpoints while it works;
    ``stall_time`` sums those stalls. ``recovery_wait`` sums the time from each failure stop to
    the restart that follows it (``wait_part``: the share of the current overhead spent waiting
    on the job's own nodes); ``failure_lost_gpu_time`` is the part of
    ``lost_gpu_time`` caused by failures (``stop_cause`` names what stopped the last interval).
    ``startup`` is the start-up latency at the head of the current interval (first start in a
    scheduled replay only): it holds the GPUs but counts in neither ``held_time`` nor
    ``lost_gpu_time``, and ``start_time`` is when it ends (the job runs).
    """

    __slots__ = (
        "index", "job_id", "user", "type", "trace_state", "pool", "gpu_num", "node_num",
        "cpu_num", "nodes_needed", "per_node", "submit_time", "recorded_start", "run_time",
        "status", "start_time", "last_start", "expected_end", "done_work", "checkpointed_work",
        "overhead", "attained_closed", "held_time", "preemptions", "failures", "lost_gpu_time",
        "epoch", "grants", "arrival_seq", "end_state", "next_overhead", "pace", "restarts",
        "stall_time", "recovery_wait", "stopped_at", "wait_part", "stop_cause",
        "failure_lost_gpu_time", "startup", "load",
    )

    def __init__(
        self, index: int, job_id: str, user: str, type_: str, trace_state: str, pool: str,
        gpu_num: int, node_num: int, cpu_num: int, nodes_needed: int, per_node: int,
        submit_time: float, recorded_start: float, run_time: float,
    ) -> None:
        self.index = index
        self.job_id = job_id
        self.user = user
        self.type = type_
        self.trace_state = trace_state
        self.pool = pool
        self.gpu_num = gpu_num
        self.node_num = node_num
        self.cpu_num = cpu_num
        self.nodes_needed = nodes_needed
        self.per_node = per_node
        self.submit_time = submit_time
        self.recorded_start = recorded_start
        self.run_time = run_time
        self.status = PENDING
        self.start_time = NAN
        self.last_start = NAN
        self.expected_end = NAN
        self.done_work = 0.0
        self.checkpointed_work = 0.0
        self.overhead = 0.0
        self.attained_closed = 0.0
        self.held_time = 0.0
        self.preemptions = 0
        self.failures = 0
        self.lost_gpu_time = 0.0
        self.epoch = 0
        self.grants: Grant = ()
        self.arrival_seq = 0
        self.end_state = trace_state
        self.next_overhead: float | None = None
        self.pace: CheckpointPacing | None = None
        self.restarts = 0
        self.stall_time = 0.0
        self.recovery_wait = 0.0
        self.stopped_at = NAN
        self.wait_part = 0.0
        self.stop_cause = ""
        self.failure_lost_gpu_time = 0.0
        self.startup = 0.0
        self.load = 0

    @property
    def remaining_work(self) -> float:
        """Work left as of the last start or requeue (s at gpu_num)."""
        return self.run_time - self.done_work

    @property
    def whole_nodes(self) -> bool:
        """Whether the gang takes whole nodes (multi-node GPU job)."""
        return self.nodes_needed > 1

    def __repr__(self) -> str:
        return (f"Job({self.job_id!r}, {self.type}, gpus={self.gpu_num}, "
                f"nodes={self.nodes_needed}, {self.status})")
