"""Collectors the engine feeds while it runs: per-job outcomes and the cluster's step curve.

Both store plain arrays/lists (no per-event pandas work); tables are built once at the end.
"""

from __future__ import annotations

import math
import struct
from array import array
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from acmesim.jobs.fields import RECORDER_FIELDS, ZERO


class StepRecorder:
    """The cluster state after each scheduling pass: a right-continuous step function.

    Row ``k`` holds from ``time[k]`` until ``time[k + 1]``; a second pass at the same time
    overwrites the row, so the curve is the state after the last pass at each time, and a pass
    that changes nothing adds no row. A curve has a row per scheduling pass (about two per
    job), so the counts are stored as 32-bit integers (at most 2**31 - 1 GPUs, nodes or pending
    jobs) and ``busy_load`` as 64-bit.

    Each pass appends its row as it is, packed (``add_row(pack(time, *COUNTS))``: two C calls
    a pass, no Python call; packing the row whole costs about a fifth of extending an
    ``array`` by a tuple of its counts), and ``add_load`` if it applies; the rows are folded
    into the curve (unchanged rows dropped, the last row at each time kept) in place, in
    chunks, when ``arrays`` is first asked for, exactly as if each had been folded as it came.
    """

    FIELDS = ("busy_gpus", "allocated_gpus", "busy_nodes", "queue_length", "queued_gpus",
              "busy_load")
    """``busy_load``: sum of the running jobs' power ``load`` (mW above idle; 0 without a power
    model), a step of the same curve so power follows exactly the steps utilization does."""

    COUNTS = FIELDS[:-1]
    """The fields stored as 32-bit counts (all but ``busy_load``)."""

    ROW = struct.Struct(f"=d{len(COUNTS)}i")
    """One packed row: the time (float64), then the ``COUNTS`` (int32), native byte order."""

    DTYPE = np.dtype([("time", "=f8"), ("counts", "=i4", (len(COUNTS),))])
    """The same row as numpy reads it (no padding: ``DTYPE.itemsize == ROW.size``)."""

    CHUNK = 1 << 20
    """Rows folded at a time (the fold's temporary arrays stay a few tens of MB)."""

    def __init__(self) -> None:
        self.raw = bytearray()
        """Every row, packed (``ROW``), row after row."""
        self.load = array("q")
        """``busy_load`` of every row, from the first row whose load is not 0 (until then
        empty: without a power model every load is 0, and ``arrays`` gives zeros)."""
        self.pack: Callable[..., bytes] = self.ROW.pack
        """``pack(time, *COUNTS)``: a row, to be given to ``add_row``."""
        self.add_row: Callable[[bytes], None] = self.raw.extend
        """Append a packed row (then ``add_load`` if it applies)."""
        self._folded = 0
        """Rows at the front that are folded already."""
        self.add_load: Callable[[int], None] = self._add_first_load
        """The last row's ``busy_load``: to be given when it is not 0, and for every row once
        one was (``self.load`` is then not empty). After the first, a C-level append (one a
        pass with a power model)."""

    def __len__(self) -> int:
        """Rows stored (all of the curve's once it is folded)."""
        return len(self.raw) // self.ROW.size

    def _add_first_load(self, busy_load: int) -> None:
        """``add_load`` of the first nonzero load: the rows before it get load 0; every later
        row gives its own, so ``add_load`` then appends directly."""
        load = self.load
        missing = len(self) - 1 - len(load)  # rows whose load (0) is not stored yet
        if missing:
            load.frombytes(bytes(8 * missing))
        load.append(busy_load)
        self.add_load = load.append

    def record(self, now: float, busy_gpus: int, allocated_gpus: int, busy_nodes: int,
               queue_length: int, queued_gpus: int, busy_load: int = 0) -> None:
        """Add the state at ``now``: replaces a row at the same time, skips an unchanged one."""
        self.add_row(self.pack(now, busy_gpus, allocated_gpus, busy_nodes, queue_length,
                               queued_gpus))
        if busy_load or self.load:
            self.add_load(busy_load)

    def arrays(self) -> dict[str, np.ndarray]:
        """The curve as read-only numpy arrays (``time`` plus one array per field): views of the
        recorder's buffers, no copy (a curve has a row per scheduling pass; the views of the
        packed rows are strided). Call it once the run is over: the buffers cannot grow while
        a view of them exists."""
        self._fold()
        rows = np.frombuffer(self.raw, dtype=self.DTYPE)
        out: dict[str, np.ndarray] = {"time": _read_only(rows["time"])}
        counts = rows["counts"]
        for k, name in enumerate(self.COUNTS):
            out[name] = _read_only(counts[:, k])
        out["busy_load"] = _read_only(np.frombuffer(self.load, dtype=np.int64) if self.load
                                      else np.zeros(len(rows), dtype=np.int64))
        return out

    def _fold(self) -> None:
        """Fold the rows added since the last fold into the curve, then drop the rest."""
        size = len(self)
        if self._folded == size:
            return
        if self.load:
            self.load.frombytes(bytes(8 * (size - len(self.load))))
        kept = self._compact(size)
        del self.raw[kept * self.ROW.size:]
        if self.load:
            del self.load[kept:]
        self._folded = kept

    def _compact(self, size: int) -> int:
        """Move the folded rows to the front of the buffers, chunk by chunk; their number.

        The sequence the rows describe: a row equal to the one before it is skipped (so to the
        last row kept), then the last row at each time is kept. Rows ``[0, kept)`` are the curve
        so far; the last of them has the values and time of the last row folded, so each chunk
        is compared to it.
        """
        width = len(self.COUNTS)
        packed = np.frombuffer(self.raw, dtype=self.DTYPE)
        times, rows = packed["time"], packed["counts"]
        loads = np.frombuffer(self.load, dtype=np.int64) if self.load else np.zeros(0, np.int64)
        kept = self._folded
        for first in range(self._folded, size, self.CHUNK):
            stop = min(size, first + self.CHUNK)
            t, r, load = times[first:stop], rows[first:stop], loads[first:stop]
            same = np.empty(stop - first, dtype=bool)
            differ = r[1:] != r[:-1]
            moved = differ[:, 0].copy()  # column by column: faster than a reduction on axis 1
            for k in range(1, width):
                moved |= differ[:, k]
            np.logical_not(moved, out=same[1:])
            same[0] = kept > 0 and bool((r[0] == rows[kept - 1]).all())
            if len(loads):
                same[1:] &= load[1:] == load[:-1]
                same[0] &= kept > 0 and bool(load[0] == loads[kept - 1])
            changed = ~same
            t, r = t[changed], r[changed]
            last = np.ones(len(t), dtype=bool)  # the last row at its time
            last[:-1] = t[1:] != t[:-1]
            t, r = t[last], r[last]  # copies: the writes below cannot reach them
            load = load[changed][last] if len(loads) else load
            if len(t) and kept > 0 and t[0] == times[kept - 1]:
                kept -= 1  # replaces the curve's row at that time
            end = kept + len(t)
            times[kept:end] = t
            rows[kept:end] = r
            if len(loads):
                loads[kept:end] = load
            kept = end
        return kept


def _read_only(values: np.ndarray) -> np.ndarray:
    """``values`` (a view), marked read-only."""
    values.flags.writeable = False
    return values


UNSET_NAN = ("start", "end")
"""Recorder fields that read NaN until the job ends; every other one reads 0."""


def _recorder_source() -> str:
    """Source of ``record(job, end, state, grants)`` (see ``JobRecorder.record``): one
    assignment per ``RECORDER_FIELDS`` declaration, written into buffers the generated code
    reads as names (no attribute lookup per field). A field that reads 0 until set is written
    only when the job's value is not +0 (exactly: -0.0 is written), so the pages of a field no
    job changes (failures, checkpoints, preemptions in a plain replay) are never touched and
    take no memory; a value that is still the job's initial ``ZERO`` object is +0 at no cost."""
    lines = ["def record(job, end, state, grants):",
             "    i = job.index",
             "    if states[i]:",
             "        ended_twice(job)"]
    for f in RECORDER_FIELDS:
        if f.recorder in UNSET_NAN:
            lines.append(f"    {f.recorder}[i] = job.{f.attr}")
            continue
        test = ("value" if f.kind == "int"
                else "value or (value is not ZERO and copysign(1.0, value) < 0.0)")
        lines += [f"    value = job.{f.attr}", f"    if {test}:",
                  f"        {f.recorder}[i] = value"]
    lines += ["    end_[i] = end",
              "    states[i] = state",
              "    if len(grants) == 1 and job.pool == 'gpu':",
              "        node[i] = grants[0][0]",
              "    elif grants:",
              "        nodes_multi[i] = tuple([n for n, _ in grants])",
              "    recorder.ended += 1"]
    return "\n".join(lines) + "\n"


_RECORD_SOURCE = compile(_recorder_source(), "<JobRecorder.record>", "exec")
"""The generated ``record``, compiled once at import time (bound to a recorder's buffers in
its ``__init__``)."""


def _ended_twice(job) -> None:
    """Reject a second end of ``job``."""
    raise RuntimeError(f"job {job.job_id!r} ended twice")


class JobRecorder:
    """Outcome of every simulated job, filled in when the job ends.

    Number fields are flat buffers written through a ``memoryview`` (8 bytes a job, no boxed
    values, read by numpy without a copy: ``column``), one per ``RECORDER_FIELDS`` declaration
    (``acmesim.jobs``) plus ``end``; those that read 0 until set are allocated zeroed by the
    system (untouched pages take no memory; see ``_recorder_source``). ``node`` is the node of
    a GPU job whose last interval held one node (-1 otherwise) and ``nodes_multi`` maps every
    other job with a grant to its node indices.
    """

    FLOATS: tuple[str, ...] = ("end", *(f.recorder for f in RECORDER_FIELDS
                                        if f.kind == "float" and f.recorder))
    INTS: tuple[str, ...] = tuple(f.recorder for f in RECORDER_FIELDS
                                  if f.kind == "int" and f.recorder)

    if TYPE_CHECKING:  # one typed array per declared field, made in __init__
        def __getattr__(self, name: str) -> Any: ...

    record: Callable[[Any, float, str, tuple[tuple[int, int], ...]], None]
    """``record(job, end, state, grants)``: store the outcome of ``job`` (a ``Job``) ending at
    ``end`` with ``state``; ``grants`` are the ``(node, GPU mask or threads)`` pairs of its last
    running interval. Generated per recorder (``_recorder_source``: one call a job)."""

    def __init__(self, size: int) -> None:
        self._columns: dict[str, np.ndarray] = {}
        for name in self.FLOATS:  # times NaN until the job ends, amounts 0
            self._columns[name] = (np.full(size, np.nan) if name in UNSET_NAN
                                   else np.zeros(size))
        for name in self.INTS:
            self._columns[name] = np.zeros(size, dtype=np.int64)
        for name, values in self._columns.items():
            setattr(self, name, values.data)  # a memoryview: item writes as fast as an array's
        self.state = [""] * size
        self.node = array("i", [-1]) * size  # 32-bit: node indices
        self.nodes_multi: dict[int, tuple[int, ...]] = {}
        self.ended = 0
        buffers = {name: getattr(self, name) for name in (*self.FLOATS, *self.INTS)}
        namespace: dict[str, Any] = {
            **buffers, "end_": self.end, "states": self.state, "node": self.node,
            "nodes_multi": self.nodes_multi, "recorder": self, "ZERO": ZERO,
            "copysign": math.copysign, "ended_twice": _ended_twice}
        exec(_RECORD_SOURCE, namespace)  # noqa: S102 - from the declarations
        self.record = namespace["record"]

    def column(self, name: str) -> np.ndarray:
        """A number field as a numpy array (the recorder's own buffer, no copy)."""
        return self._columns[name]
