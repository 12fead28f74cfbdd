"""Deep reinforcement learning studies: one long single-GPU run per algorithm variant and seed.

Modeled on GPU DQN toolkits (CytonRL: DQN, double DQN, dueling networks and prioritized replay
on Atari Breakout). A study compares a few algorithm variants, each over several random seeds,
and launches every (variant, seed) run at once as its own single-GPU job. A run's length is the
study's frame budget divided by its speed: the variants differ by a fixed factor (prioritized
replay's sampling is the slowest), seeds only a little. The runs are CPU-heavy (environment
stepping) and keep their GPU mostly idle (see ``taskdl.py`` for their utilization).

Every value of ``RLModel`` is an **assumption** (no published RL-cluster trace).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import numpy as np

from acmesim.core.rng import RngStreams
from acmesim.synth.arrivals import group_sizes
from acmesim.synth.distributions import discrete_draws
from acmesim.synth.jobs import assign_states
from acmesim.synth.profiles import GroupModel, StateModel
from acmesim.synth.table import JobArrays
from acmesim.synth.taskmeta import CLASS_TYPES, TaskMeta


@dataclasses.dataclass(frozen=True)
class RLModel:
    """The shape of one RL study: variants, seeds, run lengths, CPU threads per run."""

    variants: tuple[str, ...] = ("dqn", "double_dqn", "dueling_dqn", "prioritized_dqn")
    variant_time: tuple[float, ...] = (1.0, 1.05, 1.15, 1.4)
    """Relative run time of each variant for the same frame budget."""
    variants_per_study: Mapping[int, float] = dataclasses.field(
        default_factory=lambda: {1: 0.3, 2: 0.2, 4: 0.5})
    """How many of the variants a study compares (chosen at random)."""
    seeds: GroupModel = GroupModel("batch", 3.0, 0.4, 10, diurnal=0.5)
    """Seeds per variant (rounded lognormal); ``diurnal`` weighs the arrival rhythm."""
    run_median: float = 10 * 3600.0
    """Median run time of a study's baseline variant, seconds (lognormal across studies)."""
    run_sigma: float = 0.6
    seed_sigma: float = 0.1
    run_max: float = 7 * 86400.0
    cpus: int = 16
    """CPU threads per run (environment simulators)."""

    def __post_init__(self) -> None:
        if len(self.variant_time) != len(self.variants):
            raise ValueError("RL model needs one variant_time per variant")
        if max(self.variants_per_study) > len(self.variants):
            raise ValueError("a study cannot compare more variants than exist")


def rl_jobs(streams: RngStreams, model: RLModel, states: StateModel,
            starts: np.ndarray) -> tuple[JobArrays, TaskMeta]:
    """Every run of the studies starting at ``starts``: one job per (study, variant, seed).

    ``user`` holds the study index (the caller maps studies to users); all runs of a study are
    submitted at its start.
    """
    rng = streams.stream("rl/shape")
    studies = len(starts)
    counts = discrete_draws(rng, np.array(list(model.variants_per_study)),
                            np.array(list(model.variants_per_study.values())), studies)
    seeds = group_sizes(streams.stream("rl/seeds"), model.seeds, studies)
    base = model.run_median * np.exp(model.run_sigma * rng.standard_normal(studies))
    chosen = [rng.permutation(len(model.variants))[:k] for k in counts.tolist()]
    study, variant, seed = _grid(chosen, seeds)
    n = len(study)
    speed = np.asarray(model.variant_time)[variant]
    run = base[study] * speed * np.exp(model.seed_sigma * rng.standard_normal(n))
    work = np.maximum(np.rint(np.minimum(run, model.run_max)), 1).astype(np.int64)
    state = assign_states(streams.stream("rl/states"), states, work.astype(np.float64))
    jobs = JobArrays(
        type_code=np.zeros(n, dtype=np.int16), gpus=np.ones(n, dtype=np.int64),
        submit=np.asarray(starts, dtype=np.int64)[study], work=work, state=state,
        user=study.astype(np.int64), klass=np.ones(n, dtype=np.int8),
        successor=np.full(n, -1, dtype=np.int64), gap=np.zeros(n, dtype=np.int64),
        start=np.full(n, -1, dtype=np.int64), end=np.full(n, -1, dtype=np.int64),
        cpus=np.full(n, model.cpus, dtype=np.int64),
    )
    meta = TaskMeta(workload=np.full(n, "rl", dtype=object), group=study.astype(np.int64),
                    stage=seed.astype(np.int64),
                    variant=np.asarray(model.variants, dtype=object)[variant],
                    parent=np.full(n, -1, dtype=np.int64), gpu_util=np.full(n, np.nan),
                    job_type=np.full(n, CLASS_TYPES["rl"], dtype=object))
    return jobs, meta


def _grid(chosen: list[np.ndarray], seeds: np.ndarray
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(study, variant, seed) of every run: each chosen variant of a study times its seeds."""
    per_study = np.array([len(v) for v in chosen], dtype=np.int64) * seeds
    study = np.repeat(np.arange(len(chosen)), per_study)
    variant = np.concatenate([np.repeat(v, s) for v, s in zip(chosen, seeds.tolist(),
                                                             strict=True)]
                             ) if chosen else np.zeros(0, dtype=np.int64)
    seed = np.concatenate([np.tile(np.arange(s), len(v)) for v, s in zip(chosen,
                                                                         seeds.tolist(),
                                                                         strict=True)]
                          ) if chosen else np.zeros(0, dtype=np.int64)
    return study, variant.astype(np.int64), seed.astype(np.int64)
