"""``run_replay``: one configured replay written to a run directory (what the CLI calls).

Writes ``config.yaml`` (the configuration after all overrides), ``jobs.csv``,
``failures.csv``, ``utilization.csv`` and ``summary.csv`` (plus the scheduler's extra tables,
e.g. ``eval_requests.csv``), each atomically. The failure,
checkpoint and recovery choices are applied by ``acmesim.faults`` (the defaults inject nothing,
so a plain replay is the trace as recorded). Any error is caught and reported in
``summary.csv`` (and in ``RunResult.error``). The run directory's completion record
(``complete.json``, ``acmesim.results.completion``) and every file of an earlier run in it are
removed before anything is written, and a new record is written last, only when the run succeeded: a
failed or interrupted run never leaves stale tables next to its summary, and is never taken as
complete. An interruption (Ctrl-C, SIGTERM) is recorded in the summary, then re-raised.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from acmesim.cluster import CLUSTERS
from acmesim.core.config import ReplayConfig
from acmesim.core.interrupts import describe
from acmesim.evaluation.scheduling import SCHEDULERS  # with the eval_* plug-ins
from acmesim.policies.placement import PLACEMENTS
from acmesim.policies.power import POWERS
from acmesim.results.completion import begin_run, mark_complete
from acmesim.results.rundirs import CONFIG_FILE, RESULT_FILES
from acmesim.results.schema import FAILURES, JOBS, SUMMARY, UTILIZATION
from acmesim.results.summary import summary_row
from acmesim.results.writers import write_summary, write_table, write_yaml
from acmesim.run.simulate import simulate
from acmesim.trace.validation import drop_fields


@dataclasses.dataclass
class RunResult:
    """What a replay produced: the summary row, the files written, and the error if any."""

    summary: dict[str, Any]
    paths: dict[str, Path]
    error: str | None


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


def _load_trace(config: ReplayConfig) -> pd.DataFrame:
    """The trace named by ``config.trace``, through the trace-source registry."""
    from acmesim.sources import TRACES

    return TRACES.create(config.trace.name, config.trace.options).load()


def _simulate_to(config: ReplayConfig, run_dir: Path, jobs: pd.DataFrame | None,
                 progress: Callable[[float, int], None] | None,
                 paths: dict[str, Path]) -> dict[str, Any]:
    """Resolve, load, simulate and write the tables; returns the summary fields."""
    from acmesim.faults import injector_for  # acmesim.faults builds on the engine

    paths["config"] = write_yaml(run_dir / CONFIG_FILE, config_data(config))
    injector = injector_for(config)
    spec = CLUSTERS.create(config.cluster.name, config.cluster.options).spec
    scheduler = SCHEDULERS.create(config.scheduler.name, config.scheduler.options)
    placement = PLACEMENTS.create(config.placement.name, config.placement.options)
    power = POWERS.create(config.power.name, config.power.options)
    if jobs is None:
        jobs = _load_trace(config)
    dropped = drop_fields(jobs)
    result = simulate(
        jobs, spec, scheduler, placement, mode=config.mode, cpu_jobs=config.cpu_jobs,
        oversize_jobs=config.oversize_jobs, utilization_interval=config.utilization_interval,
        seed=config.seed, progress=progress if config.progress else None,
        setup=injector.attach, power=power,
    )
    paths["jobs"] = write_table(run_dir / JOBS.file_name, result.jobs, JOBS)
    paths["failures"] = write_table(run_dir / FAILURES.file_name, injector.failures_table(),
                                    FAILURES)
    paths["utilization"] = write_table(run_dir / UTILIZATION.file_name, result.utilization,
                                       UTILIZATION)
    for schema, table in result.tables:
        paths[Path(schema.file_name).stem] = write_table(run_dir / schema.file_name, table, schema)
    return {**result.summary, **dropped, **injector.summary_fields()}


def run_replay(
    config: ReplayConfig,
    run_dir: Path,
    *,
    jobs: pd.DataFrame | None = None,
    progress: Callable[[float, int], None] | None = None,
) -> RunResult:
    """Replay ``jobs`` (or ``config.trace``) as configured and write the results to ``run_dir``.

    ``complete.json`` is written after every other file, only when the run succeeded.
    """
    began = time.perf_counter()
    run_dir = Path(run_dir)
    begin_run(run_dir, RESULT_FILES)
    fields: dict[str, Any] = {
        "run_id": default_run_id(config), "seed": config.seed, "mode": config.mode,
        "scheduler": config.scheduler.name, "placement": config.placement.name,
        "failure": config.failure.name, "checkpoint": config.checkpoint.name,
        "recovery": config.recovery.name, "power": config.power.name,
        "cluster": config.cluster.name,
    }
    paths: dict[str, Path] = {}
    error: str | None = None
    try:
        fields.update(_simulate_to(config, run_dir, jobs, progress, paths))
    except KeyboardInterrupt as exc:  # Ctrl-C or SIGTERM: record it, never mark complete
        _write_summary(run_dir, config, fields, began, describe(exc))
        raise
    except Exception as exc:  # noqa: BLE001 - every failure is reported in the summary
        error = f"{type(exc).__name__}: {exc}"
    row, paths["summary"] = _write_summary(run_dir, config, fields, began, error)
    if error is None:
        mark_complete(run_dir, config_data(config), paths.values())
    return RunResult(summary=row, paths=paths, error=error)


def _write_summary(run_dir: Path, config: ReplayConfig, fields: dict[str, Any], began: float,
                   error: str | None) -> tuple[dict[str, Any], Path]:
    """Write ``summary.csv`` from ``fields`` with the wall time and ``error``; (row, path)."""
    fields["run_id"] = default_run_id(config)
    fields["wall_time"] = time.perf_counter() - began
    fields["error"] = error or ""
    row = summary_row(fields)
    return row, write_summary(run_dir / SUMMARY.file_name, row, SUMMARY)
