"""The waiting parts of a run's closed running intervals, worked out after the run (numpy).

While the loop runs, ``PowerAccounting.on_close`` only appends a few numbers per closed
running interval (``CLOSED``; ``PACED`` more for a job that checkpoints). ``waiting_parts``
turns them into what the power tables need, with numpy over all intervals at once:

- per job, seconds of restart overhead (``restart_s``), the part of it after failure stops
  (``failure_restart_s``), the part that was start-up latency (``startup_s``) and seconds of
  checkpoint stalls (``stall_s``);
- per utilization interval ``k`` (``[k x step, (k + 1) x step)``), GPU-seconds held but waiting
  (``wait_gpu_s``) and the joules those GPUs drew less than if computing (``wait_saving``).

An interval's overhead is its first ``overhead`` seconds (at most the interval: start-up
latency on a first start, failure detection, restart and checkpoint restore on a later one);
its stalls are the growth of the job's ``checkpoint_overhead`` over the interval, spread over
the utilization intervals it spans exactly as the engine counts them (the paces' own
``CheckpointPace.stalls_at``, for all of them at once).

The sums are the ones the accounting made interval by interval as the loop closed them
(``np.bincount`` adds in row order, as ``+=`` did), term for term in the same order and with
the same float operations, so every figure is identical to the last bit: an overhead inside
one utilization interval adds ``overhead x gpus`` to it unless the per-interval lists had to
grow for it (then, and for overheads across an edge, ``(edge - begin) x gpus`` pieces; the
lists grew to ``max(k + 1, 2 x length)``). ``tests/energy/test_waiting.py`` checks it against
that interval-by-interval accounting.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import numpy as np

CLOSED: tuple[str, ...] = (
    "job",            # the job's row in the jobs table
    "start",          # when the interval began (last_start): the GPUs were held from then
    "end",            # when it closed
    "overhead",       # its restart overhead (start-up latency on a first start), s
    "after_failure",  # True if the job's previous interval was stopped by a failure
)
"""The numbers noted per closed running interval, in closing order, as the job stood when it
closed. A job's first interval is its first row (``restarts`` 0)."""

PACED: tuple[str, ...] = (
    "work_done",            # work saved when the interval began
    "checkpoint_overhead",  # the job's checkpoint stalls so far, this interval's included, s
)
"""Noted besides ``CLOSED`` for the intervals of a job with a ``CheckpointPace``, in the same
order (so they are the ``CLOSED`` rows of those jobs)."""


@dataclasses.dataclass(frozen=True)
class Paced:
    """The checkpointing jobs of a run: each one's pace and work, and its rows' ``PACED``."""

    paces: Mapping[int, tuple[Any, float]]
    """``(CheckpointPace, work)`` by job row."""
    rows: np.ndarray
    """One row of ``PACED`` per closed interval of those jobs, in closing order."""


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


def waiting_parts(rows: np.ndarray, paced: Paced, start_time: np.ndarray, gpu_num: np.ndarray,
                  saving_w: np.ndarray, step: float) -> Waiting:
    """The waiting parts of the closed intervals ``rows`` (one row of ``CLOSED`` per interval,
    in closing order) of jobs with ``gpu_num`` GPUs each (0: CPU-only, not counted) that first
    started computing at ``start_time`` (after start-up), whose GPUs draw ``saving_w`` less
    waiting than computing, over utilization intervals of ``step`` seconds."""
    n = len(gpu_num)
    c = _columns(rows, paced, gpu_num)
    if c is None:
        zeros = {name: np.zeros(n) for name in ("restart_s", "failure_restart_s", "startup_s",
                                                "stall_s")}
        return Waiting(**zeros, wait_gpu_s=np.zeros(0), wait_saving=np.zeros(0))
    index, restart, stalled = c["job"], c["restart"], c["stalled"]
    ran = restart > 0
    failed = ran & c["failure"]
    first = ran & ~c["failure"] & _first_rows(index, n)
    startup = start_time[index] - c["start"]
    per_job = {
        "restart_s": _sums(index, restart, ran, n),
        "failure_restart_s": _sums(index, restart, failed, n),
        "startup_s": _sums(index, np.where(startup < restart, startup, restart), first, n),
        "stall_s": _sums(index, stalled, stalled > 0, n),
    }
    wait, saving = _per_interval(c, paced, saving_w, step)
    return Waiting(**per_job, wait_gpu_s=wait, wait_saving=saving)


def _sums(index: np.ndarray, values: np.ndarray, where: np.ndarray, n: int) -> np.ndarray:
    """Per job, the sum of ``values`` over its rows in ``where``, added in row order."""
    if not where.any():
        return np.zeros(n)
    return np.bincount(index[where], weights=values[where], minlength=n)


def _first_rows(index: np.ndarray, n: int) -> np.ndarray:
    """Whether each row is its job's first."""
    position = np.arange(len(index))
    first = np.full(n, len(index), dtype=np.int64)
    np.minimum.at(first, index, position)
    return first[index] == position


def _columns(rows: np.ndarray, paced: Paced, gpu_num: np.ndarray
             ) -> dict[str, np.ndarray] | None:
    """The rows of GPU jobs as named columns, with each interval's ``restart`` (overhead, at
    most the interval) and ``stalled`` seconds (and, for the rows of checkpointing jobs, their
    ``PACED`` columns and pace)."""
    if not len(rows):
        return None
    index = rows[:, 0].astype(np.int64)
    gpus = gpu_num[index]
    keep = gpus > 0
    if not keep.any():
        return None
    table = rows.T[1:, keep] if not keep.all() else rows.T[1:]
    out = {name: table[k] for k, name in enumerate(CLOSED[1:])}
    out["job"], out["gpus"] = index[keep], gpus[keep]
    out["failure"] = out["after_failure"] > 0
    held = out["end"] - out["start"]
    out["restart"] = np.where(out["overhead"] < held, out["overhead"], held)
    out["stalled"] = np.zeros(len(held))
    out["paced"] = np.zeros(len(held), dtype=bool)
    if paced.paces:
        has = np.zeros(len(gpu_num), dtype=bool)
        has[np.fromiter(paced.paces, dtype=np.int64, count=len(paced.paces))] = True
        mine = has[index]
        if len(paced.rows) != int(mine.sum()):
            raise RuntimeError(f"{len(paced.rows)} checkpointing rows noted for "
                               f"{int(mine.sum())} intervals of checkpointing jobs")
        mine_kept = mine[keep]
        extra = paced.rows[keep[mine]].T
        out["paced"] = mine_kept
        for k, name in enumerate(PACED):
            column = np.zeros(len(held))
            column[mine_kept] = extra[k]
            out[name] = column
        cumulative = out["checkpoint_overhead"]
        out["stalled"] = np.where(mine_kept, cumulative - _previous(out["job"], cumulative,
                                                                    mine_kept), 0.0)
    return out


def _previous(index: np.ndarray, values: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Each of ``rows``' value of the same job's previous row (0 for a job's first row)."""
    out = np.zeros(len(values))
    picked = np.flatnonzero(rows)
    order = picked[np.argsort(index[picked], kind="stable")]
    keys = index[order]
    before = np.zeros(len(order))
    before[1:] = np.where(keys[1:] == keys[:-1], values[order[:-1]], 0.0)
    out[order] = before
    return out


def _per_interval(c: dict[str, np.ndarray], paced: Paced, saving_w: np.ndarray,
                  step: float) -> tuple[np.ndarray, np.ndarray]:
    """``wait_gpu_s`` and ``wait_saving`` per utilization interval (see the module)."""
    start, restart, gpus = c["start"], c["restart"], c["gpus"]
    ran = restart > 0
    k0 = np.floor(start / step).astype(np.int64)
    inside = ran & (start + restart <= (k0 + 1) * step)
    pieces = _pieces(c, paced, ran & ~inside, step)  # (row, interval, GPU-s), in row order
    length = _list_lengths(inside, k0, pieces, c)
    direct = inside & (k0 < length)  # one term, overhead x gpus
    grown = inside & ~direct  # the list grew for it: one (end - begin) x gpus term
    span = (start + restart - start) * gpus
    keep = grown & (span > 0)
    single = direct | keep
    rows, bins, gpu_s = _merged(
        (np.flatnonzero(single), k0[single], np.where(direct, restart * gpus, span)[single]),
        pieces)  # a row's single term comes before its pieces
    size = int(bins.max()) + 1 if bins.size else 0
    wait = np.bincount(bins, weights=gpu_s, minlength=size)
    saving = np.bincount(bins, weights=gpu_s * saving_w[c["job"][rows]], minlength=size)
    return wait, saving


def _pieces(c: dict[str, np.ndarray], paced: Paced, across: np.ndarray, step: float
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The positive ``(row, interval, GPU-s)`` terms of overheads across an edge and of
    stalls, sorted by row (a row's overhead pieces before its stalls')."""
    span = _span_pieces(c, np.flatnonzero(across), step)
    stall = _stall_pieces(c, paced, np.flatnonzero(c["stalled"] > 0), step)
    rows, bins, gpu_s = _merged(span, stall)
    positive = gpu_s > 0
    return rows[positive], bins[positive], gpu_s[positive]


def _merged(first: tuple[np.ndarray, ...], then: tuple[np.ndarray, ...]
            ) -> tuple[np.ndarray, ...]:
    """Two sets of terms (rows, then values), each sorted by row, merged by row (on a tie,
    ``first``'s terms before ``then``'s)."""
    if not len(then[0]):
        return first
    if not len(first[0]):
        return then
    at_first = np.arange(len(first[0])) + np.searchsorted(then[0], first[0], side="left")
    at_then = np.arange(len(then[0])) + np.searchsorted(first[0], then[0], side="right")
    out = []
    for a, b in zip(first, then, strict=True):
        merged = np.empty(len(a) + len(b), dtype=np.result_type(a, b))
        merged[at_first], merged[at_then] = a, b
        out.append(merged)
    return tuple(out)


def _steps_below(k: np.ndarray, x: np.ndarray, step: float) -> np.ndarray:
    """For each row, how many ``j >= 1`` have ``(k + j) x step < x`` (as floats)."""
    j = np.maximum(0, np.ceil(x / step).astype(np.int64) - k - 1)
    while True:  # the estimate is off by at most one either way (rounding)
        up = (k + j + 1) * step < x
        down = (j >= 1) & ((k + j) * step >= x)
        if not (up.any() or down.any()):
            return j
        j = j + up - down


def _expand(rows: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each of ``rows`` repeated ``counts`` times, with the position ``0 .. count - 1``."""
    owner = np.repeat(np.arange(len(rows)), counts)
    offsets = np.cumsum(counts) - counts
    return owner, np.arange(len(owner)) - offsets[owner]


def _span_pieces(c: dict[str, np.ndarray], rows: np.ndarray, step: float
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``gpus`` waiting GPUs over ``[start, start + restart)`` of ``rows``, per utilization
    interval it overlaps (piece ``j`` from ``max(start, (k0 + j) x step)`` to ``min(end,
    (k0 + j + 1) x step)``)."""
    a = c["start"][rows]
    b = a + c["restart"][rows]
    k0 = np.floor(a / step).astype(np.int64)
    owner, j = _expand(rows, 1 + _steps_below(k0, b, step))
    k = k0[owner] + j
    left = np.where(j == 0, a[owner], k * step)
    right = np.minimum(b[owner], (k + 1) * step)
    return rows[owner], k, (right - left) * c["gpus"][rows][owner]


def _stall_pieces(c: dict[str, np.ndarray], paced: Paced, rows: np.ndarray, step: float
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each of ``rows``' stall seconds (computing from ``start + restart`` to ``end``) per
    utilization interval: the exact stalls before each edge, then the rest after the last."""
    if not len(rows):
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, np.zeros(0)
    begin = c["start"][rows] + c["restart"][rows]
    end = c["end"][rows]
    k = np.floor(begin / step).astype(np.int64)
    edges = _steps_below(k, end, step)  # edges (k + 1 ..) x step before the end
    owner, j = _expand(rows, edges + 1)
    last = j == edges[owner]  # the term after the last edge
    jobs = c["job"][rows].tolist()
    pace = np.array([[p.interval, p.stall, p.later_stall, w]
                     for p, w in (paced.paces[i] for i in jobs)], dtype=np.float64)
    pace = pace[owner]
    bins = k[owner] + j
    elapsed = (bins + 1) * step - begin[owner]
    stalls_at = type(paced.paces[jobs[0]][0]).stalls_at  # the engine's, all paces at once
    before_edge = stalls_at(pace[:, 0], pace[:, 1], pace[:, 2], c["work_done"][rows][owner],
                            pace[:, 3], elapsed)
    stalled = np.where(last, c["stalled"][rows][owner], before_edge)
    previous = np.zeros(len(stalled))
    previous[1:] = np.where(j[1:] > 0, before_edge[:-1], 0.0)
    return rows[owner], bins, (stalled - previous) * c["gpus"][rows][owner]


def _list_lengths(inside: np.ndarray, k0: np.ndarray,
                  pieces: tuple[np.ndarray, np.ndarray, np.ndarray],
                  c: dict[str, np.ndarray]) -> np.ndarray:
    """The length of the per-interval lists as each row closed (they grew on demand to
    ``max(k + 1, 2 x length)``): only rows that grew them are visited, a few dozen, each
    found by a binary search of the running maximum of the interval each row reaches."""
    piece_rows, piece_bins, _ = pieces
    need = np.where(inside, k0, -1)
    np.maximum.at(need, piece_rows, piece_bins)
    reach = np.maximum.accumulate(need)
    out = np.zeros(len(inside), dtype=np.int64)
    length, pos = 0, 0
    start, restart, gpus = c["start"], c["restart"], c["gpus"]
    while pos < len(inside):
        p = int(np.searchsorted(reach, length, side="left"))  # first row reaching past it
        if p < pos:  # a row seen before still reaches past it (it grew nothing): scan on
            hit = np.flatnonzero(need[pos:] >= length)
            p = pos + int(hit[0]) if hit.size else len(inside)
        if p >= len(inside):
            out[pos:] = length
            break
        out[pos:p + 1] = length
        lo, hi = np.searchsorted(piece_rows, (p, p + 1))
        touched = piece_bins[lo:hi].tolist()
        if inside[p] and k0[p] >= length and (start[p] + restart[p] - start[p]) * gpus[p] > 0:
            touched.insert(0, int(k0[p]))
        for k in touched:
            if k + 1 > length:
                length += max(k + 1 - length, length)
        pos = p + 1
    return out
