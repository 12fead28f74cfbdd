"""What ``acmesim replay`` tells a user about a run: a short summary, and whether to skip it.

Hydra-free: reads the result files a replay wrote (``summary.csv``, ``jobs.csv``,
``config.yaml``) and formats them for a terminal.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from acmesim.core.atomic import atomic_write_csv
from acmesim.core.config import ReplayConfig
from acmesim.core.errors import AcmesimError
from acmesim.results.completion import begin_run, incomplete_reason
from acmesim.results.job_delays import DELAY_COLUMNS, by_type_table, duration_text
from acmesim.results.rundirs import COMPLETE, RESULT_FILES, SUMMARY_FILE, read_run


def is_complete(run_dir: Path, config: ReplayConfig) -> bool:
    """True when ``run_dir`` holds a finished, error-free result of exactly this configuration.

    Finished means its completion record (written last) matches ``config`` and vouches for
    every file the run wrote (``acmesim.results.completion``).
    """
    from acmesim.run.identity import config_data

    if read_run(run_dir).status != COMPLETE:
        return False
    return incomplete_reason(run_dir, config_data(config)) is None


def write_failure_summary(run_dir: Path, error: str) -> None:
    """Record a run that failed before the engine could write its own summary.

    The files of an earlier run in ``run_dir`` are removed first (as the engine does), so the
    error never sits next to another configuration's results.
    """
    begin_run(Path(run_dir), RESULT_FILES)
    atomic_write_csv(Path(run_dir) / SUMMARY_FILE, pd.DataFrame({"error": [error]}))


def _number(value: Any, unit: str = "") -> str:
    """A summary value for display: durations humanized, fractions as percent or ratio."""
    if unit == "s":
        return duration_text(value)
    if unit == "%":
        try:
            return f"{float(value) * 100:.1f} %"
        except (TypeError, ValueError):
            return "-"
    if unit == "ratio":
        return f"{float(value):.3f}"
    if unit == "node-h":
        return f"{_amount(value)} {unit}"
    if isinstance(value, float):
        return f"{value:,.1f}"
    return f"{value:,}" if isinstance(value, int) else str(value)


def _amount(value: Any) -> str:
    """A float amount: one decimal from 10 up, three significant digits below."""
    number = float(value)
    return f"{number:,.1f}" if abs(number) >= 10 else f"{number:.3g}"


def _present(value: Any) -> bool:
    """True for a value a summary actually holds (not missing, not NaN)."""
    return value is not None and value == value


Field = tuple[str, str, str]
"""A summary field to show: key (``acmesim.results.schema.SUMMARY``), label, unit of the value."""

HEADLINE: tuple[Field, ...] = (
    ("simulated_jobs", "jobs", ""),
    ("makespan", "makespan", "s"),
    ("gpu_utilization", "GPU utilization", "%"),
    ("queue_delay_mean", "mean queue delay", "s"),
    ("jct_mean", "mean JCT", "s"),
)
"""The run's outcome, first in the report (and the whole one-line report of a sweep's run)."""

LOSS_CAUSES: tuple[tuple[str, str], ...] = (
    ("lost_gpu_hours_failures", "failures"),
    ("lost_gpu_hours_preemptions", "preemptions"),
    ("lost_gpu_hours_checkpoints", "checkpoint stalls"),
)
"""The summary's GPU-hours lost by cause, in the order the report adds them up."""

FAILURE_FIELDS: tuple[Field, ...] = (
    ("failure_events", "failure events", ""),
    ("failures", "interruptions", ""),
    ("node_downtime_hours", "node downtime", "node-h"),
    ("ettr_pretrain", "ETTR Pretrain", "ratio"),
)
"""Shown when a failure model is on (``failure`` other than ``none``)."""

TAIL: tuple[Field, ...] = (("wall_time", "wall time", "s"),)
"""Shown last: how long the replay took."""


def _shown(summary: Mapping[str, Any], fields: tuple[Field, ...]) -> list[tuple[str, str]]:
    """(label, display text) of each of ``fields`` the summary has a value for."""
    return [(label, _number(summary[key], unit)) for key, label, unit in fields
            if _present(summary.get(key))]


def dropped_line(summary: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Trace rows dropped as invalid, with the count per reason (nothing when none were)."""
    count = summary.get("rows_dropped")
    if count is None or not _present(count) or not int(count):
        return []
    return [("rows dropped", f"{int(count):,} ({summary.get('rows_dropped_by_reason', '')})")]


def loss_line(summary: Mapping[str, Any]) -> list[tuple[str, str]]:
    """GPU-hours lost, in total and by cause (or the plain total when causes are missing)."""
    causes = [(label, float(summary[key])) for key, label in LOSS_CAUSES
              if _present(summary.get(key))]
    if causes:
        parts = " + ".join(f"{label} {_amount(value)}" for label, value in causes)
        return [("GPU-hours lost", f"{_amount(sum(v for _, v in causes))} = {parts}")]
    if _present(summary.get("lost_gpu_time")):
        return [("GPU-hours lost", _amount(float(summary["lost_gpu_time"]) / 3600.0))]
    return []


def format_report(result: Any, config: ReplayConfig, run_dir: Path, brief: bool = False) -> str:
    """A short human summary of a finished replay and where its files are."""
    summary = dict(getattr(result, "summary", None) or {})
    headline = _shown(summary, HEADLINE) + dropped_line(summary)
    if brief:
        status = f"failed: {result.error}" if result.error else ", ".join(
            f"{label} {value}" for label, value in headline)
        return f"{run_dir}: {config.run_id or 'default'}: {status}"
    lines = [
        f"replayed trace {config.trace.name!r} on cluster {config.cluster.name!r}: scheduler "
        f"{config.scheduler.name}, placement {config.placement.name}, failure "
        f"{config.failure.name}, checkpoint {config.checkpoint.name}"
        + (f", eval {config.eval.name}" if config.eval.name != "none" else "")
        + f", mode {config.mode}, seed {config.seed}",
    ]
    if result.error:
        lines[0] = "failed to replay" + lines[0].removeprefix("replayed")
    else:
        failures = _shown(summary, FAILURE_FIELDS) if config.failure.name != "none" else []
        shown = headline + loss_line(summary) + failures + _shown(summary, TAIL)
        lines += [f"  {label:<16} {value}" for label, value in shown]
        lines += _type_lines(Path(run_dir) / "jobs.csv")
    files = ", ".join(sorted(p.name for p in Path(run_dir).glob("*.csv")))
    lines.append(f"results in {run_dir} ({files}, config.yaml)")
    return "\n".join(lines)


def _type_lines(jobs_csv: Path) -> list[str]:
    """The per-job-type table of queue delay and JCT, as indented text lines (read from the
    columns it needs alone: the others of a large table would cost the most of its reading)."""
    if not jobs_csv.is_file():
        return []
    try:
        table = by_type_table(pd.read_csv(jobs_csv, usecols=DELAY_COLUMNS.__contains__))
    except (AcmesimError, KeyError, ValueError):
        return []
    lines = [f"  {'job type':<10} {'jobs':>7}  {'queue mean':>10} {'queue p50':>10}  "
             f"{'JCT mean':>10} {'JCT p50':>10}"]
    for job_type, row in table.iterrows():
        lines.append(
            f"  {job_type!s:<10} {int(row.jobs):>7}  {duration_text(row.queue_mean):>10} "
            f"{duration_text(row.queue_p50):>10}  {duration_text(row.jct_mean):>10} "
            f"{duration_text(row.jct_p50):>10}")
    return lines
