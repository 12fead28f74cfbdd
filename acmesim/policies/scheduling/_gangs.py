"""``acme``'s rule 8: a type's multi-node gangs start only with GPUs to spare.

A gang of several whole nodes of a type with no quota of its own starts only if at least
``headroom`` GPUs stay free after it starts; on a cluster too small to ever leave that much
beside the gang, it starts when the cluster is otherwise empty.
"""

from __future__ import annotations

from acmesim.cluster.view import JobInfo


def gang_allows(job: JobInfo, free_gpus: int, total_gpus: int, held: int,
                headroom: int | None, min_nodes: int) -> bool:
    """Whether ``job`` (holding ``held`` GPUs) may start with ``free_gpus`` of ``total_gpus``
    GPUs free now: always, unless it is a gang of ``min_nodes`` nodes or more of a type with a
    ``headroom``, which must stay free after it starts (at most what the cluster can leave)."""
    if headroom is None or job.nodes_needed < min_nodes:
        return True
    return free_gpus - held >= min(headroom, total_gpus - held)
