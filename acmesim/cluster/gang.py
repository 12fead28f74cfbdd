"""Gang shape of a GPU job: how many nodes it needs and how many GPUs on each.

A job recorded on one node takes ``gpu_num`` GPUs of a single node (shared with other jobs).
A multi-node job (``node_num > 1``, or more GPUs than one node has) takes ``nodes`` *whole*
nodes, as the trace records it, where ``nodes = max(node_num, ceil(gpu_num / gpus_per_node))``.
"""

from __future__ import annotations

import numpy as np


def gang_nodes(gpu_num: int, node_num: int, gpus_per_node: int) -> int:
    """Nodes a GPU job occupies (at least one)."""
    return max(node_num, -(-gpu_num // gpus_per_node), 1)


def gang_nodes_array(gpu_num: np.ndarray, node_num: np.ndarray, gpus_per_node: int) -> np.ndarray:
    """``gang_nodes`` for whole columns at once."""
    needed = np.maximum(node_num, -(-gpu_num // gpus_per_node))
    return np.maximum(needed, 1)

