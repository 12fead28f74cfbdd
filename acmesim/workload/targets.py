"""Published statistics of the Acme clusters: the one place for calibration and validation targets.

Every number is taken from ``acme_facts.md`` (see ``docs/sources.md``) (the section is named beside
it) or from the trace authors' ``cluster_summary.csv`` (R-SUM). Tags used below:

- R-SUM: ``InternLM/AcmeTrace data/cluster_summary.csv`` (paper-level statistics; for Seren these
  cover 663,813 GPU jobs, more than the 450,590 of the released trace).
- R-FIG: the figures the release builds from the *released* trace files (treemap, box plots,
  CDFs), read from their vector PDFs (acme_facts.md marks these [derived]).
- N-ZH: a reading note quoting the paper text.

Shares are fractions (0.649 = 64.9 %). Durations are seconds. The synthetic generator
(``acmesim.workload.synthetic``) is calibrated to these values and ``acmesim characterize``
compares any trace with them, using ``TOLERANCES``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from acmesim.core.errors import UnknownNameError


@dataclasses.dataclass(frozen=True)
class Tolerance:
    """How far a measured value may be from its target: absolute points or a relative fraction."""

    kind: str
    """``"points"`` (absolute difference of two shares, in percentage points) or ``"relative"``."""
    value: float
    """Allowed difference: percentage points for ``points``, a fraction for ``relative``."""

    def error(self, measured: float, target: float) -> float:
        """The error in this tolerance's unit: points (x100) or a signed relative fraction."""
        if self.kind == "points":
            return (measured - target) * 100.0
        return (measured - target) / target if target else float("inf")

    def passes(self, measured: float, target: float) -> bool:
        """True when ``measured`` is within the tolerance of ``target``."""
        return abs(self.error(measured, target)) <= self.value + 1e-12


TOLERANCES: dict[str, Tolerance] = {
    "type_job_share": Tolerance("points", 2.0),
    "type_gpu_time_share": Tolerance("points", 2.0),
    "state_job_share": Tolerance("points", 3.0),
    "state_gpu_time_share": Tolerance("points", 3.0),
    "one_gpu_share": Tolerance("points", 3.0),
    "mean_gpus": Tolerance("relative", 0.15),
    "type_median_run_time": Tolerance("relative", 0.25),
}
"""Acceptance tolerances of the calibration (the trace-layer issue's definition of done)."""


@dataclasses.dataclass(frozen=True)
class ClusterTargets:
    """The published statistics of one Acme cluster, each field with its source in ``sources``."""

    name: str
    nodes: int
    gpus_per_node: int
    jobs: int
    gpu_jobs: int
    cpu_jobs: int
    span_days: float
    start: str
    type_job_share: Mapping[str, float]
    type_gpu_time_share: Mapping[str, float]
    state_job_share: Mapping[str, float]
    state_gpu_time_share: Mapping[str, float]
    one_gpu_share: float
    mean_gpus: float
    median_gpus: float
    gpu_box: Mapping[str, tuple[float, float, float]]
    gpu_cdf_jobs: Mapping[int, float]
    gpu_cdf_gpu_time: Mapping[int, float]
    duration_percentiles: Mapping[str, Mapping[int, float]]
    duration_share_le_65536: Mapping[str, float]
    duration_cdf: Mapping[int, float]
    run_time_mean: float
    run_time_median: float
    run_time_max: float
    max_gpus: int
    queue_mean: float
    queue_median: float
    total_gpu_time: float
    cpu_run_time_mean: float
    cpu_run_time_median: float
    cpu_queue_mean: float
    cpu_queue_median: float
    cpu_state_job_share: Mapping[str, float]
    sources: Mapping[str, str]

    @property
    def gpus(self) -> int:
        """GPUs of the whole cluster."""
        return self.nodes * self.gpus_per_node

    @property
    def job_types(self) -> tuple[str, ...]:
        """The GPU-job types this cluster's figures report, in figure order."""
        return tuple(self.type_job_share)


_COMMON_SOURCES: dict[str, str] = {
    "nodes": "acme_facts.md §1: GPUs / 8 per node [derived]",
    "gpus_per_node": "acme_facts.md §1 (8 x A100-SXM 80 GB per node)",
    "type_job_share": "acme_facts.md §2.2, R-FIG treemap_job_dist.pdf (released trace)",
    "type_gpu_time_share": "acme_facts.md §2.2, R-FIG treemap_job_dist.pdf (released trace)",
    "state_job_share": "acme_facts.md §2.6, R-SUM complete/cancel/fail_rate_gpu",
    "state_gpu_time_share": "acme_facts.md §2.6, R-SUM *_rate_gpu_time",
    "one_gpu_share": "acme_facts.md §2.3, R-FIG cdf_job_gpunum.pdf (% of jobs with 1 GPU)",
    "mean_gpus": "acme_facts.md §2.3, R-SUM avg_gpu_num",
    "median_gpus": "acme_facts.md §2.3, R-SUM med_gpu_num",
    "gpu_box": "acme_facts.md §2.3, R-FIG box_gpu_num.pdf (Q1, median, Q3)",
    "gpu_cdf_jobs": "acme_facts.md §2.3, R-FIG cdf_job_gpunum.pdf (a)",
    "gpu_cdf_gpu_time": "acme_facts.md §2.3, R-FIG cdf_job_gpunum.pdf (b)",
    "duration_percentiles": "acme_facts.md §2.4, R-FIG cdf_job_duration_queue.pdf",
    "duration_share_le_65536": "acme_facts.md §2.4 (last column), R-FIG",
    "duration_cdf": "acme_facts.md §2.4, R-FIG cdf_job_duration_util.pdf (a)",
    "run_time_mean": "acme_facts.md §2.4, R-SUM avg_run_time_gpu",
    "run_time_median": "acme_facts.md §2.4, R-SUM med_run_time_gpu",
    "run_time_max": "acme_facts.md §2.1, R-SUM max_run_time_gpu",
    "max_gpus": "acme_facts.md §2.1, R-SUM max_gpu",
    "queue_mean": "acme_facts.md §2.5, R-SUM avg_que_time_gpu",
    "queue_median": "acme_facts.md §2.5, R-SUM med_que_time_gpu",
    "total_gpu_time": "acme_facts.md §2.1, R-SUM complete+cancel+fail_gpu_time [derived]",
    "cpu_run_time_mean": "acme_facts.md §2.4 CPU jobs, R-SUM avg_run_time_cpu",
    "cpu_run_time_median": "acme_facts.md §2.4 CPU jobs, R-SUM med_run_time_cpu",
    "cpu_queue_mean": "acme_facts.md §2.4 CPU jobs, R-SUM avg_que_time_cpu",
    "cpu_queue_median": "acme_facts.md §2.4 CPU jobs, R-SUM med_que_time_cpu",
    "cpu_state_job_share": "acme_facts.md §2.4 CPU jobs, R-SUM *_rate_cpu",
}

SEREN = ClusterTargets(
    name="seren",
    nodes=286,
    gpus_per_node=8,
    jobs=818_327,
    gpu_jobs=450_590,
    cpu_jobs=367_737,
    span_days=183.0,
    start="2023-03-01 00:00:00+08:00",
    type_job_share={"Eval": 0.649, "Pretrain": 0.009, "SFT": 0.149, "MLLM": 0.029,
                    "Debug": 0.019, "Other": 0.146},
    type_gpu_time_share={"Eval": 0.062, "Pretrain": 0.695, "SFT": 0.064, "MLLM": 0.086,
                         "Debug": 0.017, "Other": 0.076},
    state_job_share={"COMPLETED": 0.497, "CANCELLED": 0.075, "FAILED": 0.429},
    state_gpu_time_share={"COMPLETED": 0.212, "CANCELLED": 0.664, "FAILED": 0.124},
    one_gpu_share=0.540,
    mean_gpus=5.68,
    median_gpus=1.0,
    gpu_box={"Eval": (1, 1, 4), "Pretrain": (64, 128, 256), "SFT": (2, 8, 8),
             "MLLM": (1, 2, 8), "Debug": (8, 8, 8), "Other": (1, 1, 8)},
    gpu_cdf_jobs={1: 0.540, 2: 0.654, 4: 0.679, 8: 0.967, 16: 0.979, 32: 0.988, 64: 0.993,
                  128: 0.996, 256: 0.997},
    gpu_cdf_gpu_time={1: 0.013, 2: 0.018, 4: 0.024, 8: 0.119, 16: 0.132, 32: 0.191, 64: 0.276,
                      128: 0.417, 256: 0.563},
    duration_percentiles={
        "Eval": {25: 16, 50: 129, 75: 391, 90: 1208, 95: 2757, 99: 15588},
        "Pretrain": {25: 50, 50: 297, 75: 1196, 90: 24639, 95: 77333, 99: 313273},
        "SFT": {25: 47, 50: 197, 75: 452, 90: 1128, 95: 2321, 99: 13281},
        "MLLM": {25: 28, 50: 253, 75: 795, 90: 5373, 95: 22765, 99: 75630},
        "Debug": {25: 23, 50: 114, 75: 359, 90: 935, 95: 1889, 99: 22631},
        "Other": {25: 10, 50: 77, 75: 356, 90: 2288, 95: 6736, 99: 55546},
    },
    duration_share_le_65536={"Eval": 0.998, "Pretrain": 0.943, "SFT": 0.998, "MLLM": 0.989,
                             "Debug": 0.996, "Other": 0.993},
    duration_cdf={16: 0.234, 64: 0.371, 128: 0.489, 256: 0.656, 1024: 0.880, 4096: 0.960,
                  16384: 0.984, 65536: 0.996, 262144: 0.999},
    run_time_mean=1414.335,
    run_time_median=122.0,
    run_time_max=1_209_604.0,
    max_gpus=1024,
    queue_mean=445.984,
    queue_median=1.0,
    total_gpu_time=4_560_592_618.0 + 14_274_584_510.0 + 2_675_447_459.0,
    cpu_run_time_mean=733.894,
    cpu_run_time_median=14.0,
    cpu_queue_mean=4.813,
    cpu_queue_median=1.0,
    cpu_state_job_share={"COMPLETED": 0.858, "CANCELLED": 0.039, "FAILED": 0.102},
    sources={
        **_COMMON_SOURCES,
        "jobs": "acme_facts.md §2.1: released trace 818,327 jobs [derived from the README]",
        "gpu_jobs": "acme_facts.md §2.1: released trace 450,590 GPU jobs [derived]",
        "cpu_jobs": "acme_facts.md §2.1: 367,737 CPU jobs (R-SUM; all released)",
        "span_days": "acme_facts.md §2.1: March-August 2023; 183 days = 2023-03-01..08-31",
        "start": "schema_examples.md: first example row is 2023-03-01 00:18:22+08:00",
    },
)
"""Seren (2,288 GPUs): released-trace shapes (R-FIG) and paper-level statistics (R-SUM)."""

KALOS = ClusterTargets(
    name="kalos",
    nodes=302,
    gpus_per_node=8,
    jobs=62_413,
    gpu_jobs=19_907,
    cpu_jobs=42_506,
    span_days=123.0,
    start="2023-05-01 00:00:00+00:00",
    type_job_share={"Eval": 0.928, "Pretrain": 0.032, "Debug": 0.027, "Other": 0.013},
    type_gpu_time_share={"Eval": 0.004, "Pretrain": 0.955, "Debug": 0.016, "Other": 0.025},
    state_job_share={"COMPLETED": 0.541, "CANCELLED": 0.062, "FAILED": 0.397},
    state_gpu_time_share={"COMPLETED": 0.313, "CANCELLED": 0.607, "FAILED": 0.080},
    one_gpu_share=0.863,
    mean_gpus=26.77,
    median_gpus=1.0,
    gpu_box={"Eval": (1, 1, 1), "Pretrain": (256, 512, 512), "Debug": (32, 128, 512),
             "Other": (2, 8, 32)},
    gpu_cdf_jobs={1: 0.863, 2: 0.884, 4: 0.884, 8: 0.939, 16: 0.943, 32: 0.947, 64: 0.953,
                  128: 0.957, 256: 0.969},
    gpu_cdf_gpu_time={8: 0.006, 16: 0.006, 32: 0.020, 64: 0.033, 128: 0.037, 256: 0.249},
    duration_percentiles={
        "Eval": {25: 39, 50: 111, 75: 324, 90: 1388, 95: 2491, 99: 6258},
        "Pretrain": {25: 245, 50: 707, 75: 6283, 90: 43152, 95: 92536, 99: 280635},
        "Debug": {25: 119, 50: 327, 75: 602, 90: 1128, 95: 1706, 99: 3992},
        "Other": {25: 46, 50: 293, 75: 1010, 90: 32768, 95: 112981, 99: 588493},
    },
    duration_share_le_65536={"Eval": 1.0, "Pretrain": 0.933, "Debug": 1.0, "Other": 0.928},
    duration_cdf={16: 0.015, 64: 0.382, 128: 0.505, 256: 0.691, 1024: 0.859, 4096: 0.971,
                  16384: 0.991, 65536: 0.997, 262144: 0.999},
    run_time_mean=1259.689,
    run_time_median=124.0,
    run_time_max=625_740.0,
    max_gpus=1024,
    queue_mean=214.179,
    queue_median=17.0,
    total_gpu_time=1_667_685_146.0 + 3_239_202_064.0 + 426_292_851.0,
    cpu_run_time_mean=118.352,
    cpu_run_time_median=22.0,
    cpu_queue_mean=88.401,
    cpu_queue_median=9.0,
    cpu_state_job_share={"COMPLETED": 0.860, "CANCELLED": 0.001, "FAILED": 0.140},
    sources={
        **_COMMON_SOURCES,
        "type_job_share": "acme_facts.md §2.2, R-FIG treemap (released trace; the paper text "
                          "gives the same 3.2 % for Pretrain)",
        "type_gpu_time_share": "acme_facts.md §2.2, R-FIG treemap (released trace). The paper "
                               "text says Pretrain 94.0 % and Eval 0.8 %; we use the figure",
        "jobs": "acme_facts.md §2.1, R-SUM (Kalos is released in full)",
        "gpu_jobs": "acme_facts.md §2.1, R-SUM",
        "cpu_jobs": "acme_facts.md §2.1, R-SUM",
        "span_days": "assumption: 2023-05-01..08-31 (123 days). The README says the traces span "
                     "March-August 2023, the Kalos example rows are from 2023-05-17 and no start "
                     "date is published (acme_facts.md §10); a third-party description of the "
                     "release dates Kalos May-August 2023",
        "start": "assumption, see span_days; Kalos timestamps are written in +00:00",
        "duration_percentiles": "acme_facts.md §2.4, R-FIG; Kalos `duration` = end - submit "
                                "(schema_examples.md rows), so these include the queue",
    },
)
"""Kalos (2,416 GPUs): released in full, so R-FIG and R-SUM describe the same jobs."""

CLUSTERS: dict[str, ClusterTargets] = {"seren": SEREN, "kalos": KALOS}
"""Cluster name -> its published targets."""


def cluster_targets(name: str) -> ClusterTargets:
    """The published targets of cluster ``name`` (``seren`` or ``kalos``)."""
    try:
        return CLUSTERS[name.lower()]
    except KeyError:
        raise UnknownNameError("cluster", name, CLUSTERS) from None
