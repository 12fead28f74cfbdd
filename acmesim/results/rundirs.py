"""Run and sweep directories: finding runs, reading their summary and overrides, their status.

A run directory holds ``summary.csv`` (one row, with an ``error`` column that is empty on
success) next to the other result tables, the completion record ``complete.json`` written last
(``acmesim.results.completion``), and, when Hydra made it, ``.hydra/overrides.yaml`` (the
command-line overrides of that run). A sweep directory holds one run directory per job. A run
is complete only when its summary has no error and its completion record vouches for every file; a
summary without a valid record (an interrupted run, or files changed since) counts as crashed.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from acmesim.results.completion import incomplete_reason
from acmesim.results.schema import TABLES

SUMMARY_FILE = "summary.csv"
CONFIG_FILE = "config.yaml"
RESULT_FILES: tuple[str, ...] = (CONFIG_FILE, *(schema.file_name for schema in TABLES))
"""Every file a replay may write into its run directory (and so removes before it starts)."""
OVERRIDES_FILE = Path(".hydra") / "overrides.yaml"
NO_SUMMARY = "no summary.csv: the run stopped before writing its results"

COMPLETE, FAILED, CRASHED = "complete", "failed", "crashed"


@dataclasses.dataclass(frozen=True)
class RunRecord:
    """What a run directory tells about its run."""

    path: Path
    overrides: dict[str, str]
    summary: dict[str, Any] | None
    status: str
    error: str


def _natural_key(path: Path) -> tuple:
    """Sort key putting ``2`` before ``10`` in directory names."""
    parts = re.split(r"(\d+)", path.as_posix())
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in parts)


def is_run_dir(path: Path) -> bool:
    """True when ``path`` holds a run's summary or Hydra's record of a run."""
    return (path / SUMMARY_FILE).is_file() or (path / OVERRIDES_FILE).is_file()


def find_runs(root: Path) -> list[Path]:
    """Every run directory at or under ``root``, in natural order (``0, 1, 2, ..., 10``)."""
    root = Path(root)
    if is_run_dir(root):
        return [root]
    found = {p.parent for p in root.rglob(SUMMARY_FILE)}
    found |= {p.parent.parent for p in root.rglob(OVERRIDES_FILE.as_posix())}
    runs = [p for p in found if ".submitit" not in p.parts]
    return sorted(runs, key=_natural_key)


def read_overrides(run_dir: Path) -> dict[str, str]:
    """The run's command-line overrides as ``key -> value text`` (empty when none recorded)."""
    path = Path(run_dir) / OVERRIDES_FILE
    if not path.is_file():
        return {}
    items = yaml.safe_load(path.read_text(encoding="utf-8")) or []
    pairs = (str(item).lstrip("+~").split("=", 1) for item in items)
    return {pair[0]: pair[1] if len(pair) > 1 else "" for pair in pairs}


def read_summary(run_dir: Path) -> dict[str, Any] | None:
    """The first row of the run's ``summary.csv`` as a dict, or None when there is none."""
    path = Path(run_dir) / SUMMARY_FILE
    if not path.is_file():
        return None
    frame = pd.read_csv(path)
    if frame.empty:
        return None
    return {str(key): _plain(value) for key, value in frame.iloc[0].items()}


def _plain(value: Any) -> Any:
    """A pandas cell as a plain Python value (missing -> None)."""
    if pd.isna(value):
        return None
    return value.item() if hasattr(value, "item") else value


def read_run(run_dir: Path) -> RunRecord:
    """Everything known about one run: overrides, summary, status and error message."""
    run_dir = Path(run_dir)
    overrides = read_overrides(run_dir)
    summary = read_summary(run_dir)
    if summary is None:
        return RunRecord(run_dir, overrides, None, CRASHED, NO_SUMMARY)
    error = str(summary.get("error") or "")
    if error:
        return RunRecord(run_dir, overrides, summary, FAILED, error)
    reason = incomplete_reason(run_dir)
    if reason:
        return RunRecord(run_dir, overrides, summary, CRASHED, reason)
    return RunRecord(run_dir, overrides, summary, COMPLETE, "")


def sweep_report(sweep_dir: Path) -> tuple[str, int]:
    """A short text on a finished sweep (counts by status) and an exit code (1 if any failed)."""
    records = [read_run(path) for path in find_runs(sweep_dir)]
    counts = {status: sum(r.status == status for r in records) for status in (COMPLETE, FAILED,
                                                                               CRASHED)}
    lines = [
        f"sweep of {len(records)} runs in {sweep_dir}: "
        + ", ".join(f"{n} {status}" for status, n in counts.items())
    ]
    for record in records:
        if record.status != COMPLETE:
            lines.append(f"  {record.path.name}: {record.status}: {record.error}")
    lines.append(f"merge the summaries: acmesim collect {sweep_dir}")
    code = 0 if records and counts[COMPLETE] == len(records) else 1
    return "\n".join(lines), code
