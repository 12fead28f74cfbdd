"""Every constant of the evaluation model, with the source it is cited from or how it is chosen.

Cited values come from ``acme_facts.md`` (see ``docs/sources.md``) (section given per constant).
Values the paper does not publish are marked *chosen* and derived from the cited ones where
possible; nothing here is tuned to reproduce the paper's speed-ups.
"""

from __future__ import annotations

import math
from statistics import NormalDist

# --- cited -------------------------------------------------------------------------------------

SEREN_NIC_GBPS: float = 25.0
"""Per-node NIC limit for remote model loading in Seren, Gb/s (acme_facts.md §1 and §5, Fig. 16)."""

GPUS_PER_NODE: int = 8
"""A100-SXM GPUs per node (acme_facts.md §1)."""

CPU_THREADS_PER_NODE: int = 128
"""Hardware CPU threads per node, 2 x Xeon 8358P (acme_facts.md §1)."""

SUITE_SIZE: int = 63
"""Datasets in the paper's evaluation experiment (acme_facts.md §5)."""

MODEL_PARAMS: float = 7e9
"""Parameters of the evaluated model in the paper's experiment (acme_facts.md §5)."""

PROFILE_LOAD_PREP_SHARE: float = 0.295
"""Loading + preprocessing share of the profiled evaluation job (acme_facts.md §5, Fig. 13)."""

PROFILE_METRIC_IDLE_S: float = 42.0
"""HumanEval: the GPU idles for the job's last 42 s, the metric phase (acme_facts.md §5)."""

PROFILE_METRIC_IDLE_SHARE: float = 0.190
"""...which is 19.0% of the job's GPU time (acme_facts.md §5)."""

MAX_METRIC_S: float = 1800.0
"""Metric computation (code execution, GPT-4 judging) takes up to 30 minutes (acme_facts.md §5)."""

SEREN_EVAL_P50_S: float = 129.0
"""Median run time of Seren Eval jobs, s (acme_facts.md §2.4, R-FIG)."""

SEREN_EVAL_P75_S: float = 391.0
"""75th percentile run time of Seren Eval jobs, s (acme_facts.md §2.4, R-FIG)."""

# --- chosen ------------------------------------------------------------------------------------

BYTES_PER_PARAM: float = 2.0
"""Chosen: fp16/bf16 checkpoint weights, so a 7B model is 14 GB."""

REFERENCE_CONCURRENT_LOADERS: int = 8
"""Chosen: the profiled job loaded while a full node of single-GPU trials shared the NIC.

Fig. 16 shows loading slowing from 1 to 8 trials per node; 8 is the usual state of a node that
runs only single-GPU evaluation trials.
"""

HOST_TO_GPU_GBYTES_PER_S: float = 16.0
"""Chosen: host shared memory -> GPU copy rate per GPU, GB/s.

Half of PCIe 4.0 x16's ~32 GB/s peak, as two A100s share one PCIe switch uplink on an HGX board.
A 7B model then loads locally in 0.875 s; the result barely depends on this value.
"""

TRIAL_CPU_THREADS: int = 4
"""Chosen: CPU threads an inference trial keeps on its node (tokenizer, data loader, driver)."""

METRIC_CPU_THREADS: int = 4
"""Chosen: CPU threads one decoupled metric job takes on a node."""

MIN_TRIAL_S: float = 60.0
"""Chosen: the planner never splits a dataset into shards of under a minute of GPU work.

The cited per-trial overhead (loading + preprocessing) is over a minute (acme_facts.md §5).
"""

MERGE_BELOW: float = 0.25
"""Chosen: datasets under a quarter of the balanced per-GPU share are merged into one trial."""

# --- derived -----------------------------------------------------------------------------------

BYTES_PER_GBIT: float = 1e9 / 8.0
"""Bytes per gigabit (decimal units, as NIC rates are quoted)."""

PROFILE_JOB_S: float = PROFILE_METRIC_IDLE_S / PROFILE_METRIC_IDLE_SHARE
"""Derived: the profiled job's GPU time, 42 s / 0.190 = 221.05 s."""

PROFILE_INFERENCE_SHARE: float = 1.0 - PROFILE_LOAD_PREP_SHARE - PROFILE_METRIC_IDLE_SHARE
"""Derived: 1 - 0.295 - 0.190 = 0.515, the paper's "about half of the job's time"."""

PROFILE_INFERENCE_S: float = PROFILE_INFERENCE_SHARE * PROFILE_JOB_S
"""Derived: GPU inference time of the profiled job, 113.84 s."""


def remote_load_s(
    params: float, concurrent_loaders: int, nic_gbps: float = SEREN_NIC_GBPS
) -> float:
    """Seconds to load ``params`` fp16 weights through a NIC shared by ``concurrent_loaders``."""
    return params * BYTES_PER_PARAM * concurrent_loaders / (nic_gbps * BYTES_PER_GBIT)


PROFILE_LOAD_S: float = remote_load_s(MODEL_PARAMS, REFERENCE_CONCURRENT_LOADERS)
"""Derived: 14 GB at 25/8 Gb/s = 35.84 s of model loading in the profiled job."""

PROFILE_PREP_S: float = PROFILE_LOAD_PREP_SHARE * PROFILE_JOB_S - PROFILE_LOAD_S
"""Derived: 0.295 x 221.05 s - 35.84 s = 29.37 s of preprocessing (tokenization)."""

PREP_PER_INFERENCE: float = PROFILE_PREP_S / PROFILE_INFERENCE_S
"""Derived: preprocessing seconds per inference second, 0.258 (tokenization scales with size)."""

METRIC_PER_INFERENCE: float = PROFILE_METRIC_IDLE_S / PROFILE_INFERENCE_S
"""Derived: metric seconds per inference second, 0.369 (HumanEval's 42 s over 113.84 s)."""

SEREN_EVAL_LOG_SIGMA: float = math.log(SEREN_EVAL_P75_S / SEREN_EVAL_P50_S) / NormalDist().inv_cdf(
    0.75
)
"""Derived: log-normal spread of Seren Eval run times, ln(391/129) / z(0.75) = 1.644."""
