"""The text tables of ``acmesim characterize``: every statistic, then the published comparison.

Imported by the command when it prints, so ``acmesim characterize --help`` loads none of the
analysis (numpy, pandas).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from acmesim.analysis.characterize import (
    GPU_CDF_POINTS,
    QUEUE_PERCENTILES,
    RUN_PERCENTILES,
    STATE_CLASSES,
    ComparisonRow,
    comparison_summary,
)


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
        verdict = "pass*" if r.by_sampling else {True: "pass", False: "FAIL", None: "-"}[r.passed]
        unit = " (%)" if percent else ""
        lines.append([f"{r.group}: {r.metric}{unit}", published, measured, error, tolerance,
                      verdict])
    summary = comparison_summary(rows)
    title = (f"Published {profile} statistics vs this trace: {summary['passed']} of "
             f"{summary['criteria']} criteria pass")
    text = table(title, ["statistic", "published", "measured", "error", "tolerance", "verdict"],
                 lines)
    if summary["passed_by_sampling"]:
        text += (f"\n* {summary['passed_by_sampling']} of them outside the tolerance but inside "
                 "the 95 % sampling band of the trace's percentile (too few jobs to tell them "
                 "apart; acmesim/analysis/sampling.py)")
    return text


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
