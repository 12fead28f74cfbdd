"""Failure-rate anchors and the job MTBF they imply (a job fails when any of its parts does).

Anchors (reliability_facts.md §2.1, §5):

- Llama 3 405B pretraining, 16,384 H100 for 54 days: 419 unexpected interruptions ⇒
  **0.474 per 1000 GPU-days** (all causes), i.e. 3.79 per 1000 node-days of 8 GPUs, a node MTBF
  of 1000 / 3.79 days ≈ 6,330 h and a job MTBF of ≈ 50,700 GPU-hours / N.
"""

from __future__ import annotations

import math

SECONDS_PER_DAY = 86_400.0
SECONDS_PER_HOUR = 3_600.0

LLAMA3_GPU_FAILURES_PER_1000_GPU_DAYS = 0.474
"""Unexpected interruptions per 1000 GPU-days, Llama 3 (reliability_facts.md §2.1) [D]."""

LLAMA3_NODE_MTBF_HOURS = 1000.0 / (8 * LLAMA3_GPU_FAILURES_PER_1000_GPU_DAYS) * 24.0
"""Node MTBF implied by the Llama 3 per-GPU rate on 8-GPU nodes: ≈ 6,329 h [D]."""


def per_gpu_rate(failures_per_1000_gpu_days: float) -> float:
    """Failures per GPU-second from a rate quoted per 1000 GPU-days."""
    if not failures_per_1000_gpu_days >= 0:
        raise ValueError(f"failure rate must be >= 0, got {failures_per_1000_gpu_days!r}")
    return failures_per_1000_gpu_days / 1000.0 / SECONDS_PER_DAY


def job_mtbf_from_gpu_rate(gpus: int, failures_per_1000_gpu_days: float) -> float:
    """Job MTBF in seconds when every GPU fails independently at the quoted rate."""
    rate = per_gpu_rate(failures_per_1000_gpu_days) * max(gpus, 0)
    return math.inf if rate == 0 else 1.0 / rate


def job_mtbf_from_node_mtbf(nodes: int, node_mtbf_hours: float) -> float:
    """Job MTBF in seconds: node MTBF divided by the job's node count."""
    if not node_mtbf_hours > 0:
        raise ValueError(f"node_mtbf_hours must be > 0, got {node_mtbf_hours!r}")
    return node_mtbf_hours * SECONDS_PER_HOUR / max(nodes, 1)
