"""The library entry point: simulate a job table and get the result tables, no files."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import Any, Literal

import pandas as pd

from acmesim.cluster import ClusterSpec, cluster_spec
from acmesim.energy.accounting import PowerAccounting
from acmesim.energy.tables import job_energy, power_columns
from acmesim.energy.tables import summary_fields as energy_fields
from acmesim.evaluation.scheduling import SCHEDULERS  # with the eval_* plug-ins
from acmesim.policies.placement import PLACEMENTS
from acmesim.policies.placement.base import Placement
from acmesim.policies.power import POWERS
from acmesim.policies.power.base import PowerModel
from acmesim.policies.scheduling.base import Scheduler
from acmesim.results.gpu_busy import gpu_busy_fields
from acmesim.results.schema import TableSchema
from acmesim.results.summary import job_statistics, loss_by_cause
from acmesim.results.utilization import utilization_table
from acmesim.run.progress import progress_callback
from acmesim.sim.jobs_frame import jobs_frame
from acmesim.sim.preemption import PreemptionModel
from acmesim.sim.simulation import Progress, Simulation
from acmesim.sim.trace_input import prepare_jobs


@dataclasses.dataclass
class SimulationResult:
    """Tables and figures of one simulation (``summary`` holds the summary.csv fields)."""

    jobs: pd.DataFrame
    utilization: pd.DataFrame
    curve: pd.DataFrame
    summary: dict[str, Any]
    trace_start: pd.Timestamp | None
    tables: list[tuple[TableSchema, pd.DataFrame]] = dataclasses.field(default_factory=list)
    """Extra result tables of the scheduler (its ``result_tables`` hook), with their schemas."""
    job_power: pd.DataFrame | None = None
    """With a power model: each job's ``gpu_util`` and GPU draw while computing
    (``running_w``, W), in jobs-table order."""

    @property
    def summary_frame(self) -> pd.DataFrame:
        """The summary fields as a table (one row per field, column ``value``)."""
        return pd.DataFrame({"value": pd.Series(self.summary, dtype=object)})

    @property
    def by_type(self) -> pd.DataFrame:
        """Per job type: jobs, mean and median queueing delay and JCT (s)."""
        from acmesim.results.job_delays import by_type_table

        return by_type_table(self.jobs)

    def _repr_html_(self) -> str:
        """How a notebook shows the result: headline figures, the per-type table, the jobs."""
        headline = [k for k in DISPLAYED_FIELDS if k in self.summary]
        return (f"<b>SimulationResult</b>: {len(self.jobs):,} jobs, scheduler "
                f"{self.summary.get('scheduler')}, placement {self.summary.get('placement')}, "
                f"cluster {self.summary.get('cluster')}"
                + self.summary_frame.loc[headline].T.to_html()
                + "<b>by_type</b> (s)" + self.by_type.to_html(float_format="%.1f")
                + "<b>jobs</b> (first rows)" + self.jobs.head().to_html())


DISPLAYED_FIELDS = ("simulated_jobs", "makespan", "gpu_utilization", "queue_delay_mean",
                    "jct_mean", "lost_gpu_time")
"""Summary fields a notebook shows first (``SimulationResult._repr_html_``)."""


def simulate(
    jobs: pd.DataFrame,
    cluster: ClusterSpec | str = "seren",
    scheduler: Scheduler | str = "fifo",
    placement: Placement | str = "consolidate",
    *,
    mode: Literal["recorded", "scheduled"] = "scheduled",
    cpu_jobs: Literal["skip", "replay"] = "skip",
    oversize_jobs: Literal["error", "skip"] = "error",
    utilization_interval: float = 3600.0,
    seed: int = 0,
    preemption: PreemptionModel | None = None,
    progress: Progress | bool | None = None,
    audit: bool = False,
    setup: Callable[[Simulation], None] | None = None,
    power: PowerModel | str = "none",
) -> SimulationResult:
    """Replay ``jobs`` (a normalized job table) and return its result tables.

    ``cluster``/``scheduler``/``placement`` are objects or registered names (default options).
    ``setup(sim)`` runs before the simulation starts (attach failure injectors, probes, ...);
    ``progress=True`` draws a progress bar (a widget in Jupyter), a callable is called as
    ``progress(fraction_of_span, jobs_done)``; ``audit=True`` re-verifies the cluster
    bookkeeping after every pass (slow, for tests).
    ``power`` (a model or a registered name) adds power per interval and energy columns;
    ``"none"`` leaves them empty and attaches nothing.

    Optional scheduler hooks (scheduled mode only; e.g. ``eval_decoupled``):
    ``scheduler.rewrite_jobs(jobs, spec)`` returns the job table to replay instead of ``jobs``;
    ``scheduler.result_tables(jobs_frame)`` returns extra ``(TableSchema, DataFrame)`` result
    tables after the run, before ``summary_fields()`` is read.
    """
    spec = cluster_spec(cluster)
    if isinstance(scheduler, str):
        scheduler = SCHEDULERS.create(scheduler)
    if isinstance(placement, str):
        placement = PLACEMENTS.create(placement)
    rewrite = getattr(scheduler, "rewrite_jobs", None)
    if rewrite is not None and mode == "scheduled":
        jobs = rewrite(jobs, spec)
    table = prepare_jobs(jobs, spec, mode=mode, cpu_jobs=cpu_jobs, oversize_jobs=oversize_jobs)
    model: PowerModel = POWERS.create(power) if isinstance(power, str) else power
    with progress_callback(progress) as callback:
        sim = Simulation(table, spec, scheduler, placement, mode=mode, preemption=preemption,
                         progress=callback, audit=audit, seed=seed)
        accounting = PowerAccounting(model, utilization_interval, jobs) if model.enabled else None
        if accounting is not None:
            accounting.attach(sim)
        if setup is not None:
            setup(sim)
        began = time.perf_counter()
        sim.run()
        loop_time = time.perf_counter() - began
    frame = jobs_frame(table, sim.jobs, sim.cluster.topology.node_names)
    curve = sim.steps.arrays()
    summary = {
        "mode": mode, "scheduler": getattr(scheduler, "registry_name", type(scheduler).__name__),
        "placement": getattr(placement, "registry_name", type(placement).__name__),
        "power": getattr(model, "registry_name", type(model).__name__),
        "cluster": spec.name, "cluster_gpus": spec.total_gpus, "seed": seed,
        "trace_start": table.origin.isoformat() if table.origin is not None else "",
        "input_jobs": table.input_jobs, "cpu_jobs_skipped": table.cpu_skipped,
        "oversize_jobs_skipped": table.oversize_skipped,
        "simulated_span": float(sim.env.now), "events": sim.events, "passes": sim.passes,
        "events_per_second": sim.events / loop_time if loop_time > 0 else 0.0,
        "wall_time": loop_time,
    }
    summary.update(job_statistics(frame, spec.total_gpus, recorded=mode == "recorded"))
    summary.update(loss_by_cause(frame, float(sum(sim.jobs.failure_lost_gpu_time))))
    summary.update(gpu_busy_fields(frame, jobs))
    report = getattr(sim.scheduler, "result_tables", None)
    tables = list(report(frame)) if report is not None else []
    summary.update(sim.scheduler.summary_fields())
    utilization = utilization_table(curve, float(sim.env.now), utilization_interval,
                                    spec.total_gpus)
    if accounting is not None:
        utilization = power_columns(accounting, curve, utilization, spec.total_gpus,
                                    spec.gpus_per_node)
        frame["energy_kwh"] = job_energy(accounting, frame["run_time"].to_numpy(dtype=float),
                                         (frame["pool"] == "gpu").to_numpy(), spec.gpus_per_node)
        summary.update(energy_fields(accounting, curve, float(sim.env.now),
                                     sim.jobs.failure_lost_gpu_time, spec.total_gpus,
                                     spec.gpus_per_node))
    return SimulationResult(
        jobs=frame,
        utilization=utilization,
        curve=pd.DataFrame(curve),
        summary=summary,
        trace_start=table.origin,
        tables=tables,
        job_power=(pd.DataFrame({"gpu_util": accounting.util, "running_w": accounting.run_w})
                   if accounting is not None else None),
    )


__all__ = ["SimulationResult", "simulate"]
