"""Turn the normalized job DataFrame into plain per-job lists once (no pandas in the hot path).

Takes the table validated once (``acmesim.jobs.table.validated``: a table a reader or an
earlier stage validated is not checked again; any other gets errors naming row, job id, column
and value), splits
GPU jobs from CPU-only jobs, rejects or skips jobs that can never fit the cluster, and orders the
jobs by submission (ties keep the input order). Times become float seconds since the trace start
(the earliest submission of the whole input).
"""

from __future__ import annotations

import dataclasses
from array import array
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from acmesim.cluster.gang import gang_nodes_array
from acmesim.cluster.spec import ClusterSpec
from acmesim.core.errors import AcmesimError
from acmesim.jobs.fields import INPUT_COLUMNS, TABLE_FIELDS, JobField, named
from acmesim.jobs.table import floats, ints, times_ns, validated
from acmesim.sim.texts import CodedText, PackedText, Text

REQUIRED_COLUMNS = INPUT_COLUMNS
"""The normalized-table columns the engine reads (declared in ``acmesim.jobs.fields``)."""



@dataclasses.dataclass
class JobTable:
    """The jobs to simulate, indexed by engine job index (submission order).

    Text columns are compact sequences of ``str`` (``acmesim.sim.texts``: the job id packed,
    the others coded); number columns are typed arrays (``array``; an element reads as a plain
    Python float or int). Neither holds a Python object per job.
    """

    origin: pd.Timestamp | None
    job_id: Text
    user: Text
    type: Text
    state: Text
    pool: Text
    submit: Sequence[float]
    start: Sequence[float]
    recorded_run_time: Sequence[float]
    gpu_num: Sequence[int]
    node_num: Sequence[int]
    cpu_num: Sequence[int]
    nodes_needed: Sequence[int]
    per_node: Sequence[int]
    input_jobs: int = 0
    cpu_skipped: int = 0
    oversize_skipped: int = 0
    declared: dict[str, Sequence] = dataclasses.field(default_factory=dict)
    """The lists of the declared recorded fields without a field above (``PLAIN_FIELDS``),
    read as attributes of the table too."""

    def __len__(self) -> int:
        return len(self.job_id)

    def __getattr__(self, name: str) -> Sequence:
        try:
            return self.__dict__["declared"][name]
        except KeyError:
            raise AttributeError(name) from None

    @property
    def span(self) -> float:
        """Time from the trace start to the last recorded end of a simulated job (s)."""
        if not len(self.submit):
            return 0.0
        ends = np.asarray(self.start, dtype=float) + np.asarray(self.recorded_run_time, dtype=float)
        return float(max(ends.max(), np.asarray(self.submit, dtype=float).max()))



PLAIN_FIELDS: tuple[JobField, ...] = tuple(
    f for f in TABLE_FIELDS if f.table not in {c.name for c in dataclasses.fields(JobTable)})
"""Declared recorded fields the table carries as validated by their kind alone (a field added
to the declaration lands here, with no code of its own)."""


def _declared_column(frame: pd.DataFrame, f: JobField, rows: np.ndarray) -> Sequence:
    """A plain recorded field's list, by its kind (NaN or "" when it is optional and the table
    has no such column)."""
    if f.input not in frame.columns:
        return (CodedText(array("i", bytes(4 * len(rows))), [""]) if f.kind == "str"
                else _floats(np.full(len(rows), np.nan)))
    column = named(f.input)
    if f.kind == "str":
        return CodedText.of_rows(frame[column], rows)
    if f.kind == "int":
        return _ints(ints(frame, column)[rows])
    return _floats(floats(frame, column)[rows])


def _oversize_message(frame: pd.DataFrame, rows: np.ndarray, reasons: list[str],
                      spec: ClusterSpec) -> str:
    """The error listing jobs that can never fit ``spec``."""
    shown = "; ".join(f"job {frame['job_id'].iloc[int(r)]!r} {why}"
                      for r, why in zip(rows[:5], reasons[:5], strict=False))
    more = f" (and {len(rows) - 5} more)" if len(rows) > 5 else ""
    return (f"{len(rows)} job(s) can never fit cluster {spec.name!r} ({spec.nodes} nodes x "
            f"{spec.gpus_per_node} GPUs, {spec.cpu_nodes} CPU nodes x {spec.cpus_per_cpu_node} "
            f"threads): {shown}{more}; use oversize_jobs=skip to skip them")


def prepare_jobs(
    frame: pd.DataFrame,
    spec: ClusterSpec,
    *,
    mode: Literal["recorded", "scheduled"] = "scheduled",
    cpu_jobs: Literal["skip", "replay"] = "skip",
    oversize_jobs: Literal["error", "skip"] = "error",
) -> JobTable:
    """Filter and order ``frame`` (a normalized job table, validated once: ``validated``) for
    the engine; ``mode`` is the replay's (a recorded replay starts each job at its recorded
    start, which the table's rules keep at or after its submission)."""
    frame = validated(frame)
    rows, origin_ns, numbers, skipped = _number_columns(frame, spec, cpu_jobs, oversize_jobs)

    def coded(column: str) -> CodedText:
        return CodedText.of_rows(frame[column], rows)

    table = JobTable(
        origin=pd.Timestamp(origin_ns, unit="ns", tz="UTC") if len(frame) else None,
        job_id=PackedText.of(frame["job_id"].iloc[rows]), user=coded("user"),
        type=coded("type"), state=coded("state"), **numbers,
        input_jobs=len(frame), cpu_skipped=skipped[0], oversize_skipped=skipped[1],
        declared={named(f.table): _declared_column(frame, f, rows) for f in PLAIN_FIELDS},
    )
    release_arrow_scratch()
    return table


def _number_columns(frame: pd.DataFrame, spec: ClusterSpec, cpu_jobs: str, oversize_jobs: str
                    ) -> tuple[np.ndarray, int, dict[str, Any], tuple[int, int]]:
    """The rows to simulate in submission order, the trace origin (ns), the ``JobTable``
    columns that are numbers (the pool's codes with them) and the counts of skipped CPU and
    oversize jobs. Every full-length array of the input is a local here, freed on return,
    before ``prepare_jobs`` builds the text columns (at tens of millions of rows those
    arrays are a GB or more, which would otherwise add to the text columns' own peak)."""
    submit_ns = times_ns(frame, "submit_time")
    gpu, nodes, cpus = ints(frame, "gpu_num"), ints(frame, "node_num"), ints(frame, "cpu_num")
    is_cpu = gpu == 0
    keep = ~is_cpu if cpu_jobs == "skip" else np.ones(len(frame), dtype=bool)
    needed, per_node, too_big = _gang_shapes(gpu, nodes, cpus, is_cpu, keep, spec)
    oversize_rows = np.flatnonzero(too_big)
    if len(oversize_rows) and oversize_jobs == "error":
        reasons = [_reason(int(r), gpu, needed, per_node, is_cpu) for r in oversize_rows[:5]]
        raise AcmesimError(_oversize_message(frame, oversize_rows, reasons, spec))
    keep &= ~too_big
    del too_big
    rows = np.flatnonzero(keep)
    del keep
    rows = rows[np.argsort(submit_ns[rows], kind="stable")]
    origin_ns = int(submit_ns.min()) if len(frame) else 0
    numbers = {
        "pool": CodedText(array("i", is_cpu[rows].astype(np.int32).tobytes()), ["gpu", "cpu"]),
        "submit": _floats((submit_ns[rows] - origin_ns) / 1e9),
        "start": _floats((times_ns(frame, "start_time")[rows] - origin_ns) / 1e9),
        "recorded_run_time": _floats(floats(frame, "run_time")[rows]),
        "gpu_num": _ints(gpu[rows]), "node_num": _ints(nodes[rows]), "cpu_num": _ints(cpus[rows]),
        "nodes_needed": _ints(needed[rows], "i"), "per_node": _ints(per_node[rows], "i"),
    }
    skipped = (int(is_cpu.sum()) if cpu_jobs == "skip" else 0, len(oversize_rows))
    return rows, origin_ns, numbers, skipped


def release_arrow_scratch() -> None:
    """Hand the memory Arrow freed (the text columns' temporaries) back to the system: its
    allocator keeps freed blocks for reuse, which the replay that follows never asks for (on
    tens of millions of rows, about a GB)."""
    import pyarrow as pa

    pa.default_memory_pool().release_unused()


SHAPE_BLOCK = 1 << 20
"""Rows whose gang shape is worked out at a time (``_gang_shapes``)."""


def _gang_shapes(gpu: np.ndarray, nodes: np.ndarray, cpus: np.ndarray, is_cpu: np.ndarray,
                 keep: np.ndarray, spec: ClusterSpec) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each row's gang shape, ``(nodes needed, GPUs or CPU threads per node, can never fit)``:
    a GPU job's from ``gang_nodes_array``, a CPU job's ``max(node_num, 1)`` nodes of
    ``max(ceil(cpu_num / nodes), 1)`` threads; a kept job never fits when it needs more nodes
    (or threads) than the cluster has. Worked out a block of rows at a time into 32-bit arrays
    (counts are at most ``COUNT_LIMIT``), so tens of millions of rows take no full-length
    64-bit temporaries."""
    size = len(gpu)
    needed = np.empty(size, dtype=np.int32)
    per_node = np.empty(size, dtype=np.int32)
    too_big = np.empty(size, dtype=bool)
    for first in range(0, size, SHAPE_BLOCK):
        part = slice(first, first + SHAPE_BLOCK)
        g, n, cpu = gpu[part], nodes[part], is_cpu[part]
        gang = gang_nodes_array(g, n, spec.gpus_per_node)
        cpu_nodes = np.maximum(n, 1)
        cpu_threads = np.maximum(-(-cpus[part] // cpu_nodes), 1)
        needed[part] = np.where(cpu, cpu_nodes, gang)
        per_node[part] = np.where(cpu, cpu_threads, np.where(gang == 1, g, spec.gpus_per_node))
        too_big[part] = keep[part] & np.where(
            cpu, (cpu_nodes > spec.cpu_nodes) | (cpu_threads > spec.cpus_per_cpu_node),
            gang > spec.nodes)
    return needed, per_node, too_big


def _floats(values: np.ndarray) -> array:
    """A float64 column as a typed array (8 bytes a value instead of a boxed float; one copy)."""
    typed = array("d")
    typed.frombytes(np.ascontiguousarray(values, dtype=np.float64).data.cast("B"))
    return typed


def _ints(values: np.ndarray, typecode: str = "q") -> array:
    """An integer column as a typed array, int64 (``"q"``) or int32 (``"i"``: the gang shape,
    which no result table reads); one copy."""
    dtype = np.int64 if typecode == "q" else np.int32
    typed = array(typecode)
    typed.frombytes(np.ascontiguousarray(values, dtype=dtype).data.cast("B"))
    return typed


def _reason(row: int, gpu, needed, per_node, is_cpu) -> str:
    """Why one job cannot fit, in words."""
    if is_cpu[row]:
        return f"needs {int(needed[row])} CPU node(s) x {int(per_node[row])} threads"
    return f"needs {int(needed[row])} node(s) ({int(gpu[row])} GPUs)"
