"""PNG figures of a run, of a sweep, and of a trace (the Acme paper's characterization plots).

Every figure is drawn with matplotlib's Agg backend (no display needed) and written atomically.
Run figures: CDFs of queue delay and JCT per job type, busy GPUs and queue length over time,
and (with a power model) cluster power over time, stacked by GPU state.
Sweep figures: bar charts comparing the runs' summary metrics (mean and spread over seeds) and
JCT CDFs per configuration. Trace figures follow the paper (Hu et al., NSDI '24; reference
figures in the AcmeTrace release): job-type shares, final-state shares, GPU demand, durations.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from acmesim.core.atomic import atomic_open  # noqa: E402
from acmesim.core.errors import AcmesimError  # noqa: E402
from acmesim.replay_report import job_delays, seconds  # noqa: E402
from acmesim.rundirs import COMPLETE, find_runs, read_run  # noqa: E402
from acmesim.workload.schema import FAILED_STATES, JOB_TYPES  # noqa: E402

DPI = 110
JOB_METRICS = {"queue_delay": "queue delay (s)", "jct": "job completion time (s)"}
STATE_GROUPS = {"Completed": {"COMPLETED"}, "Canceled": {"CANCELLED"}, "Failed": FAILED_STATES}
"""The paper's three final-state classes (TIMEOUT and NODE_FAIL count as failed)."""
SWEEP_METRICS = ("jct_mean", "jct_p95", "queue_delay_mean", "queue_delay_p95", "gpu_utilization",
                 "makespan", "lost_gpu_time", "failures", "preemptions", "energy_kwh",
                 "energy_idle_kwh", "energy_lost_failures_kwh")
"""Summary columns (``acmesim.metrics.schema.SUMMARY``) compared across a sweep, when present."""


def save_figure(fig: plt.Figure, path: Path) -> Path:
    """Write ``fig`` as a PNG at ``path`` atomically and close it."""
    with atomic_open(path, "wb") as handle:
        fig.savefig(handle, format="png", dpi=DPI, bbox_inches="tight",
                    metadata={"Software": None})
    plt.close(fig)
    return Path(path)


def cdf_points(values: Iterable[float]) -> tuple[np.ndarray, np.ndarray]:
    """Sorted values and their empirical CDF in percent (NaNs dropped)."""
    data = np.sort(np.asarray(pd.Series(values).dropna(), dtype=float))
    return data, np.arange(1, len(data) + 1) / max(len(data), 1) * 100.0


def _ordered_types(types: Iterable[str]) -> list[str]:
    """Job types in the paper's order, unknown ones after, alphabetically."""
    present = set(types)
    return [t for t in JOB_TYPES if t in present] + sorted(present - set(JOB_TYPES))


def _cdf_by_type(frame: pd.DataFrame, metric: str, path: Path) -> Path:
    """One CDF curve of ``metric`` per job type, log x-axis."""
    fig, ax = plt.subplots(figsize=(6, 4))
    for job_type in _ordered_types(frame["type"]):
        x, y = cdf_points(frame.loc[frame["type"] == job_type, metric])
        ax.step(np.maximum(x, 1.0), y, where="post", label=f"{job_type} ({len(x)})")
    ax.set(xscale="log", xlabel=JOB_METRICS[metric] + ", values < 1 s drawn at 1 s",
           ylabel="CDF of jobs (%)", ylim=(0, 100))
    ax.grid(True, linestyle=":")
    ax.legend(fontsize="small")
    return save_figure(fig, path)


def _read_csv(path: Path) -> pd.DataFrame:
    """A result table, with a clear error when it is missing."""
    if not path.is_file():
        raise AcmesimError(f"{path}: not found (is this a run directory?)")
    return pd.read_csv(path)


def plot_utilization(util: pd.DataFrame, path: Path) -> Path:
    """Busy GPUs and queue length over simulated time (days), one panel each."""
    time = seconds(util[_first(util, ("interval_start", "time"))]) / 86400.0
    time = time - time.min()
    series = [c for c in util.columns if c in ("busy_gpus", "queue_length")] or [
        c for c in util.columns[1:] if pd.api.types.is_numeric_dtype(util[c])][:2]
    fig, axes = plt.subplots(len(series), 1, figsize=(7, 2.4 * len(series)), sharex=True,
                             squeeze=False)
    for ax, column in zip(axes[:, 0], series, strict=True):
        ax.step(time, util[column], where="post")
        ax.set(ylabel=column.replace("_", " "))
        ax.grid(True, linestyle=":")
    axes[-1, 0].set(xlabel="simulated time (days)")
    return save_figure(fig, path)


POWER_STATES = {"power_running_kw": "running", "power_waiting_kw": "waiting",
                "power_idle_kw": "idle"}
"""utilization.csv power columns by GPU state, stacked bottom to top."""


def has_power(util: pd.DataFrame) -> bool:
    """Whether ``util`` carries power (a run with a power model)."""
    return "power_kw" in util and pd.to_numeric(util["power_kw"], errors="coerce").notna().any()


def plot_power(util: pd.DataFrame, path: Path) -> Path:
    """Cluster wall power over simulated time (days), stacked by GPU state, total on top."""
    time = seconds(util["interval_start"]) / 86400.0
    time = time - time.min()
    fig, ax = plt.subplots(figsize=(7, 3.2))
    layers = [util[c].to_numpy(dtype=float) for c in POWER_STATES]
    ax.stackplot(time, layers, labels=list(POWER_STATES.values()), step="post", alpha=0.8)
    ax.step(time, util["power_kw"], where="post", color="black", linewidth=0.8, label="total")
    ax.set(xlabel="simulated time (days)", ylabel="power (kW)", ylim=(0, None))
    ax.grid(True, linestyle=":")
    ax.legend(fontsize="small", loc="lower right")
    return save_figure(fig, path)


def _first(frame: pd.DataFrame, names: Sequence[str]) -> str:
    """The first of ``names`` that is a column of ``frame`` (else its first column)."""
    return next((n for n in names if n in frame.columns), frame.columns[0])


def plot_run(run_dir: Path, out_dir: Path | None = None) -> list[Path]:
    """Figures of one run: queue-delay and JCT CDFs per job type, utilization over time, and
    power over time by GPU state when the run had a power model."""
    run_dir = Path(run_dir)
    out = Path(out_dir) if out_dir is not None else run_dir / "figures"
    delays = job_delays(_read_csv(run_dir / "jobs.csv"))
    paths = [_cdf_by_type(delays, m, out / f"{m}_cdf.png") for m in JOB_METRICS]
    util = _read_csv(run_dir / "utilization.csv")
    paths.append(plot_utilization(util, out / "utilization.png"))
    if has_power(util):
        paths.append(plot_power(util, out / "power.png"))
    return paths


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


def _bar_chart(means: pd.Series, errors: pd.Series, metric: str, path: Path) -> Path:
    """Horizontal bars of ``means`` (one per configuration) with spread over seeds."""
    fig, ax = plt.subplots(figsize=(6.5, 0.5 * len(means) + 1.5))
    ax.barh(range(len(means)), means.to_numpy(), xerr=errors.fillna(0).to_numpy(),
            color="tab:blue", edgecolor="black", capsize=3)
    ax.set_yticks(range(len(means)), means.index)
    ax.invert_yaxis()
    ax.set(xlabel=f"{metric} (mean over seeds; bar = std)")
    ax.grid(True, axis="x", linestyle=":")
    return save_figure(fig, path)


def _sweep_metrics(table: pd.DataFrame) -> list[str]:
    """The known summary metrics this sweep has values for."""
    return [m for m in SWEEP_METRICS
            if m in table and pd.api.types.is_numeric_dtype(table[m]) and table[m].notna().any()]


def plot_sweep(sweep_dir: Path, out_dir: Path | None = None) -> list[Path]:
    """Bar charts comparing a sweep's configurations, and their JCT CDFs."""
    sweep_dir = Path(sweep_dir)
    out = Path(out_dir) if out_dir is not None else sweep_dir / "figures"
    table, keys = sweep_table(sweep_dir)
    table["_label"] = _labels(table, keys)
    grouped = table.groupby("_label", sort=False)
    paths = [
        _bar_chart(grouped[m].mean(), grouped[m].std(), m, out / f"sweep_{m}.png")
        for m in _sweep_metrics(table)
    ]
    paths.append(_sweep_cdf(table, out / "sweep_jct_cdf.png"))
    return paths


def _sweep_cdf(table: pd.DataFrame, path: Path) -> Path:
    """JCT CDF per configuration, pooling the jobs of all its seeds."""
    fig, ax = plt.subplots(figsize=(6, 4))
    for label, group in table.groupby("_label", sort=False):
        frames = [job_delays(pd.read_csv(Path(p) / "jobs.csv")) for p in group["_path"]
                  if (Path(p) / "jobs.csv").is_file()]
        if frames:
            x, y = cdf_points(pd.concat(frames)["jct"])
            ax.step(np.maximum(x, 1.0), y, where="post", label=str(label))
    ax.set(xscale="log", xlabel=JOB_METRICS["jct"], ylabel="CDF of jobs (%)", ylim=(0, 100))
    ax.grid(True, linestyle=":")
    ax.legend(fontsize="small")
    return save_figure(fig, path)


# --- trace characterization (the paper's figures) -----------------------------------------


def _gpu_jobs(jobs: pd.DataFrame) -> pd.DataFrame:
    """GPU jobs with their GPU time (run_time x gpu_num), as the paper's figures use."""
    gpu = jobs[pd.to_numeric(jobs["gpu_num"], errors="coerce") > 0].copy()
    if gpu.empty:
        raise AcmesimError("the trace has no GPU jobs to characterize")
    gpu["gpu_time"] = gpu["run_time"].astype(float) * gpu["gpu_num"].astype(float)
    return gpu


def _percent_bars(ax: plt.Axes, shares: pd.DataFrame, title: str) -> None:
    """Grouped bars of percentage shares (rows = bar groups, columns = series), labelled."""
    width = 0.8 / max(len(shares.columns), 1)
    for i, column in enumerate(shares.columns):
        xs = np.arange(len(shares)) + (i - (len(shares.columns) - 1) / 2) * width
        bars = ax.bar(xs, shares[column], width, label=column, edgecolor="black")
        ax.bar_label(bars, fmt="%.1f", fontsize="x-small")
    ax.set_xticks(range(len(shares)), shares.index)
    ax.set(ylabel="fraction (%)", ylim=(0, 105), title=title)
    ax.grid(True, axis="y", linestyle=":")


def plot_type_shares(gpu: pd.DataFrame, path: Path) -> Path:
    """Share of GPU jobs and of GPU time per job type (the paper's job-distribution figure)."""
    order = _ordered_types(gpu["type"])
    shares = pd.DataFrame({
        "job count": gpu["type"].value_counts(normalize=True).reindex(order) * 100,
        "GPU time": gpu.groupby("type")["gpu_time"].sum().reindex(order)
        / gpu["gpu_time"].sum() * 100,
    }).fillna(0.0)
    fig, ax = plt.subplots(figsize=(7, 3.5))
    _percent_bars(ax, shares, "GPU jobs by type")
    ax.legend()
    return save_figure(fig, path)


def _state_class(states: pd.Series) -> pd.Series:
    """Each final state as Completed, Canceled or Failed (the paper's classes)."""
    lookup = {s: name for name, members in STATE_GROUPS.items() for s in members}
    return states.astype(str).map(lookup).fillna("Other")


def plot_state_shares(gpu: pd.DataFrame, path: Path) -> Path:
    """Final-state shares by job count and by GPU time (the paper's job-state figure)."""
    classes = _state_class(gpu["state"])
    order = [c for c in [*STATE_GROUPS, "Other"] if c in set(classes)]
    count = classes.value_counts(normalize=True).reindex(order).fillna(0) * 100
    time = gpu.groupby(classes)["gpu_time"].sum().reindex(order).fillna(0)
    time = time / max(time.sum(), 1e-12) * 100
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.5), sharey=True)
    for ax, values, title in ((axes[0], count, "(a) job count"), (axes[1], time, "(b) GPU time")):
        _percent_bars(ax, values.to_frame().T.rename(index={values.name: ""}), title)
    axes[1].legend()
    return save_figure(fig, path)


def plot_gpu_demand(gpu: pd.DataFrame, path: Path) -> Path:
    """CDF of GPUs per job by job count and by GPU time, log2 axis (the paper's GPU-demand CDF)."""
    order = gpu.sort_values("gpu_num")
    sizes = order["gpu_num"].astype(float).to_numpy()
    by_time = np.cumsum(order["gpu_time"].to_numpy()) / max(order["gpu_time"].sum(), 1e-12)
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.5))
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
    return save_figure(fig, path)


def plot_durations(gpu: pd.DataFrame, path: Path) -> Path:
    """CDF of GPU job duration per job type, log x (the paper's duration-by-type figure)."""
    frame = pd.DataFrame({"type": gpu["type"].astype(str), "run_time": gpu["run_time"]})
    fig, ax = plt.subplots(figsize=(6, 4))
    for job_type in _ordered_types(frame["type"]):
        x, y = cdf_points(frame.loc[frame["type"] == job_type, "run_time"])
        ax.step(np.maximum(x, 1.0), y, where="post", label=job_type)
    ax.set(xscale="log", xlabel="job duration (s)", ylabel="CDF (%)", ylim=(0, 100))
    ax.grid(True, linestyle=":")
    ax.legend(fontsize="small")
    return save_figure(fig, path)


def plot_trace(jobs: pd.DataFrame, out_dir: Path) -> list[Path]:
    """The paper's characterization figures of a normalized job table, as PNGs in ``out_dir``."""
    gpu = _gpu_jobs(jobs)
    out = Path(out_dir)
    return [
        plot_type_shares(gpu, out / "trace_type_shares.png"),
        plot_state_shares(gpu, out / "trace_state_shares.png"),
        plot_gpu_demand(gpu, out / "trace_gpu_demand.png"),
        plot_durations(gpu, out / "trace_durations.png"),
    ]
