"""Checkpoint cost from model size: bytes to save, and the seconds they stall or overlap training.

Cost model (acme_facts.md §4, reliability_facts.md §2.13):

- state bytes = parameters × ``bytes_per_param``; mixed-precision Adam keeps 2Ψ + 2Ψ + 12Ψ =
  16 bytes/param (acme_facts.md §4, "2Ψ+2Ψ+12Ψ"; BLOOM saves 14 bytes/param, reliability_facts
  §2.13). 123B ⇒ 1.97 TB, 7B ⇒ 112 GB.
- storage bandwidth of one job = ``min(storage_gbps, nodes × storage_gbps_per_node)``;
- a **synchronous** checkpoint stalls training for ``overhead + bytes / storage bandwidth``;
- an **asynchronous** one stalls only for ``overhead + bytes / (GPUs × host_copy_gbps_per_gpu)``
  (the device→host copy; acme_facts §4: state copied to idle host memory, then a separate thread
  writes it to remote storage) while the write overlaps training (``persist`` seconds);
- a restart reads the checkpoint back: ``overhead + bytes / storage bandwidth``.

Defaults, cited or chosen:

- ``storage_gbps_per_node = 3.125`` GB/s: the 25 Gb/s per-node NIC limit measured when loading
  models from remote storage (acme_facts.md §1) — cited.
- ``storage_gbps = 2.5`` GB/s per job — **chosen** so that a synchronous 123B checkpoint
  (1.97 TB, 787 s) stalls a 30-minute interval by 44%, the paper's "up to 43%" slowdown
  (acme_facts.md §4).
- ``host_copy_gbps_per_gpu = 4`` GB/s effective device→host copy — **chosen** (PCIe Gen4 x16
  peaks at ~25 GB/s, shared by 8 GPUs of a node writing into host memory).
- ``overhead_s = 15`` s paid by every checkpoint in both modes (barrier, state-dict gathering,
  file creation) — **chosen** so that sync/async stall ratios at a 30-minute interval fall inside
  the paper's 3.6–58.7× for both anchors: 7B on 64 GPUs ⇒ 59.8 s / 15.4 s = 3.9×; 123B on 1,024
  GPUs ⇒ 802 s / 15.5 s = 51.8× (acme_facts.md §4 for the range; PyTorch DCP's 6.3 s async
  blocking time for 7B, reliability_facts §2.11, shows the order of magnitude).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Literal

from acmesim.core.bounds import option_values, require_non_negative, require_positive

GB = 1e9
"""Bytes per gigabyte (decimal, as storage bandwidths are quoted)."""

CheckpointMode = Literal["sync", "async"]


@dataclasses.dataclass(frozen=True)
class CheckpointCost:
    """Seconds one checkpoint of ``state_bytes`` costs a job of a given size."""

    state_bytes: float
    stall: float
    persist: float
    restore: float


@dataclasses.dataclass(frozen=True)
class StorageModel:
    """Bandwidths and fixed overhead that turn checkpoint bytes into seconds."""

    storage_gbps: float = 2.5
    storage_gbps_per_node: float = 3.125
    host_copy_gbps_per_gpu: float = 4.0
    overhead_s: float = 15.0

    def __post_init__(self) -> None:
        require_positive(**option_values(
            self, "storage_gbps", "storage_gbps_per_node", "host_copy_gbps_per_gpu"))
        require_non_negative(overhead_s=self.overhead_s)

    def write_seconds(self, state_bytes: float, nodes: int) -> float:
        """Seconds to move ``state_bytes`` between a job of ``nodes`` nodes and remote storage."""
        bandwidth = min(self.storage_gbps, max(nodes, 1) * self.storage_gbps_per_node) * GB
        return state_bytes / bandwidth

    def copy_seconds(self, state_bytes: float, gpus: int) -> float:
        """Seconds to copy ``state_bytes`` (sharded over ``gpus``) from device to host memory."""
        return state_bytes / (max(gpus, 1) * self.host_copy_gbps_per_gpu * GB)

    def cost(
        self, state_bytes: float, gpus: int, nodes: int, mode: CheckpointMode
    ) -> CheckpointCost:
        """The stall, background write and restore seconds of one checkpoint in ``mode``."""
        write = self.write_seconds(state_bytes, nodes)
        restore = self.overhead_s + write
        if mode == "sync":
            return CheckpointCost(state_bytes, self.overhead_s + write, 0.0, restore)
        if mode == "async":
            stall = self.overhead_s + self.copy_seconds(state_bytes, gpus)
            return CheckpointCost(state_bytes, stall, write, restore)
        raise ValueError(f"checkpoint mode must be 'sync' or 'async', got {mode!r}")


def state_bytes(params: float, bytes_per_param: float) -> float:
    """Bytes of model + optimizer state saved per checkpoint."""
    if not (params >= 0 and bytes_per_param >= 0 and math.isfinite(params)):
        raise ValueError(
            f"params and bytes_per_param must be >= 0, got {params!r}, {bytes_per_param!r}"
        )
    return params * bytes_per_param
