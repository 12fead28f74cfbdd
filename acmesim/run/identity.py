"""What names a run: its id and its configuration as plain data (``config.yaml``)."""

from __future__ import annotations

import dataclasses
from typing import Any

from acmesim.core.config import ReplayConfig


def default_run_id(config: ReplayConfig) -> str:
    """``config.run_id``, or one derived from the configuration when it is empty."""
    if config.run_id:
        return config.run_id
    return (f"{config.cluster.name}-{config.mode}-{config.scheduler.name}-"
            f"{config.placement.name}-seed{config.seed}")


def config_data(config: ReplayConfig) -> dict[str, Any]:
    """The configuration as plain data (choices as ``{name, options}``), run id filled in.

    This is exactly what the run was configured with after every override; plug-in options
    left out take their documented defaults (each plug-in's ``Config``).
    """
    data = dataclasses.asdict(config)
    data["run_id"] = default_run_id(config)
    return data


def identity_fields(config: ReplayConfig) -> dict[str, Any]:
    """The summary fields naming the run and its plug-ins, known before it runs."""
    return {
        "run_id": default_run_id(config), "seed": config.seed, "mode": config.mode,
        "scheduler": config.scheduler.name, "placement": config.placement.name,
        "failure": config.failure.name, "checkpoint": config.checkpoint.name,
        "recovery": config.recovery.name, "eval": config.eval.name,
        "power": config.power.name, "cluster": config.cluster.name,
    }
