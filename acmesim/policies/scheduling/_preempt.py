"""Preemptive priority scheduling: plan which running jobs to stop so better pending jobs fit.

A subclass ranks jobs for preemption (``rank``, lower is more important, comparable between a
pending and a running job) and lists the running jobs that may be stopped for a given rank,
worst first. Before each pass the planner copies the free-GPU counts of the schedulable nodes,
walks the best ``preempt_depth`` pending jobs in key order, and for each one that does not fit
looks for victims of a worse rank: for a single-node job, the node where the fewest worst-ranked
victims free enough GPUs (single-node victims are tried before multi-node ones, so a 1-GPU job
never stops a 512-GPU gang when a small job would do); for a multi-node job, enough nodes
whose every job is a victim. The engine then preempts the victims (they lose the work since
their last checkpoint and pay a restart overhead when they resume, ``acmesim.sim.preemption``)
and the pass starts the planned jobs, then fills what is left in key order.

The planner only runs when the best pending job outranks the worst running job, and a plan
that found nothing is not retried until the cluster or the policy's state changes. Most plans
need no victims: they are made on how many nodes have each free count, and the per-node copy
is made only when a job that does not fit has victims to look at (the same plan either way).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from itertools import compress
from typing import Any

from acmesim.cluster.view import ClusterView, JobInfo, SchedulerView
from acmesim.policies.scheduling._priority import PriorityScheduler
from acmesim.policies.scheduling._shapes import Capacity
from acmesim.policies.scheduling.base import NOTHING, Decision

_UNKNOWN: Any = object()
"""Default of a ``worst`` argument: not given, ask ``worst_rank``."""

UNUSABLE = -(1 << 20)
"""Free count given to nodes that accept no jobs (never fit, never clear)."""


def usable_free(cluster: ClusterView) -> list[int]:
    """Free GPUs per node, with nodes that accept no new jobs marked unusable."""
    free = list(cluster.free_gpus_per_node)
    if sum(map(len, cluster.free_by_count)) != cluster.num_nodes:
        for node in range(cluster.num_nodes):
            if not cluster.health(node).accepts_jobs:
                free[node] = UNUSABLE
    return free


def fit_nodes(free: list[int], job: JobInfo, gpus_per_node: int,
              have: list[int] | None = None) -> list[int] | None:
    """Nodes ``job`` would take in the working state (best fit / lowest whole nodes), or None.

    ``have``: how many usable nodes of ``free`` have each free count (``have[k]``), when the
    caller keeps it (``take`` and ``release`` do): the counts then say which count is the best
    fit without reading every node.
    """
    if have is None:
        have = free_counts(free, gpus_per_node)
    if job.nodes_needed == 1:
        # Best fit, lowest node among equals: the first node of the smallest count that fits
        # (list.index scans in C; unusable nodes are negative and never match).
        for count in range(job.per_node, gpus_per_node + 1):
            if have[count]:
                return [free.index(count)]
        return None
    if have[gpus_per_node] < job.nodes_needed:
        return None
    nodes: list[int] = []
    for _ in range(job.nodes_needed):
        nodes.append(free.index(gpus_per_node, nodes[-1] + 1 if nodes else 0))
    return nodes


def free_counts(free: list[int], gpus_per_node: int) -> list[int]:
    """How many usable nodes of ``free`` have each free count 0 .. ``gpus_per_node``."""
    return [free.count(count) for count in range(gpus_per_node + 1)]


def whole_nodes(free: list[int], gpus_per_node: int) -> list[int]:
    """Nodes with every GPU free in the working state, lowest first."""
    return list(compress(range(len(free)), map(gpus_per_node.__eq__, free)))


def take_by_count(have: list[int], job: JobInfo, gpus_per_node: int) -> bool:
    """``fit_nodes`` then ``take`` on ``have[k]``, the nodes with ``k`` free GPUs; False: no fit.

    Best fit changes the counts the same way whichever node of the best count it picks, so
    the counts alone tell which jobs fit in turn.
    """
    per_node = job.per_node
    if job.nodes_needed == 1:
        for count in range(per_node, gpus_per_node + 1):
            if have[count]:
                have[count] -= 1
                have[count - per_node] += 1
                return True
        return False
    if have[gpus_per_node] < job.nodes_needed:
        return False
    have[gpus_per_node] -= job.nodes_needed
    have[gpus_per_node - per_node] += job.nodes_needed
    return True


def release(free: list[int], job: JobInfo, have: list[int] | None = None) -> None:
    """Give a victim's GPUs back in the working state (and in its counts ``have``)."""
    for node, mask in job.grants:
        before = free[node]
        after = free[node] = before + mask.bit_count()
        if have is not None and before >= 0:
            have[before] -= 1
            have[after] += 1


def take(free: list[int], nodes: list[int], job: JobInfo,
         have: list[int] | None = None) -> None:
    """Take a planned job's GPUs in the working state (and in its counts ``have``)."""
    per_node = job.per_node
    for node in nodes:
        before = free[node]
        free[node] = before - per_node
        if have is not None:
            have[before] -= 1
            have[before - per_node] += 1


def _gpus_of(victims: Iterable[JobInfo]) -> int:
    """GPUs held by ``victims``."""
    return sum(v.gpu_num for v in victims)


def victims_on_one_node(job: JobInfo, free: list[int], candidates: Iterable[JobInfo],
                        budget: float) -> tuple[list[int], list[JobInfo]] | None:
    """Worst-first victims that free ``job.per_node`` GPUs on a single node, or None.

    Single-node victims are tried first: the first node they alone clear, in the victims'
    order; failing that, the first node cleared when multi-node victims count too. Both are
    followed in one walk of ``candidates`` (which may be lazy: the walk stops at the first
    node single-node victims clear)."""
    need = job.per_node
    unlimited = budget == math.inf
    stopped: dict[int, list[JobInfo]] = {}
    """Single-node victims by node (with the GPUs they free there)."""
    any_stopped: dict[int, list[JobInfo]] = {}
    """Every victim by node (until ``with_gangs`` is found)."""
    gained: dict[int, int] = {}
    any_gained: dict[int, int] = {}
    with_gangs: tuple[list[int], list[JobInfo]] | None = None
    """The answer counting multi-node victims too (its first node), once found."""
    for victim in candidates:
        single = victim.nodes_needed == 1
        for node, mask in victim.grants:
            short = need - free[node]
            if short > need:
                continue  # an unusable node (its free count is negative)
            bits = mask.bit_count()
            if with_gangs is None:
                total = any_gained[node] = any_gained.get(node, 0) + bits
                on_node = any_stopped.get(node)
                if on_node is None:
                    on_node = any_stopped[node] = [victim]
                else:
                    on_node.append(victim)
                if total >= short and (unlimited or _gpus_of(on_node) <= budget):
                    with_gangs = ([node], on_node)
            if single:
                total = gained[node] = gained.get(node, 0) + bits
                on_node = stopped.get(node)
                if on_node is None:
                    on_node = stopped[node] = [victim]
                else:
                    on_node.append(victim)
                if total >= short and (unlimited or _gpus_of(on_node) <= budget):
                    return [node], on_node
    return with_gangs


def victims_for_gang(job: JobInfo, free: list[int], candidates: Iterable[JobInfo],
                     gpus_per_node: int, budget: float, have: list[int] | None = None
                     ) -> tuple[list[int], list[JobInfo]] | None:
    """Worst-first victims that clear enough whole nodes for a multi-node job, or None
    (``have``: the counts of ``free``, if the caller keeps them)."""
    whole = free.count(gpus_per_node) if have is None else have[gpus_per_node]
    missing = job.nodes_needed - whole
    occupied: dict[int, int] = {}
    stopped: dict[int, list[JobInfo]] = {}
    cleared: list[int] = []
    for victim in candidates:
        for node, mask in victim.grants:
            if free[node] < 0:
                continue
            left = occupied.get(node, gpus_per_node - free[node]) - mask.bit_count()
            occupied[node] = left
            stopped.setdefault(node, []).append(victim)
            if left == 0:
                cleared.append(node)
        if len(cleared) >= missing:
            chosen = cleared[:missing]
            victims = list({v.index: v for n in chosen for v in stopped[n]}.values())
            if _gpus_of(victims) > budget:
                return None
            return whole_nodes(free, gpus_per_node) + chosen, victims
    return None


class PreemptiveScheduler(PriorityScheduler):
    """A priority scheduler that may stop worse-ranked running jobs for better pending ones."""

    preempt_depth = 8
    """Pending jobs (best first) the planner considers per pass."""

    idle_without_pending = True
    """A pass does nothing while the queue is empty but ``before_pass``: a subclass whose
    ``before_pass`` must also run then says False (``las``'s need not: see there)."""

    def __init__(self, config: Any = None) -> None:
        super().__init__(config)
        self.preempt_depth = int(getattr(config, "preempt_depth", self.preempt_depth))
        self.state_version = 0
        """Bumped by subclasses whenever running jobs' ranks change (e.g. a demotion)."""
        self._failed_plan: tuple[int, int, int] | None = None
        self._capacity: Capacity | None = None
        """Reused by ``_sole_fitting`` (refreshed each time: one object, not one a pass)."""
        self._this_pass: tuple[SchedulerView, JobInfo | None, list[JobInfo] | None] | None = None
        """What the last pass that preempts nothing starts: (view, lone job, plan)."""
        self._no_preemption = Decision(start=_PassStarts(self))
        """The decision of every pass that preempts nothing (its starts are drawn from
        ``_this_pass`` when the engine iterates them): one object, not one a pass."""
        self._admit: Callable[[JobInfo], bool] | None = (
            None if type(self).admit is PriorityScheduler.admit else self.admit)
        """``admit``, or None when the subclass keeps the default (admit everything)."""
        self._before_pass: Callable[[SchedulerView], None] | None = (
            None if type(self).before_pass is PreemptiveScheduler.before_pass
            else self.before_pass)
        """``before_pass``, or None when the subclass keeps the default (nothing to do)."""

    # ------------------------------------------------------------------ what subclasses say
    def rank(self, job: JobInfo, view: SchedulerView) -> Any:
        """Preemption rank of a pending job (lower is more important)."""
        raise NotImplementedError

    def worst_rank(self, view: SchedulerView) -> Any:
        """Rank of the worst running job that may be preempted, or None if there is none."""
        raise NotImplementedError

    def victims(self, view: SchedulerView, rank: Any) -> list[JobInfo]:
        """Running jobs ranked worse than ``rank`` that may be preempted, worst first."""
        raise NotImplementedError

    def iter_victims(self, view: SchedulerView, rank: Any) -> Iterable[JobInfo]:
        """``victims(view, rank)`` in the same order, possibly lazily (a policy that can
        produce them one at a time overrides this: the planner often needs only the first)."""
        return self.victims(view, rank)

    def has_victims(self, view: SchedulerView, rank: Any) -> bool:
        """Whether ``victims(view, rank)`` is non-empty (subclasses answer without the list)."""
        return bool(self.victims(view, rank))

    def preempt_budget(self, view: SchedulerView) -> float:
        """At most this many GPUs may be preempted in one pass."""
        return math.inf

    def before_pass(self, view: SchedulerView) -> None:
        """Bring time-dependent state up to date (demotions, promotions, ...)."""

    def may_preempt(self) -> bool:
        """Cheap pre-check: could any pending job preempt at all (default: yes)?"""
        return True

    # ------------------------------------------------------------------ passes
    def schedule(self, view: SchedulerView) -> Decision:
        """Preempt for the best pending jobs if that helps, then start jobs in key order."""
        if self._before_pass is not None:
            self._before_pass(view)
        if not self.queue.entries:
            return NOTHING
        sole = self._sole_fitting(view)
        if sole is not None:  # a plan would be [sole] and no victims (most passes)
            self._this_pass = (view, sole, None)
            return self._no_preemption
        victims: list[JobInfo] = []
        planned: list[JobInfo] = []
        worst = self._worst_if_worth_planning(view)
        if worst is not None:
            victims, planned = self.plan(view, worst)
            if not victims:
                best = self.queue.peek()
                self._failed_plan = (view.cluster.version, best.index if best else -1,
                                     self.state_version)
        if victims:
            return Decision(start=self._starts(view, planned), preempt=victims)
        self._this_pass = (view, None, planned)
        return self._no_preemption

    def _pass_starts(self) -> Iterator[JobInfo]:
        """The starts of the last pass that preempts nothing (``_no_preemption``'s)."""
        if self._this_pass is None:
            return iter(())
        view, sole, planned = self._this_pass
        if sole is not None:
            return self._start_sole(view, sole)
        if not planned:
            return self.fill(view)  # what ``_starts`` does with no planned job
        return self._starts(view, planned)

    def _start_sole(self, view: SchedulerView, job: JobInfo) -> Iterator[JobInfo]:
        """What ``_starts`` does with the plan ``[job]``, without making the plan.

        A plan that finds no victims is remembered (``_failed_plan``) so the same state is not
        planned again; that record is read only while the cluster's version is unchanged, so
        it matters only if ``job`` did not start (the placement refused it): the state is
        then the pass's own, and the record is made as the plan would have made it.
        """
        if view.fits(job):
            yield job
            pending = self.queue.entries
            if pending:  # (it seldom is: the job was the only one pending)
                yield from self.fill(view)
            if job.index not in pending:
                return
        if self._worst_if_worth_planning(view) is not None:
            self._failed_plan = (view.cluster.version, job.index, self.state_version)

    def _sole_fitting(self, view: SchedulerView) -> JobInfo | None:
        """The only pending job, if it is a GPU job the policy admits and the free counts fit
        (most passes of a replay: one arrival, started at once), else None.

        The plan of such a queue is that job and no victims, whatever the ranks, so the pass
        starts it if the placement can (``_start_sole``).
        """
        queue = self.queue
        if len(queue.entries) != 1:
            return None
        job = queue.peek()
        if job is None or job.pool != "gpu" or (self._admit is not None and not self._admit(job)):
            return None
        cluster = view.cluster
        capacity = self._capacity
        if capacity is None or capacity.gpus_per_node != cluster.gpus_per_node:
            capacity = self._capacity = Capacity(cluster)
        else:
            capacity.refresh(cluster)
        return job if capacity.admits(job) else None

    def _worth_planning(self, view: SchedulerView) -> bool:
        """Whether the best pending job outranks the worst running one (and it is news)."""
        return self._worst_if_worth_planning(view) is not None

    def _worst_if_worth_planning(self, view: SchedulerView) -> Any:
        """``worst_rank`` when the best pending job outranks it and a plan for this state has
        not already found nothing, else None (the cheap tests first)."""
        if not self.may_preempt():
            return None
        best = self.queue.peek()
        if best is None:
            return None
        if self._failed_plan == (view.cluster.version, best.index, self.state_version):
            return None
        worst = self.worst_rank(view)
        if worst is None or not self.rank(best, view) < worst:
            return None
        return worst

    def plan(self, view: SchedulerView, worst: Any = _UNKNOWN
             ) -> tuple[list[JobInfo], list[JobInfo]]:
        """Victims to preempt and jobs to start, simulated on a copy of the free counts.

        Planned first on how many nodes have each free count (``take_by_count``), which gives
        the same jobs as the node-level plan as long as no job would look for victims; only
        when one may (it does not fit and ``_candidates`` finds some), the plan is redone node
        by node (``plan_on_nodes``). Most passes need no victims, so they skip copying and
        scanning the per-node free counts. ``worst``: ``worst_rank`` if the caller has it.
        """
        if worst is _UNKNOWN:
            worst = self.worst_rank(view)
        planned = self.plan_by_counts(view, worst)
        if planned is not None:
            return [], planned
        return self.plan_on_nodes(view, worst)

    def plan_by_counts(self, view: SchedulerView, worst: Any = _UNKNOWN
                       ) -> list[JobInfo] | None:
        """The jobs ``plan_on_nodes`` would start when none needs victims, else None."""
        cluster = view.cluster
        gpus = cluster.gpus_per_node
        have = list(map(len, cluster.free_by_count))
        budget = self.preempt_budget(view)
        if worst is _UNKNOWN:
            worst = self.worst_rank(view)
        admit = self._admit
        planned: list[JobInfo] = []
        for job in self.queue.in_order(self.preempt_depth):
            if job.pool != "gpu" or (admit is not None and not admit(job)):
                continue
            if not take_by_count(have, job, gpus):
                if self._may_preempt_for(view, job, worst, budget):
                    return None  # victims may let it start: only the nodes can tell
                if self.strict:
                    break
                continue
            planned.append(job)
        return planned

    def plan_on_nodes(self, view: SchedulerView, worst: Any = _UNKNOWN
                      ) -> tuple[list[JobInfo], list[JobInfo]]:
        """Victims to preempt and jobs to start, simulated on a copy of the nodes' free GPUs."""
        cluster = view.cluster
        gpus = cluster.gpus_per_node
        free = usable_free(cluster)
        have = list(map(len, cluster.free_by_count))  # the counts of ``free`` (UP nodes)
        budget = self.preempt_budget(view)
        if worst is _UNKNOWN:
            worst = self.worst_rank(view)
        admit = self._admit
        chosen: dict[int, JobInfo] = {}
        planned: list[JobInfo] = []
        for job in self.queue.in_order(self.preempt_depth):
            if job.pool != "gpu" or (admit is not None and not admit(job)):
                continue
            nodes = fit_nodes(free, job, gpus, have)
            if nodes is None:
                found = self._find_victims(view, job, free, chosen, worst, budget, have)
                if found is None:
                    if self.strict:
                        break  # head-of-line: nothing behind a blocked job may start
                    continue
                nodes, victims = found
                for victim in victims:
                    chosen[victim.index] = victim
                    release(free, victim, have)
                budget -= _gpus_of(victims)
            take(free, nodes, job, have)
            planned.append(job)
        return list(chosen.values()), planned

    def _find_victims(self, view: SchedulerView, job: JobInfo, free: list[int],
                      chosen: dict[int, JobInfo], worst: Any, budget: float,
                      have: list[int] | None = None
                      ) -> tuple[list[int], list[JobInfo]] | None:
        """Nodes and victims that let ``job`` start (``worst``: ``worst_rank``), or None
        (``have``: the counts of ``free``, if the caller keeps them)."""
        candidates = self._candidates(view, job, chosen, worst, budget)
        if job.nodes_needed == 1:
            return victims_on_one_node(job, free, candidates, budget)
        return victims_for_gang(job, free, candidates, view.cluster.gpus_per_node, budget,
                                have)

    def _may_preempt_for(self, view: SchedulerView, job: JobInfo, worst: Any,
                         budget: float) -> bool:
        """Whether ``_candidates`` with nothing chosen yet would find any victim for ``job``."""
        rank = self.rank(job, view)
        if worst is None or not rank < worst or budget <= 0:
            return False
        return self.has_victims(view, rank)

    def _candidates(self, view: SchedulerView, job: JobInfo, chosen: dict[int, JobInfo],
                    worst: Any, budget: float) -> Iterable[JobInfo]:
        """Running jobs not yet ``chosen`` that ``job`` may stop, worst first (none if it
        outranks none; ``worst``: ``worst_rank``, the same throughout a plan). Lazy when the
        policy's ``iter_victims`` is: the victim searches stop early."""
        rank = self.rank(job, view)
        if worst is None or not rank < worst or budget <= 0:
            return ()
        victims = self.iter_victims(view, rank)
        if not chosen:
            return victims
        return (v for v in victims if v.index not in chosen)

    def _starts(self, view: SchedulerView, planned: list[JobInfo]) -> Iterator[JobInfo]:
        """The planned jobs (those still pending that fit), then the usual fill."""
        admit = self._admit
        pending = self.queue.entries
        for job in planned:
            if job.index in pending and (admit is None or admit(job)) and view.fits(job):
                yield job
        yield from self.fill(view)


class _PassStarts(Iterable[JobInfo]):
    """The starts of a preemptive scheduler's last pass that preempts nothing, drawn anew on
    every iteration (the engine iterates a pass's starts once, during that pass)."""

    __slots__ = ("_scheduler",)

    def __init__(self, scheduler: PreemptiveScheduler) -> None:
        self._scheduler = scheduler

    def __iter__(self) -> Iterator[JobInfo]:
        return self._scheduler._pass_starts()


__all__ = ["PreemptiveScheduler", "fit_nodes", "usable_free"]
