"""The reference loop's input from a normalized job table, and the start-time check.

``reference_jobs`` turns the table into the plain ``(submit, run, GPUs, nodes, start-up)``
tuples ``reference_loop.replay_fifo`` takes, in acmesim's engine order (GPU jobs only, sorted by
submission, ties in input order), with times in float seconds since the earliest submission of
the whole table, computed the way acmesim computes them. The start-up latency of each job is
the one acmesim's cluster model draws for it (``ClusterSpec.startup`` from the named stream
``"startup"`` of the replay seed, one draw per job in engine order, independent of the
schedule), so it is data for the loop, not a rule it must share.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from acmesim.cluster import ClusterSpec
from acmesim.core.rng import RngStreams


@dataclasses.dataclass
class ReferenceInput:
    """The jobs of one replay as the reference loop takes them, plus what names them."""

    job_id: list[str]
    jobs: list[tuple[float, float, int, int, float]]
    rows: list[int]
    """Position of each job in the input table."""


def _nanoseconds(frame: pd.DataFrame, column: str) -> np.ndarray:
    """A timestamp column as int64 nanoseconds since the epoch."""
    return pd.DatetimeIndex(frame[column]).as_unit("ns").asi8


def reference_jobs(frame: pd.DataFrame, spec: ClusterSpec, seed: int = 0) -> ReferenceInput:
    """The GPU jobs of ``frame`` in engine order, as ``replay_fifo`` input (see module)."""
    frame = frame.reset_index(drop=True)
    submit_ns = _nanoseconds(frame, "submit_time")
    gpus = frame["gpu_num"].to_numpy(dtype=np.int64)
    rows = np.flatnonzero(gpus > 0)
    rows = rows[np.argsort(submit_ns[rows], kind="stable")]
    origin = int(submit_ns.min()) if len(frame) else 0
    submit = ((submit_ns[rows] - origin) / 1e9).tolist()
    run = frame["run_time"].to_numpy(dtype=float)[rows].tolist()
    types = [str(t) for t in frame["type"].to_numpy(dtype=object)[rows]]
    if spec.startup.active:
        startup = spec.startup.draw(RngStreams(seed).fresh("startup"), len(rows), types)
    else:
        startup = np.zeros(len(rows))
    jobs = list(zip(submit, run, gpus[rows].tolist(),
                    frame["node_num"].to_numpy(dtype=np.int64)[rows].tolist(),
                    np.asarray(startup, dtype=float).tolist(), strict=True))
    ids = [str(v) for v in frame["job_id"].to_numpy(dtype=object)[rows]]
    return ReferenceInput(job_id=ids, jobs=jobs, rows=rows.tolist())


def start_mismatches(ids: list[str], reference: list[float], acme_ids: list[str],
                     acme_starts: list[float]) -> list[tuple[int, str, float, float]]:
    """``(position, job id, reference start, acmesim start)`` of every job that differs.

    Both lists are in engine order; a differing job id at a position counts as a mismatch.
    """
    if len(ids) != len(acme_ids):
        raise ValueError(f"the reference replayed {len(ids):,} jobs, acmesim {len(acme_ids):,}")
    return [(i, ids[i], ref, acme) for i, (ref, acme) in enumerate(zip(reference, acme_starts,
                                                                        strict=True))
            if ids[i] != acme_ids[i] or not ref == acme]


def node_indices(names: str) -> list[int]:
    """Node indices of an acmesim ``nodes`` cell (``n0003;n0004``; GPU nodes only)."""
    return [int(name[1:]) for name in names.split(";")] if names else []


def placement_mismatches(ids: list[str], reference: list[list[int]],
                         acme_nodes: list[str]) -> list[tuple[int, str, list[int], list[int]]]:
    """``(position, job id, reference nodes, acmesim nodes)`` of every job placed differently.

    Start times depend only on how many GPUs each node has free, not on which whole free node
    or leaf a job takes, so this is the check of the leaf and spine rules.
    """
    out = []
    for i, (ref, names) in enumerate(zip(reference, acme_nodes, strict=True)):
        acme = node_indices(names)
        if ref != acme:
            out.append((i, ids[i], ref, acme))
    return out


def describe_mismatches(mismatches: list[tuple[int, str, float, float]], total: int,
                        shown: int = 10) -> str:
    """A report of the first ``shown`` differing jobs."""
    lines = [f"START TIMES DIFFER for {len(mismatches):,} of {total:,} jobs; first ones:"]
    lines += [f"  #{pos} job {job!r}: reference {ref!r} s, acmesim {acme!r} s"
              for pos, job, ref, acme in mismatches[:shown]]
    return "\n".join(lines)
