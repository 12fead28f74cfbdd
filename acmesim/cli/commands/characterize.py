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
import math
from pathlib import Path
from typing import Any

import pandas as pd

from acmesim import load_trace
from acmesim.analysis.characterize import (
    GPU_CDF_POINTS,
    QUEUE_PERCENTILES,
    RUN_PERCENTILES,
    STATE_CLASSES,
    ComparisonRow,
    characterize,
    comparison_summary,
    row_to_dict,
    to_jsonable,
)
from acmesim.analysis.compare_prior import profile_comparison, profile_names
from acmesim.core.errors import AcmesimError
from acmesim.trace.formats import ACME_SCHEMAS

DURATION_CHOICES = ("auto", "start", "submit")
"""How run time is measured: from start, from submission, or as the file's format defines."""


def parser() -> argparse.ArgumentParser:
    """The argument parser of ``acmesim characterize``."""
    p = argparse.ArgumentParser(
        prog="acmesim characterize",
        description="print the statistics the Acme paper reports for a trace",
        epilog="example: acmesim characterize trace_seren.csv --profile seren")
    p.add_argument("trace", type=Path, help="trace file (Acme, Philly, Helios, PAI CSV)")
    p.add_argument("--profile", choices=profile_names(),
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
        return profile_comparison(stats, profile, jobs)
    from acmesim.analysis.characterize import compare
    from acmesim.synth.generate import check_arguments

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
    if choice != "auto":
        return f"{choice}_time"
    cluster = profile or file_format
    schema = ACME_SCHEMAS.get(cluster)
    return schema.duration_origin if schema else "start_time"


def to_json(trace: Path, file_format: str, stats: dict[str, Any], rows: list[ComparisonRow],
            profile: str | None) -> dict[str, Any]:
    """The whole output as one JSON-ready dict."""
    result: dict[str, Any] = {"trace": str(trace), "format": file_format,
                              "stats": to_jsonable(stats)}
    if profile:
        result["profile"] = profile
        result["comparison"] = [row_to_dict(r) for r in rows]
        result["summary"] = comparison_summary(rows)
    return result


# ------------------------------------------------------------------------------------------------
# Text rendering
# ------------------------------------------------------------------------------------------------


def table(title: str, headers: list[str], rows: list[list[Any]]) -> str:
    """An aligned text table: first column left-aligned, the others right-aligned."""
    cells = [[_cell(v) for v in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) if cells else len(h)
              for i, h in enumerate(headers)]

    def line(values: list[str]) -> str:
        parts = [values[0].ljust(widths[0])]
        parts += [v.rjust(w) for v, w in zip(values[1:], widths[1:], strict=True)]
        return "  ".join(parts).rstrip()

    rule = "-" * len(line(headers))
    return "\n".join([title, rule, line(headers), rule, *(line(r) for r in cells), ""])


def _cell(value: Any) -> str:
    """A table cell: numbers with sensible precision, NaN as '-'."""
    if isinstance(value, str):
        return value
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, int) or float(value).is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.3g}" if abs(value) < 10 else f"{value:.1f}"


def _pct(value: float) -> float:
    """A fraction as percent."""
    return value * 100.0


def render_text(trace: Path, file_format: str, stats: dict[str, Any],
                rows: list[ComparisonRow], profile: str | None) -> str:
    """Every statistics table, then the comparison with the published values."""
    run = "end - submit" if stats["duration_origin"] == "submit_time" else "end - start"
    jobs = stats["jobs"]
    head = (f"trace {trace} (format {file_format}): {jobs['all']:,} jobs = {jobs['gpu']:,} GPU"
            f" + {jobs['cpu']:,} CPU over {stats['span_days']:.1f} days; run time = {run}\n")
    parts = [head, _type_table(stats), _state_table(stats), _demand_tables(stats),
             _run_table(stats), _queue_table(stats), _cpu_table(stats), _arrival_tables(stats)]
    if rows:
        parts.append(_comparison_table(rows, profile or ""))
    return "\n".join(parts)


def _type_table(stats: dict[str, Any]) -> str:
    """Job types: share of jobs and GPU time, GPU quartiles, median run time, mean queue."""
    rows = []
    for t, share in stats["type_job_share"].items():
        gpus = stats["gpu_percentiles"][t]
        rows.append([t, round(share * stats["jobs"]["gpu"]), _pct(share),
                     _pct(stats["type_gpu_time_share"][t]),
                     f"{gpus[25]:g}/{gpus[50]:g}/{gpus[75]:g}",
                     stats["run_time_percentiles"][t][50], stats["queue_mean_by_type"][t]])
    return table("GPU jobs by type", ["type", "jobs", "% jobs", "% GPU time",
                                      "GPUs p25/p50/p75", "run p50 (s)", "queue mean (s)"], rows)


def _state_table(stats: dict[str, Any]) -> str:
    """Final states (TIMEOUT and NODE_FAIL as FAILED) by jobs and by GPU time."""
    rows = [[s, _pct(stats["state_job_share"][s]), _pct(stats["state_gpu_time_share"][s])]
            for s in STATE_CLASSES]
    return table("Final states of GPU jobs (TIMEOUT, NODE_FAIL counted as FAILED)",
                 ["state", "% jobs", "% GPU time"], rows)


def _demand_tables(stats: dict[str, Any]) -> str:
    """GPU demand summary and the GPU-count CDFs."""
    summary = table("GPU demand", ["statistic", "value"], [
        ["1-GPU jobs (%)", _pct(stats["one_gpu_share"])],
        ["mean GPUs per GPU job", stats["mean_gpus"]],
        ["median GPUs", stats["median_gpus"]],
        ["largest job (GPUs)", stats["max_gpus"]],
        ["total GPU time (GPU-h)", stats["total_gpu_time"] / 3600.0],
    ])
    cdf = [[f"<= {k}", _pct(stats["gpu_cdf_jobs"][k]), _pct(stats["gpu_cdf_gpu_time"][k])]
           for k in GPU_CDF_POINTS]
    return summary + "\n" + table("GPU-count CDF", ["GPUs", "% jobs", "% GPU time"], cdf)


def _run_table(stats: dict[str, Any]) -> str:
    """Run-time percentiles per type."""
    rows = [[t, *(p[q] for q in RUN_PERCENTILES), stats["run_time_share_le_65536"][t]]
            for t, p in stats["run_time_percentiles"].items()]
    overall = stats["run_time"]
    rows.append(["all", *(overall["percentiles"][q] for q in RUN_PERCENTILES),
                 overall["share_le_65536"]])
    rows = [[*r[:-1], _pct(r[-1])] for r in rows]
    return table(f"Run time of GPU jobs (s); mean of all {overall['mean']:,.0f} s",
                 ["type", *(f"p{q}" for q in RUN_PERCENTILES), "% <= 65536 s"], rows)


def _queue_table(stats: dict[str, Any]) -> str:
    """Queueing delay per type."""
    rows = [[t, stats["queue_mean_by_type"][t], *(p[q] for q in QUEUE_PERCENTILES),
             _pct(stats["queue_share_le_1"][t])]
            for t, p in stats["queue_percentiles"].items()]
    rows.append(["all", stats["queue_time"]["mean"], stats["queue_time"]["median"],
                 "", "", "", "", ""])
    return table("Queueing delay of GPU jobs (s)",
                 ["type", "mean", *(f"p{q}" for q in QUEUE_PERCENTILES), "% <= 1 s"], rows)


def _cpu_table(stats: dict[str, Any]) -> str:
    """CPU-only jobs."""
    cpu = stats["cpu"]
    if not cpu.get("jobs"):
        return "CPU-only jobs: none\n"
    rows: list[list[Any]] = [["run time mean / median (s)", f"{cpu['run_time_mean']:.0f} / "
             f"{cpu['run_time_median']:.0f}"],
            ["queue mean / median (s)", f"{cpu['queue_mean']:.1f} / {cpu['queue_median']:.0f}"],
            *([f"{s} (%)", _pct(v)] for s, v in cpu["state_job_share"].items())]
    return table(f"CPU-only jobs ({cpu['jobs']:,})", ["statistic", "value"], rows)


def _arrival_tables(stats: dict[str, Any]) -> str:
    """Arrival rates, burstiness, batches, hourly and weekday profiles."""
    a = stats["arrivals"]
    b = a["batches"]
    every = a["all_jobs"]
    rows = [
        ["jobs per day (all / GPU)", f"{a['jobs_per_day']:,.0f} / {a['gpu_jobs_per_day']:,.0f}"],
        ["inter-arrival CV of all jobs (Poisson = 1)", every["interarrival_cv"]],
        ["all jobs sharing their submit second with another (%)",
         _pct(every["same_second_share"])],
        ["busiest hour / median hour (all jobs)", every["max_median_hourly"]],
        ["jobs of the top-5 users (%)", _pct(every["top5_user_share"])],
        ["inter-arrival CV of GPU jobs (Poisson = 1)", a["interarrival_cv"]],
        ["GPU jobs submitted in the same second as the previous (%)",
         _pct(a["same_second_share"])],
        [f"batches (>= {b.get('min_jobs', 0)} GPU jobs, one user, one second)", b.get("count", 0)],
        ["  mean / largest batch (jobs)", f"{b.get('mean_size', 0):.1f} / {b.get('max_size', 0)}"],
        ["  GPU jobs in batches (%)", _pct(b.get("share_of_gpu_jobs", 0.0))],
        ["  Eval jobs in batches (%)", _pct(b.get("eval_share_in_batches", 0.0))],
    ]
    shares = [_pct(v) for v in a["hourly_share"]]
    hourly = [[f"{h:02d}:00-{h + 5:02d}:59", *shares[h:h + 6]] for h in range(0, 24, 6)]
    days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    weekly = [[d, _pct(v)] for d, v in zip(days, a["weekday_share"], strict=True)]
    return "\n".join([
        table("Arrivals", ["statistic", "value"], rows),
        table("GPU job submissions per local hour (UTC+8), % of all",
              ["hours", *(f"+{k}h" for k in range(6))], hourly),
        table("GPU job submissions per weekday, % of all", ["day", "%"], weekly),
    ])


def _comparison_table(rows: list[ComparisonRow], profile: str) -> str:
    """Published vs measured, with the error, the tolerance and the verdict of every row."""
    lines = []
    for r in rows:
        percent = r.unit == "%"
        published = _pct(r.published) if percent else r.published
        measured = _pct(r.measured) if percent else r.measured
        error, tolerance = _error_and_tolerance(r, published)
        verdict = {True: "pass", False: "FAIL", None: "-"}[r.passed]
        unit = " (%)" if percent else ""
        lines.append([f"{r.group}: {r.metric}{unit}", published, measured, error, tolerance,
                      verdict])
    summary = comparison_summary(rows)
    title = (f"Published {profile} statistics vs this trace: {summary['passed']} of "
             f"{summary['criteria']} criteria pass")
    return table(title, ["statistic", "published", "measured", "error", "tolerance", "verdict"],
                 lines)


def _error_and_tolerance(row: ComparisonRow, published: float) -> tuple[str, str]:
    """The error and the tolerance of a comparison row, as text in the tolerance's unit."""
    t = row.tolerance
    kind = t.kind if t else ("points" if row.unit == "%" else "relative")
    error = row.error
    if kind in ("at_most", "above") or math.isnan(error) or math.isinf(error):
        shown = "-"  # a bound: the verdict says it all
    elif kind == "points":
        shown = f"{error:+.2f} pt"
    elif kind == "factor":
        shown = f"x{2.0 ** error:.2f}"
    else:
        shown = f"{error:+.1%}"
    if t is None:
        return shown, ""
    bound = _cell(published)
    return shown, {"points": f"±{t.value:g} pt", "relative": f"±{t.value:.0%}",
                   "factor": f"x{2.0 ** t.value:.3g}", "at_most": f"<= {bound}",
                   "above": f"> {bound}"}[kind]
