"""Power per utilization interval, energy in the summary and per job (from ``PowerAccounting``).

Every GPU-second is in one state (``acmesim.policies.power.base``): idle GPU-seconds are the
cluster's GPUs minus ``busy_gpus`` of the step curve; waiting GPU-seconds come from the closed
intervals; running ones are the rest of ``busy_gpus``. A state's energy is its GPUs' draw plus
their share of the servers' other draw (``node_w / gpus_per_node`` per GPU), over the power
supplies' ``efficiency``: wall energy, so the states sum to the total.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from acmesim.core.numeric import exact_dot
from acmesim.energy.accounting import MILLI, PowerAccounting
from acmesim.results.utilization import POWER_COLUMNS, integral

KWH = 3.6e6
"""Joules per kWh."""

STATES = ("idle", "waiting", "running")


JOB_COLUMN = "energy_kwh"


def _state_energy(acc: PowerAccounting, curve: dict[str, np.ndarray], edges: np.ndarray,
                  total_gpus: int, gpus_per_node: int) -> dict[str, Any]:
    """Wall joules of each state in each interval between ``edges`` (worked out once for the
    utilization table and the summary, which use the same edges)."""
    key = (edges.tobytes(), len(curve["time"]), total_gpus, gpus_per_node)
    waiting = acc.waiting
    cached = acc.state_energy
    if cached is not None and cached[0] == key and cached[1] is waiting:
        return cached[2]
    out = _state_energy_of(acc, curve, edges, total_gpus, gpus_per_node)
    acc.state_energy = (key, waiting, out)
    return out


def _state_energy_of(acc: PowerAccounting, curve: dict[str, np.ndarray], edges: np.ndarray,
                     total_gpus: int, gpus_per_node: int) -> dict[str, Any]:
    """``_state_energy``, computed."""
    model = acc.model
    widths = np.diff(edges)
    busy_gs = np.diff(integral(curve["time"], curve["busy_gpus"], edges))
    load_j = np.diff(integral(curve["time"], curve["busy_load"], edges)) / MILLI
    bins = len(widths)
    waiting = acc.waiting
    wait_gs = _padded(waiting.wait_gpu_s, bins)
    saving = _padded(waiting.wait_saving, bins)
    idle_gs = total_gpus * widths - busy_gs
    running_gs = busy_gs - wait_gs
    share = model.node_w / gpus_per_node
    gpu_j = {
        "idle": model.idle_w * idle_gs,
        "waiting": model.waiting_w * wait_gs,
        "running": model.idle_w * busy_gs + load_j - saving - model.waiting_w * wait_gs,
    }
    gpu_s = {"idle": idle_gs, "waiting": wait_gs, "running": running_gs}
    out = {s: (gpu_j[s] + share * gpu_s[s]) / model.efficiency for s in STATES}
    out["gpu"] = sum(gpu_j.values())
    out["gpu_s"] = gpu_s
    return out


def _padded(values: np.ndarray, size: int) -> np.ndarray:
    """``values`` as an array of ``size`` (zeros appended; nothing lies beyond the end)."""
    out = np.zeros(size)
    n = min(size, len(values))
    out[:n] = values[:n]
    return out


def power_columns(acc: PowerAccounting, curve: dict[str, np.ndarray], utilization: pd.DataFrame,
                  total_gpus: int, gpus_per_node: int) -> pd.DataFrame:
    """``utilization`` with the mean power of each interval, total and by state (kW)."""
    out = utilization.copy()
    if len(out) == 0:
        for name in POWER_COLUMNS:
            out[name] = pd.Series(dtype="float64")
        return out
    edges = np.concatenate((out["interval_start"].to_numpy(), out["interval_end"].to_numpy()[-1:]))
    energy = _state_energy(acc, curve, edges, total_gpus, gpus_per_node)
    widths = np.diff(edges)
    for state in STATES:
        out[f"power_{state}_kw"] = energy[state] / widths / 1000.0
    out["power_kw"] = sum(energy[s] for s in STATES) / widths / 1000.0
    return out


def summary_fields(acc: PowerAccounting, curve: dict[str, np.ndarray], end: float,
                   failure_lost_gpu_time: Sequence[float], total_gpus: int, gpus_per_node: int
                   ) -> dict[str, Any]:
    """Energy totals, by state, lost to failures and checkpoints, and the mean server power."""
    model = acc.model
    count = max(1, int(np.ceil(end / acc.interval)))
    edges = np.minimum(np.arange(count + 1, dtype=np.float64) * acc.interval, end)
    energy = _state_energy(acc, curve, edges, total_gpus, gpus_per_node)
    total = float(sum(energy[s].sum() for s in STATES))
    gpu_j = float(energy["gpu"].sum())
    node_j = model.node_w * total_gpus / gpus_per_node * end
    share = model.node_w / gpus_per_node
    lost = lost_energy(acc, failure_lost_gpu_time, share)
    nodes = total_gpus / gpus_per_node
    fields: dict[str, Any] = {
        "energy_kwh": total / KWH,
        **{f"energy_{s}_kwh": float(energy[s].sum()) / KWH for s in STATES},
        "energy_gpu_kwh": gpu_j / KWH,
        "energy_conversion_loss_kwh": (total - gpu_j - node_j) / KWH,
        "gpu_server_power_mean_w": total / (nodes * end) if end > 0 else float("nan"),
        **{k: v / KWH for k, v in lost.items()},
        "power_utilization_drawn_jobs": acc.drawn_utilization,
    }
    fields["energy_lost_failures_kwh"] = sum(fields[k] for k in LOST_PARTS)
    return fields


LOST_PARTS = ("energy_lost_rollback_kwh", "energy_lost_recovery_kwh",
              "energy_lost_checkpoint_kwh")


def lost_energy(acc: PowerAccounting, failure_lost_gpu_time: Sequence[float], share: float
                ) -> dict[str, float]:
    """Wall joules (keyed by their kWh summary names) of failure rollbacks, failure recovery
    waits and checkpoint stalls; ``failure_lost_gpu_time`` per job is the engine's (rollback
    plus restart overhead after failures, GPU-s)."""
    model, eff = acc.model, acc.model.efficiency
    gpus = acc.gpu_num.astype(np.float64)
    fail_lost = np.asarray(failure_lost_gpu_time, dtype=np.float64)
    failure_restart = acc.waiting.failure_restart_s
    rollback_gs = np.maximum(0.0, fail_lost - failure_restart * gpus)
    waiting = (model.waiting_w + share) / eff
    return {
        "energy_lost_rollback_kwh": exact_dot(rollback_gs, (acc.run_w + share) / eff),
        "energy_lost_recovery_kwh": exact_dot(failure_restart, gpus) * waiting,
        "energy_lost_checkpoint_kwh": exact_dot(acc.waiting.stall_s, gpus) * waiting,
    }


def job_energy(acc: PowerAccounting, held: np.ndarray, gpu_pool: np.ndarray,
               gpus_per_node: int) -> np.ndarray:
    """Wall kWh of each job's GPUs over its running intervals (NaN for CPU-only jobs).

    ``held`` is the jobs table's ``run_time``, which leaves out start-up latency; the GPUs are
    held through it too (waiting), so it is added back.
    """
    model = acc.model
    share = model.node_w / gpus_per_node
    waiting = acc.waiting
    held = held + waiting.startup_s
    waiting_s = waiting.restart_s + waiting.stall_s
    running_s = held - waiting_s
    gpu_j = acc.gpu_num * (acc.run_w * running_s + model.waiting_w * waiting_s)
    wall = (gpu_j + acc.gpu_num * share * held) / model.efficiency / KWH
    return np.where(gpu_pool, wall, np.nan)
