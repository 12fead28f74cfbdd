"""A time-stepped FIFO + consolidate simulator after Lucid's, used as a reference only.

Independent re-implementation of the rules of the simulator in S-Lab-System-Group/Lucid,
``simulation/`` (acme_facts.md §8), for benchmarks and tests; it is not part of the package.

The loop (``simulation/policy/fifo.py``, ``FirstInFirstOut.simulate``) advances one second per
step, from the start of the window until every job has ended. Each step, in this order:

1. release: every running job whose end time is this second frees its GPUs (the running list
   is scanned in start order);
2. admit: jobs submitted this second join the pending queue (the trace is sorted by submit
   time, ``simulation/job.py`` ``Trace.vc_trace``; a pointer walks it);
3. schedule: the queue is sorted by submit time (stable) and its jobs are placed in order
   until the first one that does not fit (strict head-of-line blocking). A placed job starts
   this second: ``start_time = now``, ``end_time = now + duration``.

So a job ending at second t frees its GPUs for jobs starting at t, and a job submitted at t may
start at t. A job of duration 0 would end at its start second, after that second's release
step, and Lucid would never release it; the reference rejects it.

Placement (``simulation/policy/placer/consolidate.py``, ``ConsolidatePlacement``) on nodes in
index order (``simulation/cluster.py``, ``VC.node_list``): the job is refused outright if the
cluster has fewer free GPUs than it asks. Only nodes with a free GPU are considered.

- At most one node's GPUs: nodes sorted by free GPUs ascending (stable sort, so ties keep
  index order); the first that fits.
- A multiple of a node's GPUs: nodes sorted by free GPUs descending (stable); take whole free
  nodes from the front; refuse at the first node that is not whole free before enough are taken.
- Any other size: same descending order; take ``gpus // per_node`` whole free nodes from the
  front, then the remainder on the very next node of the order (the one with the most free
  GPUs left) if it has room; otherwise refuse.

Lucid also logs every 10,000 s and samples cluster state every 60 s; those outputs are not
reproduced (they do not change any start time).
"""

from __future__ import annotations

from collections.abc import Sequence

RefJob = tuple[int, int, int]
"""One job: ``(submit second, duration in seconds, GPUs)``, all integers."""


def consolidate_select(free: Sequence[int], gpus: int,
                       per_node: int = 8) -> list[tuple[int, int]] | None:
    """``(node, GPUs)`` pairs Lucid's consolidate placer would choose, or None if refused."""
    if sum(free) < gpus:
        return None
    usable = [node for node, count in enumerate(free) if count > 0]
    if gpus <= per_node:
        for node in sorted(usable, key=free.__getitem__):
            if free[node] >= gpus:
                return [(node, gpus)]
        return None
    whole, rest = divmod(gpus, per_node)
    chosen: list[tuple[int, int]] = []
    for node in sorted(usable, key=free.__getitem__, reverse=True):
        if len(chosen) < whole:
            if free[node] != per_node:
                return None
            chosen.append((node, per_node))
            if len(chosen) == whole and rest == 0:
                return chosen
            continue
        return chosen + [(node, rest)] if free[node] >= rest else None
    return None


def _check(jobs: Sequence[RefJob], nodes: int, per_node: int, start: int) -> None:
    """Reject inputs on which Lucid's loop would never finish."""
    capacity = nodes * per_node
    for row, (submit, duration, gpus) in enumerate(jobs):
        for name, value in (("submit", submit), ("duration", duration), ("gpus", gpus)):
            if not isinstance(value, int):
                raise ValueError(f"job {row}: {name} must be an integer, got {value!r}")
        if duration < 1:
            raise ValueError(f"job {row}: duration must be >= 1 s, got {duration}")
        if not 1 <= gpus <= capacity:
            raise ValueError(f"job {row}: gpus must be in 1..{capacity}, got {gpus}")
        if submit < start:
            raise ValueError(f"job {row}: submitted at {submit}, before the start {start}")


def simulate_fifo(jobs: Sequence[RefJob], nodes: int, per_node: int = 8, *,
                  start: int | None = None, until: int | None = None) -> list[int | None]:
    """Start second of every job (input order), stepping one second at a time.

    The clock starts at ``start`` (default: the first submission). With ``until``, stepping
    stops after that second and jobs not started by then get None.
    """
    count = len(jobs)
    if start is None:
        start = min((job[0] for job in jobs), default=0)
    _check(jobs, nodes, per_node, start)
    order = sorted(range(count), key=lambda i: jobs[i][0])
    submit = [job[0] for job in jobs]
    free = [per_node] * nodes
    starts: list[int | None] = [None] * count
    ends = [0] * count
    grants: list[list[tuple[int, int]]] = [[] for _ in range(count)]
    running: list[int] = []
    queue: list[int] = []
    cursor = 0
    ended = 0
    now = start
    while ended != count and (until is None or now <= until):
        for job in running.copy():
            if ends[job] == now:
                for node, gpus in grants[job]:
                    free[node] += gpus
                running.remove(job)
                ended += 1
        while cursor < count and submit[order[cursor]] == now:
            queue.append(order[cursor])
            cursor += 1
        queue.sort(key=submit.__getitem__)
        for job in queue.copy():
            _, duration, gpus = jobs[job]
            chosen = consolidate_select(free, gpus, per_node)
            if chosen is None:
                break
            for node, taken in chosen:
                free[node] -= taken
            grants[job] = chosen
            starts[job] = now
            ends[job] = now + duration
            queue.remove(job)
            running.append(job)
        now += 1
    return starts
