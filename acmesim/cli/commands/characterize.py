"""``acmesim characterize TRACE``: print the statistics the Acme paper reports for a trace.

Reads any trace ``acmesim.load_trace`` knows (a real Acme file or a synthetic one). With
``--profile seren|kalos`` it puts every published value beside the measured one, with the error
and a pass/fail for the calibration criteria; ``--json`` prints the same machine-readably.
``--plot DIR`` also draws the paper's characterization figures into ``DIR`` as PNG files.
The statistics themselves are ``acmesim.analysis.characterize``, the figures
``acmesim.analysis.plots.plot_trace``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acmesim.core.errors import AcmesimError
from acmesim.trace.targets_prior import comparison_profile_names

if TYPE_CHECKING:
    import pandas as pd

    from acmesim.analysis.characterize import ComparisonRow

# The trace reader, the statistics and the text tables (numpy, pandas) are imported where they
# are used, so that `acmesim characterize --help` does not load them.

DURATION_CHOICES = ("auto", "start", "submit")
"""How run time is measured: from start, from submission, or as the file's format defines."""


def parser() -> argparse.ArgumentParser:
    """The argument parser of ``acmesim characterize``."""
    p = argparse.ArgumentParser(
        prog="acmesim characterize",
        description="print the statistics the Acme paper reports for a trace",
        epilog="example: acmesim characterize trace_seren.csv --profile seren")
    p.add_argument("trace", type=Path, help="trace file (Acme, Philly, Helios, PAI CSV)")
    p.add_argument("--profile", choices=comparison_profile_names(),
                   help="compare with this cluster's (or prior trace's) published statistics")
    p.add_argument("--scale", type=float, default=1.0,
                   help="the trace is --scale K of the profile (acmesim synth --scale K): its "
                        "job counts, GPU time and cluster are compared with K x the published "
                        "ones (seren, kalos; default 1)")
    p.add_argument("--format", default="auto", help="trace format (default: detect)")
    p.add_argument("--duration", choices=DURATION_CHOICES, default="auto",
                   help="run time = end - start or end - submit; auto: as the cluster's "
                        "published 'duration' (Kalos counts from submission)")
    p.add_argument("--json", action="store_true", help="print JSON instead of tables")
    p.add_argument("--strict", action="store_true",
                   help="exit with status 1 when a calibration criterion fails")
    p.add_argument("--plot", type=Path, metavar="DIR",
                   help="also draw the paper's figures (job types, final states, GPU demand, "
                        "durations) as PNG files into DIR and print their paths "
                        "(with --json: in its 'figures' list)")
    return p


def main(argv: list[str]) -> int:
    """Load the trace, compute its statistics, print them (and the comparison, the figures)."""
    args = parser().parse_args(argv)
    from acmesim import load_trace
    from acmesim.analysis.characterize import characterize, comparison_summary
    from acmesim.cli.commands.characterize_text import render_text

    jobs = load_trace(args.trace, format=args.format)
    report = jobs.attrs.get("load_report")
    file_format = getattr(report, "format", args.format)
    origin = duration_origin(args.duration, args.profile, file_format)
    if not (jobs["gpu_num"] > 0).any():
        raise AcmesimError(f"{args.trace}: the trace has no GPU jobs to characterize")
    stats = characterize(jobs, duration_origin=origin)
    rows = _comparison(stats, args.profile, args.scale, jobs) if args.profile else []
    figures = draw_figures(jobs, args.plot, origin) if args.plot is not None else []
    if args.json:
        result = to_json(args.trace, file_format, stats, rows, args.profile)
        if args.plot is not None:
            result["figures"] = [str(p) for p in figures]
        print(json.dumps(result, indent=1))
    else:
        print(render_text(args.trace, file_format, stats, rows, args.profile))
        if figures:
            print("figures written:", *figures, sep="\n")
    failed = comparison_summary(rows)["failed"] if rows else 0
    return 1 if args.strict and failed else 0


def _comparison(stats: dict[str, Any], profile: str, scale: float, jobs: pd.DataFrame
                ) -> list[ComparisonRow]:
    """The published statistics of ``profile`` (scaled ``scale`` x) beside ``stats``."""
    if scale == 1:
        from acmesim.analysis.compare_prior import profile_comparison

        return profile_comparison(stats, profile, jobs)
    from acmesim.analysis.characterize import compare
    from acmesim.synth.generate import check_arguments
    from acmesim.trace.formats import ACME_SCHEMAS

    if profile not in ACME_SCHEMAS:
        raise AcmesimError(f"--scale applies to the Acme profiles ({', '.join(ACME_SCHEMAS)}), "
                           f"not {profile!r}")
    return compare(stats, check_arguments(profile, 1, 0, scale).targets)


def draw_figures(jobs: pd.DataFrame, out_dir: Path, origin: str) -> list[Path]:
    """The paper's figures of ``jobs`` as PNG files in ``out_dir``, run time from ``origin``."""
    from acmesim.analysis.plots import plot_trace  # matplotlib only when figures are wanted

    run_time = (jobs["end_time"] - jobs[origin]).dt.total_seconds()
    return [Path(out_dir) / name for name in plot_trace(jobs.assign(run_time=run_time), out_dir)]


def duration_origin(choice: str, profile: str | None, file_format: str) -> str:
    """``start_time`` or ``submit_time``: as chosen, else as the cluster's published duration."""
    from acmesim.trace.formats import ACME_SCHEMAS

    if choice != "auto":
        return f"{choice}_time"
    cluster = profile or file_format
    schema = ACME_SCHEMAS.get(cluster)
    return schema.duration_origin if schema else "start_time"


def to_json(trace: Path, file_format: str, stats: dict[str, Any], rows: list[ComparisonRow],
            profile: str | None) -> dict[str, Any]:
    """The whole output as one JSON-ready dict."""
    from acmesim.analysis.characterize import comparison_summary, row_to_dict, to_jsonable

    result: dict[str, Any] = {"trace": str(trace), "format": file_format,
                              "stats": to_jsonable(stats)}
    if profile:
        result["profile"] = profile
        result["comparison"] = [row_to_dict(r) for r in rows]
        result["summary"] = comparison_summary(rows)
    return result
