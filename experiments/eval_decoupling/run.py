"""Coupled vs decoupled evaluation of a 7B checkpoint on 63 datasets, 1 and 4 nodes, with ablations.

For every suite draw (seeds 0..seeds-1) and node count, each variant of ``config.yaml`` plans the
request with its evaluation scheduler plug-in and runs it alone on the nodes; the speed-up is the
coupled makespan over the variant's. Writes, atomically, to ``out_dir``: ``runs.csv`` (every
run), ``summary.csv`` (headline seed + spread over seeds), ``sensitivity.csv`` (other spreads of
dataset sizes), ``suite.csv`` and ``trials_*.csv`` of the headline seed, ``speedup.png``; prints
the README tables. Usage: ``python experiments/eval_decoupling/run.py [config.yaml] [key=value]``.
"""

from __future__ import annotations

import sys
import time
from dataclasses import asdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from omegaconf import OmegaConf  # noqa: E402

from acmesim.core.atomic import atomic_open, atomic_write_csv, atomic_write_text  # noqa: E402
from acmesim.evaluation import (  # noqa: E402
    EvalCluster,
    SuiteCalibration,
    evaluate,
    suite_request,
)

HERE = Path(__file__).resolve().parent


def load_config(argv: list[str]):
    """The YAML config (first argument ending in .yaml, default config.yaml) plus overrides."""
    files = [a for a in argv if a.endswith((".yaml", ".yml")) and "=" not in a]
    overrides = [a for a in argv if a not in files]
    base = OmegaConf.load(files[0] if files else HERE / "config.yaml")
    return OmegaConf.merge(base, OmegaConf.from_dotlist(overrides))


def run_grid(cfg, calibration: SuiteCalibration, seeds: list[int]) -> pd.DataFrame:
    """One row per (seed, nodes, variant) with the request summary and the speed-up."""
    rows = []
    variants = OmegaConf.to_container(cfg.variants)
    cluster_options = OmegaConf.to_container(cfg.cluster)
    for seed in seeds:
        request = suite_request(seed, calibration)
        for nodes in cfg.nodes:
            cluster = EvalCluster(int(nodes), **cluster_options)
            for name, variant in variants.items():
                result = evaluate(request, cluster, variant["scheduler"], variant["options"])
                summary = asdict(result.summary())
                rows.append({"seed": seed, "nodes": int(nodes), "variant": name, **summary})
    frame = pd.DataFrame(rows)
    base = frame[frame.variant == "coupled"].set_index(["seed", "nodes"]).makespan_s
    frame["speedup"] = [
        base[(s, n)] / m for s, n, m in zip(frame.seed, frame.nodes, frame.makespan_s, strict=True)
    ]
    return frame


def summarize(frame: pd.DataFrame, headline_seed: int, order: list[str]) -> pd.DataFrame:
    """Headline-seed makespan and speed-up, plus median/min/max speed-up over all seeds."""
    head = frame[frame.seed == headline_seed].set_index(["nodes", "variant"])
    spread = frame.groupby(["nodes", "variant"]).speedup.agg(["median", "min", "max"])
    table = head[["makespan_s", "trials", "gpu_time_held_s", "gpu_idle_held_s",
                  "time_to_first_result_s", "speedup"]].join(
        spread.add_prefix("speedup_seeds_"))
    table = table.reset_index()
    table["variant"] = pd.Categorical(table.variant, categories=order, ordered=True)
    return table.sort_values(["nodes", "variant"]).reset_index(drop=True)


def markdown(table: pd.DataFrame) -> str:
    """The README table."""
    lines = ["| nodes | variant | trials | makespan (s) | speed-up | over seeds: median [min, max] "
             "| GPU-h held | GPU idle while held | first result (s) |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in table.itertuples():
        lines.append(
            f"| {r.nodes} | {r.variant} | {r.trials} | {r.makespan_s:,.0f} | "
            f"**{r.speedup:.2f}x** | {r.speedup_seeds_median:.2f}x "
            f"[{r.speedup_seeds_min:.2f}, {r.speedup_seeds_max:.2f}] | "
            f"{r.gpu_time_held_s / 3600:.2f} | {r.gpu_idle_held_s / r.gpu_time_held_s:.0%} | "
            f"{r.time_to_first_result_s:,.0f} |"
        )
    return "\n".join(lines)


def sensitivity(cfg, seeds: list[int]) -> pd.DataFrame:
    """Decoupled speed-up over seeds for other log-normal spreads of dataset inference times."""
    rows = []
    sub = OmegaConf.merge(cfg, {"variants": {k: cfg.variants[k] for k in ("coupled", "decoupled")}})
    base = SuiteCalibration(**OmegaConf.to_container(cfg.suite))
    for sigma in [*cfg.sensitivity_log_sigma, base.log_sigma]:
        calibration = SuiteCalibration(**{**asdict(base), "log_sigma": float(sigma)})
        frame = run_grid(sub, calibration, seeds)
        frame = frame[frame.variant == "decoupled"]
        grows = growth_share(frame)
        for nodes, group in frame.groupby("nodes"):
            rows.append({"log_sigma": float(sigma), "nodes": int(nodes),
                         "speedup_median": group.speedup.median(),
                         "speedup_min": group.speedup.min(),
                         "speedup_max": group.speedup.max(),
                         "seeds_where_speedup_grows": grows})
    return pd.DataFrame(rows)


def growth_share(frame: pd.DataFrame) -> float:
    """Share of seeds whose decoupled speed-up is larger on the most nodes than on the fewest."""
    pivot = frame[frame.variant == "decoupled"].pivot(index="seed", columns="nodes",
                                                      values="speedup")
    return float((pivot[pivot.columns.max()] > pivot[pivot.columns.min()]).mean())


def plot(table: pd.DataFrame, sens: pd.DataFrame, path: Path) -> None:
    """Left: speed-up per variant and node count (whiskers: range over seeds). Right: vs sigma."""
    variants = list(table.variant.cat.categories)
    fig, (ax, side) = plt.subplots(1, 2, figsize=(10, 3.6), dpi=90,
                                   gridspec_kw={"width_ratios": [3, 1]})
    width = 0.38
    for k, (nodes, group) in enumerate(table.groupby("nodes")):
        group = group.set_index("variant").loc[variants]
        xs = [i + (k - 0.5) * width for i in range(len(variants))]
        err = [group.speedup - group.speedup_seeds_min, group.speedup_seeds_max - group.speedup]
        err = [[max(v, 0.0) for v in part] for part in err]
        ax.bar(xs, group.speedup, width, yerr=err, capsize=2, label=f"{nodes} node(s)")
    for axis in (ax, side):
        for level in (1.3, 1.8):
            axis.axhline(level, ls="--", lw=0.8, color="grey")
        axis.set_yscale("log")
        axis.set_yticks([1, 1.3, 1.8, 3, 5, 8], ["1", "1.3", "1.8", "3", "5", "8"])
        axis.minorticks_off()
    ax.text(-0.6, 1.3, "paper 1 node ", fontsize=7, va="top", ha="left")
    ax.text(-0.6, 1.8, "paper 4 nodes", fontsize=7, va="bottom", ha="left")
    ax.set_xticks(range(len(variants)), variants, rotation=20, fontsize=8)
    ax.set_ylabel("makespan speed-up vs coupled")
    ax.set_title("7B x 63 datasets: bars = seed 0, whiskers = range over 20 suite draws",
                 fontsize=9)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(0.0, 0.93))
    for nodes, group in sens.groupby("nodes"):
        side.plot(group.log_sigma, group.speedup_median, marker="o", label=f"{nodes} node(s)")
        side.fill_between(group.log_sigma, group.speedup_min, group.speedup_max, alpha=0.2)
    side.set_xlabel("log-normal sigma of dataset inference times", fontsize=8)
    side.set_title("decoupled, median over draws", fontsize=9)
    side.legend(fontsize=7)
    fig.tight_layout()
    with atomic_open(path, "wb") as handle:
        fig.savefig(handle, format="png")
    plt.close(fig)


def main(argv: list[str]) -> int:
    """Run the experiment and write its results."""
    started = time.perf_counter()
    cfg = load_config(argv)
    out = Path(cfg.out_dir)
    seeds = list(range(int(cfg.seeds)))
    calibration = SuiteCalibration(**OmegaConf.to_container(cfg.suite))
    frame = run_grid(cfg, calibration, seeds)
    table = summarize(frame, int(cfg.seed), list(cfg.variants))
    sens = sensitivity(cfg, seeds)
    atomic_write_csv(out / "runs.csv", frame.round(6))
    atomic_write_csv(out / "summary.csv", table.round(6))
    atomic_write_csv(out / "sensitivity.csv", sens.round(6))
    request = suite_request(int(cfg.seed), calibration)
    suite = pd.DataFrame([asdict(d) for d in request.datasets])
    atomic_write_csv(out / "suite.csv", suite.round(3))
    for nodes in cfg.nodes:
        cluster = EvalCluster(int(nodes), **OmegaConf.to_container(cfg.cluster))
        for name in ("coupled", "decoupled"):
            v = cfg.variants[name]
            result = evaluate(request, cluster, v.scheduler, OmegaConf.to_container(v.options))
            atomic_write_csv(out / f"trials_{name}_{nodes}node.csv", result.trials_frame().round(3))
    atomic_write_text(out / "config.yaml", OmegaConf.to_yaml(cfg))
    plot(table, sens.sort_values(["nodes", "log_sigma"]), out / "speedup.png")
    print(markdown(table))
    print(f"\nseeds where the decoupled speed-up grows from {min(cfg.nodes)} to "
          f"{max(cfg.nodes)} nodes: {growth_share(frame):.0%}")
    print()
    print(sens.round(2).to_string(index=False))
    print(f"\nwall time {time.perf_counter() - started:.1f} s; results in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
