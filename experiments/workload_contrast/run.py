"""Same schedulers on an LLM (Seren-like) trace, a task-DL trace and a 50/50 mix, in one command.

    python experiments/workload_contrast/run.py [--days N] [--runs DIR] [--results DIR]

Runs the three Hydra sweeps of this folder through ``acmesim replay -m`` (six schedulers; Acme's
quota reservation with the task-DL types as best-effort borrowers) over the synthetic profiles
``seren``, ``taskdl`` (Helios-calibrated) and ``mix`` (50/50 by GPU time), merges the summaries
with ``acmesim collect``, adds per-size queueing from each run's ``jobs.csv``, characterizes the
three traces side by side, and writes into ``results/``: ``workload_contrast.csv`` (one row
per run), ``characterization.csv``, ``table.md`` (both tables), ``workload_contrast.png``
(duration, GPU-demand and GPU-time-by-size CDFs with the published Seren and Helios points;
JCT and queueing per scheduler) and ``shape_checks.txt`` (the README's expected shape, checked).
Runs already complete in the run directories are skipped.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from acmesim.analysis.characterize import characterize  # noqa: E402
from acmesim.analysis.plots import save_figure  # noqa: E402
from acmesim.cli import main as acmesim  # noqa: E402
from acmesim.cli.commands.collect import collect  # noqa: E402
from acmesim.core.atomic import atomic_write_csv, atomic_write_text  # noqa: E402
from acmesim.sources import TRACES  # noqa: E402
from acmesim.trace.gpu_util import busy_gpu_time, gpu_time_weighted_util  # noqa: E402
from acmesim.trace.targets import SEREN  # noqa: E402
from acmesim.trace.targets_prior import HELIOS  # noqa: E402

HERE = Path(__file__).resolve().parent
SWEEPS = ("sweep", "sweep_reservation", "sweep_placement")
PROFILES = {"seren": "Seren-like (LLM)", "taskdl": "task-DL (Helios)", "mix": "50/50 mix"}
SCHEDULERS = ("fifo", "easy_backfill", "sjf", "srtf", "qssf", "las", "acme_reservation")
PLACEMENTS = ("easy_backfill+first_fit", "easy_backfill+spread")
POLICIES = SCHEDULERS + PLACEMENTS
SIZES = {"1gpu": (1, 1), "2to8": (2, 8), "multinode": (9, 1 << 20)}
SEED = 0
COLORS = {"seren": "tab:blue", "taskdl": "tab:red", "mix": "tab:purple"}


def run_sweeps(runs: Path, days: float) -> None:
    """Run each sweep config of this folder into ``runs/<sweep>``."""
    for name in SWEEPS:
        code = acmesim(["replay", "-m", "--config-dir", str(HERE), "--config-name", name,
                        f"trace.days={days:g}", f"hydra.sweep.dir={runs / name}"])
        if code:
            raise SystemExit(f"sweep {name} failed (exit {code})")


def size_stats(jobs: pd.DataFrame) -> dict[str, float]:
    """Mean queue delay per job-size class and of pretraining jobs, from a run's jobs.csv."""
    out = {}
    for name, (low, high) in SIZES.items():
        part = jobs[(jobs.gpu_num >= low) & (jobs.gpu_num <= high)]
        out[f"qd_{name}"] = float(part.queue_delay.mean()) if len(part) else np.nan
    pretrain = jobs[jobs.type == "Pretrain"]
    out["qd_pretrain"] = float(pretrain.queue_delay.mean()) if len(pretrain) else np.nan
    out["jct_p50"] = float(jobs.jct.median())
    return out


def runs_table(runs: Path) -> pd.DataFrame:
    """One row per run: trace, scheduler, summary figures, per-size queueing."""
    rows = []
    for name in SWEEPS:
        table = collect(runs / name)
        bad = table[table["status"] != "complete"]
        if len(bad):
            raise SystemExit(f"{len(bad)} run(s) did not complete:\n{bad[['run', 'error']]}")
        for _, run in table.iterrows():
            jobs = pd.read_csv(runs / name / run["run"] / "jobs.csv")
            busy, idle = run["busy_gpu_time"], run["idle_gpu_time"]
            placement = run["placement"]
            label = run["scheduler"] + ("" if placement == "consolidate" else f"+{placement}")
            rows.append({"trace": run["trace.profile"], "scheduler": label,
                         "cluster_gpus": run["cluster_gpus"],
                         "jobs": run["simulated_jobs"], "jct_mean": run["jct_mean"],
                         "jct_pretrain": run["jct_mean_pretrain"],
                         "qd_eval": run["queue_delay_mean_eval"],
                         "queue_delay_mean": run["queue_delay_mean"],
                         "queue_delay_p99": run["queue_delay_p99"],
                         "gpu_utilization": run["gpu_utilization"],
                         "idle_share": idle / (busy + idle), "preemptions": run["preemptions"],
                         **size_stats(jobs)})
    table = pd.DataFrame(rows)
    fifo = table[table.scheduler == "fifo"].set_index("trace")["jct_mean"]
    table["jct_vs_fifo"] = table["jct_mean"] / table["trace"].map(fifo)
    order = {s: i for i, s in enumerate(POLICIES)}
    table["_t"] = table.trace.map(list(PROFILES).index)
    table["_s"] = table.scheduler.map(order)
    return table.sort_values(["_t", "_s"]).drop(columns=["_t", "_s"]).reset_index(drop=True)


def load_traces(days: float) -> dict[str, pd.DataFrame]:
    """The three traces exactly as the replays loaded them (same source, days and seed)."""
    return {p: TRACES.create("synthetic", {"profile": p, "days": days, "seed": SEED}).load()
            for p in PROFILES}


def characterization(traces: dict[str, pd.DataFrame], days: float,
                     replay_gpus: int) -> pd.DataFrame:
    """The paper's headline statistics of each trace, side by side, with the published ones.

    ``offered_load`` is the trace's GPU time over the replay cluster's GPU time in the window.
    """
    rows = []
    for name, jobs in traces.items():
        stats = characterize(jobs)
        gpu = jobs[jobs.gpu_num > 0]
        busy, allocated = busy_gpu_time(gpu)
        rows.append({"trace": name, "gpu_jobs_per_day": stats["arrivals"]["gpu_jobs_per_day"],
                     "offered_load": allocated / (replay_gpus * days * 86400.0),
                     "run_time_mean": stats["run_time"]["mean"],
                     "run_time_median": stats["run_time"]["median"],
                     "mean_gpus": stats["mean_gpus"], "one_gpu_share": stats["one_gpu_share"],
                     "gpu_time_le_8": stats["gpu_cdf_gpu_time"][8],
                     "gpu_time_ge_128": 1 - stats["gpu_cdf_gpu_time"][64],
                     "util_median": gpu_time_weighted_util(gpu),
                     "idle_share": 1 - busy / allocated})
    rows.append({"trace": "published Seren", "gpu_jobs_per_day": SEREN.gpu_jobs / SEREN.span_days,
                 "run_time_mean": SEREN.run_time_mean, "run_time_median": SEREN.run_time_median,
                 "mean_gpus": SEREN.mean_gpus, "one_gpu_share": SEREN.one_gpu_share,
                 "gpu_time_le_8": SEREN.gpu_cdf_gpu_time[8],
                 "gpu_time_ge_128": 1 - SEREN.gpu_cdf_gpu_time[64], "util_median": 0.99})
    rows.append({"trace": "published Helios", "run_time_mean": HELIOS.run_time_mean,
                 "run_time_median": HELIOS.run_time_median, "mean_gpus": HELIOS.mean_gpus,
                 "one_gpu_share": HELIOS.one_gpu_share,
                 "gpu_time_le_8": HELIOS.gpu_cdf_gpu_time[8],
                 "gpu_time_ge_128": 1 - HELIOS.gpu_cdf_gpu_time[64]})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------------------
# Figure
# ------------------------------------------------------------------------------------------


def _cdf(ax: plt.Axes, values: np.ndarray, weights: np.ndarray | None, label: str,
         color: str) -> None:
    """An empirical (weighted) CDF in percent as a step line."""
    order = np.argsort(values, kind="stable")
    w = np.ones(len(values)) if weights is None else weights
    cumulative = np.cumsum(w[order]) / w.sum() * 100
    ax.step(values[order], cumulative, where="post", label=label, color=color, lw=1.6)


def _published(ax: plt.Axes, points: dict, label: str, marker: str) -> None:
    """Published CDF points as markers."""
    xs = np.array(list(points), dtype=float)
    ax.plot(xs, np.array(list(points.values())) * 100, marker, color="black", ms=5,
            label=label, fillstyle="none")


def plot_characterization(axes: list[plt.Axes], traces: dict[str, pd.DataFrame]) -> None:
    """Duration CDF, GPU-count CDF of jobs, GPU-count CDF of GPU time."""
    for name, jobs in traces.items():
        gpu = jobs[jobs.gpu_num > 0]
        run = np.maximum(gpu.run_time.to_numpy(dtype=float), 1.0)
        gpus = gpu.gpu_num.to_numpy(dtype=float)
        _cdf(axes[0], run, None, PROFILES[name], COLORS[name])
        _cdf(axes[1], gpus, None, PROFILES[name], COLORS[name])
        _cdf(axes[2], gpus, gpus * run, PROFILES[name], COLORS[name])
    _published(axes[0], SEREN.duration_cdf, "Seren, published", "s")
    _published(axes[0], HELIOS.duration_cdf, "Helios, published", "^")
    for ax, key in ((axes[1], "gpu_cdf_jobs"), (axes[2], "gpu_cdf_gpu_time")):
        _published(ax, getattr(SEREN, key), "Seren, published", "s")
        _published(ax, getattr(HELIOS, key), "Helios, published", "^")
    titles = ("GPU-job duration", "GPUs per job (share of jobs)",
              "GPUs per job (share of GPU time)")
    xlabels = ("run time (s)", "GPUs", "GPUs")
    for ax, title, xlabel in zip(axes, titles, xlabels, strict=True):
        ax.set_xscale("log", base=10 if xlabel.startswith("run") else 2)
        ax.set_title(title)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("CDF (%)")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7, loc="lower right")


def _bars(ax: plt.Axes, table: pd.DataFrame, column: str, ylabel: str, log: bool) -> None:
    """One group per scheduler, one bar per trace."""
    width = 0.8 / len(PROFILES)
    x = np.arange(len(POLICIES))
    for i, name in enumerate(PROFILES):
        part = table[table.trace == name].set_index("scheduler").reindex(POLICIES)
        ax.bar(x + i * width, part[column].to_numpy(dtype=float), width,
               label=PROFILES[name], color=COLORS[name])
    labels = [p.replace("easy_backfill", "backfill") for p in POLICIES]
    ax.set_xticks(x + width, labels, rotation=35, ha="right", fontsize=8)
    if log:
        ax.set_yscale("symlog", linthresh=10.0)
    ax.set_ylabel(ylabel)
    ax.grid(axis="y", alpha=0.3)


def plot(table: pd.DataFrame, traces: dict[str, pd.DataFrame], path: Path) -> Path:
    """Top row: the three traces characterized; bottom row: scheduler results per trace."""
    fig, axes = plt.subplots(2, 3, figsize=(16, 9))
    plot_characterization(list(axes[0]), traces)
    _bars(axes[1][0], table, "jct_vs_fifo", "mean JCT / FIFO's mean JCT", log=False)
    axes[1][0].set_yscale("log")
    axes[1][0].axhline(1.0, color="black", lw=0.8)
    axes[1][0].set_title("mean JCT relative to FIFO")
    _bars(axes[1][1], table, "qd_1gpu", "mean queue delay (s)", log=True)
    axes[1][1].set_title("mean queue delay of 1-GPU jobs")
    _bars(axes[1][2], table, "qd_multinode", "mean queue delay (s)", log=True)
    axes[1][2].set_title("mean queue delay of multi-node jobs (> 8 GPUs)")
    axes[1][0].legend(fontsize=8)
    fig.tight_layout()
    return save_figure(fig, path)


# ------------------------------------------------------------------------------------------
# Tables and the expected shape
# ------------------------------------------------------------------------------------------


def _num(value: float, digits: int = 0) -> str:
    """A number for the markdown tables ('-' when missing)."""
    return "-" if pd.isna(value) else f"{value:,.{digits}f}"


def markdown(table: pd.DataFrame, chars: pd.DataFrame) -> str:
    """The README tables: trace characterization, then one row per (trace, policy)."""
    head = ["trace", "GPU jobs/day", "offered load (replay cluster)", "mean run (s)",
            "median run (s)", "mean GPUs", "1-GPU jobs", "GPU time in <= 8-GPU jobs",
            "GPU time in >= 128-GPU jobs", "median GPU util (GPU-time weighted)",
            "idle share of allocated GPU time"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for _, r in chars.iterrows():
        lines.append("| " + " | ".join([
            r["trace"], _num(r["gpu_jobs_per_day"]), _pct(r.get("offered_load")),
            _num(r["run_time_mean"]), _num(r["run_time_median"]), _num(r["mean_gpus"], 2),
            _pct(r["one_gpu_share"]), _pct(r["gpu_time_le_8"]), _pct(r["gpu_time_ge_128"]),
            _pct(r.get("util_median")), _pct(r.get("idle_share"))]) + " |")
    head = ["trace", "policy", "mean JCT (s)", "JCT / FIFO", "median JCT (s)", "mean QD (s)",
            "p99 QD (s)", "QD 1-GPU (s)", "QD 2-8 GPUs (s)", "QD > 8 GPUs (s)",
            "QD Eval (s)", "QD Pretrain (s)", "JCT Pretrain (s)", "preempt."]
    lines += ["", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for _, r in table.iterrows():
        lines.append("| " + " | ".join([
            r["trace"], r["scheduler"], _num(r["jct_mean"]), _num(r["jct_vs_fifo"], 2),
            _num(r["jct_p50"]), _num(r["queue_delay_mean"]), _num(r["queue_delay_p99"]),
            _num(r["qd_1gpu"]), _num(r["qd_2to8"]), _num(r["qd_multinode"]),
            _num(r["qd_eval"]), _num(r["qd_pretrain"]), _num(r["jct_pretrain"]),
            _num(r["preemptions"])]) + " |")
    return "\n".join(lines) + "\n"


def _pct(value: float | None) -> str:
    """A fraction as a percentage for the markdown tables."""
    return "-" if value is None or pd.isna(value) else f"{100 * value:.1f} %"


def _value(table: pd.DataFrame, trace: str, scheduler: str, column: str) -> float:
    """One cell of the runs table."""
    return float(table[(table.trace == trace) & (table.scheduler == scheduler)][column].iloc[0])


def _cut(table: pd.DataFrame, trace: str, policies: tuple[str, ...]) -> float:
    """Mean fraction of FIFO's mean JCT that ``policies`` cut on ``trace``."""
    return float(np.mean([1 - _value(table, trace, p, "jct_vs_fifo") for p in policies]))


def shape_checks(table: pd.DataFrame, chars: pd.DataFrame) -> list[str]:
    """The README's expected shape, checked on this run (one line per claim)."""
    c = chars.set_index("trace")
    lines = [
        f"C1 task-DL runs longer than Seren-like: mean {c.run_time_mean['taskdl']:,.0f} vs "
        f"{c.run_time_mean['seren']:,.0f} s, median {c.run_time_median['taskdl']:,.0f} vs "
        f"{c.run_time_median['seren']:,.0f} s -> "
        f"{c.run_time_mean['taskdl'] > c.run_time_mean['seren'] > 0 and c.run_time_median['taskdl'] > c.run_time_median['seren']}",  # noqa: E501
        f"C2 GPU time in >= 128-GPU jobs: Seren-like {c.gpu_time_ge_128['seren']:.0%}, "
        f"task-DL {c.gpu_time_ge_128['taskdl']:.0%} -> "
        f"{c.gpu_time_ge_128['seren'] > 0.5 > 0.15 > c.gpu_time_ge_128['taskdl']}",
        f"C3 median GPU util Seren-like {c.util_median['seren']:.1%} (>= 95 %), task-DL "
        f"{c.util_median['taskdl']:.1%} (40-60 %) -> "
        f"{c.util_median['seren'] >= 0.95 and 0.4 <= c.util_median['taskdl'] <= 0.6}",
        f"C3 idle share of allocated GPU time: Seren-like {c.idle_share['seren']:.1%}, task-DL "
        f"{c.idle_share['taskdl']:.1%} -> task-DL >= 5x Seren-like: "
        f"{c.idle_share['taskdl'] >= 5 * c.idle_share['seren']}",
        "C4 the mix lies between them (mean run, mean GPUs, idle share) -> " + str(all(
            min(c[k]['seren'], c[k]['taskdl']) <= c[k]['mix'] <= max(c[k]['seren'],
                                                                        c[k]['taskdl'])
            for k in ("run_time_mean", "mean_gpus", "idle_share"))),
    ]
    size_aware = ("sjf", "srtf", "las", "qssf")
    cuts = {t: _cut(table, t, size_aware) for t in PROFILES}
    lines.append("S1 size-aware policies (sjf/srtf/las/qssf) cut FIFO's mean JCT by "
                 + ", ".join(f"{t} {v:.0%}" for t, v in cuts.items())
                 + f" -> they matter more for task-DL: {cuts['taskdl'] > cuts['seren']}")
    spread = {t: abs(_value(table, t, "easy_backfill+spread", "jct_mean")
                     / _value(table, t, "easy_backfill", "jct_mean") - 1) for t in PROFILES}
    lines.append("S1 packing: |JCT(backfill+spread) / JCT(backfill+consolidate) - 1| = "
                 + ", ".join(f"{t} {v:.1%}" for t, v in spread.items())
                 + f" -> packing matters more for task-DL: {spread['taskdl'] > spread['seren']}")
    effect = {t: abs(np.log(_value(table, t, "acme_reservation", "jct_mean")
                            / _value(table, t, "easy_backfill", "jct_mean"))) for t in PROFILES}
    lines.append("S2 acme_reservation vs easy_backfill, |log JCT ratio|: "
                 + ", ".join(f"{t} {v:.2f}" for t, v in effect.items())
                 + f" -> reservation matters more for LLM: {effect['seren'] > effect['taskdl']}")
    for trace in ("seren", "mix"):
        acme = table[(table.trace == trace) & (table.scheduler == "acme_reservation")].iloc[0]
        fifo = _value(table, trace, "fifo", "qd_pretrain")
        lines.append(f"S2 {trace}: under acme_reservation Pretrain queues {acme.qd_pretrain:,.0f}"
                     f" s (FIFO {fifo:,.0f} s), Eval {acme.qd_eval:,.0f} s -> pretraining "
                     f"protected vs FIFO: {acme.qd_pretrain < fifo}; Eval waits longer than "
                     f"Pretrain (acme_facts.md §2.5): {acme.qd_eval > acme.qd_pretrain}")
    for trace in PROFILES:
        part = table[table.trace == trace].set_index("scheduler").jct_vs_fifo.drop("fifo")
        worse = sorted(part[part >= 1].index)
        lines.append(f"S3 {trace}: policies not beating FIFO's mean JCT: {worse or 'none'}; "
                     f"best {part.idxmin()} ({part.min():.2f} x FIFO)")
    return lines


def main(argv: list[str] | None = None) -> int:
    """Run the sweeps, collect, characterize, write the tables and the figure, check the shape."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=float, default=14.0, help="trace length (days)")
    parser.add_argument("--runs", type=Path, help="run directories (under the ignored outputs/)",
                        default=HERE.parents[1] / "outputs" / "workload_contrast")
    parser.add_argument("--results", type=Path, default=HERE / "results")
    args = parser.parse_args(argv)
    run_sweeps(args.runs.resolve(), args.days)
    table = runs_table(args.runs.resolve())
    traces = load_traces(args.days)
    chars = characterization(traces, args.days, int(table["cluster_gpus"].iloc[0]))
    args.results.mkdir(parents=True, exist_ok=True)
    atomic_write_csv(args.results / "workload_contrast.csv", table)
    atomic_write_csv(args.results / "characterization.csv", chars)
    atomic_write_text(args.results / "table.md", markdown(table, chars))
    plot(table, traces, args.results / "workload_contrast.png")
    checks = shape_checks(table, chars)
    atomic_write_text(args.results / "shape_checks.txt", "\n".join(checks) + "\n")
    print(markdown(table, chars))
    print("\n".join(checks))
    return 0


if __name__ == "__main__":
    sys.exit(main())
