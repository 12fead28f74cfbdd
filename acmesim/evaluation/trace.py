"""Expand trace Eval jobs (gpu_num, run_time) into evaluation requests, by a documented rule.

A trace Eval job is one coupled trial as the trace recorded it. It becomes one dataset of a
request; jobs a replay groups together (e.g. a user's burst of submissions) become one request
with several datasets, which a scheduler plug-in may then merge, split and reorder.

Rule for a job with ``gpu_num = g`` and ``run_time = r`` seconds:

- Model: ``g x 7B`` parameters in fp16 on ``g`` GPUs per trial (chosen: the paper's evaluated
  model is 7B and the median Seren Eval job uses 1 GPU, acme_facts.md §2.3 and §5).
- Phases at the profiled shares (acme_facts.md §5): metric ``0.190 r``; inference ``0.515 r``;
  loading + preprocessing ``0.295 r``, of which loading is the reference remote load of the
  checkpoint with the node full of such trials (``8 // g`` loaders sharing 25 Gb/s: 35.84 s for
  every ``g``), and preprocessing is the rest, ``max(0, 0.295 r - 35.84 s)``.

Replayed coupled on a full node, a job of ``r >= 35.84 / 0.295 = 121.5 s`` thus takes ``r``
again; a shorter job takes ``35.84 s + 0.705 r`` (its checkpoint cannot load faster than the NIC).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable

from acmesim.core.errors import ConfigError
from acmesim.evaluation import calibration as cal
from acmesim.evaluation.spec import Dataset, EvalRequest, ModelSpec

PARAMS_PER_GPU: float = cal.MODEL_PARAMS
"""Chosen: a trace Eval job on g GPUs evaluates a g x 7B-parameter checkpoint."""


@functools.lru_cache(maxsize=256, typed=True)
def reference_load_s(gpu_num: int, gpus_per_node: int = cal.GPUS_PER_NODE,
                     nic_gbps: float = cal.SEREN_NIC_GBPS) -> float:
    """Remote load time of a ``gpu_num``-GPU trial's checkpoint on a node full of such trials
    (kept per argument: every trace Eval job asks)."""
    loaders = max(1, gpus_per_node // gpu_num)
    return cal.remote_load_s(PARAMS_PER_GPU * gpu_num, loaders, nic_gbps)


def dataset_from_eval_job(job_id: str, gpu_num: int, run_time: float) -> Dataset:
    """The dataset a trace Eval job evaluated, with phase times at the profiled shares."""
    load = reference_load_s(gpu_num)
    return Dataset(
        name=job_id,
        prep_s=max(0.0, cal.PROFILE_LOAD_PREP_SHARE * run_time - load),
        inference_s=cal.PROFILE_INFERENCE_SHARE * run_time,
        metric_s=cal.PROFILE_METRIC_IDLE_SHARE * run_time,
    )


def request_from_eval_jobs(
    request_id: str,
    jobs: Iterable[tuple[str, int, float]],
    submit_time: float = 0.0,
) -> EvalRequest:
    """One request from trace Eval jobs ``(job_id, gpu_num, run_time)`` sharing one checkpoint."""
    jobs = [checked_eval_job(*job) for job in jobs]
    if not jobs:
        raise ConfigError(f"request {request_id!r}: no Eval jobs given")
    gpu_nums = {g for _, g, _ in jobs}
    if len(gpu_nums) > 1:
        listed = ", ".join(f"{j} ({g} GPUs)" for j, g, _ in jobs)
        raise ConfigError(f"request {request_id!r}: jobs of one request must share gpu_num; "
                          f"got {listed}")
    model = model_of_eval_job(request_id, gpu_nums.pop())
    datasets = tuple(dataset_from_eval_job(j, g, r) for j, g, r in jobs)
    return EvalRequest(request_id, model, datasets, submit_time)


def request_from_eval_job(job_id: str, gpu_num: int, run_time: float,
                          submit_time: float = 0.0) -> EvalRequest:
    """A one-dataset request from one trace Eval job (request id = job id)."""
    return request_from_eval_jobs(job_id, [(job_id, gpu_num, run_time)], submit_time)


def model_of_eval_job(request_id: str, gpu_num: int) -> ModelSpec:
    """The checkpoint a request of ``gpu_num``-GPU trace Eval jobs evaluates."""
    return ModelSpec(request_id, params=PARAMS_PER_GPU * gpu_num, gpus=gpu_num)


def checked_eval_job(job_id: str, gpu_num: int, run_time: float) -> tuple[str, int, float]:
    """Validate one job tuple, naming the job and the bad field."""
    if isinstance(gpu_num, bool) or not isinstance(gpu_num, int) or gpu_num < 1:
        raise ConfigError(f"Eval job {job_id!r}: gpu_num must be an integer >= 1, got {gpu_num!r}")
    if not isinstance(run_time, int | float) or not math.isfinite(run_time) or run_time < 0:
        raise ConfigError(f"Eval job {job_id!r}: run_time must be a finite number of seconds "
                          f">= 0, got {run_time!r}")
    return str(job_id), gpu_num, float(run_time)
