"""The task-specific DL workload (``taskdl``): search, deep RL and supervised training classes.

A ``TaskDLProfile`` is a ``WorkloadProfile`` (cluster, queue rules, arrival rhythm, users, final
state model, targets) plus the three class models: architecture/objective search
(``search.py``), deep RL studies (``rl.py``) and supervised bursts (``supervised.py``, the
profile's single ``TypeModel``). Each class arrives as units (a search, a study, a burst) in a
modulated Poisson process (``arrivals.py``) at a rate set by its share of the GPU jobs; the jobs
are packed onto the cluster like the Acme profiles' (``compose.py``). Every job gets a GPU
utilization from its class's ``UtilModel``.

The calibrated profiles and the sources of their constants are in ``profile_taskdl.py``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd

from acmesim.core.rng import RngStreams
from acmesim.synth import arrivals
from acmesim.synth.compose import Plan, build_trace, empty_jobs
from acmesim.synth.profiles import TypeModel, WorkloadProfile
from acmesim.synth.rl import RLModel, rl_jobs
from acmesim.synth.search import FINAL, SearchModel, search_jobs
from acmesim.synth.supervised import supervised_jobs
from acmesim.synth.table import JobArrays
from acmesim.synth.taskmeta import TaskMeta
from acmesim.trace.gpu_util import UtilModel
from acmesim.trace.targets_prior import PriorTraceTargets

CLASSES: tuple[str, ...] = ("search", "rl", "supervised")
"""The task-DL workload classes, in generation order."""


@dataclasses.dataclass(frozen=True)
class TaskDLProfile(WorkloadProfile):
    """A workload profile whose GPU jobs come from the search, RL and supervised classes."""

    prior: PriorTraceTargets | None = None
    """The earlier trace the profile is calibrated to (its published statistics)."""
    search: SearchModel = SearchModel()
    rl: RLModel = dataclasses.field(default_factory=RLModel)
    class_job_share: Mapping[str, float] = dataclasses.field(default_factory=dict)
    """Share of the GPU jobs of each class (``CLASSES``)."""
    jobs_per_search: float = 1.0
    """Mean jobs of one search (trials of every rung plus the final job); fitted."""
    util: Mapping[str, UtilModel] = dataclasses.field(default_factory=dict)
    """Utilization model per class; key ``search_final`` for the final training job."""

    @property
    def supervised(self) -> TypeModel:
        """The supervised class's job model."""
        return self.types[0]

    def jobs_per_unit(self) -> dict[str, float]:
        """Mean GPU jobs per search, per RL study and per supervised burst."""
        counts = self.rl.variants_per_study
        variants = sum(k * p for k, p in counts.items()) / sum(counts.values())
        return {"search": self.jobs_per_search,
                "rl": variants * arrivals.mean_group_size(self.rl.seeds),
                "supervised": arrivals.mean_group_size(self.supervised.group)}

    def unit_rates(self) -> dict[str, float]:
        """Searches, studies and bursts per day that give the class shares of the jobs."""
        per_unit = self.jobs_per_unit()
        return {c: self.gpu_jobs_per_day * self.class_job_share[c] / per_unit[c]
                for c in CLASSES}

    def make_generator(self, days: float, seed: int) -> TaskDLGenerator:
        """The generator of ``days`` days of this profile from ``seed``."""
        return TaskDLGenerator(self, days, seed)


_CLASS_JOBS: dict[str, Callable[..., tuple[JobArrays, TaskMeta]]] = {
    "search": lambda s, p, t: search_jobs(s, p.search, p.states, t),
    "rl": lambda s, p, t: rl_jobs(s, p.rl, p.states, t),
    "supervised": lambda s, p, t: supervised_jobs(s, p.supervised, p.states, t),
}
_DIURNAL: dict[str, Callable[[TaskDLProfile], float]] = {
    "search": lambda p: p.search.trials.diurnal,
    "rl": lambda p: p.rl.seeds.diurnal,
    "supervised": lambda p: p.supervised.group.diurnal,
}


class TaskDLGenerator:
    """One generation run of a ``TaskDLProfile``: window, warm-up and random streams."""

    def __init__(self, profile: TaskDLProfile, days: float, seed: int) -> None:
        self.p = profile
        self.seed = int(seed)
        self.streams = RngStreams(self.seed)
        self.span = int(round(days * arrivals.SECONDS_PER_DAY))
        self.t0 = -int(round(profile.warmup_days * arrivals.SECONDS_PER_DAY))
        self.start_epoch = int(pd.Timestamp(profile.start).timestamp())

    def run(self) -> pd.DataFrame:
        """The normalized job table (with task columns and ``gpu_util``)."""
        return build_trace([self.plan()], self.p, self.span, self.start_epoch, self.seed)

    def plan(self) -> Plan:
        """Every GPU job of the window and its warm-up, unpacked (no start times yet)."""
        rates = self.p.unit_rates()
        parts = [self._class_jobs(name, rates[name]) for name in CLASSES]
        jobs = JobArrays.concat([p[0] for p in parts])
        meta = TaskMeta.concat([p[1] for p in parts])
        meta.gpu_util = self._utilization(meta)
        return Plan(gpu=jobs, gpu_meta=meta, latency=self._latency(len(jobs.gpus)),
                    cpu=empty_jobs(), cpu_meta=TaskMeta.plain("supervised", 0),
                    users=self.p.users, cpus_per_gpu=self.p.cpus_per_gpu)

    def _class_jobs(self, name: str, rate: float) -> tuple[JobArrays, TaskMeta]:
        """The jobs of one class: unit arrivals, the class model, users per unit."""
        starts = arrivals.group_times(self.streams.stream(f"arrivals/{name}"), self.p,
                                      self.start_epoch, rate, self.t0, self.span,
                                      _DIURNAL[name](self.p))
        jobs, meta = _CLASS_JOBS[name](self.streams, self.p, starts)
        ranking = self.streams.fresh(f"user_ranking/{name}").permutation(self.p.users)
        unit_users = arrivals.zipf_users(self.streams.stream(f"users/{name}"), self.p.users,
                                         self.p.user_zipf, len(starts), ranking)
        jobs.user = unit_users[jobs.user] if len(starts) else jobs.user
        return jobs, meta

    def _utilization(self, meta: TaskMeta) -> np.ndarray:
        """GPU utilization of every job from its class's model."""
        key = np.where(meta.variant == FINAL, "search_final", meta.workload).astype(str)
        util = np.full(len(key), np.nan)
        for name in sorted(set(key.tolist())):
            rows = np.flatnonzero(key == name)
            model = self.p.util.get(name) or self.p.util[name.split("_")[0]]
            util[rows] = model.draw(self.streams.stream(f"gpu_util/{name}"), len(rows))
        return util

    def _latency(self, n: int) -> np.ndarray:
        """Scheduling latency per GPU job (0 w.p. ``latency_zero``, else lognormal)."""
        q = self.p.queue
        rng = self.streams.stream("latency")
        values = q.latency_median * np.exp(q.latency_sigma * rng.standard_normal(n))
        values[rng.random(n) < q.latency_zero] = 0.0
        return np.rint(np.minimum(values, q.latency_max)).astype(np.int64)
