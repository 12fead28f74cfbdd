"""Coupled baselines vs decoupled evaluation of a 7B checkpoint on 63 datasets, 1 and 4 nodes.

For every suite draw (seeds 0..seeds-1) and node count, each variant of ``config.yaml`` plans the
request with its evaluation scheduler plug-in and runs it alone on the nodes (``staged``
variants: OpenCompass's two-stage run, ``acmesim.studies.evaluation.staged``). Every variant's
speed-up is reported against each baseline of ``baselines`` (coupled with OpenCompass's
NaivePartitioner or SizePartitioner). Writes, atomically, to ``out_dir``: ``runs.csv`` (every run),
``summary.csv`` (headline seed + spread over seeds), ``baselines.csv`` (the headline variant vs
every coupled variant), ``sensitivity.csv`` (other spreads of dataset sizes),
``trial_durations.csv``, ``suite.csv`` and ``trials_*.csv`` of the headline seed,
``speedup.png``; prints the README tables.
Usage: ``python experiments/eval_decoupling/run.py [config.yaml] [key=value]``.
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
from acmesim.core.script_config import load_script_config  # noqa: E402
from acmesim.evaluation import EvalCluster, EvalRequest, SuiteCalibration, suite_request
from acmesim.evaluation import calibration as cal  # noqa: E402
from acmesim.studies.evaluation import evaluate, plan_request
from acmesim.studies.evaluation.staged import staged_summary  # noqa: E402

HERE = Path(__file__).resolve().parent


def load_config(argv: list[str]):
    """The YAML config (first ``*.yaml`` argument, default config.yaml) plus overrides."""
    return load_script_config(argv, HERE / "config.yaml")


def run_variant(request: EvalRequest, cluster: EvalCluster, variant: dict, workers: int) -> dict:
    """The request summary of one variant (a plain run, or OpenCompass's two-stage run)."""
    if variant.get("staged", False):
        plan = plan_request(request, cluster, variant["scheduler"], variant["options"])
        return asdict(staged_summary(plan, cluster, workers))
    return asdict(evaluate(request, cluster, variant["scheduler"], variant["options"]).summary())


def run_grid(cfg, calibration: SuiteCalibration, seeds: list[int]) -> pd.DataFrame:
    """One row per (seed, nodes, variant) with the request summary and every speed-up."""
    rows = []
    variants = OmegaConf.to_container(cfg.variants)
    cluster_options = OmegaConf.to_container(cfg.cluster)
    for seed in seeds:
        request = suite_request(seed, calibration)
        for nodes in cfg.nodes:
            cluster = EvalCluster(int(nodes), **cluster_options)
            for name, variant in variants.items():
                summary = run_variant(request, cluster, variant, int(cfg.eval_workers))
                rows.append({"seed": seed, "nodes": int(nodes), "variant": name, **summary})
    return add_speedups(pd.DataFrame(rows), dict(cfg.baselines))


def add_speedups(frame: pd.DataFrame, baselines: dict[str, str]) -> pd.DataFrame:
    """Column ``speedup_vs_<label>``: baseline makespan over the row's (same seed and nodes)."""
    for label, baseline in baselines.items():
        base = frame[frame.variant == baseline].set_index(["seed", "nodes"]).makespan_s
        frame[f"speedup_vs_{label}"] = [
            base[(s, n)] / m
            for s, n, m in zip(frame.seed, frame.nodes, frame.makespan_s, strict=True)
        ]
    return frame


def summarize(frame: pd.DataFrame, headline_seed: int, order: list[str],
              labels: list[str]) -> pd.DataFrame:
    """Headline-seed figures and speed-ups, plus median/min/max speed-ups over all seeds."""
    head = frame[frame.seed == headline_seed].set_index(["nodes", "variant"])
    columns = ["makespan_s", "trials", "gpu_time_held_s", "gpu_idle_held_s",
               "time_to_first_result_s", *(f"speedup_vs_{b}" for b in labels)]
    table = head[columns]
    for label in labels:
        spread = frame.groupby(["nodes", "variant"])[f"speedup_vs_{label}"].agg(
            ["median", "min", "max"])
        table = table.join(spread.add_prefix(f"vs_{label}_seeds_"))
    table = table.reset_index()
    table["variant"] = pd.Categorical(table.variant, categories=order, ordered=True)
    return table.sort_values(["nodes", "variant"]).reset_index(drop=True)


def markdown(table: pd.DataFrame, labels: list[str]) -> str:
    """The README table: per baseline, seed-0 speed-up and median [min, max] over seeds."""
    head = "| nodes | variant | trials | makespan (s) | " + " | ".join(
        f"vs {b}: seed 0 · median [min, max]" for b in labels)
    head += " | GPU-h held | GPU idle while held | first result (s) |"
    lines = [head, "|" + "---|" * (7 + len(labels))]
    for r in table.itertuples():
        row = r._asdict()
        cells = [f"{r.nodes}", f"{r.variant}", f"{r.trials}", f"{r.makespan_s:,.0f}"]
        cells += [f"**{row[f'speedup_vs_{b}']:.2f}x** · {row[f'vs_{b}_seeds_median']:.2f}x "
                  f"[{row[f'vs_{b}_seeds_min']:.2f}, {row[f'vs_{b}_seeds_max']:.2f}]"
                  for b in labels]
        cells += [f"{r.gpu_time_held_s / 3600:.2f}",
                  f"{r.gpu_idle_held_s / r.gpu_time_held_s:.0%}",
                  f"{r.time_to_first_result_s:,.0f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def baseline_family(frame: pd.DataFrame, cfg) -> pd.DataFrame:
    """The headline variant's speed-up over every coupled variant (each a candidate baseline)."""
    makespans = frame.pivot_table(index=["seed", "nodes"], columns="variant", values="makespan_s")
    rows = []
    for name, variant in OmegaConf.to_container(cfg.variants).items():
        if variant["scheduler"] != "coupled":
            continue
        ratio = (makespans[name] / makespans[cfg.headline]).unstack("nodes")
        grows = float((ratio[ratio.columns.max()] > ratio[ratio.columns.min()]).mean())
        for nodes in ratio.columns:
            values = ratio[nodes]
            rows.append({"baseline": name, "nodes": int(nodes),
                         "speedup_seed": values.loc[int(cfg.seed)],
                         "speedup_median": values.median(), "speedup_q25": values.quantile(0.25),
                         "speedup_q75": values.quantile(0.75), "speedup_min": values.min(),
                         "speedup_max": values.max(), "seeds_where_speedup_grows": grows})
    return pd.DataFrame(rows)


def family_markdown(family: pd.DataFrame, nodes: list[int]) -> str:
    """README table: headline speed-up vs each candidate baseline, per node count."""
    lines = ["| baseline | " + " | ".join(
        f"{n} node(s): seed 0 · median [IQR] (min-max)" for n in nodes)
        + " | draws where it grows |", "|" + "---|" * (len(nodes) + 2)]
    for name, group in family.groupby("baseline", sort=False):
        group = group.set_index("nodes")
        cells = [f"**{g.speedup_seed:.2f}x** · {g.speedup_median:.2f}x [{g.speedup_q25:.2f}, "
                 f"{g.speedup_q75:.2f}] ({g.speedup_min:.2f}-{g.speedup_max:.2f})"
                 for g in (group.loc[n] for n in nodes)]
        share = group.seeds_where_speedup_grows.iloc[0]
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {share:.0%} |")
    return "\n".join(lines)


def growth_share(frame: pd.DataFrame, variant: str, label: str) -> float:
    """Share of seeds whose ``variant`` speed-up vs ``label`` is larger on the most nodes."""
    pivot = frame[frame.variant == variant].pivot(index="seed", columns="nodes",
                                                  values=f"speedup_vs_{label}")
    return float((pivot[pivot.columns.max()] > pivot[pivot.columns.min()]).mean())


def sensitivity(cfg, seeds: list[int]) -> pd.DataFrame:
    """Headline speed-up vs each baseline over seeds, for other spreads of dataset sizes."""
    rows = []
    keep = list(dict.fromkeys([*cfg.baselines.values(), cfg.headline]))
    sub = OmegaConf.merge(cfg, {})
    sub.variants = {k: cfg.variants[k] for k in keep}
    base = SuiteCalibration(**OmegaConf.to_container(cfg.suite))
    for sigma in [*cfg.sensitivity_log_sigma, base.log_sigma]:
        calibration = SuiteCalibration(**{**asdict(base), "log_sigma": float(sigma)})
        frame = run_grid(sub, calibration, seeds)
        for label in cfg.baselines:
            grows = growth_share(frame, cfg.headline, label)
            head = frame[frame.variant == cfg.headline]
            for nodes, group in head.groupby("nodes"):
                values = group[f"speedup_vs_{label}"]
                rows.append({"log_sigma": float(sigma), "baseline": label, "nodes": int(nodes),
                             "speedup_median": values.median(), "speedup_min": values.min(),
                             "speedup_max": values.max(), "seeds_where_speedup_grows": grows})
    return pd.DataFrame(rows)


def trial_durations(cfg, request: EvalRequest) -> pd.DataFrame:
    """p50/p75 of the coupled baselines' trial durations (GPU held), to set beside the trace."""
    rows = []
    for name, variant in OmegaConf.to_container(cfg.variants).items():
        if variant["scheduler"] != "coupled" or variant.get("staged", False):
            continue
        for nodes in cfg.nodes:
            cluster = EvalCluster(int(nodes), **OmegaConf.to_container(cfg.cluster))
            trials = evaluate(request, cluster, "coupled", variant["options"]).trials_frame()
            held = trials.released - trials.load_start
            rows.append({"variant": name, "nodes": int(nodes), "trials": len(trials),
                         "p50_s": held.quantile(0.5), "p75_s": held.quantile(0.75),
                         "max_s": held.max()})
    return pd.DataFrame(rows)


def plot(table: pd.DataFrame, sens: pd.DataFrame, labels: list[str], path: Path) -> None:
    """Speed-up per variant vs each baseline (whiskers: range over seeds); right: vs sigma."""
    variants = list(table.variant.cat.categories)
    fig, axes = plt.subplots(1, len(labels) + 1, figsize=(14, 3.8), dpi=90,
                             gridspec_kw={"width_ratios": [3] * len(labels) + [1.4]})
    width = 0.38
    for ax, label in zip(axes, labels, strict=False):
        for k, (nodes, group) in enumerate(table.groupby("nodes")):
            group = group.set_index("variant").loc[variants]
            xs = [i + (k - 0.5) * width for i in range(len(variants))]
            mid = group[f"speedup_vs_{label}"]
            err = [mid - group[f"vs_{label}_seeds_min"], group[f"vs_{label}_seeds_max"] - mid]
            err = [[max(v, 0.0) for v in part] for part in err]
            ax.bar(xs, mid, width, yerr=err, capsize=2, label=f"{nodes} node(s)")
        ax.set_xticks(range(len(variants)), variants, rotation=35, ha="right", fontsize=7)
        ax.set_title(f"speed-up vs coupled {label} (bars seed 0, whiskers all seeds)", fontsize=9)
        ax.legend(fontsize=7, loc="upper left")
    side = axes[-1]
    for (label, nodes), group in sens.groupby(["baseline", "nodes"]):
        side.plot(group.log_sigma, group.speedup_median, marker="o", ls="-" if label == labels[0]
                  else "--", label=f"vs {label}, {nodes} node(s)")
    side.set_xlabel("log-normal sigma of dataset inference times", fontsize=8)
    side.set_title("decoupled, median over draws", fontsize=9)
    side.legend(fontsize=6)
    for axis in axes:
        for level in (1.3, 1.8):
            axis.axhline(level, ls=":", lw=0.8, color="grey")
        axis.set_yscale("log")
        axis.set_ylim(0.12, 12)
        ticks = [0.25, 0.5, 1, 1.3, 1.8, 3, 5, 10]
        axis.set_yticks(ticks, [f"{t:g}" for t in ticks])
        axis.minorticks_off()
    fig.tight_layout()
    with atomic_open(path, "wb") as handle:
        fig.savefig(handle, format="png")
    plt.close(fig)


def write_trials(cfg, request: EvalRequest, out: Path) -> None:
    """Per-trial timelines of the headline seed for the baselines and the headline variant."""
    for nodes in cfg.nodes:
        cluster = EvalCluster(int(nodes), **OmegaConf.to_container(cfg.cluster))
        for name in [*cfg.baselines.values(), cfg.headline]:
            v = cfg.variants[name]
            result = evaluate(request, cluster, v.scheduler, OmegaConf.to_container(v.options))
            slug = name.replace(" ", "_")
            atomic_write_csv(out / f"trials_{slug}_{nodes}node.csv", result.trials_frame().round(3))


def main(argv: list[str]) -> int:
    """Run the experiment and write its results."""
    started = time.perf_counter()
    cfg = load_config(argv)
    out = Path(cfg.out_dir)
    seeds = list(range(int(cfg.seeds)))
    labels = list(cfg.baselines)
    calibration = SuiteCalibration(**OmegaConf.to_container(cfg.suite))
    frame = run_grid(cfg, calibration, seeds)
    table = summarize(frame, int(cfg.seed), list(cfg.variants), labels)
    sens = sensitivity(cfg, seeds)
    request = suite_request(int(cfg.seed), calibration)
    durations = trial_durations(cfg, request)
    family = baseline_family(frame, cfg)
    atomic_write_csv(out / "runs.csv", frame.round(6))
    atomic_write_csv(out / "summary.csv", table.round(6))
    atomic_write_csv(out / "sensitivity.csv", sens.round(6))
    atomic_write_csv(out / "trial_durations.csv", durations.round(3))
    atomic_write_csv(out / "baselines.csv", family.round(6))
    suite = pd.DataFrame([asdict(d) for d in request.datasets])
    atomic_write_csv(out / "suite.csv", suite.round(3))
    write_trials(cfg, request, out)
    atomic_write_text(out / "config.yaml", OmegaConf.to_yaml(cfg))
    plot(table, sens.sort_values(["baseline", "nodes", "log_sigma"]), labels, out / "speedup.png")
    print(markdown(table, labels))
    print()
    print(family_markdown(family, [int(n) for n in cfg.nodes]))
    print()
    print(sens.round(2).to_string(index=False))
    print()
    print(durations.round(0).to_string(index=False))
    print(f"(Seren Eval jobs: p50 {cal.SEREN_EVAL_P50_S:.0f} s, p75 {cal.SEREN_EVAL_P75_S:.0f} s)")
    print(f"\nwall time {time.perf_counter() - started:.1f} s; results in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
