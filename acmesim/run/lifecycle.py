"""THE run lifecycle: config -> plug-ins + extensions -> simulate -> tables -> summary -> files.

Every replay takes this path: ``acmesim.simulate()`` (the library; arguments become a
``ReplayConfig``) calls ``run``, and the CLI calls ``run_replay``, which is ``run`` plus the
files with their guarantees. The stages, in order:

1. **config**: the old spelling ``scheduler=eval_* scheduler.base=X`` becomes ``scheduler=X
   eval=*`` (``normalized``, deprecated for one release);
2. **plug-ins + extensions**: cluster, scheduler, placement from their registries (or the
   instances the caller gave), and the extensions (``acmesim.sim.extension``) in the order
   their hooks run: the evaluation mode (scheduled mode only, ``eval`` unless ``none``), the
   power extension (``power`` unless ``none``), the fault extension (always: failure,
   checkpoint and recovery; with the defaults it injects nothing), then the caller's own;
3. **trace**: the given job table, or ``config.trace`` through the trace-source registry;
   every extension's ``rewrite``, then the engine's job table (``prepare_jobs``);
4. **simulate**: one ``Simulation`` with the extensions attached, run to the end;
5. **tables**: ``jobs`` and ``utilization``, then each extension's ``tables`` in order;
6. **summary**: assembled here, in ``summary_fields``, once, the same on every path;
7. **files** (``run_replay``, ``SimulationResult.save``; ``acmesim.run.files``).

``run_replay`` writes ``config.yaml`` (the configuration after all overrides) first, then
``jobs.csv``, ``failures.csv``, ``utilization.csv`` (plus the evaluation tables) and
``summary.csv``, each atomically. Any error is caught and reported in ``summary.csv`` (and in
``RunResult.error``). The run directory's completion record (``complete.json``) and every file
of an earlier run in it are removed before anything is written, and a new record is written
last, only when the run succeeded: a failed or interrupted run never leaves stale tables next to
its summary, and is never taken as complete. An interruption (Ctrl-C, SIGTERM) is recorded in
the summary, then re-raised.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from acmesim.cluster import CLUSTERS, ClusterSpec
from acmesim.core.config import Choice, ReplayConfig
from acmesim.core.interrupts import describe
from acmesim.core.registry import Registry
from acmesim.energy.extension import PowerExtension
from acmesim.evaluation.modes import EVALS, EvalMode
from acmesim.evaluation.scheduling import SCHEDULERS, split_legacy  # with the eval_* plug-ins
from acmesim.faults import FaultInjector, fault_extension
from acmesim.jobs.checks import drop_fields
from acmesim.policies.placement import PLACEMENTS
from acmesim.policies.power import POWERS
from acmesim.results.gpu_busy import gpu_busy_fields, gpu_busy_input
from acmesim.results.schema import TABLES
from acmesim.results.summary import job_statistics, loss_by_cause, summary_row
from acmesim.results.utilization import utilization_table
from acmesim.run import files
from acmesim.run.identity import config_data, default_run_id, identity_fields
from acmesim.run.progress import ProgressArgument, progress_callback
from acmesim.run.result import MAIN_TABLES, SimulationResult
from acmesim.sim.extension import Extension
from acmesim.sim.jobs_frame import jobs_frame
from acmesim.sim.preemption import PreemptionModel
from acmesim.sim.simulation import Simulation
from acmesim.sim.trace_input import JobTable, prepare_jobs, release_arrow_scratch

BUILT_IN_KINDS: tuple[type, ...] = (EvalMode, PowerExtension, FaultInjector)
"""The lifecycle's own extensions; an extension of one of these kinds given by the caller
replaces the lifecycle's (e.g. a ``FaultInjector`` with a shorter fault window)."""


@dataclasses.dataclass
class RunResult:
    """What a replay produced: the summary row, the files written, and the error if any."""

    summary: dict[str, Any]
    paths: dict[str, Path]
    error: str | None


# ---------------------------------------------------------------------- 1. config
def normalized(config: ReplayConfig) -> ReplayConfig:
    """``config`` with the old ``scheduler=eval_*`` spelling turned into ``eval=`` (deprecated).

    The two spellings then run the same replay and record the same configuration.
    """
    split = split_legacy(config.scheduler)
    if split is None:
        return config
    scheduler, mode = split
    return dataclasses.replace(config, scheduler=scheduler, eval=mode)


# ---------------------------------------------------------------------- 2. plug-ins
def _create(registry: Registry, choice: Choice, given: Any) -> Any:
    """The plug-in instance the caller gave, else the registry's for ``choice``."""
    return given if given is not None else registry.create(choice.name, choice.options)


def _spec(config: ReplayConfig, given: ClusterSpec | None) -> ClusterSpec:
    """The modeled cluster: the given spec, else the preset ``config.cluster`` names."""
    return given if given is not None else CLUSTERS.create(config.cluster.name,
                                                           config.cluster.options).spec


def _extensions(config: ReplayConfig, given: Mapping[str, Any],
                extra: Sequence[Extension]) -> list[Extension]:
    """The run's extensions, in hook order: evaluation, power, faults, then the caller's."""
    built: list[Extension] = []
    if config.mode == "scheduled":
        mode: EvalMode = _create(EVALS, config.eval, given.get("eval"))
        if mode.enabled:
            built.append(mode)
    power = _create(POWERS, config.power, given.get("power"))
    if power.enabled:
        built.append(PowerExtension(power, config.utilization_interval))
    built.append(fault_extension(
        given.get("failure") or config.failure, given.get("checkpoint") or config.checkpoint,
        given.get("recovery") or config.recovery))
    for extension in extra:
        kind = next((k for k in BUILT_IN_KINDS if isinstance(extension, k)), None)
        if kind is not None:
            built = [e for e in built if not isinstance(e, kind)]
    return [*built, *extra]


def _load_trace(config: ReplayConfig) -> pd.DataFrame:
    """The trace named by ``config.trace``, through the trace-source registry."""
    from acmesim.sources import TRACES

    return TRACES.create(config.trace.name, config.trace.options).load()


# ---------------------------------------------------------------------- 3-6. the run
def run(
    config: ReplayConfig,
    *,
    jobs: pd.DataFrame | None = None,
    given: Mapping[str, Any] | None = None,
    extensions: Sequence[Extension] = (),
    progress: ProgressArgument = None,
    preemption: PreemptionModel | None = None,
    audit: bool = False,
) -> SimulationResult:
    """Replay ``jobs`` (or ``config.trace``) as ``config`` says; every table in memory.

    ``given`` maps a config group (``cluster``, ``scheduler``, ``placement``, ``failure``,
    ``checkpoint``, ``recovery``, ``eval``, ``power``) to a ready plug-in instance used instead
    of building it from ``config`` (which then only names it); ``extensions`` are attached
    after the lifecycle's own. ``progress`` is a callback ``(fraction, jobs_done)`` or True for
    a bar; ``audit=True`` re-verifies the cluster bookkeeping after every pass (slow, tests).
    """
    began = time.perf_counter()
    config = normalized(config)
    given = dict(given or {})
    spec = _spec(config, given.get("cluster"))
    scheduler = _create(SCHEDULERS, config.scheduler, given.get("scheduler"))
    placement = _create(PLACEMENTS, config.placement, given.get("placement"))
    attached = _extensions(config, given, extensions)
    if jobs is None:
        jobs = _load_trace(config)
    dropped = drop_fields(jobs)
    for extension in attached:
        jobs = extension.rewrite(jobs, spec)
    table = prepare_jobs(jobs, spec, mode=config.mode, cpu_jobs=config.cpu_jobs,
                         oversize_jobs=config.oversize_jobs)
    replayed = gpu_busy_input(jobs)
    del jobs  # not read again: a table this run loaded (or rewrote) is freed before the loop
    release_arrow_scratch()
    with progress_callback(progress) as callback:
        sim = Simulation(table, spec, scheduler, placement, mode=config.mode,
                         preemption=preemption, progress=callback, audit=audit, seed=config.seed,
                         extensions=attached)
        loop_began = time.perf_counter()
        sim.run()
        loop_time = time.perf_counter() - loop_began
    tables = _tables(config, sim, table, attached)
    summary = summary_fields(config, sim, table, tables["jobs"], replayed, attached, dropped,
                             loop_time, time.perf_counter() - began)
    return _result(config, sim, table, tables, summary, attached)


def _tables(config: ReplayConfig, sim: Simulation, table: JobTable,
            attached: Sequence[Extension]) -> dict[str, pd.DataFrame]:
    """``jobs`` and ``utilization``, then what each extension adds or replaces, in order."""
    tables = {
        "jobs": jobs_frame(table, sim.jobs, sim.cluster.topology.node_names),
        "utilization": utilization_table(sim.steps.arrays(), float(sim.now),
                                         config.utilization_interval, sim.spec.total_gpus),
    }
    for extension in attached:
        tables.update(extension.tables(tables))
    return tables


def summary_fields(config: ReplayConfig, sim: Simulation, table: JobTable, frame: pd.DataFrame,
                   replayed: pd.DataFrame, attached: Sequence[Extension],
                   dropped: Mapping[str, Any], loop_time: float, wall_time: float
                   ) -> dict[str, Any]:
    """THE summary of a finished run (the only place its fields are put together).

    Identity (``identity_fields``), the cluster and the input, the engine's counters, the
    statistics of the jobs table, the scheduler's fields, then each extension's; ``wall_time``
    is the whole run (configuration to summary), ``events_per_second`` the loop's speed.
    ``replayed`` is what the run kept of its input table (``gpu_busy_input``).
    """
    spec = sim.spec
    fields = identity_fields(config)
    fields.update({
        "eval": config.eval.name if config.mode == "scheduled" else "none",
        "cluster": spec.name, "cluster_gpus": spec.total_gpus,
        "trace_start": table.origin.isoformat() if table.origin is not None else "",
        "input_jobs": table.input_jobs, "cpu_jobs_skipped": table.cpu_skipped,
        "oversize_jobs_skipped": table.oversize_skipped, **dropped,
        "simulated_span": float(sim.now), "events": sim.events, "passes": sim.passes,
        "events_per_second": sim.events / loop_time if loop_time > 0 else 0.0,
    })
    fields.update(job_statistics(frame, spec.total_gpus, recorded=config.mode == "recorded"))
    fields.update(loss_by_cause(frame, float(sum(sim.jobs.failure_lost_gpu_time))))
    fields.update(gpu_busy_fields(frame, replayed))
    fields.update(sim.scheduler.summary_fields())
    for extension in attached:
        fields.update(extension.summary_fields())
    fields["wall_time"] = wall_time
    fields["error"] = ""
    row = summary_row(fields)
    return {name: value for name, value in row.items() if name in fields}


def _result(config: ReplayConfig, sim: Simulation, table: JobTable,
            tables: dict[str, pd.DataFrame], summary: dict[str, Any],
            attached: Sequence[Extension]) -> SimulationResult:
    """The in-memory result of a finished run."""
    schemas = {Path(s.file_name).stem: s for s in TABLES}
    power = next((e for e in attached if isinstance(e, PowerExtension)), None)
    return SimulationResult(
        jobs=tables["jobs"],
        utilization=tables["utilization"],
        curve=pd.DataFrame(sim.steps.arrays(), copy=False),
        summary=summary,
        trace_start=table.origin,
        tables=[(schemas[name], frame) for name, frame in tables.items()
                if name not in MAIN_TABLES],
        job_power=power.job_power() if power is not None else None,
        failures=tables.get("failures"),
        config=config,
    )


# ---------------------------------------------------------------------- 7. files (the CLI)
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
    files.begin(run_dir)
    paths: dict[str, Path] = {}
    try:
        config = normalized(config)
        data = config_data(config)
        files.write_config(run_dir, data, paths)
        result = run(config, jobs=jobs, progress=progress if config.progress else None)
        files.write_tables(run_dir, result.named_tables(), paths)
    except KeyboardInterrupt as exc:  # Ctrl-C or SIGTERM: record it, never mark complete
        _write_failed(run_dir, config, began, describe(exc), paths)
        raise
    except Exception as exc:  # noqa: BLE001 - every failure is reported in the summary
        row = _write_failed(run_dir, config, began, f"{type(exc).__name__}: {exc}", paths)
        return RunResult(summary=row, paths=paths, error=row["error"])
    row = summary_row(result.summary)
    files.write_summary_row(run_dir, row, paths)
    files.finish(run_dir, data, paths)
    return RunResult(summary=row, paths=paths, error=None)


def _write_failed(run_dir: Path, config: ReplayConfig, began: float, error: str,
                  paths: dict[str, Path]) -> dict[str, Any]:
    """Write the ``summary.csv`` of a run that stopped with ``error``; returns its row."""
    fields = {**identity_fields(config), "wall_time": time.perf_counter() - began,
              "error": error}
    row = summary_row(fields)
    files.write_summary_row(run_dir, row, paths)
    return row


__all__ = ["RunResult", "config_data", "default_run_id", "normalized", "run", "run_replay",
           "summary_fields"]
