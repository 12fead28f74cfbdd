"""Runtime state of one job inside the engine (policies read it as ``JobInfo``)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from acmesim.jobs.fields import FIELDS, TABLE_FIELDS, ZERO, named

PENDING = "pending"
RUNNING = "running"
HELD = "held"
DONE = "done"

NAN = math.nan


class CheckpointPacing(Protocol):
    """How a checkpointing job's work turns into wall time (``acmesim.faults.pacing``)."""

    def wall(self, done: float, work: float) -> float:
        """Wall seconds to compute from ``done`` to ``work`` (the end), stalls included."""
        ...

    def advance(self, done: float, work: float, elapsed: float) -> tuple[float, float]:
        """(work reached, seconds stalled) ``elapsed`` wall seconds into computing from ``done``."""
        ...

    def persisted(self, done: float, work: float, elapsed: float) -> float | None:
        """Work of the last checkpoint persisted ``elapsed`` seconds into the interval (None:
        none)."""
        ...


class Job:
    """One job from arrival to its end: static trace fields plus engine progress.

    Its fields are declared in ``acmesim.jobs.fields``. Work accounting: ``recorded_run_time``
    is the recorded work (s at ``gpu_num`` GPUs), ``work`` the modeled work the engine runs
    (``recorded_run_time``
    unless a modeled job failure ends the job early; ``outcome`` is then the state it ends
    with instead of the recorded ``trace_state``); a running interval first spends ``overhead``
    seconds restarting, then does work. ``work_done`` is the work saved when the interval
    began; ``remaining_work = work - work_done``. A job with a ``pace`` (a
    ``CheckpointPacing``) also stalls for its checkpoints while it works;
    ``checkpoint_overhead`` sums those stalls. ``recovery_wait`` sums the time from each
    failure stop to the restart that follows it (``wait_part``: the share of the current
    overhead spent waiting on the job's own nodes); ``failure_lost_gpu_time`` is the part of
    ``lost_gpu_time`` caused by failures (``stop_cause`` names what stopped the last interval).
    ``startup`` is the start-up latency at the head of the current interval (first start in a
    scheduled replay only): it holds the GPUs but counts in neither ``held_time`` nor
    ``lost_gpu_time``, and ``start_time`` is when it ends (the job runs).
    """

    __slots__ = (
        *(f.attr for f in FIELDS if f.attr),
        "index", "status", "last_start", "expected_end", "checkpointed_work", "overhead",
        "attained_closed", "epoch", "grants", "arrival_seq", "next_overhead", "pace",
        "stopped_at", "wait_part", "stop_cause", "startup",
    )
    """The declared fields (``acmesim.jobs.FIELDS``) plus the engine's own bookkeeping.
    Recorded and derived fields are plain slots for speed (a property costs ~4x a slot read on
    the hot path); that nothing but ``__init__`` writes them is checked by
    ``tests/jobs/test_fields.py``."""

    if TYPE_CHECKING:  # the declared fields are slots made from acmesim.jobs.FIELDS at import
        def __getattr__(self, name: str) -> Any: ...
        def __setattr__(self, name: str, value: Any) -> None: ...


    @property
    def remaining_work(self) -> float:
        """Work left as of the last start or requeue (s at gpu_num; of the modeled ``work``)."""
        return self.work - self.work_done

    @property
    def whole_nodes(self) -> bool:
        """Whether the gang takes whole nodes (multi-node GPU job)."""
        return self.nodes_needed > 1

    def __repr__(self) -> str:
        return (f"Job({self.job_id!r}, {self.type}, gpus={self.gpu_num}, "
                f"nodes={self.nodes_needed}, {self.status})")


PROGRESS: tuple[tuple[str, str], ...] = (
    ("status", "PENDING"), ("start_time", "NAN"), ("last_start", "NAN"),
    ("expected_end", "NAN"), ("work_done", "ZERO"), ("checkpointed_work", "ZERO"),
    ("overhead", "ZERO"), ("attained_closed", "ZERO"), ("held_time", "ZERO"),
    ("preemptions", "0"), ("failures", "0"), ("lost_gpu_time", "ZERO"), ("epoch", "0"),
    ("grants", "()"), ("arrival_seq", "0"), ("end_state", "{job}.trace_state"),
    ("next_overhead", "None"), ("pace", "None"), ("restarts", "0"),
    ("checkpoint_overhead", "ZERO"), ("recovery_wait", "ZERO"), ("stopped_at", "NAN"),
    ("wait_part", "ZERO"), ("stop_cause", "''"), ("failure_lost_gpu_time", "ZERO"),
    ("startup", "ZERO"),
)
"""The engine state of a job that has just arrived: ``(attribute, initial value)``, the value as
source text. The generated ``__init__`` sets them in line (a job is created per arrival, and a
method call per job is measurable); ``end_state`` starts as the recorded outcome; amounts start
at the shared ``ZERO`` (``acmesim.jobs.fields``), which the recorder recognizes."""


def _state_lines(target: str, values: Mapping[str, str | None]) -> list[str]:
    """``target.attr = value`` for the index, every ``TABLE_FIELDS`` entry (its value in
    ``values``, source text), the modeled ``work``/``outcome`` and the ``PROGRESS`` state."""
    lines = [f"{target}.index = {values['index']}"]
    lines += [f"{target}.{f.attr} = {values[named(f.attr)]}" for f in TABLE_FIELDS
              if values[named(f.attr)] is not None]
    lines += [f"{target}.work = {target}.recorded_run_time",
              f"{target}.outcome = {target}.trace_state"]
    lines += [f"{target}.{name} = {value.format(job=target)}"
              for name, value in PROGRESS]
    return lines


def _init_source() -> str:
    """Source of ``Job.__init__``: the index, then one argument per ``TABLE_FIELDS`` entry,
    then the initial engine state (``PROGRESS``)."""
    names = [named(f.attr) for f in TABLE_FIELDS]
    values = {"index": "index", **{name: name for name in names}}
    lines = [f"def __init__(self, index, {', '.join(names)}):"]
    lines += [f"    {line}" for line in _state_lines("self", values)]
    return "\n".join(lines) + "\n"


_NAMESPACE = {"PENDING": PENDING, "NAN": NAN, "ZERO": ZERO}
"""The names the generated code reads besides its arguments."""


def _derive_job_class() -> None:
    """Give ``Job`` its ``__init__``, generated once at import time from the declarations
    (creating a job costs what the hand-written constructor did)."""
    namespace: dict = dict(_NAMESPACE)
    exec(_init_source(), namespace)  # noqa: S102 - generated from the declarations above
    init = namespace["__init__"]
    init.__doc__ = "A job arriving with its recorded and derived fields (``TABLE_FIELDS``)."
    Job.__init__ = init  # type: ignore[method-assign]


_derive_job_class()


ON_DEMAND = ("job_id", "cpu_num", "queue_time", "recorded_start")
"""Recorded fields the event loop does not read (an error message, a failure's row, the
``recorded`` mode's starter, a policy may): a job made by ``job_maker`` reads them from its
table's row when asked, so an arrival makes no string (the packed job id) or number for them."""


def job_maker(table) -> Callable[[int], Job]:
    """``make(i)``: the engine job of row ``i`` of ``table`` (a ``JobTable``), generated once
    per table: it sets the fields ``Job.__init__`` sets, with the row's values, in one call (an
    arrival costs no constructor call on top).

    The ``ON_DEMAND`` fields are not copied onto each job: the jobs are of a subclass of
    ``Job`` made for the table whose attributes read the job's row of those columns when asked.
    """
    values: dict[str, str | None] = {"index": "i"}
    on_demand: dict[str, Any] = {}
    for f in TABLE_FIELDS:
        if f.attr in ON_DEMAND:
            values[named(f.attr)] = None
            on_demand[named(f.attr)] = _row_reader(f.attr, getattr(table, named(f.table)))
    cls = type("TableJob", (Job,), {"__slots__": (), **on_demand}) if on_demand else Job
    namespace: dict[str, Any] = {**_NAMESPACE, "Job": cls, "new": object.__new__}
    for f in TABLE_FIELDS:
        column = getattr(table, named(f.table))
        if named(f.attr) in on_demand:
            continue
        if hasattr(column, "element_source"):  # a compact text column (acmesim.sim.texts)
            values[named(f.attr)], names = column.element_source(named(f.table), "i")
            namespace.update(names)
        else:
            values[named(f.attr)] = f"{f.table}[i]"
            namespace[named(f.table)] = column
    lines = ["def make(i):", "    job = new(Job)"]
    lines += [f"    {line}" for line in _state_lines("job", values)]
    lines.append("    return job")
    exec("\n".join(lines) + "\n", namespace)  # noqa: S102 - from the declarations
    return namespace["make"]


def _row_reader(name: str, column: Any) -> property:
    """A read-only attribute ``name``: the job's row of ``column``."""
    return property(lambda job: column[job.index],
                    doc=f"The job's ``{name}`` (read from its table's row when asked).")
