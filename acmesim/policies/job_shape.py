"""What reliability policies need to know about a job, read from any job-like object."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

GPUS_PER_NODE = 8
"""Acme nodes hold 8 A100 GPUs (acme_facts.md §1)."""


@dataclasses.dataclass(frozen=True)
class JobShape:
    """The job facts checkpoint, failure and recovery policies read: id, type and size."""

    job_id: str
    job_type: str
    gpu_num: int
    node_num: int

    @classmethod
    def of(cls, job: Any) -> JobShape:
        """Read a ``JobShape`` from a mapping, a pandas row or an object with schema fields.

        Field names follow the normalized job table (``job_id``, ``type``, ``gpu_num``,
        ``node_num``); ``job_type`` is accepted for ``type``; a missing or zero ``node_num``
        is derived as ``ceil(gpu_num / 8)``.
        """
        if isinstance(job, JobShape):
            return job
        gpus = int(_field(job, "gpu_num", 0) or 0)
        nodes = int(_field(job, "node_num", 0) or 0) or max(1, math.ceil(gpus / GPUS_PER_NODE))
        job_type = _field(job, "type", None) or _field(job, "job_type", "Other")
        return cls(str(_field(job, "job_id", "")), str(job_type), gpus, nodes)


def _field(job: Any, name: str, default: Any) -> Any:
    """``job[name]`` for mappings and rows, ``job.name`` for objects, else ``default``."""
    if isinstance(job, Mapping) or (hasattr(job, "index") and hasattr(job, "get")):
        value = job.get(name, default)
    else:
        value = getattr(job, name, default)
    return default if value is None else value
