"""The ``taskdl`` profile: task-specific DL work calibrated to the Helios trace (and Philly).

Published statistics come from ``acmesim.trace.targets_prior`` (R-SUM rows, acme_facts.md
§2.4, §2.6, §7, figure readings). What they do not give is an **assumption** (the class models
in ``search.py`` and ``rl.py``, the class shares below, bursts, users, queueing) or is
**fitted** by ``python -m calibration.taskdl PRIOR``, which prints the
values pasted here:

- the supervised class's GPU-count pmf: the prior's job CDF over GPU counts (figure reading)
  with the single-GPU search and RL jobs taken out, its tail above 64 GPUs decaying
  geometrically so the mean GPU demand equals the published mean;
- its run-time quantile knots: the prior's whole-cluster duration CDF minus the search and RL
  classes' (sampled) run-time CDFs, so the mixture has the published CDF; the top of the tail
  is set so the mean run time equals the published mean (a log-linear tail up to the published
  maximum would give a far larger mean: 11,897 s instead of 6,652 s for Helios);
- the copula correlation of GPU count and run time: the total GPU time per job equals the
  published total over the published job count (R-SUM);
- the state logit: the published state shares by count and by GPU time;
- the mean utilization of supervised jobs: the GPU-time-weighted median utilization equals
  Philly's 48.6 % (acme_facts.md §6/§7, R-PKL; Helios publishes none);
- the mean jobs per search (trials of all rungs plus the final job).

The profiles run on a Seren-sized cluster (286 nodes x 8 GPUs) at Seren's offered load, so a
task-DL trace, an Acme Seren trace and their mixtures are compared on the same machine.
"""

from __future__ import annotations

from acmesim.synth.profiles import (
    HOUR_WEIGHTS,
    STATE_SPLIT_NODE_FAIL,
    STATE_SPLIT_TIMEOUT,
    WEEKDAY_WEIGHTS,
    CpuJobModel,
    GroupModel,
    QueueModel,
    StateModel,
    TypeModel,
    register_profile,
)
from acmesim.synth.rl import RLModel
from acmesim.synth.search import SearchModel
from acmesim.synth.taskdl import TaskDLProfile
from acmesim.trace.gpu_util import UtilModel
from acmesim.trace.targets import SEREN
from acmesim.trace.targets_prior import HELIOS, PHILLY, PriorTraceTargets, as_cluster_targets

SEREN_LOAD = SEREN.total_gpu_time / (SEREN.gpus * SEREN.span_days * 86400.0)
"""Offered load of Seren: R-SUM GPU time over 2,288 GPUs x 183 days = 0.595 (acme_facts.md
§2.1 [derived] gives ~59 %); the task-DL profiles offer the same load on the same cluster."""

CLASS_JOB_SHARES: dict[str, dict[str, float]] = {
    "helios": {"search": 0.25, "rl": 0.015, "supervised": 0.735},
    "philly": {"search": 0.10, "rl": 0.015, "supervised": 0.885},
}
"""Assumption: share of GPU jobs per class, per prior trace (no published trace labels them).
Search trials supply many short single-GPU jobs, RL runs are few but long. Philly's run-time
CDF rises only 4.5 points between 128 s and 256 s (acme_facts.md §2.4), too little room for a
quarter of the jobs being ~5-minute trials, so its profile has fewer searches."""

SEARCH = SearchModel()
"""Assumption: AutoReg-like searches, see ``search.py`` for each value."""

RL = RLModel()
"""Assumption: CytonRL-like DQN studies, see ``rl.py`` for each value."""

SESSION = GroupModel("session", 2.0, 1.0, 50, gap_mean=300.0, diurnal=1.0)
"""Assumption: a user submits a burst of supervised jobs (median 2, mean ~3.3) ~5 min apart."""

ASSUMED_UTIL: dict[str, UtilModel] = {
    # low: environment stepping on the CPU between small-batch GPU updates (assumption)
    "rl": UtilModel(0.20, 8.0),
    # short trials of small registration networks: data loading is a large part (assumption)
    "search": UtilModel(0.50, 6.0),
}
"""Assumption: utilization of the search trials and RL runs."""

QUEUE = QueueModel(
    # Assumption shaped on Helios' R-SUM queueing (median 0 s): 60 % of jobs start at once,
    # the rest after a lognormal latency; waiting for GPUs comes on top from the packer.
    latency_zero=0.60, latency_median=5.0, latency_sigma=1.5, latency_max=3600.0,
    low_priority_quota=0,  # no low-priority class in task-DL work
    lookahead=32,
    duration_includes_queue=False,  # the Seren schema: duration = end - start
    min_run=0,
)

NO_CPU_JOBS = CpuJobModel(run_median=1.0, run_sigma=1.0, run_max=1.0, cpu_pmf={1: 1.0},
                          group=GroupModel("session", 1.0, 1.0, 1), latency_median=0.0,
                          latency_sigma=1.0, latency_zero=1.0)
"""CPU-only jobs are not modeled for task-DL work (Philly and PAI publish none)."""


def build_profile(name: str, prior: PriorTraceTargets, *, gpu_pmf: dict[int, float],
                  duration_knots: tuple[tuple[float, float], ...], rho: float,
                  states: StateModel, supervised_util: float,
                  jobs_per_search: float) -> TaskDLProfile:
    """A task-DL profile calibrated to ``prior`` from its fitted constants (see module)."""
    targets = as_cluster_targets(prior, nodes=SEREN.nodes, gpus_per_node=SEREN.gpus_per_node)
    per_job = prior.gpu_time_per_job or prior.run_time_mean * prior.mean_gpus
    return TaskDLProfile(
        name=name,
        cluster="seren",  # written in the Seren schema plus the task columns (taskdl_files.py)
        targets=targets,
        start=SEREN.start,  # same calendar as the Seren profile, so mixtures line up
        gpu_jobs_per_day=SEREN_LOAD * SEREN.gpus * 86400.0 / per_job,
        cpu_jobs_per_day=0.0,
        types=(TypeModel("Supervised", gpu_pmf, duration_knots, rho, SESSION),),
        states=states,
        cpu=NO_CPU_JOBS,
        queue=QUEUE,
        hour_weights=HOUR_WEIGHTS,  # assumption shared with the Acme profiles (profiles.py)
        weekday_weights=WEEKDAY_WEIGHTS,
        local_utc_offset_hours=8,
        users=300,  # assumption: user population
        user_zipf=1.1,
        user_format="u{:04d}",
        # Helios nodes: 8 GPUs and 2 x 12-core Xeon Gold 6146 (acme_facts.md §8); the Helios
        # example row asks for 160 CPUs with 32 GPUs -> 5 per GPU (loaders/helios.py docstring)
        cpus_per_gpu=5,
        job_id_format="slurm",  # Helios runs Slurm
        restart_gap_median=600.0,
        restart_gap_sigma=1.2,
        warmup_days=3.0,  # jobs submitted before the window occupy the cluster at its start
        chain_warmup_days=3.0,  # no long restart chains (search continuations are short)
        prior=prior,
        search=SEARCH,
        rl=RL,
        class_job_share=CLASS_JOB_SHARES[prior.name],
        jobs_per_search=jobs_per_search,
        util={**ASSUMED_UTIL, "supervised": UtilModel(supervised_util, 4.0),
              "search_final": UtilModel(supervised_util, 4.0)},
    )


# --------------------------------------------------------------------------------------------
# Fitted constants (python -m calibration.taskdl helios / philly)
# --------------------------------------------------------------------------------------------

TASKDL = register_profile(build_profile(
    "taskdl", HELIOS,
    gpu_pmf={1: 0.62585, 2: 0.034014, 4: 0.068027, 8: 0.183673, 16: 0.058503, 32: 0.023129,
             64: 0.005442, 128: 0.000882, 256: 0.000478},
    duration_knots=((0.0, 1.0), (0.0612, 1.0), (0.0735, 2.0), (0.0966, 4.0), (0.1034, 8.0),
                    (0.1456, 16.0), (0.3378, 64.0), (0.4973, 128.0), (0.6188, 206.0),
                    (0.6766, 256.0), (0.7466, 1024.0), (0.863, 4096.0), (0.9475, 16384.0),
                    (0.9752, 65536.0), (0.9932, 262144.0), (1.0, 673778.0)),
    rho=0.2171,
    states=StateModel(cancelled=(-0.9815, 0.2064), failed=(-1.4323, -0.0822),
                      timeout_of_failed=STATE_SPLIT_TIMEOUT,
                      node_fail_of_failed=STATE_SPLIT_NODE_FAIL),
    supervised_util=0.5004,
    jobs_per_search=39.3852,
))
"""Task-specific DL work calibrated to Helios (the default prior trace)."""

TASKDL_PHILLY = register_profile(build_profile(
    "taskdl_philly", PHILLY,
    gpu_pmf={1: 0.80452, 2: 0.020339, 4: 0.084746, 8: 0.079096, 16: 0.010299, 32: 0.000419,
             64: 0.000326, 128: 0.000254},
    duration_knots=((0.0, 1.0), (0.0215, 8.0), (0.0407, 16.0), (0.2132, 64.0), (0.2994, 128.0),
                    (0.3249, 256.0), (0.4771, 874.0), (0.5284, 1024.0), (0.7872, 4096.0),
                    (0.9077, 16384.0), (0.9464, 65536.0), (0.9819, 262144.0), (1.0, 1201224.0)),
    rho=0.2563,
    states=StateModel(cancelled=(-2.0268, 0.5859), failed=(-0.6829, 0.2724),
                      timeout_of_failed=STATE_SPLIT_TIMEOUT,
                      node_fail_of_failed=STATE_SPLIT_NODE_FAIL),
    supervised_util=0.4948,
    jobs_per_search=39.3616,
))
"""Task-specific DL work calibrated to Philly (longer jobs, at most 128 GPUs)."""
