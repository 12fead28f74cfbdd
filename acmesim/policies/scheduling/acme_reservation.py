"""Acme's policy: quota reservation for pretraining, best-effort borrowing, evaluation last.

The Acme clusters guarantee resources to pretraining through resource isolation and quota
reservation, raise utilization with a best-effort job class, and run evaluation jobs at lower
priority on the spare capacity (acme_facts.md §1 "Scheduling policy" and §2.5; Hu et al.,
NSDI '24). Here all of it is configuration:

- ``quotas`` maps a job type to the share of the cluster's *nodes* reserved for it. A reserved
  type may hold at most its quota's GPUs, and within it it is guaranteed: when one of its jobs
  does not fit, best-effort jobs that borrow reserved nodes are preempted for it.
- The nodes outside every quota are the *shared* nodes. Isolation is kept by node count (the
  placement policy, not the scheduler, picks nodes): jobs of unreserved types may together occupy
  at most that many nodes, so the reserved types always find their whole nodes free, which a
  GPU count alone would not guarantee once small jobs fragment the nodes.
- ``borrowers`` are the best-effort types: they may start on any free GPU, including on reserved
  nodes, and are the jobs preempted when a reserved type reclaims its quota (only while
  unreserved jobs occupy more nodes than the shared ones).
- Every other unreserved type (by default evaluation) starts only while unreserved jobs occupy
  fewer nodes than the shared ones, even counting every node it would take as a new one
  (conservative: the placement may reuse an occupied node), i.e. on what the higher classes
  left; it is never preempted.
- A job larger than its class's whole share (quota, or shared nodes) could never start under
  these rules; it starts when its class holds nothing else.
- ``priorities`` maps a type to its priority class (lower first, ``default_priority`` for the
  rest); inside a class jobs go in submission order, skipping jobs that do not fit.

This is the configurable *family* of reservation policies for what-if studies; the calibrated
baseline ``acme`` (``acme.py``) is one fixed member of it (pretraining may reclaim every node,
the other teams share a pool sized to their published share of GPU time, evaluation runs
best-effort beyond it, submissions take fair turns, Debug jobs run in pretraining's quota
through ``quota_of``; beyond the family, MLLM as a team of its own quota, and per-user limits
and gang headroom, both off by default), with its parameters derived or chosen to reproduce
the published queueing. Compare a variant of this family with ``acme``. What is not the
scheduler's is the cluster's and holds under every scheduler, this family's included: the
Seren and Kalos presets' start-up latency and their jobs held by their users (1.5 % of Other's
GPU jobs for 2^15-2^17 s, 1 % of MLLM's for 2^13-2^15 s; ``acmesim.cluster.presets.acme``).

Default quota: pretraining reserves 80% of the nodes. [Derived assumption] Pretraining is 69.5%
of Seren's GPU time (acme_facts.md §2.2) at about 59% average allocation (§2.1), i.e. about 41%
of the cluster on average; the reservation adds headroom for its 1,024-GPU peaks (§2.1) and
for its restarts after failures.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Hashable, Sequence
from typing import Any

from acmesim.cluster.view import JobInfo, SchedulerView
from acmesim.policies.scheduling import SCHEDULERS
from acmesim.policies.scheduling._preempt import PreemptiveScheduler


def _default_quotas() -> dict[str, float]:
    """Pretraining reserves 80% of the nodes (see the module docstring)."""
    return {"Pretrain": 0.8}


def _default_priorities() -> dict[str, int]:
    """Pretraining first, evaluation last, every other type in between."""
    return {"Pretrain": 0, "Eval": 2}


_UNSET: Any = object()
"""Not in ``AcmeReservation.quota``'s memo yet."""


def held_gpus(job: JobInfo) -> int:
    """GPUs a running job keeps from others (multi-node gangs hold whole nodes)."""
    return job.nodes_needed * job.per_node


@SCHEDULERS.register("acme_reservation", "reservation")
class AcmeReservation(PreemptiveScheduler):
    """Per-type node quotas, best-effort borrowing with preemption, low-priority evaluation."""

    @dataclasses.dataclass(frozen=True)
    class Config:
        """Quotas (type -> node share), priority classes (type -> class), borrowing types."""

        quotas: dict = dataclasses.field(default_factory=_default_quotas)
        """job type -> share of the nodes reserved for it (guaranteed, reclaimed by preemption)."""
        priorities: dict = dataclasses.field(default_factory=_default_priorities)
        """job type -> priority class (lower goes first)."""
        default_priority: int = 1
        """Priority class of the types not in priorities."""
        borrowers: tuple[str, ...] = ("SFT", "MLLM", "Debug", "Other")
        """Best-effort types: may use reserved nodes and are preempted to give them back."""
        preempt_depth: int = 8
        """How many pending jobs may preempt per scheduling pass."""

        def __post_init__(self) -> None:
            shares = {str(k): float(v) for k, v in self.quotas.items()}
            if any(not 0.0 <= s <= 1.0 for s in shares.values()) or sum(shares.values()) > 1.0:
                raise ValueError(f"quotas must be shares in [0, 1] summing to <= 1, got {shares}")
            clash = set(shares) & set(self.borrowers)
            if clash:
                raise ValueError(f"types {sorted(clash)} cannot both have a quota and borrow")
            object.__setattr__(self, "quotas", shares)
            object.__setattr__(self, "priorities",
                               {str(k): int(v) for k, v in self.priorities.items()})
            object.__setattr__(self, "borrowers", tuple(self.borrowers))

    def __init__(self, config: Config | None = None) -> None:
        super().__init__(config)
        self.borrower_types = frozenset(self.config.borrowers)
        self.used: dict[str, int] = {}
        """GPUs held per reserved type."""
        self.guarantee: dict[str, int] | None = None
        """GPUs reserved per type (whole nodes)."""
        self.shared_nodes = 0
        self.jobs_on: dict[int, int] = {}
        """Unreserved jobs per node (nodes with at least one)."""
        self.borrowing: dict[int, JobInfo] = {}
        """Running jobs of borrowing types."""
        self.pending_reserved = 0
        """Pending jobs of reserved types."""
        self.nodes_of: dict[int, Any] = {}
        """Grants ``(node, mask)`` of each running unreserved job (the job's are gone once it
        stops)."""
        self.admit_rule = self.admit
        self._quota: dict[int, str | None] = {}
        """``quota_of`` of each job seen and not yet finished (``quota``)."""

    # ------------------------------------------------------------------ capacities
    def _size(self, view: SchedulerView) -> None:
        """Turn quota shares into node and GPU counts once the cluster is known."""
        cluster = view.cluster
        nodes = {t: math.floor(s * cluster.num_nodes) for t, s in self.config.quotas.items()}
        self.guarantee = {t: n * cluster.gpus_per_node for t, n in nodes.items()}
        self.shared_nodes = cluster.num_nodes - sum(nodes.values())

    def borrowed_nodes(self) -> int:
        """Nodes unreserved jobs occupy beyond the shared ones."""
        return max(0, len(self.jobs_on) - self.shared_nodes)

    def reserved(self, job: JobInfo) -> bool:
        """Whether the job runs in a quota."""
        return self.quota(job) is not None

    def quota_of(self, job: JobInfo) -> str | None:
        """The reserved type whose quota the job runs in (its own type's), or None.

        A rule of the job's own fields (type, size) and the configuration, not of the
        cluster's state: it is asked once per job (``quota``)."""
        return job.type if job.type in self.config.quotas else None

    def quota(self, job: JobInfo) -> str | None:
        """``quota_of(job)``, asked once per job (kept until the job finishes): a job's quota
        is read at its arrival, start, end and every admission test."""
        quota = self._quota.get(job.index, _UNSET)
        if quota is _UNSET:
            quota = self._quota[job.index] = self.quota_of(job)
        return quota

    # ------------------------------------------------------------------ ranking
    def lane(self, job: JobInfo) -> Hashable:
        """Queues by admission rule: one per reserved type (so a type at its quota never hides
        another), one for borrowers, one for the rest."""
        quota = self.quota(job)
        if quota is not None:
            return quota
        return "borrow" if job.type in self.borrower_types else "shared"

    def may_preempt(self) -> bool:
        """Only a pending job of a reserved type can preempt."""
        return self.pending_reserved > 0

    def on_arrivals(self, jobs: Sequence[JobInfo], view: SchedulerView) -> None:
        """Ask each job's quota once (``quota``), count pending reserved-type jobs, queue
        the jobs."""
        memo, quota_of = self._quota, self.quota_of
        reserved = 0
        for job in jobs:
            quota = memo[job.index] = quota_of(job)  # a new job: not in the memo yet
            reserved += quota is not None
        self.pending_reserved += reserved
        super().on_arrivals(jobs, view)

    def key(self, job: JobInfo, view: SchedulerView) -> tuple[float, ...]:
        """(priority class, submission time)."""
        return self.class_key(job, view)

    def class_key(self, job: JobInfo, view: SchedulerView) -> tuple[int, float]:
        """(priority class, submission time)."""
        if self.guarantee is None:
            self._size(view)
        return (self.config.priorities.get(job.type, self.config.default_priority),
                job.submit_time)

    def admit(self, job: JobInfo) -> bool:
        """Reserved types within quota; borrowers anywhere; the rest within the shared nodes."""
        if job.pool != "gpu":
            return True
        assert self.guarantee is not None
        reserved = self._quota.get(job.index, _UNSET)  # self.quota(job), the memo in line
        if reserved is _UNSET:
            reserved = self.quota(job)
        if reserved is not None:
            quota = self.guarantee[reserved]
            used = self.used.get(reserved, 0)
            held = job.nodes_needed * job.per_node  # held_gpus(job)
            return used + held <= quota or (used == 0 and held > quota)
        if job.type in self.borrower_types:
            return True
        occupied = len(self.jobs_on)
        return (occupied + job.nodes_needed <= self.shared_nodes
                or (occupied == 0 and job.nodes_needed > self.shared_nodes))

    def rank(self, job: JobInfo, view: SchedulerView) -> int:
        """Reserved types within their guarantee outrank borrowers; nothing else preempts."""
        return 0 if self.reserved(job) and self.admit(job) else 2

    def worst_rank(self, view: SchedulerView) -> int | None:
        """Borrowers are preemptible while unreserved jobs occupy reserved nodes."""
        return 1 if self.borrowing and self.borrowed_nodes() > 0 else None

    def victims(self, view: SchedulerView, rank: int) -> list[JobInfo]:
        """Borrowing jobs: lowest priority class first, then the most recently started."""
        default = self.config.default_priority
        priorities = self.config.priorities
        running = [job for job in self.borrowing.values() if job.status == "running"]
        return sorted(running, key=lambda j: (-priorities.get(j.type, default), -j.last_start,
                                              -j.index))

    def has_victims(self, view: SchedulerView, rank: int) -> bool:
        """Whether a borrowing job is running (``victims`` non-empty)."""
        return any(job.status == "running" for job in self.borrowing.values())

    def preempt_budget(self, view: SchedulerView) -> float:
        """At most the GPUs of the borrowed nodes may be reclaimed in one pass."""
        return float(self.borrowed_nodes() * view.cluster.gpus_per_node)

    # ------------------------------------------------------------------ accounting
    def _account(self, job: JobInfo, sign: int) -> None:
        """Add (``sign=1``) or remove (``-1``) a running job from the counters.

        The engine reports a stopped job when it is requeued (or ends), so a job held after a
        failure still counts until then.
        """
        if job.pool != "gpu":
            return
        reserved = self._quota.get(job.index, _UNSET)  # self.quota(job), the memo in line
        if reserved is _UNSET:
            reserved = self.quota(job)
        if reserved is not None:
            used = self.used
            used[reserved] = used.get(reserved, 0) + sign * (job.nodes_needed * job.per_node)
            return
        jobs_on = self.jobs_on
        if sign > 0:
            grants = self.nodes_of[job.index] = job.grants  # a tuple, replaced (not changed)
        else:                                             # when the job stops
            grants = self.nodes_of.pop(job.index, ())
        for node, _ in grants:
            count = jobs_on.get(node, 0) + sign
            if count:
                jobs_on[node] = count
            else:
                del jobs_on[node]
        if job.type in self.borrower_types:
            if sign > 0:
                self.borrowing[job.index] = job
            else:
                self.borrowing.pop(job.index, None)

    def on_start(self, job: JobInfo, view: SchedulerView) -> None:
        """Count the job."""
        super().on_start(job, view)
        if self.quota(job) is not None:  # self.reserved(job)
            self.pending_reserved -= 1
        self._account(job, 1)

    def on_requeue(self, job: JobInfo, view: SchedulerView) -> None:
        """Uncount the job and queue it again."""
        self._account(job, -1)
        super().on_requeue(job, view)
        self.pending_reserved += self.reserved(job)

    def on_finish(self, job: JobInfo, view: SchedulerView) -> None:
        """Uncount the job (and forget its quota)."""
        self._account(job, -1)
        self._quota.pop(job.index, None)
        super().on_finish(job, view)
