"""The normalized job table every trace source produces and every consumer reads.

One row per trace row. Timestamps are timezone-aware UTC; durations are float seconds. Sources add
their own extra columns after these (Kalos: ``mem_per_pod_GB``, ``shared_mem_per_pod``,
``fail_time``, ``stop_time``; prior traces: whatever they carry).
"""

from __future__ import annotations

from acmesim.jobs.fields import FAILED_STATES, FINAL_STATES, JOB_TYPES

__all__ = ["FAILED_STATES", "FINAL_STATES", "JOB_TYPES", "NORMALIZED_COLUMNS"]

NORMALIZED_COLUMNS: dict[str, str] = {
    "job_id": "string identifier, unique within the trace",
    "user": "user identifier as published (e.g. u5907)",
    "type": "job type (Eval, Pretrain, SFT, MLLM, Debug, Other; prior traces: their own or Other)",
    "state": "final state (COMPLETED, CANCELLED, FAILED, TIMEOUT, NODE_FAIL)",
    "submit_time": "submission time, timezone-aware UTC timestamp",
    "start_time": "start time, timezone-aware UTC timestamp",
    "end_time": "end time, timezone-aware UTC timestamp",
    "run_time": "end_time - start_time, float seconds",
    "queue_time": "start_time - submit_time, float seconds",
    "gpu_num": "GPUs requested (int; 0 for CPU-only jobs)",
    "node_num": "nodes requested (int)",
    "cpu_num": "CPU threads requested (int)",
}
"""Column name -> meaning and unit, declared once for the normalized job table."""
