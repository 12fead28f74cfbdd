"""Small stand-ins for the engine and the plug-in registries, used only by the CLI tests.

They let the command-line layer (Hydra composition, overrides, errors, collect and plot) be
tested in isolation and fast; the stand-in engine keeps the real engine's run-directory contract
(``acmesim.results.completion``: invalidate first, completion record last). Skipping, resuming and
interruptions are tested against the real engine (``test_run_lifecycle.py``,
``test_kill_resume.py``).
"""

from __future__ import annotations

import dataclasses
import sys
import types

import numpy as np
import pandas as pd
import yaml

from acmesim.cli import hydra as hydra_app
from acmesim.core.atomic import atomic_write_csv, atomic_write_text
from acmesim.core.registry import Registry
from acmesim.core.rng import RngStreams
from acmesim.results.completion import begin_run, mark_complete
from acmesim.results.rundirs import RESULT_FILES
from acmesim.sources import TRACES


@dataclasses.dataclass(frozen=True)
class ClusterConfig:
    nodes: int = 4
    gpus_per_node: int = 8


@dataclasses.dataclass(frozen=True)
class WeibullConfig:
    shape: float = 0.8
    mtbf_hours: float = 100.0
    kinds: tuple[str, ...] = ("gpu", "node")


@dataclasses.dataclass(frozen=True)
class TraceFailureConfig:
    path: str = ""


@dataclasses.dataclass(frozen=True)
class PeriodicConfig:
    interval: float = 3600.0
    mode: str = "sync"


def _plugin(registry: Registry, name: str, *aliases: str, config: type | None = None) -> None:
    attrs = {"__init__": lambda self, config: None}
    if config is not None:
        attrs["Config"] = config
    registry.register(name, *aliases)(type(name, (), attrs))


def build_registries() -> dict[str, Registry]:
    """Fresh stand-in registries (the trace group is the real one)."""
    regs = {kind: Registry(kind) for kind in
            ("cluster", "scheduler", "placement", "failure", "checkpoint", "recovery", "eval",
             "power")}
    for name in ("seren", "kalos"):
        _plugin(regs["cluster"], name, config=ClusterConfig)
    _plugin(regs["scheduler"], "fifo")
    _plugin(regs["scheduler"], "qssf")
    _plugin(regs["scheduler"], "easy_backfill", "easy")
    _plugin(regs["placement"], "consolidate")
    _plugin(regs["failure"], "none")
    _plugin(regs["failure"], "weibull", config=WeibullConfig)
    _plugin(regs["failure"], "trace", config=TraceFailureConfig)
    _plugin(regs["checkpoint"], "none")
    _plugin(regs["checkpoint"], "periodic", config=PeriodicConfig)
    _plugin(regs["recovery"], "automatic")
    _plugin(regs["eval"], "none")
    _plugin(regs["power"], "none")
    return {"trace": TRACES, **regs}


TYPES = ("Pretrain", "Eval", "SFT")


def fake_run_replay(config, run_dir, *, jobs=None, progress=None):
    """Write small deterministic result tables depending on the seed and the scheduler."""
    fake_run_replay.calls.append((config, run_dir))
    begin_run(run_dir, RESULT_FILES)
    if progress is not None:
        progress(0.5, 6)
    if config.seed == 13:
        summary = {"run_id": config.run_id, "seed": config.seed, "error": "unlucky seed"}
        atomic_write_csv(run_dir / "summary.csv", pd.DataFrame([summary]))
        return types.SimpleNamespace(summary=summary, paths={}, error="unlucky seed")
    rng = RngStreams(config.seed).stream("standin")
    n = 12
    submit = np.sort(rng.integers(0, 86400, n)).astype(float)
    delay = rng.exponential(300 if config.scheduler.name == "fifo" else 100, n).round(1)
    run = rng.exponential(3600, n).round(1)
    frame = pd.DataFrame({
        "job_id": [f"j{i}" for i in range(n)],
        "type": [TYPES[i % 3] for i in range(n)],
        "gpu_num": [8] * n,
        "submit_time": submit,
        "start_time": submit + delay,
        "end_time": submit + delay + run,
    })
    times = np.arange(0, 86400 * 2, 3600.0)
    util = pd.DataFrame({"interval_start": times, "busy_gpus": (times % 7).astype(int),
                         "queue_length": (times % 3).astype(int)})
    summary = {"run_id": config.run_id, "seed": config.seed,
               "scheduler": config.scheduler.name, "simulated_jobs": n,
               "makespan": float(frame.end_time.max() - frame.submit_time.min()),
               "jct_mean": float((frame.end_time - frame.submit_time).mean()),
               "gpu_utilization": 0.5, "lost_gpu_time": 7200.0, "error": ""}
    atomic_write_csv(run_dir / "jobs.csv", frame)
    atomic_write_csv(run_dir / "utilization.csv", util)
    atomic_write_csv(run_dir / "summary.csv", pd.DataFrame([summary]))
    atomic_write_text(run_dir / "config.yaml", yaml.safe_dump(fake_config_data(config)))
    mark_complete(run_dir, fake_config_data(config),
                  [run_dir / name for name in ("jobs.csv", "utilization.csv", "summary.csv",
                                               "config.yaml")])
    return types.SimpleNamespace(summary=summary, paths={}, error=None)


def fake_config_data(config):
    """The configuration as plain data, as the engine records it."""
    data = dataclasses.asdict(config)
    data["trace"]["options"] = dict(data["trace"]["options"])
    return {k: (dict(v, options=dict(v["options"])) if isinstance(v, dict) else v)
            for k, v in data.items()}


def install(monkeypatch, tmp_path) -> list:
    """Route ``acmesim replay`` to the stand-in registries and engine; return the call log."""
    monkeypatch.setattr(hydra_app, "load_registries", lambda spec=None: build_registries())
    fake_run_replay.calls = []
    engine = types.ModuleType("acmesim.run.replay")
    engine.run_replay = fake_run_replay
    engine.config_data = fake_config_data
    monkeypatch.setitem(sys.modules, "acmesim.run.replay", engine)
    monkeypatch.chdir(tmp_path)
    return fake_run_replay.calls
