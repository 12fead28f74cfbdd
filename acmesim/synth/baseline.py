"""Recorded start times from the calibrated baseline: replay the generated jobs under ``acme``.

The node-level packer (``packer.py``) decides *when jobs are submitted*: restart chains are
resubmitted after each packed end, and deferred pretraining runs record their submission when
their reserved capacity admits them. Their *recorded starts* then come from one mechanism, the
one every scheduled replay is compared with: the GPU jobs (submit, GPUs, run time, type, user,
final state; warm-up included) are replayed by ``acmesim.sim.replay_jobs`` in scheduled mode
under ``scheduler=acme`` (its registered defaults, so a re-tuned baseline carries over) with the
start-up latency and the eligibility delay (jobs held by their users) of the profile's cluster
preset. A job's recorded start is its start in that replay (after its start-up latency) and its
recorded end is start plus its unchanged run time, both rounded up to whole seconds. Where the
sampled duration counts from the submission (Kalos, ``QueueModel.duration_includes_queue``) only
jobs whose duration has room for a hold are held (``holds_within_duration``), so a held job's
duration stays the sampled one. A job ``acme`` preempted records the last run it finished in, as
Slurm's accounting does for a requeued job, whose submit time is reset at the requeue (sacct(1),
"submit" [SLURM-SACCT]): it is submitted when it was last requeued, starts when that run was
granted its GPUs and keeps its replayed end (its run time is then that run's, shorter than the
generated one). Its queue is therefore its wait after the requeue, which a replay of the trace
reproduces as any other wait; the first runs are not in the trace. Rounding up is monotone, so
two jobs that followed each other on a GPU in the replay still do in the trace: each recorded
interval lies inside an interval the replay gave the job, the trace stays feasible, and
``mode=recorded`` reproduces it exactly.

The packer defers pretraining against the baseline's guarantee to it
(``pretraining_reservation``), so the generated pretraining never asks ``acme`` for more GPUs
than ``acme`` reserves for it.

Layering: the generator sits above the event loop (``acmesim.sim``), which never imports it;
the replays here go through ``acmesim.sim.replay_jobs``.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd

from acmesim.cluster import cluster_spec
from acmesim.cluster.eligibility import GivenHolds
from acmesim.cluster.startup import GivenStartup
from acmesim.core.errors import AcmesimError
from acmesim.core.rng import RngStreams
from acmesim.policies.scheduling.acme import POOL_TYPES, published_pool
from acmesim.sim.extension import Extension
from acmesim.sim.job import Job
from acmesim.sim.replay_jobs import replay_jobs
from acmesim.synth.jobs import STATE_NAMES
from acmesim.synth.profiles import WorkloadProfile
from acmesim.synth.table import JobArrays

BASELINE_SCHEDULER = "acme"
"""The calibrated baseline (``acmesim/policies/scheduling/acme.py``), used with its defaults."""
SETTLE_ROUNDS = 8
"""Most recorded replays ``settle_on_nodes`` runs before giving up [chosen]."""
_ROUNDING_SLACK = 1e-6
"""Seconds of floating-point noise ignored when rounding replayed times up to whole seconds."""


def pretraining_reservation(profile: WorkloadProfile) -> int | None:
    """GPUs the baseline guarantees pretraining on the profile's cluster, or None (no limit).

    ``acme`` gives the other teams a pool of their published share of GPU time as of right
    (its rule 2) and lets pretraining reclaim everything else; a pretraining team launches a
    run when that reservation admits it (the packer defers the run's submission until then), so
    the generator's pretraining never asks the baseline for more than it guarantees. None on a
    cluster without a published mix (``acme`` has no pool there).
    """
    share = published_pool(profile.cluster, POOL_TYPES)
    if share >= 1.0:
        return None
    total = profile.nodes * profile.gpus_per_node
    return total - int(share * total)


def replay_frame(profile: WorkloadProfile, jobs: JobArrays, rows: np.ndarray,
                 start_epoch: int) -> pd.DataFrame:
    """The normalized job table of GPU jobs ``rows`` (ids are their row numbers)."""
    gpus = jobs.gpus[rows]
    per_node = profile.gpus_per_node
    run = (jobs.end[rows] - jobs.start[rows]).astype(np.float64)
    submit = pd.to_datetime(start_epoch + jobs.submit[rows], unit="s", utc=True)
    return pd.DataFrame({
        "job_id": rows.astype(str), "user": jobs.user[rows].astype(str),
        "type": np.array([t.name for t in profile.types], dtype=object)[jobs.type_code[rows]],
        "state": np.array(STATE_NAMES, dtype=object)[jobs.state[rows]],
        "submit_time": submit, "start_time": submit, "run_time": run,
        "gpu_num": gpus, "node_num": np.where(gpus > per_node, -(-gpus // per_node), 1),
        "cpu_num": gpus * profile.cpus_per_gpu,
    })


def ranked_startup(profile: WorkloadProfile, work: np.ndarray, type_code: np.ndarray
                   ) -> np.ndarray:
    """Whole-second start-ups of the profile's cluster preset, comonotone with ``work``.

    Within each type, the job of the k-th shortest sampled duration (of n; ties by index) gets
    the start-up at the normal quantile of (k + 1/2) / n, so the start-ups have the preset's
    distribution and the long ones go to long jobs; each is capped so the job still runs
    ``min_run`` within its sampled duration (``QueueModel.latency_by_rank``).
    """
    from statistics import NormalDist

    startup = cluster_spec(profile.cluster, profile.cluster_options).startup
    z = np.zeros(len(work))
    inverse = np.vectorize(NormalDist().inv_cdf)
    for code in np.unique(type_code):
        rows = np.flatnonzero(type_code == code)
        order = rows[np.argsort(work[rows], kind="stable")]
        z[order] = inverse((np.arange(len(rows)) + 0.5) / len(rows))
    names = np.array([t.name for t in profile.types], dtype=object)[type_code]
    values = np.rint(startup.at(z, names)).astype(np.int64)
    return np.minimum(values, np.maximum(work - profile.queue.min_run, 0))


def baseline_starts(profile: WorkloadProfile, jobs: JobArrays, seed: int, start_epoch: int,
                    span: int, startups: np.ndarray | None = None) -> JobArrays:
    """``jobs`` (packed GPU jobs) with start and end replaced by the baseline's (see module).

    Jobs the packer never submitted (start -1) are left as they are. The run time of each job
    (packed end - start) is unchanged; the replay's random streams come from ``seed``.
    ``startups`` (one per job, s) are the replay's start-ups instead of the preset's draws
    (``QueueModel.latency_by_rank``).
    """
    rows = np.flatnonzero(jobs.start >= 0)
    if not len(rows):
        return jobs
    frame = replay_frame(profile, jobs, rows, start_epoch)
    granted: dict[int, float] = {}
    requeued: dict[int, float] = {}
    probe = LastRequeue()
    cluster = cluster_spec(profile.cluster, profile.cluster_options)
    # the engine's job order: by submission, stable (acmesim.sim.trace_input)
    order = rows[np.argsort(jobs.submit[rows], kind="stable")]
    if startups is not None:
        cluster = dataclasses.replace(cluster, startup=GivenStartup(
            **vars(cluster.startup), values=startups[order].astype(np.float64)))
    if profile.queue.duration_includes_queue and cluster.eligibility.active:
        cluster = dataclasses.replace(cluster, eligibility=GivenHolds(
            **vars(cluster.eligibility),
            values=holds_within_duration(profile, jobs, order, seed, startups)))
    sim = replay_jobs(frame, cluster, BASELINE_SCHEDULER, mode="scheduled", seed=seed,
                      extensions=[probe])
    for job in probe.jobs:
        if job.preemptions:
            granted[int(job.job_id)] = job.last_start - job.submit_time
            requeued[int(job.job_id)] = probe.requeued_at(job) - job.submit_time
    index = sim["job_id"].to_numpy(dtype=np.int64)
    run = (jobs.end[index] - jobs.start[index]).astype(np.float64)
    end_after_submit = (sim["end_time"] - sim["submit_time"]).to_numpy(dtype=np.float64)
    start_after_submit = end_after_submit - run
    preempted = np.array([i in granted for i in index.tolist()], dtype=bool)
    start_after_submit[preempted] = [granted[i] for i in index[preempted].tolist()]
    new_submit, new_start, new_end = jobs.submit.copy(), jobs.start.copy(), jobs.end.copy()
    new_start[index] = jobs.submit[index] + _whole_seconds(start_after_submit)
    again = index[preempted]
    new_submit[again] = jobs.submit[again] + np.floor(
        np.array([requeued[i] for i in again.tolist()]) + _ROUNDING_SLACK).astype(np.int64)
    new_end[index] = np.where(preempted, jobs.submit[index] + _whole_seconds(end_after_submit),
                              new_start[index] + run.astype(np.int64))
    if profile.queue.duration_includes_queue:
        new_end[index] = np.where(preempted, new_end[index],
                                  end_from_submit(jobs.end[index], new_start[index],
                                                  new_end[index], profile.queue.min_run))
    placed = JobArrays(**{**vars(jobs), "submit": new_submit, "start": new_start,
                          "end": new_end})
    window = np.flatnonzero((placed.start >= 0) & (placed.submit >= 0) & (placed.submit < span))
    return settle_on_nodes(profile, placed, window, start_epoch)


def holds_within_duration(profile: WorkloadProfile, jobs: JobArrays, order: np.ndarray,
                          seed: int, startups: np.ndarray | None = None) -> np.ndarray:
    """Holds of jobs ``order`` (the engine's order) that fit in their sampled durations.

    Where a job's sampled duration counts from its submission (Kalos), a held job's recorded
    duration includes its hold, so only a job whose sampled duration leaves room for the hold,
    its start-up (``startups``, if given) and ``min_run`` of running can be held
    (``EligibilityDelay.within``; each type keeps its share of held jobs among those with
    room). The draws are the engine's own (stream ``eligibility`` of ``seed``, one pair per
    job in its order), so a job with room gets the hold a replay would have drawn for it.
    """
    eligibility = cluster_spec(profile.cluster, profile.cluster_options).eligibility
    room = (jobs.end[order] - jobs.submit[order] - profile.queue.min_run).astype(np.float64)
    if startups is not None:
        room -= startups[order]
    names = np.array([t.name for t in profile.types], dtype=object)[jobs.type_code[order]]
    return eligibility.draw_within(RngStreams(seed).stream("eligibility"), room, names)


def end_from_submit(sampled_end: np.ndarray, start: np.ndarray, replayed_end: np.ndarray,
                    min_run: int) -> np.ndarray:
    """Recorded ends of a profile whose sampled duration is end - submit (Kalos).

    The packer ended each job its sampled duration after its submission (``sampled_end``, the
    packed end); a job the replay started later keeps that end, its run shortened to at least
    ``min_run``, so the recorded duration stays the sampled one whatever the start-up. The end
    never passes the replay's own (``replayed_end``), so the recorded run lies inside the
    replayed one and the trace stays feasible.
    """
    return np.minimum(replayed_end, np.maximum(sampled_end, start + min_run))


class LastRequeue(Extension):
    """Collects the replayed jobs and when each was last requeued (its last interval but one
    closed then: a preempted job goes straight back to the queue)."""

    def __init__(self) -> None:
        self.jobs: list[Job] = []
        self.closes: dict[int, tuple[float, float]] = {}
        """Job index -> (close of its interval before the latest, close of the latest)."""

    def on_arrival(self, job: Job) -> None:
        """Keep the job."""
        self.jobs.append(job)

    def on_close(self, job: Job, now: float) -> None:
        """Remember the interval's close and the one before."""
        before = self.closes.get(job.index)
        self.closes[job.index] = (math.nan if before is None else before[1], now)

    def requeued_at(self, job: Job) -> float:
        """When ``job`` was last requeued (NaN if it ran once)."""
        return self.closes.get(job.index, (math.nan, math.nan))[0]


def settle_on_nodes(profile: WorkloadProfile, jobs: JobArrays, rows: np.ndarray,
                    start_epoch: int) -> JobArrays:
    """``jobs`` whose starts ``rows`` a recorded replay reproduces exactly on the cluster.

    The baseline's GPUs are held from the scheduler's start, the recorded ones from the end of
    the start-up latency, so a recorded replay sees a few free seconds the baseline did not and
    may place a small job where a whole-node job went later. Each round replays ``rows`` in
    recorded mode and moves every late job to the start it got there (a feasible schedule on
    the engine's own nodes), until a round has no late job (``SETTLE_ROUNDS`` at most).
    """
    cluster = cluster_spec(profile.cluster, profile.cluster_options)
    for _ in range(SETTLE_ROUNDS):
        frame = replay_frame(profile, jobs, rows, start_epoch)
        frame["start_time"] = pd.to_datetime(start_epoch + jobs.start[rows], unit="s", utc=True)
        sim = replay_jobs(frame, cluster, "fifo", mode="recorded")
        late = (sim["start_time"] > sim["recorded_start_time"]).to_numpy()
        if not late.any():
            return jobs
        index = sim["job_id"].to_numpy(dtype=np.int64)[late]
        shift = (sim["start_time"] - sim["recorded_start_time"]).to_numpy()[late]
        shift = _whole_seconds(shift)
        jobs = JobArrays(**{**vars(jobs), "start": jobs.start.copy(), "end": jobs.end.copy()})
        jobs.start[index] += shift
        jobs.end[index] += shift
    raise AcmesimError(f"recorded starts still late on the cluster after {SETTLE_ROUNDS} rounds")


def _whole_seconds(seconds: np.ndarray) -> np.ndarray:
    """``seconds`` rounded up to whole seconds, ignoring floating-point noise."""
    return np.ceil(seconds - _ROUNDING_SLACK).astype(np.int64)
