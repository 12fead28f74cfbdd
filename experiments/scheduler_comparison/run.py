"""Compare every scheduler with the baseline ``acme`` on 30 days of synthetic Seren and Kalos.

    python experiments/scheduler_comparison/run.py [--days N] [--runs DIR]

Writes each cluster's synthetic trace once (``acmesim synth --profile <cluster> --days N --seed
0`` into ``<runs>/traces/``), runs the three Hydra sweeps of this folder on them through
``acmesim replay -m`` (every scheduler with its defaults, the baseline ``acme`` among them; the
oracle-based ones again with per-user history predictions; the ``acme_reservation`` quota
sensitivity), merges their summaries with ``acmesim collect``, and writes
``results/scheduler_comparison.csv`` (one row per run), ``results/table.md`` and
``results/scheduler_comparison.png`` (mean and p99 queue delay per job type and scheduler, mean
JCT, GPU utilization; every run's mean JCT and mean queue delay also as a ratio to ``acme``'s on
the same cluster). It then checks the expected shape (see README.md) and prints it. Runs and
traces already complete in the run directory are skipped (``force=true`` is not passed).
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

from acmesim.analysis.plots import save_figure  # noqa: E402
from acmesim.cli import main as acmesim  # noqa: E402
from acmesim.cli.commands.collect import collect  # noqa: E402
from acmesim.core.atomic import atomic_write_csv, atomic_write_text  # noqa: E402
from acmesim.trace.schema import JOB_TYPES  # noqa: E402

HERE = Path(__file__).resolve().parent
BASELINE = "acme"
"""The scheduler every other one is compared with (``acmesim/policies/scheduling/acme.py``)."""
CLUSTERS = ("seren", "kalos")
SEED = 0
SWEEPS = ("sweep", "sweep_predicted", "sweep_quota")
SIZE_AWARE = ("sjf", "srtf", "qssf", "las")
KEEP = ["cluster", "label", "scheduler", "predictor", "quota", "simulated_jobs", "jct_mean",
        "jct_p99", "queue_delay_mean", "queue_delay_p99", "gpu_utilization", "preemptions",
        "lost_gpu_time", "prediction_mae", "prediction_mre", "jct_vs_acme",
        "queue_delay_vs_acme"]


def write_traces(runs: Path, days: float) -> Path:
    """``acmesim synth`` each cluster's trace into ``runs/traces/<cluster>.csv`` (once)."""
    traces = runs / "traces"
    traces.mkdir(parents=True, exist_ok=True)
    for cluster in CLUSTERS:
        path = traces / f"{cluster}.csv"
        if not path.is_file():
            code = acmesim(["synth", "--profile", cluster, "--days", f"{days:g}", "--seed",
                            str(SEED), "--out", str(path)])
            if code:
                raise SystemExit(f"acmesim synth {cluster} failed (exit {code})")
    return traces


def run_sweeps(runs: Path, traces: Path) -> None:
    """Run each sweep config of this folder into ``runs/<sweep>`` on the written traces."""
    for name in SWEEPS:
        code = acmesim(["replay", "-m", "--config-dir", str(HERE), "--config-name", name,
                        f"trace.path={traces}/${{cluster.name}}.csv",
                        f"hydra.sweep.dir={runs / name}"])
        if code:
            raise SystemExit(f"sweep {name} failed (exit {code})")


def label(row: pd.Series) -> str:
    """Scheduler name, its predictor when it uses one, its quota when swept."""
    text = str(row["scheduler"])
    if isinstance(row.get("predictor"), str) and row["predictor"]:
        text += f"/{row['predictor']}"
    if pd.notna(row.get("quota")):
        text += f" q={float(row['quota']):g}"
    return text


def comparison(runs: Path) -> pd.DataFrame:
    """One row per run of every sweep, with the columns the comparison needs."""
    frames = [collect(runs / name) for name in SWEEPS]
    table = pd.concat(frames, ignore_index=True)
    failed = table[table["status"] != "complete"]
    if len(failed):
        raise SystemExit(f"{len(failed)} run(s) did not complete:\n{failed[['run', 'error']]}")
    quotas = table.get("scheduler.quotas", pd.Series(np.nan, index=table.index))
    table["quota"] = pd.to_numeric(quotas.astype(str).str.extract(r"Pretrain\W*([0-9.]+)")[0],
                                   errors="coerce")
    table["predictor"] = table["predictor"].fillna("")
    table["label"] = table.apply(label, axis=1)
    per_type = [f"queue_delay_{stat}_{t.lower()}" for stat in ("mean", "p99") for t in JOB_TYPES]
    table["cluster_rank"] = table["cluster"].map({"seren": 0, "kalos": 1}).fillna(2)
    table["baseline_first"] = table["label"] != BASELINE
    table = table.sort_values(["cluster_rank", "cluster", "baseline_first", "label"],
                              kind="stable")
    for column in ("jct", "queue_delay"):
        baseline = table[table["label"] == BASELINE].set_index("cluster")[f"{column}_mean"]
        table[f"{column}_vs_acme"] = table[f"{column}_mean"] / table["cluster"].map(baseline)
    return table[KEEP + per_type].reset_index(drop=True)


def _types_of(table: pd.DataFrame) -> list[str]:
    """Job types with at least one job in the cluster's runs."""
    return [t for t in JOB_TYPES if table[f"queue_delay_mean_{t.lower()}"].notna().any()]


def colors(labels: pd.Series) -> dict[str, tuple]:
    """One fixed color per scheduler label, the same in every panel."""
    cmap = plt.get_cmap("tab20")
    return {name: cmap(i % 20) for i, name in enumerate(sorted(set(labels)))}


def _grouped_bars(ax: plt.Axes, table: pd.DataFrame, stat: str, palette: dict) -> None:
    """Queue delay ``stat`` per job type (groups) and scheduler (bars), symlog y-axis."""
    types = _types_of(table)
    width = 0.8 / len(table)
    for i, (_, row) in enumerate(table.iterrows()):
        values = [row[f"queue_delay_{stat}_{t.lower()}"] for t in types]
        ax.bar(np.arange(len(types)) + i * width, np.nan_to_num(values), width,
               label=row["label"], color=palette[row["label"]])
    ax.set_xticks(np.arange(len(types)) + 0.4 - width / 2, types)
    ax.set_yscale("symlog", linthresh=1.0)
    ax.set_ylabel(f"{stat} queue delay (s)")


def _per_scheduler(ax: plt.Axes, table: pd.DataFrame, column: str, ylabel: str,
                   palette: dict, log: bool = False) -> None:
    """One bar per scheduler."""
    ax.bar(range(len(table)), table[column], color=[palette[x] for x in table["label"]])
    ax.set_xticks(range(len(table)), table["label"], rotation=70, ha="right", fontsize=7)
    ax.set_ylabel(ylabel)
    if log:
        ax.set_yscale("log")


def plot(table: pd.DataFrame, path: Path) -> Path:
    """Rows: clusters; columns: mean and p99 queue delay per type, mean JCT, utilization."""
    clusters = list(dict.fromkeys(table["cluster"]))
    fig, axes = plt.subplots(len(clusters), 4, figsize=(22, 5.5 * len(clusters)),
                             gridspec_kw={"width_ratios": [3, 3, 1.6, 1.6]}, squeeze=False)
    palette = colors(table["label"])
    for row, cluster in zip(axes, clusters, strict=True):
        part = table[table["cluster"] == cluster]
        _grouped_bars(row[0], part, "mean", palette)
        _grouped_bars(row[1], part, "p99", palette)
        _per_scheduler(row[2], part, "jct_mean", "mean JCT (s, log)", palette, log=True)
        _per_scheduler(row[3], part, "gpu_utilization", "GPU utilization", palette)
        row[0].set_title(f"{cluster}: mean queue delay by job type")
        row[1].set_title(f"{cluster}: p99 queue delay by job type")
        row[2].set_title(f"{cluster}: mean JCT")
        row[3].set_title(f"{cluster}: GPU utilization")
        row[1].legend(fontsize=7, ncol=2, loc="upper left")
    fig.tight_layout()
    return save_figure(fig, path)


def _fmt(value: float) -> str:
    """Seconds (or a count) compactly for the markdown table."""
    if pd.isna(value):
        return "-"
    return f"{value:,.0f}"


def _ratio(value: float) -> str:
    """A ratio to the baseline for the markdown table."""
    return "-" if pd.isna(value) or not np.isfinite(value) else f"{value:.2f}"


def markdown(table: pd.DataFrame) -> str:
    """The README table: mean queue delay per type, JCT, utilization, preemptions."""
    types = [t for t in JOB_TYPES if table[f"queue_delay_mean_{t.lower()}"].notna().any()]
    head = (["cluster", "scheduler"] + [f"{t} mean QD (s)" for t in types]
            + ["mean JCT (s)", "JCT / acme", "mean QD / acme", "p99 QD (s)", "util", "preempt.",
               "lost GPU-h", "pred. MAE (s)"])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for _, row in table.iterrows():
        cells = ([row["cluster"], row["label"]]
                 + [_fmt(row[f"queue_delay_mean_{t.lower()}"]) for t in types]
                 + [_fmt(row["jct_mean"]), _ratio(row["jct_vs_acme"]),
                    _ratio(row["queue_delay_vs_acme"]), _fmt(row["queue_delay_p99"]),
                    f"{row['gpu_utilization']:.3f}", _fmt(row["preemptions"]),
                    _fmt(row["lost_gpu_time"] / 3600), _fmt(row["prediction_mae"])])
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"


def shape_checks(table: pd.DataFrame) -> list[str]:
    """The README's expected shape, checked on this run (one line per claim)."""
    lines = []
    for cluster, part in table.groupby("cluster", sort=False):
        baseline = part[part["label"] == BASELINE].iloc[0]
        types = _types_of(part)
        means = {t: baseline[f"queue_delay_mean_{t.lower()}"] for t in types}
        ranked = sorted(means, key=lambda t: means[t], reverse=True)
        longest, second = ranked[0], ranked[1]
        strict = longest == "Eval" and means["Eval"] > means[second]
        lines.append(f"{cluster}: {BASELINE} mean queue delay: longest {longest} "
                     f"({means[longest]:,.0f} s), next {second} ({means[second]:,.0f} s) -> "
                     f"Eval strictly longest: {strict}")
        for _, row in part[part["scheduler"] == "acme_reservation"].iterrows():
            swept = {t: row[f"queue_delay_mean_{t.lower()}"] for t in types}
            top = max(swept, key=lambda t: swept[t])
            lines.append(f"{cluster}: {row['label']}: longest mean queue delay {top} "
                         f"({swept[top]:,.0f} s)")
        jct = baseline["jct_mean"]
        for name in ("fifo", *SIZE_AWARE):
            for _, row in part[part["scheduler"] == name].iterrows():
                cut = row["jct_mean"] < 0.99 * jct
                lines.append(f"{cluster}: {row['label']} mean JCT {row['jct_mean']:,.0f} s vs "
                             f"{BASELINE} {jct:,.0f} s -> cut by >= 1%: {cut}")
    return lines


def main(argv: list[str] | None = None) -> int:
    """Run the sweeps, collect, write the table and the figure, print the shape checks."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=float, default=30.0, help="trace length (days)")
    parser.add_argument("--runs", type=Path, default=HERE / "runs", help="run directories")
    parser.add_argument("--results", type=Path, default=HERE / "results")
    args = parser.parse_args(argv)
    run_sweeps(args.runs.resolve(), write_traces(args.runs.resolve(), args.days))
    table = comparison(args.runs.resolve())
    args.results.mkdir(parents=True, exist_ok=True)
    atomic_write_csv(args.results / "scheduler_comparison.csv", table)
    atomic_write_text(args.results / "table.md", markdown(table))
    plot(table, args.results / "scheduler_comparison.png")
    checks = shape_checks(table)
    atomic_write_text(args.results / "shape_checks.txt", "\n".join(checks) + "\n")
    print(markdown(table))
    print("\n".join(checks))
    return 0


if __name__ == "__main__":
    sys.exit(main())
