"""Every result table's columns, declared once: name, type, unit and meaning.

``docs/results.md`` is generated from these declarations (``python -m acmesim.results.docs``)
and a test checks that it is up to date. Times are seconds since the trace start (the earliest
submission in the input), durations are seconds, GPU time is GPU-seconds.
"""

from __future__ import annotations

import dataclasses
from typing import Literal

from acmesim.jobs.fields import OUTPUT_FIELDS, WALL
from acmesim.trace.schema import FINAL_STATES, JOB_TYPES

Kind = Literal["int", "float", "str"]


@dataclasses.dataclass(frozen=True)
class Column:
    """One output column."""

    name: str
    kind: Kind
    unit: str
    meaning: str


@dataclasses.dataclass(frozen=True)
class TableSchema:
    """One output file: its name, what a row is, and its columns in order."""

    file_name: str
    row: str
    columns: tuple[Column, ...]

    @property
    def names(self) -> list[str]:
        """Column names in file order."""
        return [c.name for c in self.columns]


S, GPU_S = "s", "GPU-s"

POWER_NOTE = ("; empty with power=none")

JOBS = TableSchema("jobs.csv", "one simulated job (CPU-only jobs only when replayed)", tuple(
    Column(f.output, f.kind, f.unit, f.meaning) for f in OUTPUT_FIELDS if f.output))
"""Derived from the job's declaration (``acmesim.jobs.fields``), in its order."""

FAILURES = TableSchema("failures.csv", "one injected hardware fault (in time order)", (
    Column("failure_id", "int", "-", "0-based number of the fault in time order"),
    Column("time", "float", S, "when the fault struck"),
    Column("kind", "str", "-", "failure kind (nvlink_error, ecc_error, switch_failure, ...)"),
    Column("scope", "str", "-", "gpu, node or switch"),
    Column("target", "str", "-", "the node (gpu/node scope) or leaf switch (switch scope) hit"),
    Column("gpu", "str", "-", "GPU index within the node (gpu scope; empty otherwise)"),
    Column("nodes", "str", "-", "every node the fault struck, ';'-separated"),
    Column("nodes_down", "int", "nodes", "nodes it took out of service (0 for a transient "
           "fault, which a restart clears, or for nodes already down)"),
    Column("detection_delay", "float", S, "time until the jobs hit observe the fault"),
    Column("repair_time", "float", S, "time the struck nodes stay out of service (FAILED, "
           "then REPAIRING after the detection delay, then up again)"),
    Column("jobs_hit", "int", "jobs", "running jobs interrupted by the fault"),
    Column("gpus_hit", "int", "GPUs", "sum of gpu_num of the jobs hit"),
    Column("jobs_requeued", "int", "jobs", "jobs hit that gave back their nodes and were "
           "requeued (the others restarted in place, on spare nodes if needed)"),
    Column("spare_nodes_used", "int", "nodes", "hot-spare nodes swapped in for the jobs hit"),
    Column("lost_gpu_time", "float", GPU_S, "work of the jobs hit rolled back to their last "
           "persisted checkpoint, x gpu_num"),
    Column("job_ids", "str", "-", "ids of the jobs hit, ';'-separated"),
))

UTILIZATION = TableSchema("utilization.csv", "one interval of `utilization_interval` seconds "
                          "(the last one ends at the end of the simulation)", (
    Column("interval_start", "float", S, "start of the interval"),
    Column("interval_end", "float", S, "end of the interval"),
    Column("busy_gpus", "float", "GPUs", "time-weighted mean of GPUs used by running jobs "
           "(sum of their gpu_num): the trace's busy-GPU curve"),
    Column("allocated_gpus", "float", "GPUs", "time-weighted mean of GPUs unavailable to "
           "other jobs (multi-node jobs hold every GPU of their whole nodes)"),
    Column("busy_nodes", "float", "nodes", "time-weighted mean of GPU nodes with at least one "
           "allocated GPU"),
    Column("gpu_utilization", "float", "fraction", "busy_gpus / GPUs in the cluster"),
    Column("queue_length", "float", "jobs", "time-weighted mean of pending jobs"),
    Column("queued_gpus", "float", "GPUs", "time-weighted mean of the GPUs pending jobs "
           "request"),
    Column("power_kw", "float", "kW", "mean wall power of the GPU servers over the interval: "
           f"the sum of the next three{POWER_NOTE}"),
    Column("power_idle_kw", "float", "kW", "of which GPUs not held by a running job (free, "
           f"down, or left over in whole-node allocations){POWER_NOTE}"),
    Column("power_waiting_kw", "float", "kW", "of which GPUs held by a running job that is not "
           "computing (restart overhead, failure detection on its nodes, checkpoint restore and "
           f"stalls){POWER_NOTE}"),
    Column("power_running_kw", "float", "kW", "of which GPUs of running jobs computing at "
           f"their utilization{POWER_NOTE}"),
))

EVAL_REQUESTS = TableSchema("eval_requests.csv", "one evaluation request: the trace Eval jobs "
                            "one user submitted in the same second with the same GPU count "
                            "(written with eval=coupled or eval=decoupled)", (
    Column("request_id", "str", "-", "job id of the request's first trace Eval job"),
    Column("user", "str", "-", "the trace's user id"),
    Column("submit_time", "float", S, "submission time"),
    Column("gpu_num", "int", "GPUs", "GPUs per trace job and per trial"),
    Column("jobs", "int", "jobs", "trace Eval jobs (datasets) of the request"),
    Column("trials", "int", "jobs", "engine jobs it ran as (coupled: its trace jobs; "
           "decoupled: its planned trials)"),
    Column("first_start", "float", S, "start of its first engine job"),
    Column("gpu_end", "float", S, "end of its last engine job (GPUs released)"),
    Column("results_end", "float", S, "last dataset result: last job end (coupled) or last "
           "CPU metric end (decoupled)"),
    Column("queue_delay", "float", S, "first_start - submit_time"),
    Column("makespan", "float", S, "results_end - submit_time"),
    Column("recorded_makespan", "float", S, "in the trace: last recorded end - submission"),
    Column("recorded_gpu_time", "float", GPU_S, "sum of the trace jobs' recorded run_time x "
           "gpu_num"),
    Column("gpu_time_held", "float", GPU_S, "sum of its engine jobs' run_time x gpu_num in the "
           "replay"),
    Column("metric_cpu_time", "float", S, "sum of its CPU metric jobs' durations (decoupled; "
           "0 when metrics ran on the GPU)"),
))

EVAL_JOBS = TableSchema("eval_jobs.csv", "one trace Eval job of a request (a dataset; written "
                        "with eval=coupled or eval=decoupled)", (
    Column("job_id", "str", "-", "the trace's job id"),
    Column("request_id", "str", "-", "the request it belongs to (eval_requests.csv)"),
    Column("gpu_num", "int", "GPUs", "GPUs recorded"),
    Column("recorded_run_time", "float", S, "run time recorded in the trace"),
    Column("shards", "int", "count", "engine jobs that ran a part of it"),
    Column("trials", "str", "-", "those engine jobs' ids, ';'-separated"),
    Column("predictions_end", "float", S, "its last shard's inference done (coupled: the job's "
           "end, its metric ran inside it)"),
    Column("metric_s", "float", S, "duration of its CPU metric job (decoupled; empty coupled)"),
    Column("metric_node", "str", "-", "node whose spare CPU threads ran the metric"),
    Column("metric_start", "float", S, "CPU metric job start (after any wait for threads)"),
    Column("metric_end", "float", S, "CPU metric job end"),
    Column("result_time", "float", S, "its result is available: metric_end (decoupled) or the "
           "job's end (coupled)"),
))

STATS = ("mean", "p50", "p95", "p99")


def _stat_columns(metric: str, label: str, suffix: str = "", scope: str = "") -> list[Column]:
    """mean/p50/p95/p99 columns of one per-job metric."""
    words = {"mean": "mean", "p50": "median", "p95": "95th percentile",
             "p99": "99th percentile"}
    return [Column(f"{metric}_{stat}{suffix}", "float", S, f"{words[stat]} {label}{scope}")
            for stat in STATS]


def _summary_columns() -> tuple[Column, ...]:
    """The summary row's columns (outcome and per-type columns generated from the schema)."""
    head = [
        Column("run_id", "str", "-", "run identifier"),
        Column("seed", "int", "-", "seed of the run's random streams"),
        Column("mode", "str", "-", "recorded (trace start times) or scheduled"),
        Column("scheduler", "str", "-", "scheduler (ignored in recorded mode)"),
        Column("placement", "str", "-", "placement policy"),
        Column("failure", "str", "-", "failure model (none: only the trace's own outcomes)"),
        Column("checkpoint", "str", "-", "checkpoint policy"),
        Column("recovery", "str", "-", "recovery policy"),
        Column("eval", "str", "-", "evaluation mode: none, coupled (trace Eval jobs as recorded, "
               "reported per request) or decoupled (re-planned into trials); none in recorded "
               "mode"),
        Column("power", "str", "-", "power model (none: no energy accounting; every energy "
               "column below is then empty)"),
        Column("trace_outcomes", "str", "-", "replay, replace or both: whether the trace's "
               "recorded failed outcomes are replayed, replaced by the model's job failures, or "
               "both"),
        Column("job_failures_from", "str", "-", "where job-level failures come from: trace, "
               "model, or trace+model (both; double counting on purpose)"),
        Column("cluster", "str", "-", "cluster preset"),
        Column("cluster_gpus", "int", "GPUs", "GPUs in the modeled cluster"),
        Column("trace_start", "str", "UTC", "the time 0 of every time column (earliest "
               "submission in the input, ISO 8601)"),
        Column("input_jobs", "int", "jobs", "rows of the input job table"),
        Column("rows_dropped", "int", "rows", "trace rows dropped as invalid before the "
               "replay (trace.errors=drop; 0 when none)"),
        Column("rows_dropped_by_reason", "str", "-", "those rows per reason, as 'reason: "
               "count' pairs separated by '; ' (empty when none)"),
        Column("simulated_jobs", "int", "jobs", "jobs simulated (rows of jobs.csv)"),
        Column("cpu_jobs_skipped", "int", "jobs", "CPU-only jobs skipped (cpu_jobs=skip)"),
        Column("oversize_jobs_skipped", "int", "jobs", "jobs that can never fit the cluster, "
               "skipped (oversize_jobs=skip)"),
    ]
    outcomes = [Column(f"jobs_{state.lower()}", "int", "jobs", f"simulated jobs ending {state}")
                for state in FINAL_STATES]
    outcomes.append(Column("jobs_other_state", "int", "jobs",
                           "simulated jobs ending in any other state"))
    timing = [
        Column("recorded_late_jobs", "int", "jobs", "recorded mode: jobs that did not fit the "
               "modeled cluster at their recorded start and started later"),
        Column("recorded_delay_mean", "float", S, "recorded mode: mean lateness of late jobs"),
        Column("recorded_delay_max", "float", S, "recorded mode: largest lateness"),
        Column("recorded_delay_total", "float", S, "recorded mode: summed lateness"),
        Column("makespan", "float", S, "last end - first submission of the simulated jobs"),
        Column("simulated_span", "float", S, "simulated time at the end of the run"),
        *_stat_columns("jct", "job completion time"),
        *_stat_columns("queue_delay", "queueing delay"),
    ]
    per_type = []
    for job_type in JOB_TYPES:
        scope, suffix = f" of {job_type} jobs", f"_{job_type.lower()}"
        per_type += _stat_columns("jct", "job completion time", suffix, scope)
        per_type += _stat_columns("queue_delay", "queueing delay", suffix, scope)
    tail = [
        Column("gpu_utilization", "float", "fraction", "GPU time of GPU jobs / (cluster GPUs x "
               "makespan)"),
        Column("gpu_time", "float", GPU_S, "sum of run_time x gpu_num over simulated jobs"),
        Column("trace_gpu_time", "float", GPU_S, "sum of recorded_run_time x gpu_num over "
               "simulated jobs; gpu_time - trace_gpu_time = lost_gpu_time when no job "
               "checkpoints and no modeled job failure ends one early"),
        Column("preemptions", "int", "count", "preemptions over all jobs"),
        Column("failures", "int", "count", "failure interruptions over all jobs"),
        Column("lost_gpu_time", "float", GPU_S, "GPU time lost to rollback and restarts"),
        Column("restarts", "int", "count", "restarts over all jobs"),
        Column("failure_events", "int", "count", "hardware faults injected (rows of "
               "failures.csv)"),
        Column("job_failures_modeled", "int", "jobs", "jobs ended early by a modeled job-level "
               "failure (script, framework, auxiliary-service or storage error)"),
        Column("lost_gpu_hours_failures", "float", "GPU-h", "GPU time lost to failures: work "
               "rolled back plus restart overhead (recovery waits on the job's nodes, restart, "
               "checkpoint restore) after failure interruptions"),
        Column("lost_gpu_hours_preemptions", "float", "GPU-h", "GPU time lost to preemptions: "
               "rolled-back work plus restart overhead"),
        Column("lost_gpu_hours_checkpoints", "float", "GPU-h", "GPU time stalled for "
               "checkpoints: sum of checkpoint_overhead x gpu_num"),
        Column("failed_job_gpu_hours", "float", "GPU-h", "GPU time of jobs that ended FAILED, "
               "TIMEOUT or NODE_FAIL (recorded or modeled outcome; see job_failures_from)"),
        Column("recovery_wait_hours", "float", "h", "sum of recovery_wait over all jobs"),
        Column("node_downtime_hours", "float", "node-h", "time GPU nodes spent out of service "
               "(FAILED or REPAIRING) within the simulated span"),
        Column("ettr_pretrain", "float", "fraction", "effective training time ratio of "
               "Pretrain jobs: sum of work_done / sum of (end_time - start_time)"),
        Column("gpu_util_jobs", "int", "jobs", "GPU jobs whose trace row gives `gpu_util` (this "
               "and the next two columns are empty when the trace has no such column)"),
        Column("busy_gpu_time", "float", GPU_S, "sum of run_time x gpu_num x gpu_util over "
               "those jobs: GPU time spent computing"),
        Column("idle_gpu_time", "float", GPU_S, "sum of run_time x gpu_num x (1 - gpu_util): "
               "GPU time allocated to jobs but idle (busy-but-idle GPUs)"),
        Column("energy_kwh", "float", "kWh", f"energy of the GPU servers over the simulated "
               f"span, {WALL}: the sum of the next three"),
        Column("energy_idle_kwh", "float", "kWh", "of which GPUs not held by a running job: "
               "the energy lost to idling"),
        Column("energy_waiting_kwh", "float", "kWh", "of which GPUs held by running jobs that "
               "wait (restart overhead, failure detection on their nodes, checkpoint restore "
               "and stalls)"),
        Column("energy_running_kwh", "float", "kWh", "of which GPUs of running jobs computing "
               "(rolled-back work included)"),
        Column("energy_gpu_kwh", "float", "kWh", "the GPUs' own draw, without the servers' "
               "other draw and the conversion loss"),
        Column("energy_conversion_loss_kwh", "float", "kWh", "power-supply conversion loss "
               "included in energy_kwh"),
        Column("gpu_server_power_mean_w", "float", "W", "energy_kwh / (GPU servers x "
               "simulated span): mean wall power of one GPU server"),
        Column("energy_lost_failures_kwh", "float", "kWh", "energy lost to failures: the sum "
               "of the next three"),
        Column("energy_lost_rollback_kwh", "float", "kWh", "computing energy of work rolled "
               "back by failure interruptions (and re-run)"),
        Column("energy_lost_recovery_kwh", "float", "kWh", "energy of GPUs held through restart "
               "overhead after failures (detection and diagnosis on the job's nodes, restart, "
               "checkpoint restore)"),
        Column("energy_lost_checkpoint_kwh", "float", "kWh", "energy of GPUs stalled for "
               "checkpoints (the insurance against failures)"),
        Column("power_utilization_drawn_jobs", "int", "jobs", "jobs whose utilization the power "
               "model drew (no `gpu_util` in their trace row; stream power.gpu_util)"),
        Column("predictor", "str", "-", "run-time predictor the scheduler used (empty: none)"),
        Column("prediction_jobs", "int", "jobs", "finished jobs whose run-time estimate was "
               "scored"),
        Column("prediction_mae", "float", S, "mean absolute error of the scheduler's run-time "
               "estimates (each job's first estimate vs its recorded run time)"),
        Column("prediction_mre", "float", "fraction", "mean relative error of those estimates: "
               "|estimate - actual| / max(actual, 1 s)"),
        Column("prediction_bias", "float", S, "mean signed error (estimate - actual); > 0 "
               "means overestimates"),
        Column("eval_requests", "int", "requests", "evaluation requests the trace Eval jobs "
               "were grouped into (eval=coupled or eval=decoupled; empty otherwise)"),
        Column("eval_recorded_gpu_time", "float", GPU_S, "the trace's own GPU time of those "
               "Eval jobs (recorded run_time x gpu_num), before any rewrite"),
        Column("eval_gpu_time", "float", GPU_S, "GPU time the replayed evaluation jobs held "
               "(decoupled: lower, metrics left the GPU)"),
        Column("eval_metric_cpu_time", "float", S, "time of the CPU metric jobs moved off the "
               "GPU (decoupled)"),
        Column("eval_request_makespan_mean", "float", S, "mean request makespan (submission to "
               "last result)"),
        Column("eval_request_makespan_p95", "float", S, "95th percentile request makespan"),
        Column("eval_request_queue_delay_mean", "float", S, "mean request queue delay "
               "(submission to its first job's start)"),
        Column("eval_request_queue_delay_p95", "float", S, "95th percentile request queue "
               "delay"),
        Column("events", "int", "events", "simulation events processed"),
        Column("passes", "int", "passes", "scheduling passes run"),
        Column("events_per_second", "float", "1/s", "events / wall-clock seconds of the event "
               "loop alone (the simulator's speed; non-deterministic)"),
        Column("wall_time", "float", S, "wall-clock time of the whole run, the same under "
               "acmesim.simulate() and acmesim replay: from the configuration to the result "
               "tables in memory (plug-ins, trace, simulation, tables, summary), not the writing "
               "of files; up to the error in a failed run (non-deterministic, like "
               "events_per_second)"),
        Column("error", "str", "-", "empty, or the error that stopped the run"),
    ]
    return tuple(head + outcomes + timing + per_type + tail)


SUMMARY = TableSchema("summary.csv", "the run (exactly one row)", _summary_columns())

TABLES: tuple[TableSchema, ...] = (JOBS, FAILURES, UTILIZATION, EVAL_REQUESTS, EVAL_JOBS,
                                   SUMMARY)
"""Every result table, in the order the docs present them."""
