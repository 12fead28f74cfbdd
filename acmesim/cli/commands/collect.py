"""``acmesim collect DIR``: merge every run's summary of a sweep into one CSV.

Each row is one run directory: its path relative to DIR, its status (complete, failed, crashed),
its error, the overrides it was started with (one column per key, from ``.hydra/overrides.yaml``)
and its ``summary.csv`` columns. A run that failed keeps its error; a run directory without a
summary is reported as crashed with what its overrides tell. The CSV is written atomically.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acmesim.core.errors import AcmesimError

if TYPE_CHECKING:
    import pandas as pd

    from acmesim.results.rundirs import RunRecord

# pandas and the run-directory readers (YAML) are imported where a sweep is collected, so that
# `acmesim collect --help` loads neither.

DEFAULT_NAME = "sweep_summary.csv"


def collect(sweep_dir: Path) -> pd.DataFrame:
    """One row per run under ``sweep_dir``: run, status, error, overrides, summary columns."""
    import pandas as pd

    from acmesim.results.rundirs import find_runs, read_run

    sweep_dir = Path(sweep_dir)
    if not sweep_dir.is_dir():
        raise AcmesimError(f"{sweep_dir}: no such directory")
    runs = find_runs(sweep_dir)
    if not runs:
        raise AcmesimError(f"{sweep_dir}: no run directories (summary.csv or .hydra/) found")
    rows = [_row(read_run(path), sweep_dir) for path in runs]
    return pd.DataFrame(rows)


def _row(record: RunRecord, sweep_dir: Path) -> dict[str, Any]:
    """A run as one flat row; summary values win over override text for the same key."""
    run = record.path.relative_to(sweep_dir).as_posix() if record.path != sweep_dir else "."
    summary = {k: v for k, v in (record.summary or {}).items() if k != "error"}
    return {"run": run, "status": record.status, "error": record.error,
            **record.overrides, **summary}


def parser() -> argparse.ArgumentParser:
    """The argument parser of ``acmesim collect``."""
    p = argparse.ArgumentParser(prog="acmesim collect", description=__doc__.splitlines()[0])
    p.add_argument("sweep_dir", type=Path, help="a multirun directory (or a single run)")
    p.add_argument("--out", type=Path, default=None,
                   help=f"where to write the CSV (default: SWEEP_DIR/{DEFAULT_NAME})")
    return p


def main(argv: list[str]) -> int:
    """Run ``acmesim collect``; failed and crashed runs are listed, not an error."""
    args = parser().parse_args(argv)  # before the imports: --help needs none of them
    from acmesim.core.atomic import atomic_write_csv
    from acmesim.results.rundirs import COMPLETE

    table = collect(args.sweep_dir)
    out = args.out or args.sweep_dir / DEFAULT_NAME
    atomic_write_csv(out, table)
    counts = table["status"].value_counts()
    parts = ", ".join(f"{counts.get(s, 0)} {s}" for s in (COMPLETE, "failed", "crashed"))
    print(f"{len(table)} runs ({parts}) -> {out}")
    for _, row in table[table["status"] != COMPLETE].iterrows():
        print(f"  {row['run']}: {row['status']}: {row['error']}")
    return 0
