"""The waiting parts of a run's closed running intervals, worked out after the run (numpy).

While the loop runs, ``PowerAccounting.on_close`` only appends one row of numbers (``CLOSED``)
per closed running interval. ``waiting_parts`` turns the rows into what the power tables need:

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
from collections.abc import Mapping
from typing import Any

import numpy as np

CLOSED: tuple[str, ...] = (
    "job",                  # the job's row in the jobs table
    "start",                # when the interval began (last_start): the GPUs were held from then
    "end",                  # when it closed
    "overhead",             # its restart overhead (start-up latency on a first start), s
    "checkpoint_overhead",  # the job's checkpoint stalls so far, this interval's included, s
    "after_failure",        # 1 if the job's previous interval was stopped by a failure
    "restarts",             # the job's restarts so far (0: this is its first interval)
    "start_time",           # the job's first start (after its start-up latency)
    "work_done",            # work saved when the interval began
    "work",                 # the job's modeled work
)
"""The numbers noted per closed running interval, in row order, as the job stood when it
closed (integers and the flag as floats: exact)."""


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


def waiting_parts(rows: np.ndarray, paces: Mapping[int, Any], gpu_num: np.ndarray,
                  saving_w: np.ndarray, step: float) -> Waiting:
    """The waiting parts of the closed intervals ``rows`` (one row of ``CLOSED`` per interval,
    in closing order) of jobs with ``gpu_num`` GPUs each (0: CPU-only, not counted), whose
    GPUs draw ``saving_w`` less waiting than computing, over utilization intervals of ``step``
    seconds; ``paces`` are the checkpointing jobs' ``CheckpointPace``."""
    n = len(gpu_num)
    per_job = {name: np.zeros(n) for name in ("restart_s", "failure_restart_s", "startup_s",
                                               "stall_s")}
    c = _columns(rows, gpu_num)
    if c is None:
        return Waiting(**per_job, wait_gpu_s=np.zeros(0), wait_saving=np.zeros(0))
    index, restart, stalled = c["job"], c["restart"], c["stalled"]
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
    wait, saving = _per_interval(c, paces, saving_w, step)
    return Waiting(**per_job, wait_gpu_s=wait, wait_saving=saving)


def _columns(rows: np.ndarray, gpu_num: np.ndarray) -> dict[str, np.ndarray] | None:
    """The rows of GPU jobs as named columns, with each interval's ``restart`` (overhead, at
    most the interval) and ``stalled`` seconds."""
    if not len(rows):
        return None
    index = rows[:, 0].astype(np.int64)
    keep = gpu_num[index] > 0
    if not keep.any():
        return None
    kept = rows[keep]
    out = {name: np.ascontiguousarray(kept[:, k]) for k, name in enumerate(CLOSED)}
    out["job"] = index[keep]
    out["gpus"] = gpu_num[out["job"]]
    out["failure"] = out["after_failure"] > 0
    held = out["end"] - out["start"]
    out["restart"] = np.where(out["overhead"] < held, out["overhead"], held)
    out["stalled"] = out["checkpoint_overhead"] - _previous(out["job"],
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


def _per_interval(c: dict[str, np.ndarray], paces: Mapping[int, Any], saving_w: np.ndarray,
                  step: float) -> tuple[np.ndarray, np.ndarray]:
    """``wait_gpu_s`` and ``wait_saving`` per utilization interval (see the module)."""
    start, restart, gpus = c["start"], c["restart"], c["gpus"]
    ran = restart > 0
    k0 = np.floor(start / step).astype(np.int64)
    inside = ran & (start + restart <= (k0 + 1) * step)
    pieces = _pieces(c, paces, ran & ~inside, step)
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
    flat = [(p, j, k, g) for p, terms_of in pieces.items()
            for j, (k, g) in enumerate(terms_of, start=1)]
    if flat:
        rows, seq, ks, gs = zip(*flat, strict=True)
        terms.append((np.asarray(rows, dtype=np.int64), np.asarray(seq, dtype=np.int64),
                      np.asarray(ks, dtype=np.int64), np.asarray(gs, dtype=np.float64)))
    position, order_in, bins, gpu_s = (np.concatenate(parts) for parts in zip(*terms,
                                                                              strict=True))
    order = np.lexsort((order_in, position))
    bins, gpu_s = bins[order], gpu_s[order]
    size = int(bins.max()) + 1 if bins.size else 0
    wait, saving = np.zeros(size), np.zeros(size)
    np.add.at(wait, bins, gpu_s)
    np.add.at(saving, bins, gpu_s * saving_w[c["job"][position[order]]])
    return wait, saving


def _pieces(c: dict[str, np.ndarray], paces: Mapping[int, Any], across: np.ndarray,
            step: float) -> dict[int, list[tuple[int, float]]]:
    """Per row with an overhead across an edge or with stalls: its ``(interval, GPU-s)`` terms
    in order (the overhead's pieces, then the stalls'), positive ones only."""
    out: dict[int, list[tuple[int, float]]] = {}
    rows = np.flatnonzero(across | (c["stalled"] > 0))
    col = {name: c[name][rows].tolist() for name in ("gpus", "start", "restart", "stalled",
                                                      "job", "work_done", "work", "end")}
    spans = across[rows].tolist()
    for j, p in enumerate(rows.tolist()):
        gpus, start, restart = col["gpus"][j], col["start"][j], col["restart"][j]
        terms: list[tuple[int, float]] = []
        if spans[j]:
            terms += _span(start, start + restart, gpus, step)
        stalled = col["stalled"][j]
        if stalled > 0:
            terms += _stalls(paces[col["job"][j]], col["work_done"][j], col["work"][j],
                             start + restart, col["end"][j], stalled, gpus, step)
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


def _stalls(pace: Any, done: float, work: float, begin: float, end: float, total: float,
            gpus: int, step: float) -> list[tuple[int, float]]:
    """The interval's ``total`` stall seconds (computing from ``begin`` to ``end``) per
    utilization interval: the exact stalls before each edge (``CheckpointPace.advance``, all
    edges at once with its ``stalled_at``)."""
    k = math.floor(begin / step)
    ks = np.arange(k, math.floor(end / step) + 2, dtype=np.int64)
    edges = (ks + 1) * step
    ks, edges = ks[edges < end], edges[edges < end]
    many = getattr(pace, "stalled_at", None)
    stalled = (many(done, work, edges - begin) if many is not None else
               np.asarray([pace.advance(done, work, e)[1] for e in (edges - begin).tolist()],
                          dtype=np.float64))
    before = np.concatenate(([0.0], stalled))
    terms = np.append((stalled - before[:-1]) * gpus, (total - before[-1]) * gpus)
    return list(zip([*ks.tolist(), k + len(ks)], terms.tolist(), strict=True))


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
