"""Every field of a job, declared once: where it comes from, what it is called, where it goes.

A job's field is one of three origins:

- ``recorded``: read from the normalized job table (the trace); read-only on the engine's job,
  whatever the extensions model (an oracle predicting from ``recorded_run_time`` sees the
  trace's value);
- ``derived``: computed from recorded fields and the cluster when the table is prepared (the
  resource pool, the gang shape) or when ``jobs.csv`` is built (``queue_delay``, ``jct``);
  read-only too;
- ``modeled``: what the simulation makes of the job (its progress, its outcome), written by the
  engine and its extensions.

From ``FIELDS`` are derived: the normalized-table columns the engine requires
(``INPUT_COLUMNS``, ``acmesim.sim.trace_input``), the engine ``Job``'s attributes (read-only
properties for recorded and derived fields, ``acmesim.sim.job``), the fields the policies' view
``JobInfo`` declares (``VIEW_FIELDS``, checked against ``acmesim.cluster.view``), the recorder's
arrays (``RECORDER_FIELDS``, ``acmesim.results.recorders``), and the ``jobs.csv`` columns in file
order (``OUTPUT_FIELDS``, ``acmesim.results.schema.JOBS``, which ``docs/results.md`` documents).
Adding a field to the job means adding one ``field(...)`` here.
"""

from __future__ import annotations

import dataclasses
from typing import Literal

Kind = Literal["int", "float", "str"]
Origin = Literal["recorded", "derived", "modeled"]
ColumnKind = Literal["text", "time", "seconds", "count"]
"""What a normalized-table column holds, which names the rules ``acmesim.jobs.table`` checks it
by: ``text`` present; ``time`` a timezone-aware timestamp from 1970 to 2262; ``seconds`` a finite
duration >= 0; ``count`` a whole number from 0 to ``acmesim.jobs.checks.COUNT_LIMIT``."""

JOB_TYPES: tuple[str, ...] = ("Eval", "Pretrain", "SFT", "MLLM", "Debug", "Other")
"""Acme job types (Seren uses all six; Kalos Eval, Pretrain, Debug, Other and a few SFT)."""

FINAL_STATES: tuple[str, ...] = ("COMPLETED", "CANCELLED", "FAILED", "TIMEOUT", "NODE_FAIL")
"""The five final states of the Acme release; TIMEOUT and NODE_FAIL count as failed."""

FAILED_STATES: frozenset[str] = frozenset({"FAILED", "TIMEOUT", "NODE_FAIL"})
"""States the paper counts as failed (AcmeTrace README)."""

ZERO = 0.0
"""The one zero object every modeled amount of a job starts at (``acmesim.sim.job``): a
recorder tells an amount never changed from one that became 0 by identity (``is``), without
testing the sign of zero.  (A float object of its own: literals of other modules are others.)"""

S, GPU_S = "s", "GPU-s"
WALL = ("wall energy: the GPUs' draw plus their share of the servers' CPU, memory, NIC and "
        "storage draw, over the power-supply efficiency")


@dataclasses.dataclass(frozen=True)
class JobField:
    """One field of a job.

    ``name`` is the field's one name: the engine attribute when the job has one (``attr``),
    else the ``jobs.csv`` column. ``input`` is the normalized-table column it is read from and
    ``table`` the ``JobTable`` list that carries it to the engine (recorded and derived fields);
    ``output`` is its ``jobs.csv`` column, ``recorder`` the ``JobRecorder`` array that keeps a
    modeled field's value when the job ends; ``view`` says whether policies read it
    (``JobInfo``). ``meaning`` is the text of its ``jobs.csv`` column (or of the view). An
    ``optional`` input column may be absent from the table (its values are then NaN, or empty
    text). ``column`` is the kind of the input column (``ColumnKind``) and ``values`` the only
    values it may hold (if any): the rules by which ``acmesim.jobs.table`` validates it.
    """

    name: str
    origin: Origin
    kind: Kind
    unit: str
    meaning: str
    input: str | None = None
    table: str | None = None
    attr: str | None = None
    output: str | None = None
    recorder: str | None = None
    view: bool = False
    optional: bool = False
    column: ColumnKind | None = None
    values: tuple[str, ...] = ()

    @property
    def read_only(self) -> bool:
        """Whether the engine's job exposes the field read-only (recorded and derived)."""
        return self.origin != "modeled"


def field(name: str, origin: Origin, kind: Kind, unit: str, meaning: str, *,
          input: str | None = None, table: str | None = None, attr: str | None = None,
          output: str | None = None, recorder: str | None = None, view: bool = False,
          optional: bool = False, column: ColumnKind | None = None,
          values: tuple[str, ...] = ()) -> JobField:
    """A ``JobField`` (keyword arguments after the five every field has)."""
    return JobField(name, origin, kind, unit, meaning, input=input, table=table, attr=attr,
                    output=output, recorder=recorder, view=view, optional=optional,
                    column=column, values=values)


def _recorded(name: str, kind: Kind, unit: str, meaning: str, *, column: ColumnKind,
              input: str | None = None, table: str | None = None, output: str | None = None,
              view: bool = True, optional: bool = False,
              values: tuple[str, ...] = ()) -> JobField:
    """A field read from the job table onto the engine's job (same name unless told)."""
    return field(name, "recorded", kind, unit, meaning, input=input or name,
                 table=table or name, attr=name, output=output, view=view, optional=optional,
                 column=column, values=values)


FIELDS: tuple[JobField, ...] = (
    # --- jobs.csv columns, in file order -------------------------------------------------
    _recorded("job_id", "str", "-", "the trace's job id", column="text", output="job_id"),
    _recorded("user", "str", "-", "the trace's user id", column="text", output="user"),
    _recorded("type", "str", "-", "job type (Eval, Pretrain, SFT, MLLM, Debug, Other)",
              column="text", output="type"),
    field("end_state", "modeled", "str", "-", "final state: the trace outcome (COMPLETED, "
          "CANCELLED, FAILED, TIMEOUT, NODE_FAIL), or the state a modeled failure ended the "
          "job with", attr="end_state", output="state", recorder="state"),
    field("pool", "derived", "str", "-", "resource pool the job ran in: gpu, or cpu for "
          "CPU-only jobs", table="pool", attr="pool", output="pool", view=True),
    _recorded("gpu_num", "int", "GPUs", "GPUs requested (recorded)", column="count",
              output="gpu_num"),
    _recorded("node_num", "int", "nodes", "nodes recorded in the trace", column="count",
              output="node_num"),
    _recorded("cpu_num", "int", "threads", "CPU threads requested (recorded)",
              column="count", output="cpu_num"),
    _recorded("submit_time", "float", S, "submission time", column="time",
              table="submit", output="submit_time"),
    field("start_time", "modeled", "float", S, "first start in the simulation: when the job "
          "began to run, after the cluster's start-up latency (scheduled mode; the GPUs are "
          "held from the scheduler's start)", attr="start_time", output="start_time",
          recorder="start", view=True),
    field("end_time", "modeled", "float", S, "end in the simulation", output="end_time",
          recorder="end"),
    field("queue_delay", "derived", "float", S, "start_time - submit_time: waiting for "
          "resources plus the start-up latency, as the trace's queue column counts it",
          output="queue_delay"),
    field("held_time", "modeled", "float", S, "time the job held its resources, over all its "
          "running intervals, start-up latency excluded (equals recorded_run_time unless it "
          "was preempted, interrupted, stalled for checkpoints or ended early by a modeled job "
          "failure)", attr="held_time", output="run_time", recorder="held_time"),
    field("jct", "derived", "float", S, "job completion time: end_time - submit_time",
          output="jct"),
    _recorded("recorded_start", "float", S, "start time recorded in the trace",
              column="time", input="start_time", table="start", output="recorded_start_time"),
    _recorded("recorded_run_time", "float", S, "run time recorded in the trace (the job's "
              "work)", column="seconds", input="run_time", output="recorded_run_time"),
    _recorded("queue_time", "float", S, "queueing delay recorded in the trace (its start_time - "
              "submit_time; empty when the trace has no queue_time column)",
              column="seconds", output="recorded_queue_delay", optional=True),
    field("preemptions", "modeled", "int", "count", "times a scheduler preempted the job",
          attr="preemptions", output="preemptions", recorder="preemptions", view=True),
    field("failures", "modeled", "int", "count", "times a modeled infrastructure failure "
          "interrupted it", attr="failures", output="failures", recorder="failures",
          view=True),
    field("lost_gpu_time", "modeled", "float", GPU_S, "GPU time lost to rolled-back work and "
          "restart overhead (a recovery wait on the job's own nodes and the checkpoint restore "
          "count as restart overhead): run_time x gpu_num = (work_done + checkpoint_overhead) "
          "x gpu_num + lost_gpu_time", attr="lost_gpu_time", output="lost_gpu_time",
          recorder="lost_gpu_time", view=True),
    field("restarts", "modeled", "int", "count", "times the job started again after a "
          "preemption or a failure", attr="restarts", output="restarts", recorder="restarts"),
    field("checkpoint_overhead", "modeled", "float", S, "time training stalled for checkpoints "
          "(sync: the whole write; async: the device-to-host copy), included in run_time",
          attr="checkpoint_overhead", output="checkpoint_overhead",
          recorder="checkpoint_overhead"),
    field("recovery_wait", "modeled", "float", S, "time from each failure interruption until "
          "the job's restart began (the recovery policy's wait, then any wait for nodes)",
          attr="recovery_wait", output="recovery_wait", recorder="recovery_wait"),
    field("work_done", "modeled", "float", S, "work completed when the job ended (s at "
          "gpu_num): recorded_run_time, or less when a modeled job-level failure ended it "
          "early", attr="work_done", output="work_done", recorder="work_done", view=True),
    field("nodes", "modeled", "str", "-", "nodes of its final running interval, "
          "';'-separated (n0000... GPU nodes, c00... CPU nodes)", output="nodes"),
    field("energy_kwh", "modeled", "float", "kWh", "energy of the job's GPUs over all its "
          "running intervals (computing at its utilization, waiting in restarts and checkpoint "
          f"stalls), {WALL}; empty for CPU-only jobs and with power=none", output="energy_kwh"),
    # --- the engine's job and the view, not in jobs.csv ------------------------------------
    _recorded("trace_state", "str", "-", "final state recorded in the trace (COMPLETED, "
              "CANCELLED, FAILED, ...)", column="text", values=FINAL_STATES, input="state",
              table="state"),
    field("recorded_end", "recorded", "float", S, "end time recorded in the trace (an optional "
          "column of the table, checked against start_time + run_time; the engine does not "
          "read it)", input="end_time", optional=True, column="time"),
    field("nodes_needed", "derived", "int", "nodes", "nodes the gang occupies (see "
          "acmesim.cluster.gang)", table="nodes_needed", attr="nodes_needed", view=True),
    field("per_node", "derived", "int", "-", "GPUs (CPU threads for CPU-only jobs) taken on "
          "each of its nodes", table="per_node", attr="per_node", view=True),
    field("work", "modeled", "float", S, "the work the engine runs the job for (s at gpu_num): "
          "recorded_run_time, or the time a modeled job-level failure ends it (never shown "
          "to policies: the trace's run time is what an oracle knows)", attr="work"),
    field("outcome", "modeled", "str", "-", "the state the job ends with when its work "
          "completes: trace_state, or what the failure model makes of it", attr="outcome"),
    field("failure_lost_gpu_time", "modeled", "float", GPU_S, "the part of lost_gpu_time "
          "caused by failures", attr="failure_lost_gpu_time",
          recorder="failure_lost_gpu_time"),
)
"""Every field of a job; the ``jobs.csv`` columns in file order among them."""

BY_NAME: dict[str, JobField] = {f.name: f for f in FIELDS}

RECORDED: tuple[JobField, ...] = tuple(f for f in FIELDS if f.origin == "recorded")
"""Fields read from the trace (read-only on the engine's job)."""

INPUT_FIELDS: tuple[JobField, ...] = tuple(f for f in FIELDS if f.input)
"""Fields read from a normalized-table column (recorded), the rules of that column with them."""

INPUT_COLUMNS: tuple[str, ...] = tuple(
    dict.fromkeys(f.input for f in FIELDS if f.input and not f.optional))
"""Normalized-table columns the engine requires (``acmesim.sim.trace_input``)."""

TABLE_FIELDS: tuple[JobField, ...] = tuple(f for f in FIELDS if f.table and f.attr)
"""Fields a ``JobTable`` list carries onto the engine's job, in ``Job(...)`` argument order."""

VIEW_FIELDS: tuple[str, ...] = tuple(f.attr for f in FIELDS if f.view and f.attr)
"""Job attributes policies read through ``JobInfo`` (``acmesim.cluster.view``)."""

RECORDER_FIELDS: tuple[JobField, ...] = tuple(f for f in FIELDS if f.recorder and f.attr
                                              and f.kind != "str")
"""Number fields the recorder copies from the engine's job when it ends."""

OUTPUT_FIELDS: tuple[JobField, ...] = tuple(f for f in FIELDS if f.output)
"""The ``jobs.csv`` columns, in file order."""


def named(name: str | None) -> str:
    """``name``, a role's column or attribute name of a field selected for having that role
    (e.g. ``f.attr`` of a ``TABLE_FIELDS`` entry); a declaration without it is a bug."""
    if name is None:
        raise AssertionError("a job field selected for a role lacks that role's name")
    return name

