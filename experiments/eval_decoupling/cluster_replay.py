"""Coupled vs decoupled evaluation in a full replay of a 30-day synthetic Seren trace.

For every trace seed, base scheduler and variant of ``cluster_replay.yaml``, the trace
(``generate_trace(profile, days, seed)``) is replayed on the modeled cluster by the base scheduler
under the variant's evaluation mode (``eval=coupled``: Eval jobs as recorded; ``eval=decoupled``:
grouped into requests and re-planned by the trial coordinator). Writes,
atomically, to ``out_dir``: ``runs.csv`` (one row per run), ``requests_<variant>.csv`` (the
headline seed and base, one row per evaluation request), ``cluster_replay.png`` and
``config.yaml``; prints the README table. Usage:
``python experiments/eval_decoupling/cluster_replay.py [cluster_replay.yaml] [key=value ...]``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from omegaconf import OmegaConf  # noqa: E402

from acmesim.core.atomic import atomic_open, atomic_write_csv, atomic_write_text  # noqa: E402
from acmesim.core.script_config import load_script_config  # noqa: E402
from acmesim.run import simulate  # noqa: E402
from acmesim.synth import generate_trace  # noqa: E402

HERE = Path(__file__).resolve().parent
HOUR = 3600.0


def load_config(argv: list[str]):
    """The YAML config (first ``*.yaml`` argument, default cluster_replay.yaml) plus overrides."""
    return load_script_config(argv, HERE / "cluster_replay.yaml")


def _stats(values: pd.Series, prefix: str) -> dict[str, float]:
    """Mean, median and 95th percentile of ``values`` as ``prefix_mean`` etc."""
    v = values.to_numpy(dtype=float)
    v = v[np.isfinite(v)]
    return {f"{prefix}_mean": float(v.mean()), f"{prefix}_p50": float(np.median(v)),
            f"{prefix}_p95": float(np.percentile(v, 95))}


def run_one(trace: pd.DataFrame, cluster: str, base: str,
            variant: dict) -> tuple[dict, pd.DataFrame]:
    """One replay: its figures and its eval_requests table."""
    began = time.perf_counter()
    result = simulate(trace, cluster, base, eval={"name": variant["eval"], **variant["options"]})
    wall = time.perf_counter() - began
    requests = result.eval_requests
    jobs, summary = result.jobs, result.summary
    pretrain = jobs[jobs.type == "Pretrain"]
    rest = jobs[~jobs.type.isin(["Pretrain", "Eval"])]
    row = {
        "jobs_simulated": len(jobs), "eval_requests": summary["eval_requests"],
        "eval_engine_jobs": int((jobs.type == "Eval").sum()),
        "eval_recorded_gpu_h": summary["eval_recorded_gpu_time"] / HOUR,
        "eval_gpu_h": summary["eval_gpu_time"] / HOUR,
        "eval_metric_cpu_h": summary["eval_metric_cpu_time"] / HOUR,
        **_stats(requests.queue_delay, "request_queue_delay"),
        **_stats(requests.makespan, "request_makespan"),
        **_stats(pretrain.jct, "pretrain_jct"),
        "pretrain_queue_delay_mean": float(pretrain.queue_delay.mean()),
        "other_jct_mean": float(rest.jct.mean()),
        "gpu_utilization": summary["gpu_utilization"],
    }
    return {**row, "wall_s": wall}, requests


def run_all(cfg) -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    """Every (seed, base, variant) run, plus the sensitivity runs; headline request tables."""
    plan = [(seed, base, name, variant)
            for seed in cfg.seeds for base in cfg.bases
            for name, variant in OmegaConf.to_container(cfg.variants).items()]
    plan += [(cfg.seeds[0], cfg.headline_base, name, variant)
             for name, variant in OmegaConf.to_container(cfg.sensitivity).items()]
    rows, headline = [], {}
    traces: dict[int, pd.DataFrame] = {}
    for seed, base, name, variant in plan:
        if seed not in traces:
            traces = {seed: generate_trace(cfg.profile, float(cfg.days), int(seed))}
        row, requests = run_one(traces[seed], cfg.cluster, base, variant)
        rows.append({"seed": int(seed), "base": base, "variant": name, **row})
        print(f"seed {seed} {base:>16} {name:<28} {row['wall_s']:6.1f} s", flush=True)
        if seed == cfg.seeds[0] and base == cfg.headline_base:
            headline[name] = requests
    return pd.DataFrame(rows), headline


def markdown(runs: pd.DataFrame, seeds: list[int]) -> str:
    """The README table: headline seed, with the range over seeds where there are several."""
    head = runs[runs.seed == seeds[0]]
    spread = runs.groupby(["base", "variant"])
    lines = ["| base scheduler | evaluation | engine Eval jobs | Eval GPU-h (recorded -> "
             "replayed) | metric CPU-h | request queue delay mean / p95 (h) | request makespan "
             "mean / p95 (h) | Pretrain JCT mean (h) | other JCT mean (h) |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in head.itertuples():
        group = spread.get_group((r.base, r.variant))
        def rng(column: str, group=group) -> str:
            if len(group) < 2:
                return ""
            low, high = group[column].min() / HOUR, group[column].max() / HOUR
            return f" [{low:.2f}-{high:.2f}]"
        lines.append(
            f"| {r.base} | {r.variant} | {r.eval_engine_jobs:,} | {r.eval_recorded_gpu_h:,.0f} -> "
            f"{r.eval_gpu_h:,.0f} | {r.eval_metric_cpu_h:,.0f} | "
            f"**{r.request_queue_delay_mean / HOUR:.2f}**{rng('request_queue_delay_mean')} / "
            f"{r.request_queue_delay_p95 / HOUR:.1f} | "
            f"**{r.request_makespan_mean / HOUR:.2f}**{rng('request_makespan_mean')} / "
            f"{r.request_makespan_p95 / HOUR:.1f} | "
            f"**{r.pretrain_jct_mean / HOUR:.3f}**{rng('pretrain_jct_mean')} | "
            f"{r.other_jct_mean / HOUR:.3f} |")
    return "\n".join(lines)


RATIOS = {"request_queue_delay_mean": "request queue\ndelay (mean)",
          "request_makespan_mean": "request\nmakespan (mean)",
          "pretrain_jct_mean": "Pretrain\nJCT (mean)"}
"""Per-seed decoupled / coupled ratios shown in the right panel."""


def plot(headline: dict[str, pd.DataFrame], runs: pd.DataFrame, cfg, path: Path) -> None:
    """CDFs of request queue delay and makespan (headline); decoupled/coupled ratios per seed."""
    fig, axes = plt.subplots(1, 3, figsize=(11, 3.3), dpi=80)
    floor = 60.0 / HOUR  # one minute: shorter values are drawn at the axis' left end
    for name, requests in headline.items():
        for ax, column in zip(axes[:2], ("queue_delay", "makespan"), strict=True):
            values = np.sort(np.maximum(requests[column].to_numpy(dtype=float) / HOUR, floor))
            ax.step(values, np.arange(1, len(values) + 1) / len(values), where="post", label=name)
    for ax, title in zip(axes[:2], ("request queue delay", "request makespan"), strict=True):
        ax.set_xscale("log")
        ax.set_xlabel("hours (log; <= 1 min drawn at 1 min)", fontsize=8)
        ax.set_title(f"{title}, {cfg.headline_base}, seed {cfg.seeds[0]}", fontsize=9)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("share of requests")
    axes[0].legend(fontsize=7, loc="lower right")
    pivot = runs.pivot_table(index=["base", "seed"], columns="variant", values=list(RATIOS))
    ax = axes[2]
    for k, base in enumerate(cfg.bases):
        for i, column in enumerate(RATIOS):
            ratio = (pivot[column]["decoupled"] / pivot[column]["coupled"]).loc[base]
            xs = np.full(len(ratio), i + (k - 0.5) * 0.25)
            ax.scatter(xs, ratio, s=18, color=f"C{k}", label=base if i == 0 else None)
    ax.axhline(1.0, color="grey", lw=0.8, ls="--")
    ax.set_xticks(range(len(RATIOS)), list(RATIOS.values()), fontsize=7)
    ax.set_ylabel("decoupled / coupled")
    ax.set_title(f"per seed ({len(cfg.seeds)} traces)", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    with atomic_open(path, "wb") as handle:
        fig.savefig(handle, format="png")
    plt.close(fig)


def main(argv: list[str]) -> int:
    """Run the experiment and write its results."""
    started = time.perf_counter()
    cfg = load_config(argv)
    out = Path(cfg.out_dir)
    runs, headline = run_all(cfg)
    atomic_write_csv(out / "runs.csv", runs.drop(columns="wall_s").round(6))
    for name, requests in headline.items():
        slug = name.replace(",", "").replace(">=", "min").replace(" ", "_")
        atomic_write_csv(out / f"requests_{slug}.csv", requests.round(3))
    atomic_write_text(out / "config.yaml", OmegaConf.to_yaml(cfg))
    plot(headline, runs, cfg, out / "cluster_replay.png")
    print()
    print(markdown(runs, list(cfg.seeds)))
    print(f"\nwall time {time.perf_counter() - started:.0f} s; results in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
