"""Every constant of the synthetic workload model, with its source: one profile per cluster.

Published statistics come from ``acmesim.trace.targets`` (which cites acme_facts.md); this
module adds what the publications do not give (GPU-count distributions behind the box plots,
distribution tails, arrival rhythms, grouping, users, queueing) and marks each such value as an
**assumption** or as **fitted** (solved by ``python -m calibration.synthetic
PROFILE``, which prints the fitted values pasted here).

How the model uses them (see ``jobs.py``, ``arrivals.py``, ``packer.py``, ``baseline.py``):

- per job type: a GPU-count distribution; a run-time distribution that is a log-space
  piecewise-linear quantile function through the published percentiles (exact marginals); a
  Gaussian copula with correlation ``size_duration_rho`` between GPU count and run time (large
  jobs run long, which is what makes the GPU-time shares come out: the mean of products is not
  the product of means); ``rho`` is fitted per type so each type's share of GPU time matches;
- final states: a multinomial logit on log10(GPU time) of the job (heavy jobs end CANCELLED),
  fitted so the shares by count and by GPU time both match;
- arrivals: groups (evaluation batches, user sessions, CPU sweeps and array jobs, pretraining
  restart chains) of heavy-tailed sizes, owned by Zipf-distributed users, arriving as a Poisson
  process modulated by an hourly and a weekday rhythm and paused in cluster-wide quiet spells
  (docs/workload_arrivals.md);
- submit times that depend on the cluster (chain resubmissions, deferred pretraining): a
  node-level packer (``packer.py``); recorded start times: a replay of the GPU jobs under the
  baseline ``acme`` on the profile's cluster preset (``baseline.py``; the ``queue`` model below
  then only drives the packer).

Adding a profile is one new entry in ``PROFILES`` below, or one new module named
``profile_<name>.py`` in this package that calls ``register_profile``; either way its name also
goes into ``catalog.PROFILE_MODULES`` (what ``acmesim synth --help`` lists without importing
the profiles; a test checks the two agree).
"""

from __future__ import annotations

import dataclasses
import importlib
import math
import pkgutil
from collections.abc import Mapping
from statistics import NormalDist

from acmesim.cluster.presets.acme import KALOS_STARTUP
from acmesim.core.errors import UnknownNameError
from acmesim.trace.targets import KALOS as KALOS_TARGETS
from acmesim.trace.targets import SEREN as SEREN_TARGETS
from acmesim.trace.targets import ClusterTargets


@dataclasses.dataclass(frozen=True)
class GroupModel:
    """How jobs of one type arrive together: an eval batch, a user burst or a restart chain."""

    kind: str
    """``batch`` (all jobs at one second, one size), ``session`` (a burst) or ``chain``."""
    size_median: float
    size_sigma: float
    size_max: int
    gap_mean: float = 0.0
    """Mean seconds between consecutive submissions of a session (exponential gaps)."""
    gap_min: int = 0
    """Shortest gap (s) of a spaced group: ``gap_min`` plus an exponential of mean
    ``gap_mean - gap_min`` (1: a submission loop that never submits twice in one second)."""
    diurnal: float = 1.0
    """Weight of the hourly/weekday rhythm for this type's group arrivals (0 = flat)."""
    at_once: float | None = None
    """Share of groups whose jobs are all submitted in one second (an evaluation batch, a Slurm
    array job); the others are spaced by ``gap_mean``. None: 1 for a batch, 0 for a session."""

    array_min: int = 0
    """Groups of at least this many jobs are always submitted in one second (array jobs: a
    sweep that large is not submitted job by job); 0: no such rule."""

    gpu_max: int = 0
    """Batches only: the most GPUs one batch asks for in total (jobs x its GPU count). A drawn
    batch above it is split into the fewest near-equal batches within it, each of them
    submitted at its own time (``arrivals.split_batches``); 0: no bound."""

    @property
    def at_once_share(self) -> float:
        """``at_once``, or the kind's default (batches at once, sessions spaced)."""
        if self.at_once is not None:
            return self.at_once
        return 1.0 if self.kind == "batch" else 0.0


@dataclasses.dataclass(frozen=True)
class QuietModel:
    """Cluster-wide quiet spells during which no group arrives (see ``arrivals.quiet_spells``)."""

    share: float = 0.0
    """Share of the time in quiet spells (0: none)."""
    median: float = 0.0
    """Median length of a quiet spell (s); lognormal."""
    sigma: float = 0.0
    """Log-space standard deviation of the spell length."""


@dataclasses.dataclass(frozen=True)
class TypeModel:
    """The model of one GPU job type: sizes, run times, their coupling, grouping."""

    name: str
    gpu_pmf: Mapping[int, float]
    duration_knots: tuple[tuple[float, float], ...]
    size_duration_rho: float
    group: GroupModel
    scheduling_class: int = 1
    """Packer class: 0 reserved (pretraining), 1 normal, 2 low priority under a GPU quota."""


@dataclasses.dataclass(frozen=True)
class StateModel:
    """Multinomial logit of the final state on x = log10(GPU time) - 3 (COMPLETED = reference)."""

    cancelled: tuple[float, float]
    failed: tuple[float, float]
    timeout_of_failed: float
    node_fail_of_failed: float


@dataclasses.dataclass(frozen=True)
class CpuJobModel:
    """CPU-only jobs: not packed on GPU nodes; run time lognormal, bursts, state shares.

    A job's queue (``latency_*``, zero-inflated lognormal) and its run part (``run_*``,
    lognormal, end - start) are independent draws that add up: end = submit + queue + run, in
    both schemas. Where the published duration is end - submit (Kalos) it is that sum, so the
    run part is fitted to the duration facts minus the queue facts (``KALOS_CPU_RUN``)."""

    run_median: float
    """Median of the run part, end - start (s)."""
    run_sigma: float
    run_max: float
    cpu_pmf: Mapping[int, float]
    group: GroupModel
    latency_median: float
    latency_sigma: float
    latency_zero: float
    job_type: str = "Other"
    """Assumption: the type written for CPU-only jobs (the type figures count GPU jobs only)."""


@dataclasses.dataclass(frozen=True)
class QueueModel:
    """Start-time model: scheduling latency plus the node-level packer's waiting."""

    latency_zero: float
    """Share of GPU jobs whose scheduling latency is 0 s."""
    latency_median: float
    latency_sigma: float
    latency_max: float
    low_priority_quota: int
    """GPUs that class-2 (evaluation) jobs may hold at once."""
    lookahead: int
    """How many queued class-0/1 jobs the packer looks at per pass (backfilling depth)."""
    duration_includes_queue: bool
    """True for Kalos: the sampled duration is end - submit (the published convention)."""
    min_run: int
    """Smallest run time (s) when the sampled duration is shorter than the queueing."""
    defer_reserved: bool = False
    """Record class-0 (pretraining) submissions when their reserved capacity admits them."""
    defer_multi_node: bool = False
    """Record multi-node submissions when their nodes are free (gang-scheduled pods)."""
    latency_by_rank: bool = False
    """Scheduling latency = the cluster preset's start-up at each job's rank of sampled
    duration within its type (comonotone; ``latency_*`` above then unused), and the baseline
    replay starts each job with it (for a ``duration_includes_queue`` profile: the recorded
    end - submit keeps the sampled marginal, the recorded queue the start-up's)."""


@dataclasses.dataclass(frozen=True)
class WorkloadProfile:
    """Everything needed to generate one cluster's synthetic trace."""

    name: str
    cluster: str
    """Published schema the trace is written in (``seren`` or ``kalos``)."""
    targets: ClusterTargets
    start: str
    gpu_jobs_per_day: float
    cpu_jobs_per_day: float
    types: tuple[TypeModel, ...]
    states: StateModel
    cpu: CpuJobModel
    queue: QueueModel
    hour_weights: tuple[float, ...]
    weekday_weights: tuple[float, ...]
    local_utc_offset_hours: int
    users: int
    user_zipf: float
    user_format: str
    cpus_per_gpu: int
    job_id_format: str
    restart_gap_median: float
    restart_gap_sigma: float
    warmup_days: float
    """Days of non-chain arrivals simulated before the window (busy cluster at its start)."""
    chain_warmup_days: float
    """The same for restart chains (0: chains start inside the window, which then keeps all of
    their stratified run times)."""
    extra_columns: Mapping[str, float] = dataclasses.field(default_factory=dict)
    quiet: QuietModel = QuietModel()
    """Cluster-wide quiet spells of the submission process (default: none)."""
    scale: float = 1.0
    """The profile's cluster is sized ``scale`` x (``scale.scale_profile`` sets it with the
    rates, users and targets it scales; 1: the published cluster)."""

    @property
    def nodes(self) -> int:
        """Nodes of the profile's cluster."""
        return self.targets.nodes

    @property
    def gpus_per_node(self) -> int:
        """GPUs per node of the profile's cluster."""
        return self.targets.gpus_per_node

    @property
    def cluster_options(self) -> dict[str, float] | None:
        """Options of the cluster preset the profile runs on (its scale, when not 1)."""
        return {"scale": self.scale} if self.scale != 1 else None

    def type_share(self, name: str) -> float:
        """Published share of GPU jobs of type ``name`` (normalized over the modelled types)."""
        shares = self.targets.type_job_share
        return shares[name] / sum(shares[t.name] for t in self.types)


def _knots(targets: ClusterTargets, job_type: str, low: float, high: float
           ) -> tuple[tuple[float, float], ...]:
    """Run-time quantile knots: published percentiles, the 2^16 s share, and the support ends."""
    points = {p / 100.0: float(v) for p, v in targets.duration_percentiles[job_type].items()}
    share = targets.duration_share_le_65536[job_type]
    if share < 1.0:
        points[share] = 65536.0
    points[0.0], points[1.0] = low, high
    return tuple(sorted(points.items()))


# --------------------------------------------------------------------------------------------
# Shared assumptions (no published value: acme_facts.md §10 lists arrival rhythms as not found)
# --------------------------------------------------------------------------------------------

HOUR_WEIGHTS: tuple[float, ...] = (
    0.60, 0.50, 0.40, 0.32, 0.26, 0.24, 0.26, 0.34, 0.55, 0.80, 1.00, 1.05,
    0.95, 0.90, 1.05, 1.10, 1.10, 1.05, 0.95, 0.95, 1.00, 1.00, 0.90, 0.75,
)
"""Assumption: relative submission rate per local hour (Shanghai), a working-day curve with a
night trough (~1/4 of the afternoon peak) and a lunch dip, as seen in earlier DL-cluster traces
(Helios, Philly); not published for Acme."""

WEEKDAY_WEIGHTS: tuple[float, ...] = (1.00, 1.05, 1.05, 1.00, 0.95, 0.65, 0.60)
"""Assumption: relative rate Monday..Sunday (weekends ~60 % of weekdays)."""

# --------------------------------------------------------------------------------------------
# The submission process (users, batches, sweeps, quiet spells): one model for both clusters.
# Published for Seren's released file (acme_facts.md §2.5, a third party's measurement): all
# jobs, 1-s submit times, inter-arrival CV 14.7, 32.1 % of jobs share their submit second with
# another job, max/median hourly arrival count 272x, top-5 users submit 63.7 % of jobs. No
# publication gives the mechanism, so each parameter below is **chosen** to reproduce these
# four statistics on 183 days of Seren; docs/workload_arrivals.md tabulates how each statistic
# moves with each parameter. Kalos uses the same values with its own job counts, mix and users.
# --------------------------------------------------------------------------------------------

USER_ZIPF = 1.395
"""Derived: the Zipf exponent of the users' activity at which the top 5 of Seren's 400 users
(an assumption) hold the published 63.7 % of the jobs (``arrivals.zipf_exponent_for_top_share``;
tests check the value). Users are assigned weighted by jobs (``arrivals.zipf_users_by_jobs``)
with one ranking for every job type, so each user's share of jobs is its Zipf share."""

EVAL_BATCHES = GroupModel("batch", 16.0, 1.8, 1000, gap_mean=10.0, gap_min=1, diurnal=0.5,
                          at_once=0.3)
"""Evaluation batches: a checkpoint is evaluated on ~60 datasets (acme_facts.md §5), several
checkpoints and sweeps at a time, so sizes are heavy-tailed (chosen: median 16, sigma 1.8, up to
1,000 jobs; one GPU count per batch). Evaluation jobs "arrive in large batches at once"
(acme_facts.md §2.5): chosen, 30 % of the batches (stratified by size) are submitted in one
second, the others one by one by a launcher loop (>= 1 s apart, mean 10 s). The at-once share
mostly sets the same-second share. No bound on a batch's GPUs here (``gpu_max`` 0): Kalos's
evaluation batches [chosen: the bound below was chosen on Seren's queueing, and Kalos is
validated, not fitted; its Eval jobs are 92.5 % single-GPU, so only its 8-GPU batches of more
than 858 jobs would exceed Seren's bound]. Seren's are bounded (``SEREN_EVAL_BATCHES``)."""

CPU_SWEEPS = GroupModel("session", 1.0, 3.0, 20000, gap_mean=3.0, gap_min=1, diurnal=1.0,
                        array_min=5000)
"""CPU-only jobs (data processing, metric computation): mostly single jobs, plus heavy-tailed
sweeps (chosen: lognormal median 1, sigma 3.0, capped at 20,000 jobs) submitted by a loop
(>= 1 s apart, mean 3 s); a sweep of 5,000 jobs or more is one array job, submitted in one
second. Those arrays are the storms that set the busiest hour (the cap sets the max/median
hourly count), and the sweeps' share of the volume keeps the median hour quiet."""

QUIET_SPELLS = QuietModel(share=0.12, median=12 * 3600.0, sigma=0.5)
"""Chosen: cluster-wide quiet spells (maintenance windows, outages, holidays) in which no new
group arrives: 12 % of the time, lognormal lengths of median 12 h. They make the long
inter-arrival gaps that set the inter-arrival CV; sessions already under way and restart-chain
resubmissions go on through them."""

def zero_inflated_lognormal(median: float, mean: float, zero: float) -> tuple[float, float]:
    """Median and sigma of the lognormal part of a latency that is 0 s with probability
    ``zero`` and lognormal otherwise, so that the whole latency has the given ``median`` and
    (uncapped) ``mean``.

    The median: ``zero + (1 - zero) Phi(ln(median / m) / sigma) = 1/2``, i.e. ``ln m =
    ln median - sigma z`` with ``z = Phi^-1((1/2 - zero) / (1 - zero))``; the mean: ``(1 -
    zero) m e^(sigma^2 / 2) = mean``, i.e. ``sigma^2 / 2 - sigma z = ln(mean / ((1 - zero)
    median))``, whose positive root is ``sigma = z + sqrt(z^2 + 2 ln(mean / ((1 - zero)
    median)))``, positive when ``mean > (1 - zero) median`` (``z <= 0`` for ``0 <= zero <
    1/2``). Rounding and a cap are not modelled (for Seren's CPU jobs they move the mean by
    under 0.1 %, ``SEREN_CPU_LATENCY``)."""
    if not (0.0 <= zero < 0.5 and 0.0 < (1.0 - zero) * median < mean):
        raise ValueError(f"need 0 <= zero < 0.5 and 0 < (1 - zero) median < mean, got {zero}, "
                         f"{median}, {mean}")
    z = NormalDist().inv_cdf((0.5 - zero) / (1.0 - zero))
    sigma = z + math.sqrt(z * z + 2.0 * math.log(mean / ((1.0 - zero) * median)))
    return round(median * math.exp(-sigma * z), 4), round(sigma, 4)


SEREN_CPU_LATENCY_ZERO = 0.35
"""Assumption: share of Seren's CPU jobs that start in their submission second (not
published; the published median of 1 s only needs fewer than half of them at 0 s)."""
SEREN_CPU_LATENCY = zero_inflated_lognormal(SEREN_TARGETS.cpu_queue_median,
                                            SEREN_TARGETS.cpu_queue_mean,
                                            SEREN_CPU_LATENCY_ZERO)
"""Seren's CPU-job latency, lognormal part (median, sigma) [derived from R-SUM's CPU queue,
median 1 s and mean 4.813 s (acme_facts.md §2.4), with 35 % at 0 s]: z = Phi^-1(0.15 / 0.65)
= -0.7363, sigma = z + sqrt(z^2 + 2 ln(4.813 / 0.65)) = 1.3959, median e^(-sigma z) = 2.795 s.
Rounded to whole seconds, 42.1 % of the jobs start at 0 s and 56.3 % within 1 s (below 1.5 s),
so the recorded median stays 1 s; the 3,600 s cap cuts 1e-7 of the jobs. The earlier
(2.0 s, 1.2) met the median but gave a mean of 0.65 x 2 x e^0.72 = 2.67 s."""


def lognormal_median_for_mean(mean: float, sigma: float) -> float:
    """Median of the lognormal of (uncapped) ``mean`` and log-space ``sigma``: ``mean /
    e^(sigma^2 / 2)``."""
    if not (mean > 0.0 and sigma > 0.0):
        raise ValueError(f"need mean > 0 and sigma > 0, got {mean}, {sigma}")
    return round(mean / math.exp(sigma * sigma / 2.0), 4)


KALOS_CPU_LATENCY = zero_inflated_lognormal(KALOS_TARGETS.cpu_queue_median,
                                            KALOS_TARGETS.cpu_queue_mean, 0.0)
"""Kalos's CPU-job queue, lognormal (median, sigma) [derived from R-SUM's CPU queue, median
9 s and mean 88.401 s (acme_facts.md §2.4), none at 0 s (pods take seconds to start)]: sigma =
sqrt(2 ln(88.401 / 9)) = 2.1376. The 2^16 s cap (``QueueModel.latency_max``) and whole seconds
give a mean of 87.7 s (2 M draws). The earlier (9 s, 1.9) was cut to fit inside the sampled
end - submit, which left a recorded mean of 14.5 s and median 4 s (183 days, seed 1)."""

KALOS_CPU_RUN_SIGMA = 2.1
"""Chosen: log-space sigma of Kalos's CPU run part (end - start; not published). With the
queue above, the end - submit median is 22 s, as published (R-SUM, acme_facts.md §2.4), at
2.1; it is 31, 26, 24, 21, 18 s at sigma 1.5, 1.8, 2.0, 2.2, 2.5 (2 M draws, whole seconds);
the mean stays 117-118 s at each (``KALOS_CPU_RUN`` keeps it)."""
KALOS_CPU_RUN = lognormal_median_for_mean(
    KALOS_TARGETS.cpu_run_time_mean - KALOS_TARGETS.cpu_queue_mean, KALOS_CPU_RUN_SIGMA)
"""Median of Kalos's CPU run part [derived: its mean is the published end - submit mean less
the queue mean, 118.352 - 88.401 = 29.951 s (R-SUM, acme_facts.md §2.4); median 29.951 /
e^(2.1^2 / 2) = 3.3021 s; each job runs at least ``QueueModel.min_run``, 1 s]."""


STATE_SPLIT_TIMEOUT = 0.01
"""Assumption: share of failed jobs recorded as TIMEOUT ("very rare", AcmeTrace README)."""
STATE_SPLIT_NODE_FAIL = 0.01
"""Assumption: share of failed jobs recorded as NODE_FAIL ("very rare", AcmeTrace README)."""


# --------------------------------------------------------------------------------------------
# Seren (2,288 GPUs, Slurm)
# --------------------------------------------------------------------------------------------

_S = SEREN_TARGETS
SEREN_EVAL_BATCHES = dataclasses.replace(EVAL_BATCHES, gpu_max=6864)
"""Seren's evaluation batches: ``EVAL_BATCHES`` split into pieces of at most 6,864 GPUs (3 x
Seren's 2,288 GPUs), each piece another checkpoint's round at its own time
(``arrivals.split_batches``; a checkpoint's round on ~60 datasets is about 60 g GPUs at g GPUs
per dataset, acme_facts.md §5, so a larger batch is several checkpoints' rounds) [chosen: with
Other's held jobs (``acmesim.cluster.presets.acme.HOLDS``) and ``acme``'s rule 8 off, on 183
days of synthetic Seren it meets Eval's published p99 (4,206 s, §2.5) on seeds 2 and 3 and
keeps the mean queue (416, 338 and 349 s against 446 s on seeds 1-3): 4 of the 81 checks of
seeds 1-3 fail, against 7 with the same holds and no bound; alone, without the holds, every
bound of 2,288-6,864 GPUs lowers the mean below its tolerance. The arrival statistics stay
within their tolerances (CV 13.8-14.7, same-second 31.8-32.3 %, max/median hourly 266-279x,
top-5 users 63.6-63.7 % at 6,864 GPUs). Measured in experiments/fidelity/README.md,
results/batch_sensitivity.md and results/hold_sensitivity.md]."""
_SEREN_MAX = _S.run_time_max  # 1,209,604 s: the 14-day limit (R-SUM max_run_time_gpu)

# Fitted by ``python -m calibration.synthetic seren`` (400,000 jobs per type,
# seed 12345). rho: each type's share of GPU time (targets.py) of R-SUM's total GPU time
# 2.151e10 GPU-s over the 450,590 released GPU jobs (59 % of 2,288 GPUs over 183 days).
# States: shares by count 49.7/7.5/42.9 % and by GPU time 21.2/66.4/12.4 % (completed,
# cancelled, failed); the tuples are (intercept, slope) of cancelled and of failed.
SEREN_FITTED_RHO = {"Eval": 0.1973, "Pretrain": -0.0224, "SFT": 0.4187, "MLLM": 0.404,
                    "Debug": 0.2256, "Other": 0.1389}
SEREN_FITTED_STATES = ((-1.7536, 0.6841), (-0.2106, -0.0888))

SEREN = WorkloadProfile(
    name="seren",
    cluster="seren",
    targets=_S,
    start=_S.start,  # 2023-03-01 00:00 +08:00, first day of the release (targets.py)
    gpu_jobs_per_day=_S.gpu_jobs / _S.span_days,  # 450,590 released GPU jobs / 183 days
    cpu_jobs_per_day=_S.cpu_jobs / _S.span_days,  # 367,737 CPU jobs / 183 days
    types=(
        TypeModel(
            "Eval",
            # Box plot (Q1 1, median 1, Q3 4, whiskers 1-8, outliers 16-128) and the global
            # GPU-count CDF (54.0 % single-GPU jobs, 2.5 % with 3-4 GPUs) [derived]
            gpu_pmf={1: 0.664, 2: 0.060, 4: 0.035, 8: 0.233, 16: 0.004, 32: 0.003, 64: 0.001},
            # head: ~3 % of jobs at <= 1 s in duration_by_type.png; tail: the curve reaches
            # 100 % near 1e5 s (assumption 2^17 s)
            duration_knots=_knots(_S, "Eval", 1.0, 131072.0),
            size_duration_rho=SEREN_FITTED_RHO["Eval"],
            group=SEREN_EVAL_BATCHES,  # one GPU count per batch
            scheduling_class=2,  # low priority on spare capacity (acme_facts.md §2.5)
        ),
        TypeModel(
            "Pretrain",
            # Box plot: Q1 64, median 128, Q3 256, whiskers ~40-512, outliers to 1,024; CDF:
            # ~0.25 % of all GPU jobs above 256 GPUs [derived]
            gpu_pmf={40: 0.06, 64: 0.22, 128: 0.33, 256: 0.19, 512: 0.17, 1024: 0.03},
            duration_knots=_knots(_S, "Pretrain", 1.0, _SEREN_MAX),
            size_duration_rho=SEREN_FITTED_RHO["Pretrain"],  # ~0: no size trend
            # Assumption: runs are chains of restarts (median 4 jobs, mean ~6.6), same user and
            # size, each resubmitted after the previous one ends (acme_facts.md §3, Fig. 14)
            group=GroupModel("chain", 4.0, 1.0, 60, diurnal=0.3),
            scheduling_class=0,  # reserved quota for pretraining (acme_facts.md §1)
        ),
        TypeModel(
            "SFT",
            # Box plot: Q1 2, median 8, Q3 8, whiskers 1-16, outliers 32-512 [derived]
            gpu_pmf={1: 0.12, 2: 0.22, 4: 0.08, 8: 0.507, 16: 0.05, 32: 0.012, 64: 0.006,
                     128: 0.003, 256: 0.0015, 512: 0.0005},
            duration_knots=_knots(_S, "SFT", 1.0, 131072.0),
            size_duration_rho=SEREN_FITTED_RHO["SFT"],
            group=GroupModel("session", 2.0, 1.0, 50, gap_mean=120.0),
        ),
        TypeModel(
            "MLLM",
            # Box plot: Q1 1, median 2, Q3 8, whiskers 1-16, outliers 32-256 [derived]
            gpu_pmf={1: 0.33, 2: 0.22, 4: 0.10, 8: 0.25, 16: 0.05, 32: 0.02, 64: 0.015,
                     128: 0.01, 256: 0.005},
            # tail: the curve reaches 100 % near 5e5 s (assumption 2^19 s)
            duration_knots=_knots(_S, "MLLM", 1.0, 524288.0),
            size_duration_rho=SEREN_FITTED_RHO["MLLM"],
            group=GroupModel("session", 2.0, 1.0, 50, gap_mean=120.0),
        ),
        TypeModel(
            "Debug",
            # Box plot collapsed at 8 (Q1 = Q3 = 8), outliers 1-4 and 16-1,024 [derived]
            gpu_pmf={1: 0.04, 2: 0.03, 4: 0.03, 8: 0.803, 16: 0.03, 32: 0.025, 64: 0.02,
                     128: 0.012, 256: 0.006, 512: 0.003, 1024: 0.001},
            duration_knots=_knots(_S, "Debug", 1.0, 262144.0),
            size_duration_rho=SEREN_FITTED_RHO["Debug"],
            group=GroupModel("session", 3.0, 1.0, 50, gap_mean=60.0),
        ),
        TypeModel(
            "Other",
            # Box plot: Q1 1, median 1, Q3 8, whiskers 1-16, outliers 32 [derived]
            gpu_pmf={1: 0.53, 2: 0.12, 4: 0.04, 8: 0.27, 16: 0.025, 32: 0.012, 64: 0.003},
            duration_knots=_knots(_S, "Other", 1.0, _SEREN_MAX),
            size_duration_rho=SEREN_FITTED_RHO["Other"],
            group=GroupModel("session", 2.0, 1.2, 100, gap_mean=60.0),
        ),
    ),
    states=StateModel(*SEREN_FITTED_STATES, timeout_of_failed=STATE_SPLIT_TIMEOUT,
                      node_fail_of_failed=STATE_SPLIT_NODE_FAIL),
    cpu=CpuJobModel(
        # R-SUM: median 14 s, mean 734 s; lognormal sigma fitted so the mean truncated at the
        # 14-day limit is ~734 s
        run_median=_S.cpu_run_time_median,
        run_sigma=2.8,
        run_max=_SEREN_MAX,
        cpu_pmf={1: 0.25, 2: 0.15, 4: 0.2, 8: 0.2, 16: 0.1, 32: 0.06, 64: 0.03, 128: 0.01},
        group=CPU_SWEEPS,
        # R-SUM CPU queue: median 1 s, mean 4.8 s (SEREN_CPU_LATENCY: derived from both)
        latency_median=SEREN_CPU_LATENCY[0], latency_sigma=SEREN_CPU_LATENCY[1],
        latency_zero=SEREN_CPU_LATENCY_ZERO,
    ),
    queue=QueueModel(
        # Assumption shaped on R-SUM (median queue 1 s): 40 % start at once, the rest after a
        # lognormal latency (median 2 s); waiting for GPUs comes on top from the packer.
        latency_zero=0.40, latency_median=2.0, latency_sigma=1.5, latency_max=3600.0,
        low_priority_quota=320,  # assumption: evaluation may hold 40 nodes' worth of GPUs
        lookahead=32,
        duration_includes_queue=False,  # Seren duration = end - start (schema_examples.md)
        min_run=0,
        # quota reservation guarantees resources for pretraining (acme_facts.md §1, §2.5):
        # a run is launched when its nodes are free, so it records no queueing
        defer_reserved=True,
    ),
    hour_weights=HOUR_WEIGHTS,
    weekday_weights=WEEKDAY_WEIGHTS,
    local_utc_offset_hours=8,  # Shanghai AI Lab; Seren timestamps are +08:00
    users=400,  # assumption: user population (not published)
    user_zipf=USER_ZIPF,
    quiet=QUIET_SPELLS,
    user_format="u{:04d}",  # published ids look like u5907 (schema_examples.md)
    cpus_per_gpu=16,  # 16 CPU threads per GPU (acme_facts.md §1; 8 GPUs -> 128 CPUs example)
    job_id_format="slurm",  # integer ids from 5778432 (first example row)
    restart_gap_median=600.0,  # assumption: restarts follow failures/cancels within ~10 min
    restart_gap_sigma=1.2,
    # jobs submitted before the window occupy the cluster at its start; restart chains start
    # inside the window only, so the window keeps (almost) all of their stratified run times
    warmup_days=3.0,
    chain_warmup_days=0.0,
)
"""Seren: 6 job types, 286 nodes, the released trace's 183 days."""


# --------------------------------------------------------------------------------------------
# Kalos (2,416 GPUs, Kubernetes)
# --------------------------------------------------------------------------------------------

_K = KALOS_TARGETS
_KALOS_STARTUP = KALOS_STARTUP  # the cluster preset's start-up latency

# Fitted by ``python -m calibration.synthetic kalos`` (as for Seren): R-SUM's
# total GPU time 5.333e9 GPU-s over 19,907 GPU jobs; states 54.1/6.2/39.7 % by count and
# 31.3/60.7/8.0 % by GPU time. Pretrain's negative rho: with the box plot's share of 1,024-GPU
# runs, the published total needs the largest runs to be shorter (scaling tests; the
# GPU-time CDF also puts 21 % of GPU time on 256-GPU jobs, more than size alone gives).
KALOS_FITTED_RHO = {"Eval": 0.3848, "Pretrain": -0.2082, "Debug": 0.0701, "Other": 0.1762}
KALOS_FITTED_STATES = ((-2.0626, 0.587), (-0.4567, -0.2054))

KALOS = WorkloadProfile(
    name="kalos",
    cluster="kalos",
    targets=_K,
    start=_K.start,  # assumption 2023-05-01 00:00 +00:00 (see targets.py span_days)
    gpu_jobs_per_day=_K.gpu_jobs / _K.span_days,  # 19,907 GPU jobs / 123 days
    cpu_jobs_per_day=_K.cpu_jobs / _K.span_days,  # 42,506 CPU jobs / 123 days
    types=(
        TypeModel(
            "Eval",
            # Box plot all at 1 (outliers 2, 8); CDF: 86.3 % single-GPU, 88.4 % <= 2,
            # 93.9 % <= 8 GPUs [derived]
            gpu_pmf={1: 0.925, 2: 0.022, 8: 0.053},
            # head: Kalos curves start near 12 s (pod start-up, duration includes the queue);
            # tail: 100 % <= 2^16 s, the curve reaches 100 % near 1e4 s (assumption 2^14 s)
            duration_knots=_knots(_K, "Eval", 12.0, 16384.0),
            size_duration_rho=KALOS_FITTED_RHO["Eval"],
            group=EVAL_BATCHES,
            scheduling_class=2,
        ),
        TypeModel(
            "Pretrain",
            # Box plot: Q1 256, median 512, Q3 512, whiskers ~96-512, outliers 1,024 [derived];
            # the 1,024-GPU outliers are as many as Q3 = 512 allows minus a margin (20 %), so
            # the mean GPU count comes near R-SUM's 26.77 (the CDF reading alone gives ~550
            # GPUs on average for the 3.1 % of jobs above 256)
            gpu_pmf={96: 0.03, 256: 0.25, 512: 0.52, 1024: 0.20},
            duration_knots=_knots(_K, "Pretrain", 20.0, _K.run_time_max),  # max 625,740 s
            size_duration_rho=KALOS_FITTED_RHO["Pretrain"],
            group=GroupModel("chain", 4.0, 1.0, 60, diurnal=0.3),
            scheduling_class=0,
        ),
        TypeModel(
            "Debug",
            # Box plot: Q1 32, median 128, Q3 512, whiskers 1-1,024 [derived]
            gpu_pmf={1: 0.05, 2: 0.03, 4: 0.02, 8: 0.08, 16: 0.05, 32: 0.12, 64: 0.10,
                     128: 0.15, 256: 0.12, 512: 0.18, 1024: 0.10},
            duration_knots=_knots(_K, "Debug", 12.0, 16384.0),
            size_duration_rho=KALOS_FITTED_RHO["Debug"],
            group=GroupModel("session", 3.0, 1.0, 50, gap_mean=60.0),
        ),
        TypeModel(
            "Other",
            # Box plot: Q1 2, median 8, Q3 32, whiskers 1-64 [derived]
            gpu_pmf={1: 0.15, 2: 0.15, 4: 0.10, 8: 0.20, 16: 0.12, 32: 0.18, 64: 0.10},
            duration_knots=_knots(_K, "Other", 12.0, _K.run_time_max),
            size_duration_rho=KALOS_FITTED_RHO["Other"],
            group=GroupModel("session", 2.0, 1.2, 100, gap_mean=60.0),
        ),
    ),
    states=StateModel(*KALOS_FITTED_STATES, timeout_of_failed=STATE_SPLIT_TIMEOUT,
                      node_fail_of_failed=STATE_SPLIT_NODE_FAIL),
    cpu=CpuJobModel(
        # the run part (end - start): R-SUM's end - submit mean 118 s less the queue mean 88 s,
        # median 22 s end - submit at the chosen sigma (KALOS_CPU_RUN, KALOS_CPU_RUN_SIGMA)
        run_median=KALOS_CPU_RUN,
        run_sigma=KALOS_CPU_RUN_SIGMA,
        run_max=_K.run_time_max,
        cpu_pmf={1: 0.25, 2: 0.15, 4: 0.2, 8: 0.2, 16: 0.1, 32: 0.06, 64: 0.03, 128: 0.01},
        group=CPU_SWEEPS,
        # R-SUM CPU queue: median 9 s, mean 88.4 s (KALOS_CPU_LATENCY: derived from both)
        latency_median=KALOS_CPU_LATENCY[0], latency_sigma=KALOS_CPU_LATENCY[1],
        latency_zero=0.0,
    ),
    queue=QueueModel(
        # latency_by_rank (below): the Kalos preset's pod start-up (acmesim.cluster.presets.
        # acme: median 17 s, R-SUM; the CPU pods' mean-to-median ratio), at each job's rank of
        # sampled duration; capped so a job still runs >= min_run within its sampled duration
        # (which includes the queue). The latency_* values are the preset's, for reference.
        latency_zero=0.0, latency_median=_KALOS_STARTUP["median"],
        latency_sigma=_KALOS_STARTUP["sigma"], latency_max=_KALOS_STARTUP["maximum"],
        low_priority_quota=640,  # assumption: 80 nodes' worth of GPUs for evaluation
        lookahead=32,
        duration_includes_queue=True,  # Kalos duration = end - submit (schema_examples.md)
        min_run=1,
        defer_reserved=True,  # as for Seren
        # Kalos runs Kubernetes (gang-scheduled pods) and its published queueing is short
        # (mean 214 s, median 17 s, R-SUM) although duration there includes the queue: large
        # jobs did not wait for days. A multi-node job is recorded when its nodes are free.
        defer_multi_node=True,
        # [chosen] Kalos's duration is end - submit and includes the queue (schema_examples.md):
        # a start-up drawn independently of the sampled duration outlasts it for short jobs
        # and lengthens them (Eval duration p75 +35 %, Debug p95 +32 % on 123 days, seed 1);
        # coupled by rank, the start-up marginal and the durations both stay as published.
        latency_by_rank=True,
    ),
    hour_weights=HOUR_WEIGHTS,
    weekday_weights=WEEKDAY_WEIGHTS,
    local_utc_offset_hours=8,  # the users are in Shanghai even though Kalos writes +00:00
    users=120,  # assumption (not published)
    user_zipf=USER_ZIPF,
    quiet=QUIET_SPELLS,
    user_format="uf{:03d}",  # published ids look like uf794 (schema_examples.md)
    cpus_per_gpu=15,  # 64 GPUs -> 960 CPUs in the example row (120 per 8-GPU node)
    job_id_format="dlc",  # ids like dlctk696s0jbvitv: "dlc" + 13 base-36 characters
    restart_gap_median=600.0,
    restart_gap_sigma=1.2,
    warmup_days=3.0,
    chain_warmup_days=0.0,
    # the example row: an 8-node job with mem_per_pod_GB 1000 and shared_mem_per_pod 100.0;
    # assumption: 125 GB of pod memory per GPU, 100 GB shared memory for every GPU pod
    extra_columns={"mem_per_gpu_GB": 125, "shared_mem_per_pod": 100.0, "cpu_pod_mem_GB": 16},
)
"""Kalos: 4 job types, 302 nodes, an assumed 123-day span (May-August 2023)."""


# --------------------------------------------------------------------------------------------
# Registry
# --------------------------------------------------------------------------------------------

PROFILES: dict[str, WorkloadProfile] = {p.name: p for p in (SEREN, KALOS)}
"""Profile name -> profile; add an entry here or call ``register_profile`` from a module."""

_discovered = False


def register_profile(profile: WorkloadProfile) -> WorkloadProfile:
    """Add ``profile`` to the registry (from a ``profile_<name>.py`` module of this package)."""
    known = PROFILES.get(profile.name)
    if known is not None and known is not profile:
        raise ValueError(f"workload profile {profile.name!r} is already registered")
    PROFILES[profile.name] = profile
    return profile


def _discover() -> None:
    """Import every ``profile_*`` module of this package so their registrations run."""
    global _discovered
    if _discovered:
        return
    _discovered = True
    package = importlib.import_module(__package__)
    for info in pkgutil.iter_modules(package.__path__):
        if info.name.startswith("profile_"):
            importlib.import_module(f"{__package__}.{info.name}")


def profile_names() -> list[str]:
    """Names of every registered workload profile, sorted."""
    _discover()
    return sorted(PROFILES)


def get_profile(name: str) -> WorkloadProfile:
    """The workload profile called ``name``; an unknown name lists the valid ones."""
    _discover()
    try:
        return PROFILES[name]
    except KeyError:
        raise UnknownNameError("workload profile", name, PROFILES) from None
