"""The discrete-event core: arrivals, scheduling passes, starts, completions, preemptions.

Events (on SimPy's event queue, no process per job): job arrivals (one per distinct submit
time, chained so the event queue stays small) and job completions as the clock's direct calls
(``acmesim.sim.clock``: no event object per job), recorded-start wake-ups (``recorded`` mode) and
callbacks as SimPy events, and one scheduling pass per timestamp at a lower priority than
everything else at that time (the clock's deferred call). Every completion carries the job's
*epoch*; stopping a job early bumps the epoch, so its stale completion is ignored when it fires.

Policies never touch this object: the scheduler returns a ``Decision`` that the engine applies.
Extensions (``acmesim.sim.extension``: faults, energy, evaluation) are given to the constructor,
which attaches them; the engine calls their ``on_arrival`` and ``on_close`` hooks, and they act
through the control API below (the section "control API": ``preempt``, ``interrupt``,
``relaunch``, ``terminate``, ``set_node_health``, ``set_switch_health``, ``record_checkpoint``,
``call_at``, ``call_later``) and read its state through ``now``, ``progress``, ``job``,
``live_jobs``, ``unfinished``, ``has_pending_events``, ``rng``, ``table``, ``cluster`` (read
only), ``running`` and ``held``. The run ends when the last job ends, even if such callbacks are
still scheduled later.
"""

from __future__ import annotations

import gc
import itertools
import math
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from heapq import heappush
from types import MappingProxyType
from typing import Literal

from simpy.core import NORMAL, StopSimulation
from simpy.events import Event

from acmesim.cluster.cluster import Allocation, Cluster
from acmesim.cluster.cpu_pool import CpuPool
from acmesim.cluster.health import NodeHealth
from acmesim.cluster.spec import ClusterSpec
from acmesim.cluster.view import ClusterView, JobInfo, QueueView, SchedulerView
from acmesim.core.errors import AcmesimError
from acmesim.core.rng import RngStreams
from acmesim.policies.placement.base import Placement
from acmesim.policies.scheduling.base import Scheduler
from acmesim.results.recorders import JobRecorder, StepRecorder
from acmesim.sim.clock import PASS_PRIORITY, Clock
from acmesim.sim.extension import Extension, overrides
from acmesim.sim.job import DONE, HELD, NAN, PENDING, RUNNING, Job, job_maker
from acmesim.sim.preemption import PreemptionModel
from acmesim.sim.recorded import RecordedStarts
from acmesim.sim.trace_input import JobTable

Progress = Callable[[float, int], None]
"""Progress callback: (simulated fraction of the trace span, jobs finished)."""


_NO_FAILURE: tuple[None, int] = (None, -1)
"""``Simulation._failed`` at the start of a pass: no start has failed yet."""


def _overrides(scheduler: Scheduler, hook: str) -> bool:
    """Whether ``scheduler`` implements callback ``hook`` (skips no-op calls in the hot path)."""
    return getattr(type(scheduler), hook) is not getattr(Scheduler, hook)


class Simulation:
    """One replay of a job table on a cluster with a scheduler and a placement policy."""

    def __init__(
        self,
        table: JobTable,
        spec: ClusterSpec,
        scheduler: Scheduler,
        placement: Placement,
        *,
        mode: Literal["recorded", "scheduled"] = "scheduled",
        preemption: PreemptionModel | None = None,
        progress: Progress | None = None,
        audit: bool = False,
        seed: int = 0,
        extensions: Sequence[Extension] = (),
    ) -> None:
        if mode not in ("recorded", "scheduled"):
            raise AcmesimError(f"unknown mode {mode!r}; valid modes: recorded, scheduled")
        self.env = Clock()
        self.table = table
        self._make_job = job_maker(table)
        self.mode = mode
        self.spec = spec
        self.cluster = Cluster(spec)
        self.cpu_pool = CpuPool(spec.cpu_nodes, spec.cpus_per_cpu_node)
        self.scheduler = RecordedStarts() if mode == "recorded" else scheduler
        self.placement = placement
        self.preemption = preemption or PreemptionModel()
        self.audit = audit
        self.rng = RngStreams(seed)
        """Named random streams for plug-ins that draw (failures, repairs, ...)."""
        self.startup = (spec.startup.draw(self.rng.stream("startup"), len(table),
                                           table.type)
                        if mode == "scheduled" and spec.startup.active else None)
        """Start-up latency of each job's first start (scheduled mode, GPU jobs; one draw per
        job index, so it does not depend on the order the scheduler starts jobs in)."""
        self._startup_draws = (memoryview(b"").cast("d") if self.startup is None
                               else self.startup.astype(float, copy=False).data)
        """The same draws as Python floats by index (a view, no copy)."""
        self._launch_interval = spec.startup.launch_interval
        holds = (spec.eligibility.draw(self.rng.stream("eligibility"), len(table), table.type)
                 if mode == "scheduled" and spec.eligibility.active else None)
        self.holds: list[float] | None = None if holds is None else holds.tolist()
        """Eligibility delay of each job by index (scheduled mode, GPU jobs, first submission:
        ``acmesim.cluster.eligibility``; drawn per job index like the start-up); None: none."""
        self._total = len(table)
        """Jobs of the table (the run ends when this many have ended)."""
        self.jobs = JobRecorder(len(table))
        self._record = self.jobs.record
        self.steps = StepRecorder()
        self._add_step_row, self._pack_step_row = self.steps.add_row, self.steps.pack
        self._step_loads = self.steps.load
        self._events = 0
        """Events other than passes processed (``events`` adds the passes)."""
        self.passes = 0
        self.busy_gpus = 0
        self.busy_load = 0
        """Sum of ``job_loads`` over running GPU jobs (mW above idle if all computed; integer,
        exact)."""
        self.job_loads: list[int] | None = None
        """Each job's power load by index, set by the extension that accounts power (read on
        each start and close rather than copied onto the job at its arrival, so an arrival
        keeps the engine's fast path)."""
        self.running: dict[int, Job] = {}
        self.held: dict[int, Job] = {}
        """Jobs stopped by a failure and waiting ``requeue_after`` before they requeue."""
        self.extensions: tuple[Extension, ...] = tuple(extensions)
        """The attached extensions, in the order their hooks are called."""
        pools = ["gpu"] + (["cpu"] if "cpu" in table.pool else [])
        self._queues: dict[str, OrderedDict[int, Job]] = {p: OrderedDict() for p in pools}
        self._demand = dict.fromkeys(pools, 0)
        self.queued_jobs = 0
        self.queued_gpus = 0
        self._seq = itertools.count()
        self._launcher_free = 0.0
        self._pass_due = False
        """A pass is pending or running: a request for one now is already served."""
        self._pass = self._on_pass  # bound once: a pass is requested at nearly every timestamp
        self._complete = self._on_complete  # bound once: one completion per start
        self._arrive = self._on_arrivals
        self._call_direct = self.env.call_direct
        self._heap, self._eid = self.env._queue, self.env._eid  # the clock's heap and counter
        self._cache: tuple[JobInfo | None, int, Allocation | None] = (None, -1, None)
        self._failed: tuple[JobInfo | None, int] = (None, -1)
        self._progress = progress
        self._span = max(table.span, 1e-9)
        self._next_progress = 0.0 if progress is not None else math.inf
        self._next_check = -math.inf if audit else self._next_progress
        """When the next pass must call ``_after_pass``."""
        self.cluster_view = ClusterView(self.cluster)
        queue_views = {p: QueueView(MappingProxyType(q), self._demand_of(p))
                       for p, q in self._queues.items()}
        self.view = SchedulerView(lambda: self.env.now, MappingProxyType(queue_views),
                                  MappingProxyType(self.running), self.cluster_view, self._fit)
        hooks = ("on_arrival", "on_arrivals", "on_start", "on_requeue", "on_finish")
        self._hooks = {h: _overrides(self.scheduler, h) for h in hooks}
        self._arrival_hook = self._hooks["on_arrivals"] or self._hooks["on_arrival"]
        """The scheduler hears of arrivals (through ``on_arrivals``, whose default hands each
        job to ``on_arrival``)."""
        self._start_hook = self._hooks["on_start"]
        self._finish_hook = self._hooks["on_finish"]
        self._idle_without_pending = getattr(self.scheduler, "idle_without_pending", False)
        """The scheduler does nothing while no job is pending (``Scheduler``): a pass then
        skips it (the pass still counts, and records its step)."""
        for extension in self.extensions:
            extension.attach(self)
        self._arrival_hooks: list[Callable[[Job], None]] = [
            e.on_arrival for e in self.extensions if overrides(e, "on_arrival")]
        """``on_arrival`` of each extension that has one that acts in this run (called before
        the job is queued; read once every extension is attached: ``inert_hooks``)."""
        self._close_hooks: list[Callable[[Job, float], None]] = [
            e.on_close for e in self.extensions if overrides(e, "on_close")]
        """``on_close`` of each extension that has one that acts (the interval ran from
        ``job.last_start``; ``job.overhead``, ``job.work_done`` and ``job.pace`` still describe
        it; ``job.checkpoint_overhead`` includes its checkpoint stalls)."""

    def _demand_of(self, pool: str) -> Callable[[], int]:
        """A reader of one pool's queued GPU demand."""
        return lambda: self._demand[pool]

    @property
    def events(self) -> int:
        """Events processed so far: arrivals (one per distinct submit time), completions,
        recorded-start wake-ups, callbacks and scheduling passes."""
        return self._events + self.passes

    # ------------------------------------------------------------------ running
    def run(self) -> None:
        """Simulate until every job has ended; error if jobs are left that can never start."""
        if self._total:
            self._call_direct(self.table.submit[0], self._arrive, 0, None)
        if self.mode == "recorded":
            order = sorted(range(len(self.table)), key=self.table.start.__getitem__)
            self._chain(order, self.table.start, self._on_wake)
        collecting = gc.isenabled()
        gc.disable()  # the loop makes no reference cycles; collections would only rescan tables
        try:
            self.env.run()
        finally:
            if collecting:
                gc.enable()
        if self.jobs.ended != len(self.table):
            stuck = sum(len(q) for q in self._queues.values())
            raise AcmesimError(
                f"simulation stopped at t={self.env.now:g}s with {stuck} job(s) still pending "
                f"and nothing left to happen: scheduler {self.scheduler.registry_name!r} never "
                f"started them (are nodes down, or does it never pick them?)")
        if self._progress is not None:
            self._progress(1.0, self.jobs.ended)

    def _chain(self, order: Sequence[int], times: Sequence[float], handler) -> None:
        """Schedule ``handler`` once per distinct time of ``order``, one event at a time."""
        if not order:
            return
        pos, size = 0, len(order)

        def fire(event: Event) -> None:
            nonlocal pos
            begin = pos
            now = times[order[begin]]
            end = begin + 1
            while end < size and times[order[end]] == now:
                end += 1
            pos = end
            if end < size:
                self.env.call_at(times[order[end]], fire)
            self._events += 1
            handler(order[begin:end])

        self.env.call_at(times[order[0]], fire)

    def _on_arrivals(self, begin: int, _: None) -> None:
        """Jobs ``begin`` .. submitted now (the table is in submission order) enter their
        pending queues; the next submit time's arrivals are scheduled first, as one direct call
        (each extension's ``on_arrival`` sees each job before it is queued; the scheduler's
        ``on_arrivals`` sees them all at once, when all are queued)."""
        submit, size = self.table.submit, self._total
        now = submit[begin]
        end = begin + 1
        while end < size and submit[end] == now:
            end += 1
        if end < size:  # Clock.call_direct, written out (submit times never go back)
            heappush(self._heap, (submit[end], NORMAL, next(self._eid),  # type: ignore[misc]
                                  (self._arrive, end, None)))
        self._events += 1
        make, holds = self._make_job, self.holds
        if end == begin + 1 and not self._arrival_hooks and (holds is None or not holds[begin]):
            # one job, no extension's hook and no hold (most submit times): _enqueue((job,)),
            # written out; the new job is PENDING already
            job = make(begin)
            job.arrival_seq = next(self._seq)
            pool = job.pool
            self._queues[pool][begin] = job
            gpus = job.gpu_num
            self._demand[pool] += gpus
            self.queued_jobs += 1
            self.queued_gpus += gpus
            if self._arrival_hook:
                self.scheduler.on_arrivals((job,), self.view)
        else:
            self._arrive_all([make(begin)] if end == begin + 1 else
                             list(map(make, range(begin, end))))
        if not self._pass_due:  # request_pass and Clock.call_last, written out
            self._pass_due = True
            env = self.env
            env._last_key = (now, PASS_PRIORITY, next(self._eid))
            env._last_call = self._pass

    def _arrive_all(self, arrived: list[Job]) -> None:
        """The arrivals of ``_on_arrivals`` that extensions' hooks see, that are several or that
        may be held: each extension's ``on_arrival`` sees each job before it is queued; a held
        job is queued when its hold ends (``_hold_back``); the scheduler's ``on_arrivals`` sees
        the others at once, once all are queued."""
        for hook in self._arrival_hooks:
            for job in arrived:
                hook(job)
        if self.holds is not None:
            arrived = self._hold_back(arrived)
        self._enqueue(arrived)
        if self._arrival_hook and arrived:
            self.scheduler.on_arrivals(arrived, self.view)

    def _hold_back(self, arrived: list[Job]) -> list[Job]:
        """The jobs of ``arrived`` to queue now; each GPU job with a hold enters its pending
        queue when the hold ends (``_on_eligible``), holding nothing meanwhile."""
        holds, now = self.holds, self.env._now
        assert holds is not None
        ready = []
        for job in arrived:
            hold = holds[job.index] if job.pool == "gpu" else 0.0
            if hold > 0.0:
                self._call_direct(now + hold, self._on_eligible, job, None)
            else:
                ready.append(job)
        return ready

    def _on_eligible(self, job: Job, _: None) -> None:
        """The hold of ``job`` ended: it enters its pending queue (the scheduler's
        ``on_arrivals`` sees it now) and a pass is requested; its submit time stays."""
        self._events += 1
        self._enqueue((job,))
        if self._arrival_hook:
            self.scheduler.on_arrivals((job,), self.view)
        self.request_pass()

    def _on_wake(self, indices: list[int]) -> None:
        """Recorded starts are due now: make sure a pass runs."""
        self.request_pass()

    def _enqueue(self, jobs: Sequence[Job]) -> None:
        """Put ``jobs`` at the back of their pools' pending queues, in order."""
        queues, demand, seq = self._queues, self._demand, self._seq
        gpus = 0
        for job in jobs:
            job.status = PENDING
            job.arrival_seq = next(seq)
            pool = job.pool
            queues[pool][job.index] = job
            count = job.gpu_num
            demand[pool] += count
            gpus += count
        self.queued_jobs += len(jobs)
        self.queued_gpus += gpus

    # ------------------------------------------------------------------ passes
    def request_pass(self) -> None:
        """Ask for a scheduling pass at the current time (after all events at this time)."""
        if not self._pass_due:
            self._pass_due = True
            self.env.call_last(self._pass, PASS_PRIORITY)

    def _on_pass(self) -> None:
        """One scheduling pass: apply the scheduler's preemptions, then its starts."""
        self._failed = _NO_FAILURE
        self.passes += 1
        try:
            if self.queued_jobs or not self._idle_without_pending:
                decision = self.scheduler.schedule(self.view)
                if decision.preempt:
                    for job in list(decision.preempt):
                        self.preempt(job)
                start = self._start
                for job in decision.start:
                    start(job)  # type: ignore[arg-type]  # policies hand back the engine's jobs
        finally:
            self._pass_due = False
        now = self.env._now
        cluster = self.cluster
        # the step curve's row (StepRecorder.record, written out)
        self._add_step_row(self._pack_step_row(now, self.busy_gpus, cluster.allocated_gpus,
                                               cluster.busy_nodes, self.queued_jobs,
                                               self.queued_gpus))
        load = self.busy_load
        if load or self._step_loads:
            self.steps.add_load(load)
        if now >= self._next_check:
            self._after_pass(now)
        if self.jobs.ended == self._total:
            raise StopSimulation(None)  # every job ended: later callbacks no longer matter

    def _after_pass(self, now: float) -> None:
        """The checks due after a pass: the audit (every pass), the progress callback (~1% of
        the span apart); then the time of the next ones."""
        if self.audit:
            self.check_invariants()
        if now >= self._next_progress:
            self._next_progress = now + self._span / 100
            if self._progress is not None:
                self._progress(min(1.0, now / self._span), self.jobs.ended)
        self._next_check = -math.inf if self.audit else self._next_progress

    def _fit(self, job: JobInfo) -> Allocation | None:
        """Where ``job`` would go now (cached until the cluster changes; GPU jobs only)."""
        if job.pool == "gpu":
            cluster = self.cluster
            version = cluster.version
            cached_job, cached_version, allocation = self._cache
            if cached_job is job and cached_version == version:
                return allocation
            if job.nodes_needed * job.per_node > cluster.free_total:
                allocation = None
            else:
                allocation = self.placement.place(job, self.cluster_view)
            self._cache = (job, version, allocation)
            return allocation
        return self.cpu_pool.place(job.nodes_needed, job.per_node)

    def _start(self, job: Job, allocation: Allocation | None = None) -> bool:
        """Place (or put on ``allocation``) and start a pending job now; False if it won't fit."""
        index, pool_name = job.index, job.pool
        queue = self._queues.get(pool_name)
        if queue is None or queue.get(index) is not job:
            raise AcmesimError(f"scheduler {self.scheduler.registry_name!r} asked to start job "
                               f"{job.job_id!r} which is {job.status}, not pending")
        gpu_job = pool_name == "gpu"
        pool = self.cluster if gpu_job else self.cpu_pool
        if allocation is None:
            cached_job, cached_version, allocation = self._cache  # _fit's cache hit, in line
            if cached_job is not job or cached_version != pool.version:
                allocation = self._fit(job)
        if allocation is None:
            if self._failed == (job, pool.version):
                raise AcmesimError(f"scheduler {self.scheduler.registry_name!r} asked twice in "
                                   f"one pass to start job {job.job_id!r}, which does not fit")
            self._failed = (job, pool.version)
            return False
        per_node = job.per_node
        if len(allocation) != job.nodes_needed:
            self._bad_shape(job, allocation)
        for _, count in allocation:
            if count != per_node:
                self._bad_shape(job, allocation)
        job.grants = pool.allocate(index, allocation)
        del queue[index]
        gpus = job.gpu_num
        self._demand[pool_name] -= gpus
        self.queued_jobs -= 1
        self.queued_gpus -= gpus
        now = self.env._now
        if job.preemptions or job.failures:
            job.overhead = (self.preemption.restart_overhead(job)
                            if job.next_overhead is None else job.next_overhead)
            job.restarts += 1
            if not math.isnan(job.stopped_at):  # restarting after a failure stop
                job.recovery_wait += now - job.stopped_at
                job.stopped_at = NAN
        elif gpu_job and self.startup is not None:
            # the start-up latency of a first start: the job's wait for the launcher (one job
            # per launch_interval) plus its own draw
            interval = self._launch_interval
            wait = 0.0
            if interval > 0.0:
                begin = max(now, self._launcher_free)
                self._launcher_free = begin + interval
                wait = begin - now
            startup = wait + self._startup_draws[index]
            job.overhead = job.startup = startup
            job.start_time = now + startup
        else:
            startup = 0.0
            job.overhead = job.startup = startup
            job.start_time = now + startup
        job.last_start = now
        job.status = RUNNING
        pace = job.pace
        work = (job.work - job.work_done if pace is None
                else pace.wall(job.work_done, job.work))
        end = now + job.overhead + work
        job.expected_end = end
        self.running[index] = job
        if gpu_job:
            self.busy_gpus += gpus
            if self.job_loads is not None:
                self.busy_load += self.job_loads[index]
        if end < now:
            raise ValueError(f"cannot schedule at {end} before now ({now})")
        # Clock.call_direct, written out (one per start): the completion's heap entry
        heappush(self._heap, (end, NORMAL, next(self._eid),  # type: ignore[misc]  # see call_direct
                              (self._complete, job, job.epoch)))
        if self._start_hook:
            self.scheduler.on_start(job, self.view)
        return True

    def _bad_shape(self, job: JobInfo, allocation: Allocation) -> None:
        """Reject a placement that does not match the job's gang shape."""
        raise AcmesimError(
            f"placement {self.placement.registry_name!r} returned {allocation} for job "
            f"{job.job_id!r}, which needs {job.nodes_needed} node(s) x {job.per_node}")

    # ------------------------------------------------------------------ endings
    def _on_complete(self, job: Job, epoch: int) -> None:
        """A running interval of ``job`` reached its end (a direct call scheduled when it began
        as ``epoch``): the job is done unless the call is stale."""
        self._events += 1
        if epoch != job.epoch or job.status != RUNNING:
            return
        # _finish(job, job.outcome, job.work), written out (once a job)
        grants, state, work = job.grants, job.outcome, job.work
        self._close_interval(job)
        job.work_done = work
        job.grants = ()
        job.status = DONE
        job.end_state = state
        self._record(job, self.env._now, state, grants)
        if self._finish_hook:
            self.scheduler.on_finish(job, self.view)

    def _close_interval(self, job: Job) -> float:
        """Release the job's resources and account its running interval; returns its length.

        This is the one path by which resources come free (a job ends, is preempted, or is
        stopped by a failure, held or not), so it is where the pass that hands them to the queue
        (and records the utilization step) is requested.
        """
        now = self.env._now
        held = now - job.last_start
        index, gpus = job.index, job.gpu_num
        if job.pool == "gpu":
            self.cluster.release(index, job.grants)
            self.busy_gpus -= gpus
            if self.job_loads is not None:
                self.busy_load -= self.job_loads[index]
        else:
            self.cpu_pool.release(index, job.grants)
        del self.running[index]
        if not self._pass_due:  # request_pass and Clock.call_last, written out
            self._pass_due = True
            env = self.env
            env._last_key = (now, PASS_PRIORITY, next(self._eid))
            env._last_call = self._pass
        startup = job.startup
        if not startup < held:  # min(held, startup), as written out below for the overhead
            startup = held
        job.startup = 0.0
        job.held_time += held - startup
        job.attained_closed += gpus * held
        overhead = job.overhead
        restart = gpus * ((overhead if overhead < held else held) - startup)
        if restart:  # (a sum from +0 stays +0 when 0 is added: the recorder skips it)
            job.lost_gpu_time += restart
            if job.stop_cause == "failure":
                job.failure_lost_gpu_time += restart
        if job.wait_part:
            job.recovery_wait += min(held, job.wait_part)
            job.wait_part = 0.0
        if job.pace is not None:
            computing = max(0.0, held - job.overhead)
            job.checkpoint_overhead += job.pace.advance(job.work_done, job.work, computing)[1]
        for hook in self._close_hooks:
            hook(job, now)
        job.epoch += 1
        job.expected_end = NAN
        return held

    def _finish(self, job: Job, state: str, work: float) -> None:
        """End ``job`` for good with final ``state`` and ``work`` done."""
        grants = job.grants
        self._close_interval(job)
        job.work_done = work
        job.grants = ()
        job.status = DONE
        job.end_state = state
        self.jobs.record(job, self.env._now, state, grants)
        if self._finish_hook:
            self.scheduler.on_finish(job, self.view)

    def _stop(self, job: JobInfo, cause: str, requeue_after: float = 0.0,
              overhead: float | None = None) -> None:
        """Stop a running job early, roll its work back, and requeue it (maybe after a hold)."""
        if job.status != RUNNING or self.running.get(job.index) is not job:
            raise AcmesimError(f"cannot {cause} job {job.job_id!r}: it is {job.status}, "
                               f"not running")
        if requeue_after < 0 or (overhead is not None and overhead < 0):
            raise AcmesimError(f"requeue_after and overhead must be >= 0 seconds, got "
                               f"{requeue_after!r} and {overhead!r}")
        assert isinstance(job, Job)
        progress = self.progress(job)
        saved = self.preemption.saved_work(job.checkpointed_work, progress, cause)
        rollback = job.gpu_num * (progress - saved)
        job.lost_gpu_time += rollback
        self._close_interval(job)
        job.work_done = job.checkpointed_work = saved
        job.grants = ()
        job.next_overhead = overhead
        job.stop_cause = cause
        if cause == "preemption":
            job.preemptions += 1
        else:
            job.failures += 1
            job.failure_lost_gpu_time += rollback
            job.stopped_at = self.env.now
        if requeue_after > 0:
            job.status = HELD
            self.held[job.index] = job
            self.call_later(requeue_after, lambda: self._requeue(job))
        else:
            self._requeue(job)

    def progress(self, job: JobInfo) -> float:
        """Work a job has done as of now (restart overhead and checkpoint stalls aside)."""
        assert isinstance(job, Job)
        if job.status != RUNNING:
            return job.work_done
        computing = max(0.0, self.env.now - job.last_start - job.overhead)
        if job.pace is None:
            return min(job.work, job.work_done + computing)
        return job.pace.advance(job.work_done, job.work, computing)[0]

    def _requeue(self, job: Job) -> None:
        """Put a stopped job back in its pending queue (unless it ended while held)."""
        if job.status == DONE:
            return
        self.held.pop(job.index, None)
        self._enqueue((job,))
        if self._hooks["on_requeue"]:
            self.scheduler.on_requeue(job, self.view)
        self.request_pass()

    # ------------------------------------------------------------------ state extensions read
    @property
    def now(self) -> float:
        """The current simulated time (s)."""
        return self.env.now

    @property
    def unfinished(self) -> int:
        """Jobs of the table that have not ended yet (not arrived, pending, running or held)."""
        return len(self.table) - self.jobs.ended

    def has_pending_events(self) -> bool:
        """Whether anything else is scheduled to happen (an arrival, an end, a callback)."""
        return self.env.pending() > 0

    def live_jobs(self) -> list[JobInfo]:
        """Every arrived job that has not ended: held first, then pending and running."""
        found: list[JobInfo] = list(self.held.values())
        live = (self.job(index) for index in range(len(self.table)))
        return found + [job for job in live if job is not None]

    # ------------------------------------------------------------------ control API
    def preempt(self, job: JobInfo) -> None:
        """Preempt a running job: release its GPUs, roll back, requeue (counts a preemption)."""
        self._stop(job, "preemption")

    def interrupt(self, job: JobInfo, *, requeue_after: float = 0.0,
                  overhead: float | None = None) -> None:
        """Interrupt a running job by an infrastructure failure (counts a failure).

        Work rolls back to the last checkpoint (``PreemptionModel.failure_rollback_fraction``).
        The job is *held* for ``requeue_after`` seconds (e.g. diagnosis before a restart), then
        re-enters the pending queue; its next start costs ``overhead`` seconds of restart
        (default: the preemption model's restart overhead).
        """
        self._stop(job, "failure", requeue_after, overhead)

    def relaunch(self, job: JobInfo, allocation: Allocation, *, wait: float = 0.0,
                 overhead: float = 0.0) -> None:
        """Interrupt a running job by a failure and restart it at once on ``allocation``.

        For recoveries that keep the job on its nodes (a transient fault, or a failed node
        swapped for a spare): work rolls back as in ``interrupt``, then the new running interval
        holds ``allocation`` (free once the job's own GPUs are released) for ``wait`` seconds of
        detection and diagnosis plus ``overhead`` seconds of restart, all restart overhead.
        """
        if not wait >= 0:
            raise AcmesimError(f"wait must be >= 0 seconds, got {wait!r}")
        self._stop(job, "failure", 0.0, wait + overhead)
        assert isinstance(job, Job)
        job.wait_part = wait
        self._start(job, allocation)

    def terminate(self, job: JobInfo, state: str) -> None:
        """End a running or held job now with final ``state`` (e.g. ``NODE_FAIL``)."""
        assert isinstance(job, Job)
        if job.status == HELD:
            self.held.pop(job.index)
            job.epoch += 1
            job.status = DONE
            job.end_state = state
            self.jobs.record(job, self.env.now, state, ())
            if self._hooks["on_finish"]:
                self.scheduler.on_finish(job, self.view)
            self.request_pass()
            return
        if job.status != RUNNING:
            raise AcmesimError(f"cannot terminate job {job.job_id!r}: it is {job.status}")
        self._finish(job, state, self.progress(job))

    def set_switch_health(self, switch: str, health: NodeHealth | str) -> list[JobInfo]:
        """Set every node under ``switch`` (a leaf, spine or ``core``) to ``health``."""
        victims: list[JobInfo] = []
        for node in self.cluster.topology.nodes_under(switch):
            victims += self.set_node_health(node, health)
        return victims

    def set_node_health(self, node: int, health: NodeHealth | str) -> list[JobInfo]:
        """Change a GPU node's health; jobs on a FAILED/REPAIRING node are interrupted.

        Returns the interrupted jobs (already back in the pending queue).
        """
        victims: list[JobInfo] = [
            self.running[i] for i in self.cluster.set_health(node, NodeHealth(health))]
        for job in victims:
            self.interrupt(job)
        self.request_pass()
        return victims

    def record_checkpoint(self, job: JobInfo, work: float | None = None) -> None:
        """Mark the running job's work (default: its progress now) as safely checkpointed."""
        assert isinstance(job, Job)
        progress = self.progress(job)
        work = progress if work is None else min(work, progress)
        job.checkpointed_work = max(job.checkpointed_work, work)

    def call_at(self, time: float, callback: Callable[[], None]) -> Event:
        """Run ``callback()`` at absolute simulated ``time`` (a NORMAL-priority event)."""
        def fire(event: Event) -> None:
            self._events += 1
            callback()
        return self.env.call_at(time, fire)

    def call_later(self, delay: float, callback: Callable[[], None]) -> Event:
        """Run ``callback()`` ``delay`` seconds from now."""
        return self.call_at(self.env.now + delay, callback)

    def job(self, index: int) -> JobInfo | None:
        """The live job with engine index ``index`` if pending or running (not held)."""
        if index in self.running:
            return self.running[index]
        for queue in self._queues.values():
            if index in queue:
                return queue[index]
        return None

    # ------------------------------------------------------------------ checks
    def check_invariants(self) -> None:
        """Verify the cluster bookkeeping from scratch (slow; for tests with ``audit=True``)."""
        _audit(self.cluster, self.running.values(), self.busy_gpus)


def _audit(cluster: Cluster, running: Iterable[Job], busy_gpus: int) -> None:
    """Raise AcmesimError if any GPU is double-booked or any counter disagrees."""
    gpus, full = cluster.gpus_per_node, cluster.full_mask
    owned = [0] * cluster.num_nodes
    used = 0
    for job in running:
        if job.pool != "gpu":
            continue
        used += job.gpu_num
        for node, mask in job.grants:
            if owned[node] & mask:
                raise AcmesimError(f"invariant: GPU on node {node} allocated to two jobs")
            owned[node] |= mask
            if cluster.jobs_on_node[node].get(job.index) != mask:
                raise AcmesimError(f"invariant: node {node} ownership disagrees for job "
                                   f"{job.job_id!r}")
    allocated = 0
    for node in range(cluster.num_nodes):
        if owned[node] & cluster.free_mask[node] or (owned[node] | cluster.free_mask[node]) != full:
            raise AcmesimError(f"invariant: node {node} free mask disagrees with its jobs")
        if cluster.free[node] != cluster.free_mask[node].bit_count():
            raise AcmesimError(f"invariant: node {node} free count disagrees with its mask")
        allocated += gpus - cluster.free[node]
        listed = [k for k in range(gpus + 1) if node in cluster.buckets[k]]
        expected = [cluster.free[node]] if cluster.health[node] is NodeHealth.UP else []
        if listed != expected:
            raise AcmesimError(f"invariant: node {node} is in buckets {listed}, expected "
                               f"{expected}")
    for leaf, nodes in enumerate(cluster.whole_free_by_leaf):
        listed = [k for k, leaves in enumerate(cluster.leaves_by_whole_free) if leaves >> leaf & 1]
        if listed != [len(nodes)]:
            raise AcmesimError(f"invariant: leaf {leaf} is in whole-free sets {listed}, "
                               f"expected [{len(nodes)}]")
    if allocated != cluster.allocated_gpus or allocated > cluster.total_gpus:
        raise AcmesimError("invariant: allocated GPU count disagrees")
    if busy_gpus != used or used > allocated:
        raise AcmesimError(f"invariant: busy GPUs {busy_gpus} != {used} or > allocated")
