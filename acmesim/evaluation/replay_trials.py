"""The engine jobs a trace evaluation request is replayed as, coupled or decoupled.

*Coupled* (what the trace recorded): every trace Eval job is one engine job with its recorded
run time; its model loading, inference and metric all hold its GPUs, so its predictions and its
metric result are ready when it ends.

*Decoupled*: the request (one dataset per trace job, phase times from
``acmesim.evaluation.trace``: loading + preprocessing 29.5%, inference 51.5%, metric 19.0% of
the recorded run time) is re-planned by an evaluation scheduler plug-in for ``gpus`` GPUs, by
default the request's own width (the GPUs of all its trace jobs together), so it never plans
wider than the trace ran it. Every planned trial becomes one engine job holding its GPUs for

    load + sum over its shards of (prep + inference)

where ``load`` is, with decoupled loading, one prefetch of the checkpoint through a NIC of its
own (size / NIC bandwidth; fixed before the replay, so every trial is charged the full prefetch,
which is exact for the first trials on a node and conservative for later ones) plus the
host-to-GPU copy; without it, the trace rule's remote load on a full node (35.84 s per 7B).
Metrics leave the GPU: each dataset's metric runs as a CPU job once its last shard's inference
is done (``acmesim.evaluation.metric_queue``). GPU time therefore drops by the metric share and
by the loads merging saves, and rises by one load per extra shard of a split dataset.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from acmesim.core.errors import ConfigError
from acmesim.evaluation import calibration as cal
from acmesim.evaluation.batches import EvalBatch, TraceColumns
from acmesim.evaluation.plan import ExecutionOptions
from acmesim.evaluation.schedulers import EvalScheduler
from acmesim.evaluation.spec import EvalCluster, ModelSpec
from acmesim.evaluation.trace import (
    model_of_eval_job,
    reference_load_s,
    request_from_eval_jobs,
)

COMPLETED = "COMPLETED"

_new = tuple.__new__
"""Builds a named tuple from its fields without the Python-level ``__new__`` call (the same
tuple): a cluster replay builds about 230,000 trials on 60 days of Seren."""


class ReplayTrial(NamedTuple):
    """One engine job of a request and the datasets whose shards it runs.

    ``finishes`` holds, per shard in run order, ``(dataset index, tail)``: the shard's inference
    ends ``tail`` seconds of work before the trial's end.
    """

    job_id: str
    run_time: float
    inference_s: float
    state: str
    finishes: tuple[tuple[int, float], ...]


class ReplayRequest(NamedTuple):
    """A trace evaluation request as replayed: its trace jobs (datasets) and its engine jobs
    (a named tuple, as ``ReplayTrial``: one per request of the trace)."""

    batch: EvalBatch
    job_ids: tuple[str, ...]
    recorded_run_times: tuple[float, ...]
    trials: tuple[ReplayTrial, ...]
    metric_s: tuple[float, ...]
    metrics_on_cpu: bool


def _jobs_of(batch: EvalBatch, cols: TraceColumns) -> tuple[tuple[str, ...], tuple[float, ...]]:
    """Job ids and recorded run times of the batch's trace jobs."""
    return (tuple(str(cols.job_id[r]) for r in batch.rows),
            tuple(float(cols.recorded_run_time[r]) for r in batch.rows))


def coupled_request(batch: EvalBatch, cols: TraceColumns) -> ReplayRequest:
    """The request as recorded: each trace job is its own engine job (metric inside it)."""
    ids, runs = _jobs_of(batch, cols)
    trials = tuple(
        ReplayTrial(job_id, run, 0.0, str(cols.state[row]), ((i, 0.0),))
        for i, (job_id, run, row) in enumerate(zip(ids, runs, batch.rows, strict=True))
    )
    return ReplayRequest(batch, ids, runs, trials, (0.0,) * len(ids), metrics_on_cpu=False)


def trial_load_s(model: ModelSpec, cluster: EvalCluster, decouple_loading: bool) -> float:
    """Seconds a trial holds its GPUs loading ``model`` (see the module docstring)."""
    if decouple_loading:
        return model.size_bytes / cluster.nic_bytes_per_s + cluster.local_load_s(model)
    return reference_load_s(model.gpus, cluster.gpus_per_node, cluster.nic_gbps)


def trial_state(states: list[str]) -> str:
    """COMPLETED when every trace job behind the trial completed, else the first other state."""
    return next((s for s in states if s != COMPLETED), COMPLETED)


def decoupled_request(batch: EvalBatch, cols: TraceColumns, planner: EvalScheduler,
                      cluster: EvalCluster, request_gpus: int = 0) -> ReplayRequest:
    """The request re-planned by ``planner`` for ``request_gpus`` GPUs (0: its own width)."""
    ids, runs = _jobs_of(batch, cols)
    jobs = [(job_id, batch.gpu_num, run) for job_id, run in zip(ids, runs, strict=True)]
    request = request_from_eval_jobs(batch.request_id, jobs)
    gpus = request_gpus if request_gpus > 0 else batch.gpu_num * len(ids)
    plan = planner.plan(request, gpus)
    if not plan.options.decouple_metrics:
        raise ConfigError(f"evaluation planner {plan.scheduler!r} keeps metrics on the GPU; a "
                          f"cluster replay of decoupled evaluation needs decouple_metrics=true")
    load = trial_load_s(request.model, cluster, plan.options.decouple_loading)
    index = {job_id: i for i, job_id in enumerate(ids)}
    states = [str(cols.state[row]) for row in batch.rows]
    trials: list[ReplayTrial] = []
    append = trials.append
    prefix = f"{batch.request_id}/"
    alone = [((dataset, 0.0),) for dataset in range(len(ids))]  # one shard's finishes, shared
    for trial_id, shards, _ in plan.trials:  # one per engine job of the replay: trial_state inlined
        if len(shards) == 1:  # most trials: the loop below, written out for one shard
            name, _, _, prep, inference = shards[0]
            dataset = index[name]
            run_time = load + (prep + inference)  # tail: run_time - itself = 0
            append(_new(ReplayTrial, (prefix + trial_id, run_time, inference, states[dataset],
                                      alone[dataset])))
            continue
        work = [shard.prep_s + shard.inference_s for shard in shards]
        run_time = load + sum(work)
        done = load
        finishes = []
        state = COMPLETED
        for shard, shard_work in zip(shards, work, strict=True):
            done += shard_work
            dataset = index[shard.dataset]
            finishes.append((dataset, max(0.0, run_time - done)))
            if state == COMPLETED:
                state = states[dataset]
        inference = sum([shard.inference_s for shard in shards])
        append(ReplayTrial(prefix + trial_id, run_time, inference, state, tuple(finishes)))
    metric_s = tuple(request.dataset(j).metric_s for j in ids)
    return ReplayRequest(batch, ids, runs, tuple(trials), metric_s, metrics_on_cpu=True)


def decoupled_requests(batches: list[EvalBatch], cols: TraceColumns, planner: EvalScheduler,
                       cluster: EvalCluster, request_gpus: int = 0) -> list[ReplayRequest]:
    """``decoupled_request`` of every batch, in order.

    Most requests of a trace are a single Eval job planned with one trial slot; when the
    planner promises to plan those as one trial of the whole dataset (``single_dataset_whole``,
    with its ``execution_options``), they are built without planning, their phase times
    computed for all of them at once (``_whole_trial_requests``: the same requests
    ``decoupled_request`` returns). If one of them is invalid, every request is built in order
    again, one by one, so the error raised is the one ``decoupled_request`` raises first.
    """
    options = _whole_trial_options(planner)
    whole = [i for i, batch in enumerate(batches)
             if options is not None and len(batch.rows) == 1 and batch.request_id
             and _one_slot(batch.gpu_num, request_gpus)]  # an empty id: the planner's error
    built = (_whole_trial_requests([batches[i] for i in whole], cols, options, cluster)
             if options is not None else [])
    if built is None:
        return [decoupled_request(b, cols, planner, cluster, request_gpus) for b in batches]
    out: list[ReplayRequest | None] = [None] * len(batches)
    for i, request in zip(whole, built, strict=True):
        out[i] = request
    return [request if request is not None
            else decoupled_request(batch, cols, planner, cluster, request_gpus)
            for batch, request in zip(batches, out, strict=True)]


def _whole_trial_options(planner: EvalScheduler) -> ExecutionOptions | None:
    """The planner's execution options if it plans one-dataset requests whole (and decouples
    metrics: otherwise ``decoupled_request`` has the error to raise), else None."""
    if not getattr(planner, "single_dataset_whole", False):
        return None
    options: ExecutionOptions = planner.execution_options()  # type: ignore[attr-defined]
    return options if options.decouple_metrics else None


def _one_slot(gpu_num: int, request_gpus: int) -> bool:
    """Whether a one-job request of ``gpu_num`` GPUs is planned with a single trial slot."""
    gpus = request_gpus if request_gpus > 0 else gpu_num
    return gpus < 2 * gpu_num


def _whole_trial_requests(batches: list[EvalBatch], cols: TraceColumns,
                          options: ExecutionOptions,
                          cluster: EvalCluster) -> list[ReplayRequest] | None:
    """``decoupled_request`` of one-job batches planned as one trial ``t000`` of the whole
    dataset, the phase times of all of them computed as arrays with the scalar formulas
    (``dataset_from_eval_job``, ``trial_load_s``: the same float operations, so the same
    values); None if a job is invalid (``checked_eval_job`` or ``Dataset`` would raise)."""
    rows = np.fromiter((batch.rows[0] for batch in batches), dtype=np.int64, count=len(batches))
    gpu_nums = [batch.gpu_num for batch in batches]
    run = np.asarray(cols.recorded_run_time[rows], dtype=np.float64)
    ids = [str(job_id) for job_id in cols.job_id[rows].tolist()]
    if not (all(type(g) is int and g >= 1 for g in gpu_nums) and all(ids)
            and bool(np.isfinite(run).all()) and bool((run >= 0).all())):
        return None
    loads: dict[int, tuple[float, float]] = {}  # per GPU count: (trial load, reference load)
    for gpu_num in set(gpu_nums):
        model = model_of_eval_job(f"{gpu_num}-GPU model", gpu_num)
        loads[gpu_num] = (trial_load_s(model, cluster, options.decouple_loading),
                          reference_load_s(gpu_num))
    trial_load = np.array([loads[g][0] for g in gpu_nums], dtype=np.float64)
    reference = np.array([loads[g][1] for g in gpu_nums], dtype=np.float64)
    prep = cal.PROFILE_LOAD_PREP_SHARE * run - reference
    prep = np.where(prep > 0.0, prep, 0.0)  # max(0.0, prep) as dataset_from_eval_job has it
    inference = cal.PROFILE_INFERENCE_SHARE * run
    metric = cal.PROFILE_METRIC_IDLE_SHARE * run
    run_time = trial_load + (prep + inference)  # tail: run_time - run_time = 0
    states = [str(state) for state in cols.state[rows].tolist()]
    return [
        _new(ReplayRequest, (batch, (job_id,), (recorded,), (_new(ReplayTrial, (
            f"{batch.request_id}/t000", trial_run, trial_inference, state, ((0, 0.0),))),),
            (metric_s,), True))  # metrics_on_cpu
        for batch, job_id, recorded, trial_run, trial_inference, state, metric_s in zip(
            batches, ids, run.tolist(), run_time.tolist(), inference.tolist(), states,
            metric.tolist(), strict=True)
    ]
