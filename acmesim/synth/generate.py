"""``generate_trace``: a calibrated synthetic job table for a cluster profile, from one seed.

Steps (each draws from its own named stream of ``RngStreams(seed)``): group arrivals per type,
jobs per group, GPU counts, run times (copula), final states, scheduling latencies, submit
times from the node-level packer (restart chains resubmitted after each end), start times from
a replay under the calibrated baseline ``acme`` (``baseline.py``), CPU-only jobs, then users and
job ids. Jobs submitted during a warm-up before the window occupy the cluster but are
not part of the output, so the window starts on a busy cluster.

``scale=K`` generates for ``K`` x the profile's cluster at the same load per GPU (the profile
scaled by ``scale.scale_profile``: rates, users, quotas, lab-wide storms); ``starts="packer"``
keeps the packer's start times instead of the baseline replay's (fast at large ``K``).
``load=L`` generates ``L`` x the profile's GPU jobs per day on the same cluster (every GPU job
type's group arrivals ``L`` times as often, everything else the profile's): ``L`` x the
offered GPU time per GPU, e.g. the busier month of the power logs (docs/energy.md).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from acmesim.core.errors import ConfigError
from acmesim.core.rng import RngStreams
from acmesim.synth import arrivals
from acmesim.synth.baseline import baseline_starts, pretraining_reservation, ranked_startup
from acmesim.synth.catalog import STARTS
from acmesim.synth.distributions import LogQuantile, discrete_draws
from acmesim.synth.jobs import (
    STATE_NAMES,
    assign_states,
    draw_durations,
    draw_group_sizes,
    draw_sizes,
)
from acmesim.synth.packer import PackerSettings, pack
from acmesim.synth.profiles import (
    KALOS,
    SEREN,
    GroupModel,
    WorkloadProfile,
    get_profile,
)
from acmesim.synth.scale import scale_profile
from acmesim.synth.table import JobArrays, build_table

MAX_DAYS = 3660.0
"""Longest span accepted (ten years), a guard against typos."""
MAX_LOAD = 10.0
"""Largest GPU job rate factor accepted, a guard against typos."""
ACME_PROFILES = (SEREN.name, KALOS.name)
"""The profiles of this module's job model (the others bring their own ``make_generator``)."""


def check_arguments(profile: str, days: float, seed: int, scale: float = 1.0,
                    starts: str = "baseline", load: float = 1.0) -> WorkloadProfile:
    """The profile named ``profile`` scaled ``scale`` x at ``load`` x its GPU job rate, once
    every argument is valid; else ``ConfigError`` (``scale.scale_profile`` says which scales
    are valid)."""
    chosen = get_profile(profile)
    if not 0 < float(load) <= MAX_LOAD:
        raise ConfigError(f"load must be in (0, {MAX_LOAD:g}], got {load!r}")
    if not 0 < float(days) <= MAX_DAYS:
        raise ConfigError(f"days must be in (0, {MAX_DAYS:g}], got {days!r}")
    if int(seed) < 0 or int(seed) != seed:
        raise ConfigError(f"seed must be a non-negative integer, got {seed!r}")
    if starts not in STARTS:
        raise ConfigError(f"starts must be one of {', '.join(STARTS)}, got {starts!r}")
    if getattr(chosen, "make_generator", None) is not None:  # profiles with their own model
        if scale != 1 or starts != "baseline" or load != 1:
            raise ConfigError(f"profile {profile!r} has its own job model: it takes neither "
                              f"scale, starts nor load (scale {scale!r}, starts {starts!r}, "
                              f"load {load!r} given); they apply to the Acme profiles "
                              f"({', '.join(ACME_PROFILES)})")
        return chosen
    scaled = scale_profile(chosen, scale)
    if load == 1:
        return scaled
    return dataclasses.replace(scaled, gpu_jobs_per_day=scaled.gpu_jobs_per_day * float(load))


def generate_trace(profile: str, days: float, seed: int, scale: float = 1.0,
                   starts: str = "baseline", load: float = 1.0) -> pd.DataFrame:
    """A normalized job table of ``days`` days of cluster ``profile``'s workload (see module),
    for ``scale`` x its cluster at the same load per GPU (``scale.py``), at ``load`` x the
    profile's GPU job rate."""
    chosen = check_arguments(profile, days, seed, scale, starts, load)
    make = getattr(chosen, "make_generator", None)  # profiles with their own job model
    if make is not None:
        return make(float(days), int(seed)).run()
    return _Generator(chosen, float(days), int(seed), starts).run()


class _Generator:
    """One generation run: the profile, the window and the random streams."""

    def __init__(self, profile: WorkloadProfile, days: float, seed: int,
                 starts: str = "baseline") -> None:
        self.p = profile
        self.seed = seed
        self.starts = starts
        self.streams = RngStreams(seed)
        self.span = int(round(days * arrivals.SECONDS_PER_DAY))
        self.start_epoch = int(pd.Timestamp(profile.start).timestamp())
        first = -int(round(max(profile.warmup_days, profile.chain_warmup_days)
                           * arrivals.SECONDS_PER_DAY))
        self.quiet = arrivals.quiet_spells(self.streams.stream("arrivals/quiet"), profile.quiet,
                                           first, self.span)
        """Cluster-wide quiet spells shared by every job type (no group arrives in them)."""

    def run(self) -> pd.DataFrame:
        """Generate GPU and CPU jobs, keep those submitted inside the window, build the table."""
        parts = [self._in_window(self._gpu_jobs()), self._in_window(self.cpu_jobs())]
        jobs = JobArrays.concat(parts, consume=True)  # held once from here on (memory at scale)
        del parts
        return build_table(self.p, jobs, self.start_epoch, self.streams, consume=True)

    def _in_window(self, jobs: JobArrays) -> JobArrays:
        """The jobs submitted inside the window and started (the warm-up's are dropped)."""
        return jobs.take(np.flatnonzero((jobs.submit >= 0) & (jobs.submit < self.span)
                                        & (jobs.start >= 0)))

    # -- GPU jobs ----------------------------------------------------------------------------

    def plan(self) -> tuple[JobArrays, np.ndarray, np.ndarray]:
        """Every GPU job of the window and its warm-up before packing: jobs, latencies, deferred.

        Also used by ``mixture.py`` to pack several profiles' jobs together.
        """
        parts = [self._type_jobs(index) for index in range(len(self.p.types))]
        jobs = JobArrays.concat(parts)
        gpu_time = jobs.gpus * jobs.work.astype(np.float64)
        jobs.state = assign_states(self.streams.stream("states"), self.p.states, gpu_time)
        latency = (ranked_startup(self.p, jobs.work, jobs.type_code)
                   if self.p.queue.latency_by_rank else self._latency(len(jobs.gpus), jobs.work))
        q = self.p.queue
        deferred = ((jobs.klass == 0) & q.defer_reserved) | (
            (jobs.gpus > self.p.gpus_per_node) & q.defer_multi_node)
        return jobs, latency, deferred

    def _gpu_jobs(self) -> JobArrays:
        """Every GPU job of the window and its warm-up: packed, then started by the baseline."""
        jobs, latency, deferred = self.plan()
        q = self.p.queue
        settings = PackerSettings(self.p.nodes, self.p.gpus_per_node, q.low_priority_quota,
                                  q.lookahead, q.duration_includes_queue, q.min_run,
                                  pretraining_reservation(self.p))
        packed = pack(settings, jobs.submit, latency, jobs.work, jobs.gpus, jobs.klass,
                      jobs.successor, jobs.gap, self.span, deferred)
        jobs.submit, jobs.start, jobs.end = packed.submit, packed.start, packed.end
        if self.starts == "packer":
            return jobs
        given = latency if self.p.queue.latency_by_rank else None
        return baseline_starts(self.p, jobs, self.seed, self.start_epoch, self.span, given)

    def _type_jobs(self, index: int) -> JobArrays:
        """The jobs of one type: groups, sizes, run times, chain links."""
        model = self.p.types[index]
        name, group_model = model.name, model.group
        per_day = self.p.gpu_jobs_per_day * self.p.type_share(name)
        chain = group_model.kind == "chain"
        warmup = self.p.chain_warmup_days if chain else self.p.warmup_days
        times, sizes = self._groups(name, group_model, per_day, warmup)
        size_rng = self.streams.stream(f"sizes/{name}")
        group_gpus = None
        if group_model.kind != "session":  # one GPU count per group, drawn by its jobs
            group_gpus = draw_group_sizes(size_rng, model, sizes)
            if group_model.kind == "batch" and group_model.gpu_max > 0:
                times, sizes, group_gpus = self._split_batches(name, group_model, times,
                                                               sizes, group_gpus, warmup)
        group, position, submit = arrivals.expand_groups(
            self.streams.stream(f"sessions/{name}"), group_model, times, sizes)
        if group_gpus is None:
            gpus = draw_sizes(size_rng, model, len(group))
        else:
            gpus = group_gpus[group]
        durations = draw_durations(self.streams.stream(f"durations/{name}"), model, gpus,
                                   LogQuantile(model.duration_knots))
        work = np.maximum(np.rint(durations).astype(np.int64), 0)
        n = len(group)
        successor = np.full(n, -1, dtype=np.int64)
        gap = np.zeros(n, dtype=np.int64)
        if group_model.kind == "chain" and n:
            linked = np.flatnonzero(np.diff(group) == 0)
            successor[linked] = linked + 1
            gap[linked] = self._restart_gaps(len(linked), name)
        users = arrivals.zipf_users_by_jobs(self.streams.stream(f"users/{name}"), self.p.users,
                                            self.p.user_zipf, sizes, self._user_ranking(index))
        return JobArrays(
            type_code=np.full(n, index, dtype=np.int16), gpus=gpus.astype(np.int64),
            submit=submit, work=work, state=np.zeros(n, dtype=np.int8), user=users[group],
            klass=np.full(n, model.scheduling_class, dtype=np.int8), successor=successor,
            gap=gap, start=np.full(n, -1, dtype=np.int64), end=np.full(n, -1, dtype=np.int64),
        )

    def _groups(self, name: str, model: GroupModel, jobs_per_day: float, warmup_days: float
                ) -> tuple[np.ndarray, np.ndarray]:
        """Group arrival times and sizes of the warm-up and of the window.

        Each part holds its expected number of jobs (``arrivals.sizes_for_jobs``); its groups
        arrive as the modulated process, outside the cluster's quiet spells.
        """
        times_rng = self.streams.stream(f"arrivals/{name}")
        sizes_rng = self.streams.stream(f"groups/{name}")
        t0 = -int(round(warmup_days * arrivals.SECONDS_PER_DAY))
        parts = [(t0, 0), (0, self.span)] if t0 < 0 else [(0, self.span)]
        times, sizes = [], []
        for a, b in parts:
            jobs = arrivals.expected_arrivals(self.p, self.start_epoch, jobs_per_day, a, b,
                                              model.diurnal)
            part_sizes = arrivals.sizes_for_jobs(sizes_rng, model, jobs)
            part_sizes = arrivals.merge_storms(part_sizes, model.array_min, self.p.scale)
            times.append(arrivals.group_times(times_rng, self.p, self.start_epoch, 0.0, a, b,
                                              model.diurnal, self.quiet, len(part_sizes)))
            sizes.append(part_sizes)
        return np.concatenate(times), np.concatenate(sizes)

    def _split_batches(self, name: str, model: GroupModel, times: np.ndarray,
                       sizes: np.ndarray, gpus: np.ndarray, warmup_days: float
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Batches within ``model.gpu_max`` GPUs (``arrivals.split_batches``) and their times.

        The first piece of a split batch keeps its time; every other piece is a batch of its
        own (another checkpoint's evaluation round) arriving as the type's batches do, in the
        part (warm-up or window) of its parent, so each part keeps its number of jobs.
        """
        parent, sizes, gpus = arrivals.split_batches(sizes, gpus, model.gpu_max)
        times = times[parent].copy()
        later = np.flatnonzero(np.diff(np.concatenate([[-1], parent])) == 0)
        rng = self.streams.stream(f"arrivals/{name}/split")
        t0 = -int(round(warmup_days * arrivals.SECONDS_PER_DAY))
        for a, b in ([(t0, 0)] if t0 < 0 else []) + [(0, self.span)]:
            inside = later[(times[later] >= a) & (times[later] < b)]
            times[inside] = rng.permutation(arrivals.group_times(
                rng, self.p, self.start_epoch, 0.0, a, b, model.diurnal, self.quiet,
                len(inside)))
        return times, sizes, gpus

    def _restart_gaps(self, n: int, name: str) -> np.ndarray:
        """Seconds between the end of a chain job and the resubmission (lognormal)."""
        rng = self.streams.stream(f"restarts/{name}")
        gaps = self.p.restart_gap_median * np.exp(self.p.restart_gap_sigma
                                                  * rng.standard_normal(n))
        return np.minimum(np.rint(gaps), 2 * arrivals.SECONDS_PER_DAY).astype(np.int64)

    def _user_ranking(self, index: int) -> np.ndarray:
        """The popularity order of the user pool, the same for every job type ``index``.

        A user's activity is a property of the user: the heaviest submitters (evaluation and
        data pipelines run under a few accounts) lead every type they submit, which is what
        concentrates the published share of jobs on the top five users.
        """
        del index  # one ranking for all types
        return self.streams.fresh("user_ranking").permutation(self.p.users)

    def _latency(self, n: int, work: np.ndarray) -> np.ndarray:
        """Scheduling latency per GPU job (0 w.p. ``latency_zero``, else lognormal)."""
        q = self.p.queue
        rng = self.streams.stream("latency")
        values = q.latency_median * np.exp(q.latency_sigma * rng.standard_normal(n))
        values[rng.random(n) < q.latency_zero] = 0.0
        latency = np.rint(np.minimum(values, q.latency_max)).astype(np.int64)
        if q.duration_includes_queue:
            latency = np.minimum(latency, np.maximum(work - q.min_run, 0))
        return latency

    # -- CPU jobs ----------------------------------------------------------------------------

    def cpu_jobs(self) -> JobArrays:
        """CPU-only jobs: bursts of short jobs; they start after a latency, off the GPU nodes."""
        c = self.p.cpu
        times, sizes = self._groups("cpu", c.group, self.p.cpu_jobs_per_day, 0.0)
        group, _, submit = arrivals.expand_groups(self.streams.stream("sessions/cpu"), c.group,
                                                  times, sizes)
        n = len(group)
        rng = self.streams.stream("cpu")
        run = c.run_median * np.exp(c.run_sigma * rng.standard_normal(n))
        work = np.rint(np.minimum(run, c.run_max)).astype(np.int64)
        latency = c.latency_median * np.exp(c.latency_sigma * rng.standard_normal(n))
        latency[rng.random(n) < c.latency_zero] = 0.0
        latency = np.rint(np.minimum(latency, self.p.queue.latency_max)).astype(np.int64)
        # queue and run part are drawn independently and add up in both schemas: a Kalos
        # CPU job's recorded end - submit is their sum (``CpuJobModel``), never the run
        # part alone with the queue cut to fit inside it
        start = submit + latency
        end = start + np.maximum(work, self.p.queue.min_run)
        shares = self.p.targets.cpu_state_job_share
        states = np.array([STATE_NAMES.index(s) for s in shares], dtype=np.int8)
        state = discrete_draws(rng, states, np.array(list(shares.values())), n)
        users = arrivals.zipf_users_by_jobs(self.streams.stream("users/cpu"), self.p.users,
                                            self.p.user_zipf, sizes, self._user_ranking(-1))
        cpus = discrete_draws(rng, np.array(list(c.cpu_pmf)), np.array(list(c.cpu_pmf.values())),
                              n)
        return JobArrays(
            type_code=np.full(n, -1, dtype=np.int16), gpus=np.zeros(n, dtype=np.int64),
            submit=submit, work=work, state=state, user=users[group],
            klass=np.full(n, -1, dtype=np.int8), successor=np.full(n, -1, dtype=np.int64),
            gap=np.zeros(n, dtype=np.int64), start=start, end=end, cpus=cpus.astype(np.int64),
        )
