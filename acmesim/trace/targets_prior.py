"""Published statistics of the earlier deep-learning traces (Philly, Helios, PAI).

The Acme paper compares Seren and Kalos with three task-specific DL traces; these are the
targets of the ``taskdl`` synthetic profile and of ``acmesim characterize --profile taskdl``.
Tags (as in ``acmesim.trace.targets``):

- R-SUM: ``cluster_summary.csv`` rows Philly, Helios, PAI (acme_facts.md §7; the file is in
  the AcmeTrace release, see ``docs/sources.md``).
- §2.4 / §2.6 / §7: sections of ``acme_facts.md`` (whole-cluster duration CDF, final states,
  comparison table).
- PNG: values read in this project from the release figures ``cdf_job_gpunum.png`` and
  ``cdf_job_duration_util.png`` by locating each trace's curve colour at the axis positions
  **[derived]**. The same reading of the Seren curves lands within 1.5 points of the values
  acme_facts.md §2.3/§2.4 read from the vector PDFs, so treat these as +-1.5 points.

Shares are fractions, durations seconds. PAI counts GPUs in fractions of a GPU (GPU sharing):
its mean demand 0.683 cannot be reproduced by whole-GPU jobs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from acmesim.core.errors import UnknownNameError
from acmesim.trace.targets import CLUSTERS, ClusterTargets, Tolerance

PRIOR_TOLERANCES: dict[str, Tolerance] = {
    "run_time_mean": Tolerance("relative", 0.15),
    "run_time_median": Tolerance("relative", 0.15),
    "mean_gpus": Tolerance("relative", 0.15),
}
"""Acceptance of a ``taskdl`` trace: within 15 % of the published mean and median run time
and mean GPU demand (the workload-mix issue's definition of done)."""


@dataclasses.dataclass(frozen=True)
class PriorTraceTargets:
    """The published statistics of one earlier DL trace (``None`` where not published)."""

    name: str
    gpu_jobs: int
    run_time_mean: float
    run_time_median: float
    run_time_max: float
    mean_gpus: float
    median_gpus: float
    max_gpus: float
    queue_mean: float
    queue_median: float
    total_gpu_time: float | None
    state_job_share: Mapping[str, float]
    state_gpu_time_share: Mapping[str, float]
    duration_cdf: Mapping[int, float]
    one_gpu_gpu_time_share: float
    gpu_cdf_jobs: Mapping[int, float]
    gpu_cdf_gpu_time: Mapping[int, float]
    median_gpu_util: float | None
    sources: Mapping[str, str]

    @property
    def gpu_time_per_job(self) -> float | None:
        """Mean GPU time of a GPU job (total GPU time / GPU jobs) [derived from R-SUM]."""
        return None if self.total_gpu_time is None else self.total_gpu_time / self.gpu_jobs

    @property
    def one_gpu_share(self) -> float:
        """Share of GPU jobs with one GPU (the job CDF at 1 GPU)."""
        return self.gpu_cdf_jobs[1]


_SOURCES: dict[str, str] = {
    "gpu_jobs": "acme_facts.md §7, R-SUM gpu_job_num",
    "run_time_mean": "acme_facts.md §7, R-SUM avg_run_time_gpu",
    "run_time_median": "acme_facts.md §7, R-SUM med_run_time_gpu",
    "run_time_max": "R-SUM max_run_time_gpu",
    "mean_gpus": "acme_facts.md §7, R-SUM avg_gpu_num",
    "median_gpus": "R-SUM med_gpu_num",
    "max_gpus": "acme_facts.md §7, R-SUM max_gpu",
    "queue_mean": "acme_facts.md §7, R-SUM avg_que_time_gpu",
    "queue_median": "acme_facts.md §7, R-SUM med_que_time_gpu",
    "total_gpu_time": "R-SUM complete+cancel+fail_gpu_time [derived]",
    "state_job_share": "acme_facts.md §2.6, R-SUM *_rate_gpu",
    "state_gpu_time_share": "acme_facts.md §2.6, R-SUM *_rate_gpu_time",
    "duration_cdf": "acme_facts.md §2.4 whole-cluster table (16 s and up); 1-8 s: PNG "
                    "cdf_job_duration_util.png (a) [derived]",
    "one_gpu_gpu_time_share": "acme_facts.md §7 (single-GPU share of GPU time)",
    "gpu_cdf_jobs": "PNG cdf_job_gpunum.png (a) [derived]",
    "gpu_cdf_gpu_time": "PNG cdf_job_gpunum.png (b) [derived]; 1 GPU from acme_facts.md §7",
    "median_gpu_util": "acme_facts.md §7 and §6 (R-PKL gives Philly 48.6 %)",
}

PHILLY = PriorTraceTargets(
    name="philly",
    gpu_jobs=112_956,
    run_time_mean=18_006.055,
    run_time_median=874.0,
    run_time_max=4_240_676.0,
    mean_gpus=1.928,
    median_gpus=1.0,
    max_gpus=128.0,
    queue_mean=3_760.604,
    queue_median=189.0,
    total_gpu_time=2_210_176_414.0 + 2_025_326_056.0 + 2_659_215_061.0,
    state_job_share={"COMPLETED": 0.604, "CANCELLED": 0.090, "FAILED": 0.305},
    state_gpu_time_share={"COMPLETED": 0.321, "CANCELLED": 0.294, "FAILED": 0.386},
    duration_cdf={8: 0.019, 16: 0.036, 64: 0.189, 128: 0.270, 256: 0.315, 1024: 0.549,
                  4096: 0.793, 16384: 0.903, 65536: 0.949, 262144: 0.984},
    one_gpu_gpu_time_share=0.164,
    gpu_cdf_jobs={1: 0.827, 2: 0.845, 4: 0.92, 8: 0.99, 16: 1.0},
    gpu_cdf_gpu_time={1: 0.164, 2: 0.199, 4: 0.385, 8: 0.88, 16: 0.97, 32: 0.995},
    median_gpu_util=0.486,
    sources=_SOURCES,
)
"""Philly (Microsoft, ATC '19): 112,956 GPU jobs, at most 128 GPUs."""

HELIOS = PriorTraceTargets(
    name="helios",
    gpu_jobs=1_580_464,
    run_time_mean=6_651.681,
    run_time_median=206.0,
    run_time_max=4_320_009.0,
    mean_gpus=3.716,
    median_gpus=1.0,
    max_gpus=2048.0,
    queue_mean=862.047,
    queue_median=0.0,
    total_gpu_time=39_994_296_320.0 + 30_715_109_125.0 + 7_288_334_702.0,
    state_job_share={"COMPLETED": 0.624, "CANCELLED": 0.221, "FAILED": 0.155},
    state_gpu_time_share={"COMPLETED": 0.513, "CANCELLED": 0.394, "FAILED": 0.093},
    duration_cdf={1: 0.045, 2: 0.054, 4: 0.071, 8: 0.076, 16: 0.107, 64: 0.249, 128: 0.378,
                  256: 0.566, 1024: 0.752, 4096: 0.875, 16384: 0.944, 65536: 0.978,
                  262144: 0.995},
    one_gpu_gpu_time_share=0.054,
    gpu_cdf_jobs={1: 0.725, 2: 0.75, 4: 0.80, 8: 0.935, 16: 0.978, 32: 0.995, 64: 0.999},
    gpu_cdf_gpu_time={1: 0.054, 2: 0.071, 4: 0.125, 8: 0.415, 16: 0.615, 32: 0.85, 64: 0.93,
                      128: 0.975},
    median_gpu_util=None,
    sources=_SOURCES,
)
"""Helios (SenseTime, SC '21): 1,580,464 GPU jobs, up to 2,048 GPUs; the default reference."""

PAI = PriorTraceTargets(
    name="pai",
    gpu_jobs=1_037_085,
    run_time_mean=4_787.109,
    run_time_median=480.667,
    run_time_max=626_371.0,
    mean_gpus=0.683,
    median_gpus=0.5,
    max_gpus=8.0,
    queue_mean=401.742,
    queue_median=9.0,
    total_gpu_time=None,
    state_job_share={},
    state_gpu_time_share={},
    duration_cdf={8: 0.005, 16: 0.030, 64: 0.211, 128: 0.289, 256: 0.396, 1024: 0.608,
                  4096: 0.785, 16384: 0.932, 65536: 0.990, 262144: 1.0},
    one_gpu_gpu_time_share=0.681,
    gpu_cdf_jobs={1: 0.97, 2: 0.986, 4: 0.993, 8: 1.0},
    gpu_cdf_gpu_time={1: 0.681, 2: 0.73, 4: 0.80, 8: 1.0},
    median_gpu_util=0.04,
    sources=_SOURCES,
)
"""PAI (Alibaba, NSDI '22): fractional GPU requests (GPU sharing); state shares not published."""

PRIOR_TRACES: dict[str, PriorTraceTargets] = {"philly": PHILLY, "helios": HELIOS, "pai": PAI}
"""Prior trace name -> its published targets."""

PRIOR_PROFILES: dict[str, str] = {"taskdl": "helios", "taskdl_philly": "philly",
                                  **{name: name for name in PRIOR_TRACES}}
"""A compared profile name -> the prior trace whose published statistics it is compared with
(``acmesim characterize --profile``, ``acmesim.analysis.compare_prior``)."""


def comparison_profile_names() -> list[str]:
    """Every profile a trace can be compared with: Acme clusters, then prior-trace profiles."""
    return sorted(CLUSTERS) + sorted(PRIOR_PROFILES)


def prior_targets(name: str) -> PriorTraceTargets:
    """The published targets of prior trace ``name`` (philly, helios or pai)."""
    try:
        return PRIOR_TRACES[name.lower()]
    except KeyError:
        raise UnknownNameError("prior trace", name, PRIOR_TRACES) from None


def as_cluster_targets(prior: PriorTraceTargets, nodes: int, gpus_per_node: int = 8
                       ) -> ClusterTargets:
    """``prior`` in the form ``acmesim.analysis.characterize.compare`` reads.

    ``nodes`` is the modeled cluster the synthetic trace runs on (the prior traces' own sizes
    are not used). What the prior traces do not publish (job types, per-type percentiles, CPU
    jobs, the trace span) is left empty or NaN, so ``compare`` shows no row for it.
    """
    nan = float("nan")
    return ClusterTargets(
        name=prior.name, nodes=nodes, gpus_per_node=gpus_per_node,
        jobs=prior.gpu_jobs, gpu_jobs=prior.gpu_jobs, cpu_jobs=0, span_days=nan, start="",
        type_job_share={}, type_gpu_time_share={},
        state_job_share=dict(prior.state_job_share),
        state_gpu_time_share=dict(prior.state_gpu_time_share),
        one_gpu_share=prior.one_gpu_share, mean_gpus=prior.mean_gpus,
        median_gpus=prior.median_gpus, gpu_box={},
        gpu_cdf_jobs=dict(prior.gpu_cdf_jobs), gpu_cdf_gpu_time=dict(prior.gpu_cdf_gpu_time),
        duration_percentiles={}, duration_share_le_65536={},
        duration_cdf=dict(prior.duration_cdf),
        run_time_mean=prior.run_time_mean, run_time_median=prior.run_time_median,
        run_time_max=prior.run_time_max, max_gpus=int(prior.max_gpus),
        queue_mean=prior.queue_mean, queue_median=prior.queue_median,
        total_gpu_time=prior.total_gpu_time if prior.total_gpu_time is not None else nan,
        cpu_run_time_mean=nan, cpu_run_time_median=nan, cpu_queue_mean=nan,
        cpu_queue_median=nan, cpu_state_job_share={},
        sources={**_SOURCES, "nodes": "the modeled cluster of the synthetic trace",
                 "gpus_per_node": "the modeled cluster of the synthetic trace",
                 "gpu_box": "not published", "duration_percentiles": "not published",
                 "duration_share_le_65536": "not published", "cpu_jobs": "not modeled",
                 "one_gpu_share": _SOURCES["gpu_cdf_jobs"], "jobs": _SOURCES["gpu_jobs"],
                 "span_days": "not published", "start": "not published",
                 **{k: "not published" for k in ("cpu_run_time_mean", "cpu_run_time_median",
                                                 "cpu_queue_mean", "cpu_queue_median",
                                                 "cpu_state_job_share")}},
    )
