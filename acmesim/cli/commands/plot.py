"""``acmesim plot DIR``: draw PNG figures of a run directory or of a sweep directory.

A run directory (it holds ``jobs.csv``) gets CDFs of queue delay and JCT per job type and busy
GPUs / queue length over time; a sweep directory gets bar charts comparing its runs and their
JCT CDFs. Figures go to ``DIR/figures`` unless ``--out`` says otherwise.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from acmesim.core.errors import AcmesimError


def parser() -> argparse.ArgumentParser:
    """The argument parser of ``acmesim plot``."""
    p = argparse.ArgumentParser(prog="acmesim plot", description=__doc__.splitlines()[0])
    p.add_argument("directory", type=Path, help="a run directory or a multirun directory")
    p.add_argument("--out", type=Path, default=None,
                   help="where to write the PNG files (default: DIRECTORY/figures)")
    return p


def main(argv: list[str]) -> int:
    """Run ``acmesim plot``; print the figures written."""
    args = parser().parse_args(argv)
    from acmesim.analysis.plots import plot_run, plot_sweep

    directory: Path = args.directory
    if not directory.is_dir():
        raise AcmesimError(f"{directory}: no such directory")
    draw = plot_run if (directory / "jobs.csv").is_file() else plot_sweep
    out = args.out if args.out is not None else directory / "figures"
    for name in draw(directory, out):
        print(out / name)
    return 0
