"""Mixtures of workload profiles by share of GPU time, packed together on one cluster.

``generate_mixture({"seren": 0.5, "taskdl": 0.5}, days, seed)`` generates every component at a
rate scaled so that its expected GPU time is its share of the cluster profile's (the first
component's, unless ``cluster`` names another), then packs all GPU jobs jointly with the
generator's packer on that cluster, so the mixed trace is feasible on it and offers the same
load as the cluster profile alone. Each component keeps its own job model, scheduling classes,
restart and continuation links, and draws from its own seed (derived from ``seed`` and its
name). The table has the task columns of ``taskmeta.py``: ``workload`` is ``llm`` for the Acme
profiles' jobs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import numpy as np
import pandas as pd

from acmesim.core.errors import ConfigError
from acmesim.core.rng import RngStreams
from acmesim.synth import arrivals
from acmesim.synth.compose import Plan, build_trace
from acmesim.synth.generate import MAX_DAYS, _Generator
from acmesim.synth.profiles import WorkloadProfile, get_profile
from acmesim.synth.taskmeta import TaskMeta

SHARE_SLACK = 1e-6
"""How far the shares may sum from 1."""


def expected_gpu_time_per_day(profile: WorkloadProfile) -> float:
    """The GPU-seconds per day a profile is calibrated to offer.

    Acme profiles: the published total GPU time over the trace span (R-SUM; their type
    correlations are fitted to it), scaled by the profile's job rate against the published
    one. Task-DL profiles: their job rate times the prior trace's GPU time per job.
    """
    prior = getattr(profile, "prior", None)
    if prior is not None:
        per_job = prior.gpu_time_per_job or prior.run_time_mean * prior.mean_gpus
        return profile.gpu_jobs_per_day * per_job
    t = profile.targets
    published_rate = t.gpu_jobs / t.span_days
    return t.total_gpu_time / t.span_days * profile.gpu_jobs_per_day / published_rate


def mixture_scales(shares: Mapping[str, float], cluster: str | None = None
                   ) -> dict[str, float]:
    """The job-rate factor of every component (``share x reference / own GPU time``)."""
    _check_shares(shares)
    reference = expected_gpu_time_per_day(get_profile(cluster or next(iter(shares))))
    return {name: share * reference / expected_gpu_time_per_day(get_profile(name))
            for name, share in shares.items()}


def generate_mixture(profiles: Mapping[str, float], days: float, seed: int,
                     cluster: str | None = None) -> pd.DataFrame:
    """A normalized job table mixing ``profiles`` (name -> share of GPU time); see module."""
    if not 0 < float(days) <= MAX_DAYS:
        raise ConfigError(f"days must be in (0, {MAX_DAYS:g}], got {days!r}")
    if int(seed) < 0 or int(seed) != seed:
        raise ConfigError(f"seed must be a non-negative integer, got {seed!r}")
    scales = mixture_scales(profiles, cluster)
    base = get_profile(cluster or next(iter(profiles)))
    plans = [component_plan(scale_profile(get_profile(name), scale, base.start), days,
                            component_seed(int(seed), name))
             for name, scale in scales.items()]
    span = int(round(float(days) * arrivals.SECONDS_PER_DAY))
    start_epoch = int(pd.Timestamp(base.start).timestamp())
    return build_trace(plans, base, span, start_epoch, int(seed))


def scale_profile(profile: WorkloadProfile, scale: float, start: str) -> WorkloadProfile:
    """``profile`` with its job rates times ``scale``, starting at ``start``."""
    return dataclasses.replace(profile, gpu_jobs_per_day=profile.gpu_jobs_per_day * scale,
                               cpu_jobs_per_day=profile.cpu_jobs_per_day * scale, start=start)


def component_seed(seed: int, name: str) -> int:
    """The seed of component ``name`` of a mixture generated from ``seed``."""
    return int(RngStreams(seed).fresh(f"mixture/{name}").integers(0, 2 ** 31 - 1))


def component_plan(profile: WorkloadProfile, days: float, seed: int) -> Plan:
    """The unpacked jobs of one component (task-DL profiles plan themselves)."""
    make = getattr(profile, "make_generator", None)
    if make is not None:
        return make(days, seed).plan()
    generator = _Generator(profile, float(days), seed)
    gpu, latency, deferred = generator.plan()
    cpu = generator.cpu_jobs()
    names = np.array([t.name for t in profile.types], dtype=object)
    return Plan(
        gpu=gpu, gpu_meta=TaskMeta.plain("llm", len(gpu.gpus), successor=gpu.successor,
                                         job_type=names[gpu.type_code]),
        latency=latency, deferred=deferred, cpu=cpu,
        cpu_meta=TaskMeta.plain("llm", len(cpu.gpus), job_type=np.full(
            len(cpu.gpus), profile.cpu.job_type, dtype=object)),
        users=profile.users, cpus_per_gpu=profile.cpus_per_gpu)


def _check_shares(shares: Mapping[str, float]) -> None:
    """Shares must be positive and sum to 1."""
    if not shares:
        raise ConfigError("a mixture needs at least one profile with a share of GPU time")
    bad = {k: v for k, v in shares.items() if not float(v) > 0}
    if bad:
        raise ConfigError(f"mixture shares must be > 0, got {bad}")
    total = float(sum(shares.values()))
    if abs(total - 1.0) > SHARE_SLACK:
        raise ConfigError(f"mixture shares of GPU time must sum to 1, got {total:g} "
                          f"({dict(shares)})")
