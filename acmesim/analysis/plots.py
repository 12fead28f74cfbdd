"""Figures of a run, of a sweep, and of a trace (the Acme paper's characterization plots).

Every function returns matplotlib ``Figure`` objects (a notebook shows them inline) and, given a
path or an output directory, also writes them as PNG files, atomically. They are built without
pyplot, so no display and no global figure state is needed.
Run figures: CDFs of queue delay and JCT per job type, the paper's Fig. 7 panels (run time and
queueing delay per type), busy GPUs and queue length over time, and (with a power model)
cluster power over time, stacked by GPU state. Sweep figures: bar charts of the
runs' summary metrics in readable units (mean and spread over seeds, value-labelled, log axis
when the bars span more than 100x; none for a metric that is zero everywhere), JCT CDFs per
configuration and one queueing-delay CDF panel per job type. Trace figures follow the paper (Hu
et al., NSDI '24; reference figures in the AcmeTrace release): job-type shares, final-state
shares, GPU demand, durations.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from acmesim.core.atomic import atomic_open
from acmesim.core.errors import AcmesimError
from acmesim.results.job_delays import duration_text, job_delays, seconds
from acmesim.results.rundirs import COMPLETE, find_runs, read_run
from acmesim.results.schema import SUMMARY
from acmesim.trace.schema import FAILED_STATES, JOB_TYPES

DPI = 110
JOB_METRICS = {"queue_delay": "queue delay", "jct": "job completion time"}
STATE_GROUPS = {"Completed": {"COMPLETED"}, "Canceled": {"CANCELLED"}, "Failed": FAILED_STATES}
"""The paper's three final-state classes (TIMEOUT and NODE_FAIL count as failed)."""
SWEEP_METRICS = ("jct_mean", "jct_p95", "queue_delay_mean", "queue_delay_p95", "gpu_utilization",
                 "makespan", "lost_gpu_time", "failures", "preemptions", "energy_kwh",
                 "energy_idle_kwh", "energy_lost_failures_kwh")
"""Summary columns (``acmesim.results.schema.SUMMARY``) compared across a sweep, when present."""
UNITS = {c.name: c.unit for c in SUMMARY.columns}
"""Each summary column's unit, as the schema declares it."""
TIME_UNITS = (("d", 86400.0), ("h", 3600.0), ("min", 60.0), ("s", 1.0))
"""Display units of a duration, largest first."""
TIME_TICKS = ((1, "1 s"), (10, "10 s"), (60, "1 min"), (600, "10 min"), (3600, "1 h"),
              (86400, "1 d"), (864000, "10 d"), (8640000, "100 d"))
"""Labelled ticks of a logarithmic time axis (CDFs and log-scale duration bars)."""
LOG_RATIO = 100.0
"""Bars are drawn on a log axis when the largest is more than this many times the smallest."""

Figures = dict[str, Figure]
"""Figures by file name (``queue_delay_cdf.png`` ...), as the multi-figure functions return them."""


def write_png(fig: Figure, path: Path) -> Path:
    """Write ``fig`` as a PNG at ``path`` atomically (the figure stays usable)."""
    with atomic_open(path, "wb") as handle:
        fig.savefig(handle, format="png", dpi=DPI, bbox_inches="tight",
                    metadata={"Software": None})
    return Path(path)


def save_figure(fig: Figure, path: Path) -> Path:
    """Write ``fig`` as a PNG at ``path`` atomically and release it (pyplot figures too)."""
    write_png(fig, path)
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:
        pyplot.close(fig)
    return Path(path)


def _finish(fig: Figure, path: Path | None) -> Figure:
    """Save ``fig`` when a path is given; return it (a notebook shows it inline)."""
    if path is not None:
        write_png(fig, path)
    return fig


def save_all(figures: Figures, out_dir: Path | None) -> Figures:
    """Write every figure as ``out_dir/<name>`` when ``out_dir`` is given; return them."""
    if out_dir is not None:
        for name, fig in figures.items():
            write_png(fig, Path(out_dir) / name)
    return figures


def cdf_points(values: Iterable[float]) -> tuple[np.ndarray, np.ndarray]:
    """Sorted values and their empirical CDF in percent (NaNs dropped)."""
    data = np.sort(np.asarray(pd.Series(values).dropna(), dtype=float))
    return data, np.arange(1, len(data) + 1) / max(len(data), 1) * 100.0


def _ordered_types(types: Iterable[str]) -> list[str]:
    """Job types in the paper's order, unknown ones after, alphabetically."""
    present = set(types)
    return [t for t in JOB_TYPES if t in present] + sorted(present - set(JOB_TYPES))


def time_axis(ax: Axes, largest: float, axis: str = "x") -> None:
    """A log time axis from 1 s with ticks named in readable units (1 min, 1 h, 1 d ...)."""
    top = max(float(largest), 10.0) * 1.5
    ticks = [(v, label) for v, label in TIME_TICKS if v <= top]
    if axis == "x":
        ax.set_xscale("log")
        ax.set_xlim(1, top)
        ax.set_xticks([v for v, _ in ticks], [label for _, label in ticks])
    else:
        ax.set_yscale("log")
        ax.set_ylim(1, top)
        ax.set_yticks([v for v, _ in ticks], [label for _, label in ticks])


def _cdf_panel(ax: Axes, frame: pd.DataFrame, metric: str, groups: str = "type") -> None:
    """CDF curves of ``metric`` (s) per value of column ``groups``, on a log time axis."""
    names = _ordered_types(frame[groups]) if groups == "type" else list(
        dict.fromkeys(frame[groups]))
    for name in names:
        x, y = cdf_points(frame.loc[frame[groups] == name, metric])
        if len(x):
            ax.step(np.maximum(x, 1.0), y, where="post", label=f"{name} ({len(x):,})")
    largest = float(frame[metric].max()) if len(frame) else 1.0
    time_axis(ax, largest if largest == largest else 1.0)
    ax.set(ylabel="CDF of jobs (%)", ylim=(0, 100))
    ax.grid(True, linestyle=":")
    ax.legend(fontsize="small")


def plot_cdf_by_type(frame: pd.DataFrame, metric: str, path: Path | None = None) -> Figure:
    """One CDF curve of ``metric`` (``queue_delay`` or ``jct``) per job type, log time axis."""
    fig = Figure(figsize=(6, 4))
    ax = fig.subplots()
    _cdf_panel(ax, frame, metric)
    ax.set(xlabel=f"{JOB_METRICS[metric]} (values < 1 s drawn at 1 s)")
    return _finish(fig, path)


def plot_type_cdfs(jobs: pd.DataFrame, path: Path | None = None) -> Figure:
    """The paper's Fig. 7 layout: CDFs per job type of (a) GPU job run time, (b) queueing delay."""
    gpu = jobs[pd.to_numeric(jobs["gpu_num"], errors="coerce") > 0] if "gpu_num" in jobs else jobs
    frame = job_delays(gpu).assign(run_time=pd.to_numeric(gpu["run_time"], errors="coerce")
                                   .to_numpy()) if "run_time" in gpu else job_delays(gpu)
    fig = Figure(figsize=(11, 4))
    panels = fig.subplots(1, 2, sharey=True)
    for ax, metric, title in ((panels[0], "run_time", "(a) GPU job duration"),
                              (panels[1], "queue_delay", "(b) queueing delay")):
        if metric in frame:
            _cdf_panel(ax, frame, metric)
        ax.set(xlabel=f"{title.split(') ')[1]} (values < 1 s drawn at 1 s)", title=title)
    fig.tight_layout()
    return _finish(fig, path)


def _read_csv(path: Path) -> pd.DataFrame:
    """A result table, with a clear error when it is missing."""
    if not path.is_file():
        raise AcmesimError(f"{path}: not found (is this a run directory?)")
    return pd.read_csv(path)


def plot_utilization(util: pd.DataFrame, path: Path | None = None) -> Figure:
    """Busy GPUs and queue length over simulated time (days), one panel each."""
    time = seconds(util[_first(util, ("interval_start", "time"))]) / 86400.0
    time = time - time.min()
    series = [c for c in util.columns if c in ("busy_gpus", "queue_length")] or [
        c for c in util.columns[1:] if pd.api.types.is_numeric_dtype(util[c])][:2]
    fig = Figure(figsize=(7, 2.4 * len(series)))
    axes = fig.subplots(len(series), 1, sharex=True, squeeze=False)
    for ax, column in zip(axes[:, 0], series, strict=True):
        ax.step(time, util[column], where="post")
        ax.set(ylabel=column.replace("_", " "))
        ax.grid(True, linestyle=":")
    axes[-1, 0].set(xlabel="simulated time (days)")
    return _finish(fig, path)


POWER_STATES = {"power_running_kw": "running", "power_waiting_kw": "waiting",
                "power_idle_kw": "idle"}
"""utilization.csv power columns by GPU state, stacked bottom to top."""


def has_power(util: pd.DataFrame) -> bool:
    """Whether ``util`` carries power (a run with a power model)."""
    return "power_kw" in util and bool(
        pd.to_numeric(util["power_kw"], errors="coerce").notna().any())


def plot_power(util: pd.DataFrame, path: Path | None = None) -> Figure:
    """Cluster wall power over simulated time (days), stacked by GPU state, total on top."""
    time = seconds(util["interval_start"]) / 86400.0
    time = time - time.min()
    fig = Figure(figsize=(7, 3.2))
    ax = fig.subplots()
    layers = [util[c].to_numpy(dtype=float) for c in POWER_STATES]
    ax.stackplot(time, layers, labels=list(POWER_STATES.values()), step="post", alpha=0.8)
    ax.step(time, util["power_kw"], where="post", color="black", linewidth=0.8, label="total")
    ax.set(xlabel="simulated time (days)", ylabel="power (kW)", ylim=(0, None))
    ax.grid(True, linestyle=":")
    ax.legend(fontsize="small", loc="lower right")
    return _finish(fig, path)


def _first(frame: pd.DataFrame, names: Sequence[str]) -> str:
    """The first of ``names`` that is a column of ``frame`` (else its first column)."""
    return next((n for n in names if n in frame.columns), frame.columns[0])


def plot_run(run_dir: Path, out_dir: Path | None = None) -> Figures:
    """Figures of one run: queue-delay and JCT CDFs per job type, the Fig. 7 panels, utilization,
    and power over time by GPU state when the run had a power model.

    Returns them by file name; with ``out_dir`` they are also written there as PNG files.
    """
    run_dir = Path(run_dir)
    jobs = _read_csv(run_dir / "jobs.csv")
    delays = job_delays(jobs)
    figures: Figures = {f"{m}_cdf.png": plot_cdf_by_type(delays, m) for m in JOB_METRICS}
    figures["type_cdfs.png"] = plot_type_cdfs(jobs)
    util = _read_csv(run_dir / "utilization.csv")
    figures["utilization.png"] = plot_utilization(util)
    if has_power(util):
        figures["power.png"] = plot_power(util)
    return save_all(figures, out_dir)


# --- sweeps -------------------------------------------------------------------------------


def sweep_table(sweep_dir: Path) -> tuple[pd.DataFrame, list[str]]:
    """Complete runs of a sweep (overrides + summary) and the override keys that vary."""
    records = [read_run(p) for p in find_runs(Path(sweep_dir))]
    rows = [{"_path": str(r.path), **r.overrides, **(r.summary or {})}
            for r in records if r.status == COMPLETE]
    if not rows:
        raise AcmesimError(f"{sweep_dir}: no complete runs to plot")
    table = pd.DataFrame(rows)
    keys = sorted({k for r in records for k in r.overrides} - {"seed"})
    varying = [k for k in keys if k in table and table[k].astype(str).nunique() > 1]
    return table, varying


def _labels(table: pd.DataFrame, keys: list[str]) -> pd.Series:
    """One label per run naming its configuration (``seed`` excluded)."""
    if not keys:
        return pd.Series(["all runs"] * len(table), index=table.index)
    return table[keys].astype(str).apply(
        lambda row: ", ".join(f"{k}={v}" for k, v in row.items()), axis=1)


def display_scale(unit: str, values: Iterable[float]) -> tuple[float, str]:
    """Divisor and unit label that make ``values`` (in ``unit``) readable.

    Durations in seconds become min, h or d by their largest value; GPU-seconds become
    GPU-hours; fractions become percent; anything else is shown as is.
    """
    finite = [abs(float(v)) for v in values if v == v]
    largest = max(finite, default=0.0)
    if unit == "s":
        return next((size, name) for name, size in TIME_UNITS if largest >= size or size == 1.0)
    if unit == "GPU-s":
        return 3600.0, "GPU-h"
    if unit == "fraction":
        return 0.01, "%"
    return 1.0, unit if unit not in ("-", "count") else ("count" if unit == "count" else "")


def _value_text(value: float) -> str:
    """A bar's label: three significant digits, thousands separated."""
    if value != value:
        return ""
    if abs(value) >= 100:
        return f"{value:,.0f}"
    return f"{value:.3g}"


def plot_bars(means: pd.Series, errors: pd.Series, metric: str, unit: str,
              path: Path | None = None) -> Figure:
    """Horizontal bars of ``means`` per configuration, in readable units, value-labelled.

    The error bar is the standard deviation over seeds. Values spanning more than
    ``LOG_RATIO``x are drawn on a log axis so a short bar stays visible beside a long one.
    """
    positive = means[means > 0]
    log = len(positive) > 1 and positive.max() / positive.min() > LOG_RATIO
    scale, label = (1.0, "s") if log and unit == "s" else display_scale(unit, means)
    shown, spread = means / scale, errors.fillna(0) / scale
    fig = Figure(figsize=(7, 0.5 * len(means) + 1.6))
    ax = fig.subplots()
    bars = ax.barh(range(len(shown)), shown.to_numpy(), xerr=spread.to_numpy(),
                   color="tab:blue", edgecolor="black", capsize=3)
    texts = [duration_text(v) for v in means] if unit == "s" else [_value_text(v) for v in shown]
    ax.bar_label(bars, labels=texts, padding=4, fontsize="small")
    ax.set_yticks(range(len(shown)), means.index)
    ax.invert_yaxis()
    if log:
        ax.set_xscale("log")
        low, high = positive.min() / scale / 3, positive.max() / scale * 8
        ax.set_xlim(low, high)
        if unit == "s":  # name the ticks in readable units: 1 min, 1 h, 1 d ...
            ticks = [(v, text) for v, text in TIME_TICKS if low <= v <= high]
            ax.set_xticks([v for v, _ in ticks], [text for _, text in ticks])
            label = ""
    else:
        ax.set_xlim(0, max(float((shown + spread).max()), 1e-12) * 1.2)
    unit_text = f" ({label})" if label else ""
    scale_text = ", log scale" if log else ""
    ax.set(xlabel=f"{metric}{unit_text}: mean over seeds, bar = std{scale_text}")
    ax.grid(True, axis="x", linestyle=":")
    return _finish(fig, path)


def _sweep_metrics(table: pd.DataFrame) -> list[str]:
    """The known summary metrics this sweep has values for, other than all zero."""
    numeric = [m for m in SWEEP_METRICS
               if m in table and pd.api.types.is_numeric_dtype(table[m]) and table[m].notna().any()]
    return [m for m in numeric if (table[m].fillna(0) != 0).any()]


def plot_sweep(sweep_dir: Path, out_dir: Path | None = None) -> Figures:
    """Bar charts comparing a sweep's configurations, JCT CDFs, per-type queueing CDF panels.

    A metric that is zero in every run (no failures modeled, no preemptions) gets no chart.
    Returns the figures by file name; with ``out_dir`` they are also written there.
    """
    table, keys = sweep_table(Path(sweep_dir))
    table["_label"] = _labels(table, keys)
    grouped = table.groupby("_label", sort=False)
    figures: Figures = {
        f"sweep_{m}.png": plot_bars(grouped[m].mean(), grouped[m].std(), m, UNITS.get(m, ""))
        for m in _sweep_metrics(table)
    }
    jobs = _sweep_jobs(table)
    figures["sweep_jct_cdf.png"] = _sweep_cdf(jobs)
    figures["sweep_queue_delay_by_type.png"] = plot_sweep_type_panels(jobs)
    return save_all(figures, out_dir)


def _sweep_jobs(table: pd.DataFrame) -> pd.DataFrame:
    """Every job of every complete run, with its configuration's label in ``config``."""
    frames = [job_delays(pd.read_csv(Path(p) / "jobs.csv")).assign(config=str(label))
              for p, label in zip(table["_path"], table["_label"], strict=True)
              if (Path(p) / "jobs.csv").is_file()]
    if not frames:
        return pd.DataFrame(columns=["type", "queue_delay", "jct", "config"])
    return pd.concat(frames, ignore_index=True)


def _sweep_cdf(jobs: pd.DataFrame) -> Figure:
    """JCT CDF per configuration, pooling the jobs of all its seeds."""
    fig = Figure(figsize=(6, 4))
    ax = fig.subplots()
    _cdf_panel(ax, jobs, "jct", groups="config")
    ax.set(xlabel=f"{JOB_METRICS['jct']} (values < 1 s drawn at 1 s)")
    return fig


def plot_sweep_type_panels(jobs: pd.DataFrame, path: Path | None = None) -> Figure:
    """One panel per job type: the queueing-delay CDF of each configuration (seeds pooled)."""
    types = _ordered_types(jobs["type"]) or ["all"]
    columns = min(3, len(types))
    rows = math.ceil(len(types) / columns)
    fig = Figure(figsize=(4.6 * columns, 3.4 * rows))
    axes = fig.subplots(rows, columns, squeeze=False, sharey=True)
    for ax, job_type in zip(axes.flat, types, strict=False):
        _cdf_panel(ax, jobs[jobs["type"] == job_type], "queue_delay", groups="config")
        ax.set(title=job_type, xlabel="queueing delay")
    for ax in list(axes.flat)[len(types):]:
        ax.set_visible(False)
    fig.tight_layout()
    return _finish(fig, path)


# --- trace characterization (the paper's figures) -----------------------------------------


def _gpu_jobs(jobs: pd.DataFrame) -> pd.DataFrame:
    """GPU jobs with their GPU time (run_time x gpu_num), as the paper's figures use."""
    gpu = jobs[pd.to_numeric(jobs["gpu_num"], errors="coerce") > 0].copy()
    if gpu.empty:
        raise AcmesimError("the trace has no GPU jobs to characterize")
    gpu["gpu_time"] = gpu["run_time"].astype(float) * gpu["gpu_num"].astype(float)
    return gpu


def _percent_bars(ax: Axes, shares: pd.DataFrame, title: str) -> None:
    """Grouped bars of percentage shares (rows = bar groups, columns = series), labelled."""
    width = 0.8 / max(len(shares.columns), 1)
    for i, column in enumerate(shares.columns):
        xs = np.arange(len(shares)) + (i - (len(shares.columns) - 1) / 2) * width
        bars = ax.bar(xs, shares[column], width, label=column, edgecolor="black")
        ax.bar_label(bars, fmt="%.1f", fontsize="x-small")
    ax.set_xticks(range(len(shares)), shares.index)
    ax.set(ylabel="fraction (%)", ylim=(0, 105), title=title)
    ax.grid(True, axis="y", linestyle=":")


def plot_type_shares(gpu: pd.DataFrame, path: Path | None = None) -> Figure:
    """Share of GPU jobs and of GPU time per job type (the paper's job-distribution figure)."""
    order = _ordered_types(gpu["type"])
    shares = pd.DataFrame({
        "job count": gpu["type"].value_counts(normalize=True).reindex(order) * 100,
        "GPU time": gpu.groupby("type")["gpu_time"].sum().reindex(order)
        / gpu["gpu_time"].sum() * 100,
    }).fillna(0.0)
    fig = Figure(figsize=(7, 3.5))
    ax = fig.subplots()
    _percent_bars(ax, shares, "GPU jobs by type")
    ax.legend()
    return _finish(fig, path)


def _state_class(states: pd.Series) -> pd.Series:
    """Each final state as Completed, Canceled or Failed (the paper's classes)."""
    lookup = {s: name for name, members in STATE_GROUPS.items() for s in members}
    return states.astype(str).map(lookup).fillna("Other")


def plot_state_shares(gpu: pd.DataFrame, path: Path | None = None) -> Figure:
    """Final-state shares by job count and by GPU time (the paper's job-state figure)."""
    classes = _state_class(gpu["state"])
    order = [c for c in [*STATE_GROUPS, "Other"] if c in set(classes)]
    count = classes.value_counts(normalize=True).reindex(order).fillna(0) * 100
    time = gpu.groupby(classes)["gpu_time"].sum().reindex(order).fillna(0)
    time = time / max(time.sum(), 1e-12) * 100
    fig = Figure(figsize=(8, 3.5))
    axes = fig.subplots(1, 2, sharey=True)
    for ax, values, title in ((axes[0], count, "(a) job count"), (axes[1], time, "(b) GPU time")):
        _percent_bars(ax, values.to_frame().T.rename(index={values.name: ""}), title)
    axes[1].legend()
    return _finish(fig, path)


def plot_gpu_demand(gpu: pd.DataFrame, path: Path | None = None) -> Figure:
    """CDF of GPUs per job by job count and by GPU time, log2 axis (the paper's GPU-demand CDF)."""
    order = gpu.sort_values("gpu_num")
    sizes = order["gpu_num"].astype(float).to_numpy()
    by_time = np.cumsum(order["gpu_time"].to_numpy()) / max(order["gpu_time"].sum(), 1e-12)
    fig = Figure(figsize=(8, 3.5))
    axes = fig.subplots(1, 2)
    x, y = cdf_points(sizes)
    axes[0].step(x, y, where="post")
    axes[1].step(sizes, by_time * 100, where="post")
    ticks = [t for t in (1, 4, 16, 64, 256, 1024, 4096) if t <= max(sizes.max(), 1024)]
    for ax, label in zip(axes, ("CDF of jobs (%)", "CDF of GPU time (%)"), strict=True):
        ax.set_xscale("log", base=2)
        ax.set_xticks(ticks, [str(t) for t in ticks])
        ax.set(xlabel="number of GPUs", ylabel=label, ylim=(0, 100))
        ax.grid(True, linestyle=":")
    fig.tight_layout()
    return _finish(fig, path)


def plot_durations(gpu: pd.DataFrame, path: Path | None = None) -> Figure:
    """CDF of GPU job duration per job type, log x (the paper's duration-by-type figure)."""
    frame = pd.DataFrame({"type": gpu["type"].astype(str), "run_time": gpu["run_time"]})
    fig = Figure(figsize=(6, 4))
    ax = fig.subplots()
    for job_type in _ordered_types(frame["type"]):
        x, y = cdf_points(frame.loc[frame["type"] == job_type, "run_time"])
        ax.step(np.maximum(x, 1.0), y, where="post", label=job_type)
    ax.set(xscale="log", xlabel="job duration (s)", ylabel="CDF (%)", ylim=(0, 100))
    ax.grid(True, linestyle=":")
    ax.legend(fontsize="small")
    return _finish(fig, path)


def plot_trace(jobs: pd.DataFrame, out_dir: Path | None = None) -> Figures:
    """The paper's characterization figures of a normalized job table, by file name.

    With ``out_dir`` they are also written there as PNG files.
    """
    gpu = _gpu_jobs(jobs)
    return save_all({
        "trace_type_shares.png": plot_type_shares(gpu),
        "trace_state_shares.png": plot_state_shares(gpu),
        "trace_gpu_demand.png": plot_gpu_demand(gpu),
        "trace_durations.png": plot_durations(gpu),
    }, out_dir)
