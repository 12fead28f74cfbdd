"""CPU metric jobs of a replay: a FIFO queue per node over a fixed number of metric slots.

Decoupled metric computation (acme_facts.md §5, technique 2) runs each dataset's metric as a CPU
job once its predictions exist. As in the execution model
(``acmesim.studies.evaluation.execution``), a metric job takes ``metric_cpu_threads`` of the
spare CPU threads of the node whose trial finished the dataset, waiting FIFO when they are busy;
with every job taking the same threads that is a FIFO queue with ``spare // metric_cpu_threads``
servers. Metric jobs hold no GPU, so the queue can be computed after the GPU replay from the
trials' end times, exactly. """

from __future__ import annotations

import heapq
from collections.abc import Sequence


def fifo_starts(ready: Sequence[float], durations: Sequence[float], slots: int) -> list[float]:
    """Start times of jobs served FIFO, in the given order, by ``slots`` identical servers.

    ``ready`` must be non-decreasing (the arrival order is the service order). Each job starts
    at its ready time or when the earliest server frees up, whichever is later.
    """
    if slots < 1:
        raise ValueError(f"slots must be >= 1, got {slots!r}")
    served = min(len(ready), len(durations))  # zip stops (and raises) there
    pairs = zip(ready[:served], ready[1:served], strict=False)  # each job and the one before
    if any(later < earlier for earlier, later in pairs):
        raise ValueError("ready times must be non-decreasing")
    free = [float("-inf")] * min(slots, len(ready))
    starts = []
    for arrival, duration in zip(ready, durations, strict=True):
        start = max(arrival, free[0])  # the earliest free server...
        starts.append(start)
        heapq.heapreplace(free, start + duration)  # ...taken until the job ends
    return starts
