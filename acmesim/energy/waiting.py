"""The waiting parts of a run's closed running intervals, worked out after the run (numpy).

While the loop runs, ``PowerAccounting.on_close`` only appends one ``Closed`` row per closed
running interval. ``waiting_parts`` turns the rows into what the power tables need:

- per job, seconds of restart overhead (``restart_s``), the part of it after failure stops
  (``failure_restart_s``), the part that was start-up latency (``startup_s``) and seconds of
  checkpoint stalls (``stall_s``);
- per utilization interval ``k`` (``[k x step, (k + 1) x step)``), GPU-seconds held but waiting
  (``wait_gpu_s``) and the joules those GPUs drew less than if computing (``wait_saving``).

An interval's overhead is its first ``overhead`` seconds (at most the interval: start-up
latency on a first start, failure detection, restart and checkpoint restore on a later one);
its stalls are the growth of the job's ``checkpoint_overhead`` over the interval, spread over
the utilization intervals it spans exactly as the engine counts them (``CheckpointPace``).

The sums are the ones the accounting made interval by interval as the loop closed them
(``np.add.at`` adds in row order), term for term in the same order and with the same float
operations, so every figure is identical to the last bit: an overhead inside one utilization
interval adds ``overhead x gpus`` to it unless the per-interval lists had to grow for it
(then, and for overheads across an edge, ``(edge - begin) x gpus`` pieces; the lists grew to
``max(k + 1, 2 x length)``). ``tests/energy/test_waiting.py`` checks it against that
interval-by-interval accounting.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, NamedTuple

import numpy as np


class Closed(NamedTuple):
    """One closed running interval, as the engine's job stood when it closed."""

    job: int
    """The job's row in the jobs table."""
    start: float
    """When the interval began (``last_start``): the GPUs were held from then."""
    end: float
    """When it closed."""
    overhead: float
    """Its restart overhead (start-up latency on a first start), seconds."""
    checkpoint_overhead: float
    """The job's checkpoint stalls so far, this interval's included (seconds)."""
    stop_cause: str
    """What stopped the job's previous interval ("failure", "preemption", "" if none)."""
    restarts: int
    """The job's restarts so far (0: this is its first interval)."""
    start_time: float
    """The job's first start (after its start-up latency)."""
    work_done: float
    """Work saved when the interval began."""
    work: float
    """The job's modeled work."""
    pace: Any
    """Its ``CheckpointPace`` (None when it does not checkpoint)."""


@dataclasses.dataclass(frozen=True)
class Waiting:
    """Per job and per utilization interval, the waiting parts of the run's intervals."""

    restart_s: np.ndarray
    failure_restart_s: np.ndarray
    startup_s: np.ndarray
    stall_s: np.ndarray
    wait_gpu_s: np.ndarray
    """Per utilization interval: GPU-seconds held by running jobs but waiting."""
    wait_saving: np.ndarray
    """Per utilization interval: joules the waiting GPUs drew less than if computing."""


def waiting_parts(rows: list[tuple], gpu_num: np.ndarray, saving_w: np.ndarray,
                  step: float) -> Waiting:
    """The waiting parts of the closed intervals ``rows`` (in closing order) of jobs with
    ``gpu_num`` GPUs each (0: CPU-only, not counted), whose GPUs draw ``saving_w`` less waiting
    than computing, over utilization intervals of ``step`` seconds."""
    n = len(gpu_num)
    per_job = {name: np.zeros(n) for name in ("restart_s", "failure_restart_s", "startup_s",
                                               "stall_s")}
    c = _columns(rows, gpu_num)
    if c is None:
        return Waiting(**per_job, wait_gpu_s=np.zeros(0), wait_saving=np.zeros(0))
    index, restart, stalled = c["index"], c["restart"], c["stalled"]
    ran = restart > 0
    np.add.at(per_job["restart_s"], index[ran], restart[ran])
    failed = ran & c["failure"]
    np.add.at(per_job["failure_restart_s"], index[failed], restart[failed])
    first = ran & ~c["failure"] & (c["restarts"] == 0)
    startup = c["start_time"] - c["start"]
    np.add.at(per_job["startup_s"], index[first],
              np.where(startup < restart, startup, restart)[first])
    stalls = stalled > 0
    np.add.at(per_job["stall_s"], index[stalls], stalled[stalls])
    wait, saving = _per_interval(c, rows, saving_w, step)
    return Waiting(**per_job, wait_gpu_s=wait, wait_saving=saving)


def _columns(rows: list[tuple], gpu_num: np.ndarray) -> dict[str, np.ndarray] | None:
    """The rows of GPU jobs as arrays (``row``: each one's position in ``rows``), with each
    interval's ``restart`` (overhead, at most the interval) and ``stalled`` seconds."""
    if not rows:
        return None
    fields = list(zip(*rows, strict=True))
    index = np.asarray(fields[0], dtype=np.int64)
    gpus = gpu_num[index]
    keep = np.flatnonzero(gpus > 0)
    if not keep.size:
        return None
    out = {"row": keep, "index": index[keep], "gpus": gpus[keep]}
    for k, name in enumerate(Closed._fields[1:], start=1):
        if name in ("stop_cause", "pace"):
            continue
        dtype = np.int64 if name == "restarts" else np.float64
        out[name] = np.asarray(fields[k], dtype=dtype)[keep]
    out["failure"] = np.asarray([cause == "failure" for cause in fields[5]], dtype=bool)[keep]
    held = out["end"] - out["start"]
    out["restart"] = np.where(out["overhead"] < held, out["overhead"], held)
    out["stalled"] = out["checkpoint_overhead"] - _previous(out["index"],
                                                            out["checkpoint_overhead"])
    return out


def _previous(index: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Each row's value of the same job's previous row (0 for a job's first row)."""
    order = np.argsort(index, kind="stable")
    ordered, keys = values[order], index[order]
    before = np.zeros(len(values))
    before[1:] = np.where(keys[1:] == keys[:-1], ordered[:-1], 0.0)
    out = np.empty(len(values))
    out[order] = before
    return out


def _per_interval(c: dict[str, np.ndarray], rows: list[tuple], saving_w: np.ndarray,
                  step: float) -> tuple[np.ndarray, np.ndarray]:
    """``wait_gpu_s`` and ``wait_saving`` per utilization interval (see the module)."""
    start, restart, gpus = c["start"], c["restart"], c["gpus"]
    ran = restart > 0
    k0 = np.floor(start / step).astype(np.int64)
    inside = ran & (start + restart <= (k0 + 1) * step)
    pieces = _pieces(c, rows, ran & ~inside, step)
    reach = np.full(len(start), -1, dtype=np.int64)
    for p, terms_of in pieces.items():
        reach[p] = max((k for k, _ in terms_of), default=-1)
    length = _list_lengths(inside, k0, reach, pieces, c, step)
    direct = inside & (k0 < length)  # one term, overhead x gpus
    grown = inside & ~direct  # the list grew for it: one (end - begin) x gpus term
    terms: list[tuple[np.ndarray, ...]] = [
        (np.flatnonzero(direct), np.zeros(int(direct.sum()), dtype=np.int64), k0[direct],
         restart[direct] * gpus[direct])]
    span = (start + restart - start) * gpus
    keep = grown & (span > 0)
    terms.append((np.flatnonzero(keep), np.zeros(int(keep.sum()), dtype=np.int64), k0[keep],
                  span[keep]))
    for p, terms_of in pieces.items():
        if terms_of:
            terms.append((np.full(len(terms_of), p), np.arange(1, len(terms_of) + 1),
                          np.asarray([k for k, _ in terms_of], dtype=np.int64),
                          np.asarray([g for _, g in terms_of], dtype=np.float64)))
    position, order_in, bins, gpu_s = (np.concatenate(parts) for parts in zip(*terms,
                                                                              strict=True))
    order = np.lexsort((order_in, position))
    bins, gpu_s = bins[order], gpu_s[order]
    size = int(bins.max()) + 1 if bins.size else 0
    wait, saving = np.zeros(size), np.zeros(size)
    np.add.at(wait, bins, gpu_s)
    np.add.at(saving, bins, gpu_s * saving_w[c["index"][position[order]]])
    return wait, saving


def _pieces(c: dict[str, np.ndarray], rows: list[tuple], across: np.ndarray, step: float
            ) -> dict[int, list[tuple[int, float]]]:
    """Per row with an overhead across an edge or with stalls: its ``(interval, GPU-s)`` terms
    in order (the overhead's pieces, then the stalls'), positive ones only."""
    out: dict[int, list[tuple[int, float]]] = {}
    for p in np.flatnonzero(across | (c["stalled"] > 0)).tolist():
        gpus = int(c["gpus"][p])
        start, restart = float(c["start"][p]), float(c["restart"][p])
        terms: list[tuple[int, float]] = []
        if across[p]:
            terms += _span(start, start + restart, gpus, step)
        stalled = float(c["stalled"][p])
        if stalled > 0:
            row = Closed._make(rows[int(c["row"][p])])
            terms += _stalls(row, start + restart, float(c["end"][p]), stalled, gpus, step)
        out[p] = [(k, g) for k, g in terms if g > 0]
    return out


def _span(a: float, b: float, gpus: int, step: float) -> list[tuple[int, float]]:
    """``gpus`` waiting GPUs over [a, b), per utilization interval it overlaps."""
    out = []
    k = math.floor(a / step)
    while a < b:
        edge = min(b, (k + 1) * step)
        out.append((k, (edge - a) * gpus))
        a = edge
        k += 1
    return out


def _stalls(row: Closed, begin: float, end: float, total: float, gpus: int, step: float
            ) -> list[tuple[int, float]]:
    """The interval's ``total`` stall seconds (computing from ``begin`` to ``end``) per
    utilization interval: the exact stalls before each edge (``CheckpointPace.advance``)."""
    out = []
    k = math.floor(begin / step)
    before = 0.0
    edge = (k + 1) * step
    while edge < end:
        stalled = row.pace.advance(row.work_done, row.work, edge - begin)[1]
        out.append((k, (stalled - before) * gpus))
        before = stalled
        k += 1
        edge = (k + 1) * step
    out.append((k, (total - before) * gpus))
    return out


def _list_lengths(inside: np.ndarray, k0: np.ndarray, reach: np.ndarray,
                  pieces: dict[int, list[tuple[int, float]]], c: dict[str, np.ndarray],
                  step: float) -> np.ndarray:
    """The length of the per-interval lists as each row closed (they grew on demand to
    ``max(k + 1, 2 x length)``): only rows that grew them are visited, a few dozen."""
    out = np.zeros(len(inside), dtype=np.int64)
    length, pos = 0, 0
    start, restart, gpus = c["start"], c["restart"], c["gpus"]
    while pos < len(inside):
        grows = (inside[pos:] & (k0[pos:] >= length)) | (reach[pos:] >= length)
        hit = np.flatnonzero(grows)
        if not hit.size:
            out[pos:] = length
            break
        p = pos + int(hit[0])
        out[pos:p + 1] = length
        touched = [k for k, _ in pieces.get(p, [])]
        if inside[p] and k0[p] >= length and (start[p] + restart[p] - start[p]) * gpus[p] > 0:
            touched.insert(0, int(k0[p]))
        for k in touched:
            if k + 1 > length:
                length += max(k + 1 - length, length)
        pos = p + 1
    return out
