"""Read-only views that policies receive: they see the cluster and the jobs, never mutate them.

Views are live and cheap: they wrap the engine's own collections (no copy per scheduling pass),
so a policy reading a view inside a pass always sees the current state, including the starts
the engine has already applied earlier in the same pass.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator, KeysView, Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

from acmesim.cluster.cluster import Allocation, Grant
from acmesim.cluster.health import NodeHealth

if TYPE_CHECKING:
    from acmesim.cluster.cluster import Cluster
    from acmesim.cluster.topology import Topology


class JobInfo(Protocol):
    """What a policy may read about one job (static trace fields and engine progress).

    Times are seconds since the trace start; ``recorded_run_time`` is the trace's run time at
    the recorded GPU count (an oracle: real schedulers would only have an estimate), whatever a
    failure model makes of the job. The trace's and the outcome's fields are those declared
    with ``view=True`` in ``acmesim.jobs.fields`` (``tests/jobs`` checks both agree); the rest
    is the engine's progress.
    """

    @property
    def index(self) -> int:
        """Engine index of the job (0-based, in submission order)."""
    @property
    def job_id(self) -> str:
        """The trace's job id."""
    @property
    def user(self) -> str:
        """The trace's user id."""
    @property
    def type(self) -> str:
        """Job type (Eval, Pretrain, SFT, MLLM, Debug, Other)."""
    @property
    def trace_state(self) -> str:
        """Final state recorded in the trace (COMPLETED, CANCELLED, FAILED, ...)."""
    @property
    def pool(self) -> str:
        """Resource pool: ``"gpu"`` or ``"cpu"`` (CPU-only jobs, when replayed)."""
    @property
    def gpu_num(self) -> int:
        """GPUs requested."""
    @property
    def node_num(self) -> int:
        """Nodes recorded in the trace."""
    @property
    def cpu_num(self) -> int:
        """CPU threads requested."""
    @property
    def nodes_needed(self) -> int:
        """Nodes the gang occupies (see ``acmesim.cluster.gang``)."""
    @property
    def per_node(self) -> int:
        """GPUs (CPU threads for CPU-only jobs) taken on each of its nodes."""
    @property
    def submit_time(self) -> float:
        """Submission time (s since trace start)."""
    @property
    def recorded_start(self) -> float:
        """Start time recorded in the trace (s since trace start)."""
    @property
    def recorded_run_time(self) -> float:
        """Recorded run time (s): the job's work at its recorded GPU count."""
    @property
    def queue_time(self) -> float:
        """Queueing delay recorded in the trace (s; NaN when the trace has none)."""
    @property
    def status(self) -> str:
        """``pending``, ``running``, ``held`` (stopped by a failure, not yet requeued), ``done``."""
    @property
    def start_time(self) -> float:
        """First start (s since trace start); NaN before it starts."""
    @property
    def last_start(self) -> float:
        """Start of the current (or last) running interval; NaN before the first start."""
    @property
    def expected_end(self) -> float:
        """When the current running interval completes the job (running jobs; NaN otherwise)."""
    @property
    def remaining_work(self) -> float:
        """Work left (s at gpu_num) as of the last start or requeue."""
    @property
    def preemptions(self) -> int:
        """Times the job was preempted by a scheduler."""
    @property
    def failures(self) -> int:
        """Times the job was interrupted by a modeled infrastructure failure."""
    @property
    def restarts(self) -> int:
        """Times the job started again after a preemption or a failure."""
    @property
    def lost_gpu_time(self) -> float:
        """GPU-seconds lost so far to rolled-back work and restart overhead."""
    @property
    def epoch(self) -> int:
        """Version number, incremented whenever a running interval ends early."""
    @property
    def grants(self) -> Grant:
        """``(node, GPU bit mask)`` pairs the job holds while running; empty otherwise."""
    @property
    def arrival_seq(self) -> int:
        """Order in which the job (last) entered the pending queue."""
    @property
    def attained_closed(self) -> float:
        """GPU-seconds held in finished running intervals (see ``SchedulerView``)."""
    @property
    def work_done(self) -> float:
        """Work saved as of the last start or requeue (s at gpu_num)."""
    @property
    def overhead(self) -> float:
        """Restart overhead (s) charged at the start of the current running interval."""


class ReadOnlySequence(Sequence[int]):
    """A live, read-only window on a list owned by the engine."""

    __slots__ = ("_items",)

    def __init__(self, items: list[int]) -> None:
        self._items = items

    def __getitem__(self, index):  # noqa: D105
        return self._items[index]

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[int]:
        return iter(self._items)


class ClusterView:
    """Read-only view of a cluster for placement and scheduling policies."""

    __slots__ = ("_cluster", "free_gpus_per_node", "topology", "gpus_per_node", "num_nodes",
                 "free_by_count", "whole_free_by_leaf", "leaves_by_whole_free",
                 "whole_free_by_spine")

    def __init__(self, cluster: Cluster) -> None:
        self._cluster = cluster
        self.free_gpus_per_node: Sequence[int] = ReadOnlySequence(cluster.free)
        """Free GPUs of every node (live)."""
        self.topology: Topology = cluster.topology
        self.gpus_per_node: int = cluster.gpus_per_node
        self.num_nodes: int = cluster.num_nodes
        self.free_by_count: tuple[KeysView[int], ...] = tuple(
            bucket.keys() for bucket in cluster.buckets)
        """``free_by_count[k]``: UP nodes with exactly ``k`` free GPUs (live, oldest first)."""
        self.whole_free_by_leaf: tuple[KeysView[int], ...] = tuple(
            nodes.keys() for nodes in cluster.whole_free_by_leaf)
        """``whole_free_by_leaf[leaf]``: UP nodes with every GPU free under ``leaf`` (live)."""
        self.leaves_by_whole_free: Sequence[int] = ReadOnlySequence(cluster.leaves_by_whole_free)
        """``leaves_by_whole_free[k]``: the leaves with exactly ``k`` whole free nodes, as a bit
        set (bit ``leaf`` of the integer; live)."""
        self.whole_free_by_spine: Sequence[int] = ReadOnlySequence(cluster.whole_free_by_spine)
        """``whole_free_by_spine[spine]``: whole free nodes under ``spine`` (live)."""

    @property
    def name(self) -> str:
        """The cluster's name (its preset's, e.g. ``seren``)."""
        return self._cluster.spec.name

    @property
    def total_gpus(self) -> int:
        """GPUs in the cluster, whatever their health."""
        return self._cluster.total_gpus

    @property
    def free_gpus_total(self) -> int:
        """Free GPUs on nodes that accept jobs."""
        return self._cluster.free_total

    @property
    def allocated_gpus(self) -> int:
        """GPUs held by running jobs (whole-node gangs hold every GPU of their nodes)."""
        return self._cluster.allocated_gpus

    @property
    def version(self) -> int:
        """Counter bumped by every allocation, release and health change."""
        return self._cluster.version

    def free_gpus(self, node: int) -> int:
        """Free GPUs of node ``node``."""
        return self._cluster.free[node]

    def health(self, node: int) -> NodeHealth:
        """Health of node ``node``."""
        return self._cluster.health[node]

    def nodes_with_free(self, count: int) -> KeysView[int]:
        """UP nodes with exactly ``count`` free GPUs (live, in a deterministic order)."""
        return self._cluster.buckets[count].keys()

    def whole_free_nodes(self) -> KeysView[int]:
        """UP nodes with every GPU free."""
        return self._cluster.buckets[self.gpus_per_node].keys()

    def whole_free_in_leaf(self, leaf: int) -> KeysView[int]:
        """UP nodes with every GPU free under leaf switch ``leaf``."""
        return self._cluster.whole_free_by_leaf[leaf].keys()

    def leaf_of(self, node: int) -> int:
        """Leaf switch of node ``node``."""
        return self.topology.leaf_of[node]

    def jobs_on(self, node: int) -> KeysView[int]:
        """Indices of the jobs holding GPUs on node ``node``."""
        return self._cluster.jobs_on_node[node].keys()


class QueueView:
    """Read-only, live view of one pending queue (arrival order)."""

    __slots__ = ("_jobs", "_demand", "_values")

    def __init__(self, jobs: Mapping[int, JobInfo], demand: Callable[[], int]) -> None:
        self._jobs = jobs
        self._demand = demand
        self._values = jobs.values()  # live

    def __len__(self) -> int:
        return len(self._jobs)

    def __bool__(self) -> bool:
        return bool(self._jobs)

    def __iter__(self) -> Iterator[JobInfo]:
        return iter(self._jobs.values())

    def __contains__(self, job: object) -> bool:
        return getattr(job, "index", None) in self._jobs

    def head(self) -> JobInfo:
        """The oldest pending job (IndexError when empty); O(1)."""
        for job in self._jobs.values():
            return job
        raise IndexError("head of an empty queue")

    def peek(self) -> JobInfo | None:
        """The oldest pending job, or None when the queue is empty; O(1)."""
        return next(iter(self._values), None)

    @property
    def gpu_demand(self) -> int:
        """Sum of ``gpu_num`` over the queue."""
        return self._demand()


class PendingView:
    """Every pending job of every pool, in arrival order (merges the per-pool queues)."""

    __slots__ = ("_queues",)

    def __init__(self, queues: Mapping[str, QueueView]) -> None:
        self._queues = queues

    def __len__(self) -> int:
        return sum(len(q) for q in self._queues.values())

    def __bool__(self) -> bool:
        for queue in self._queues.values():
            if queue._jobs:
                return True
        return False

    def __iter__(self) -> Iterator[JobInfo]:
        queues = list(self._queues.values())
        if len(queues) == 1:
            return iter(queues[0])
        return heapq.merge(*queues, key=lambda job: job.arrival_seq)

    def __contains__(self, job: object) -> bool:
        return any(job in q for q in self._queues.values())

    @property
    def gpu_demand(self) -> int:
        """Sum of ``gpu_num`` over every pending job."""
        return sum(q.gpu_demand for q in self._queues.values())


class SchedulerView:
    """What a scheduler sees in a pass: time, pending queues, running jobs, cluster, fit test."""

    __slots__ = ("_clock", "queues", "pending", "running", "cluster", "_fits")

    def __init__(
        self,
        clock: Callable[[], float],
        queues: Mapping[str, QueueView],
        running: Mapping[int, JobInfo],
        cluster: ClusterView,
        fits: Callable[[JobInfo], Allocation | None],
    ) -> None:
        self._clock = clock
        self.queues: Mapping[str, QueueView] = queues
        """Pending jobs per resource pool (``"gpu"``, and ``"cpu"`` when CPU jobs replay)."""
        self.pending = PendingView(queues)
        """Every pending job, arrival order."""
        self.running: Mapping[int, JobInfo] = running
        """Running jobs by index (start order)."""
        self.cluster = cluster
        """The GPU cluster."""
        self._fits = fits

    @property
    def now(self) -> float:
        """Current simulated time (s since trace start)."""
        return self._clock()

    def fits(self, job: JobInfo) -> bool:
        """Whether the placement policy can place ``job`` right now."""
        return self._fits(job) is not None

    def placement(self, job: JobInfo) -> Allocation | None:
        """Where the placement policy would put ``job`` right now (``(node, GPUs)`` pairs)."""
        return self._fits(job)

    def attained_service(self, job: JobInfo) -> float:
        """GPU-seconds the job has held GPUs so far, including the current interval."""
        held = job.attained_closed
        if job.status == "running":
            held += job.gpu_num * (self._clock() - job.last_start)
        return held

    def progress(self, job: JobInfo) -> float:
        """Work done (s at gpu_num) as of now, counting the current interval past its overhead."""
        done = job.work_done
        if job.status == "running":
            done += max(0.0, self._clock() - job.last_start - job.overhead)
        return done
