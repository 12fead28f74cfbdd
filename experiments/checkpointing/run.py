"""Sweep checkpoint interval x sync/async x recovery policy x model x job size (single job).

Each configuration is a Monte-Carlo run of ``acmesim.studies.reliability.monte_carlo`` (one job of
``solve_days`` compute, failures at the job's own MTBF, per-failure downtime/restart from the
recovery policy). Writes ``results.csv`` and PNG figures to ``out_dir`` and prints the tables of
the README. Usage: ``python experiments/checkpointing/run.py [config.yaml] [key=value ...]``.
"""

from __future__ import annotations

import io
import sys
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from acmesim.core.atomic import atomic_open, atomic_write_csv  # noqa: E402
from acmesim.core.rng import RngStreams  # noqa: E402
from acmesim.core.script_config import load_script_config  # noqa: E402
from acmesim.policies.checkpoint import CHECKPOINTS  # noqa: E402
from acmesim.policies.failure import FAILURES  # noqa: E402
from acmesim.policies.job_shape import GPUS_PER_NODE, JobShape  # noqa: E402
from acmesim.policies.recovery import RECOVERIES  # noqa: E402
from acmesim.studies.reliability.monte_carlo import monte_carlo  # noqa: E402
from acmesim.studies.reliability.recovery_pool import recovery_pool  # noqa: E402
from acmesim.studies.reliability.single_job_model import (  # noqa: E402
    ExponentialGaps,
    PooledRecovery,
    SingleJobSpec,
)

HERE = Path(__file__).resolve().parent


def load_config(argv: list[str]):
    """The YAML config (first ``*.yaml`` argument, default config.yaml) plus overrides."""
    return load_script_config(argv, HERE / "config.yaml")


def feasible(params_b: float, gpus: int, cfg) -> bool:
    """Whether 16 B/param of state sharded over ``gpus`` fits the GPU-memory budget."""
    per_gpu = params_b * 1e9 * 16 / gpus
    return per_gpu <= cfg.max_state_fraction * cfg.gpu_memory_gb * 1e9


def checkpoint_choices(cfg):
    """(policy name, options) pairs: every fixed interval, then the exact optimum."""
    choices = [("fixed", {"interval_min": float(m)}) for m in cfg.intervals_min]
    if cfg.include_optimal:
        choices.append(("optimal", {}))
    return choices


def pools(cfg, failure, job: JobShape):
    """One (downtime, restart) pool per recovery policy and capacity rule, same fault sample."""
    streams = RngStreams(cfg.seed)
    result = {}
    for name in cfg.recoveries:
        policy = RECOVERIES.create(name, {})
        for capacity in cfg.capacities:
            rng = streams.fresh("recovery_pool")
            result[name, capacity] = recovery_pool(
                policy, failure.mix, job, rng, cfg.pool_size, capacity=capacity
            )
    return result


def run_one(cfg, spec, mtbf, pool, restore):
    """Monte-Carlo of one configuration; the restore time is added to every restart."""
    recovery = PooledRecovery(pool.downtime, pool.restart + restore)
    return monte_carlo(spec, cfg.replications, cfg.seed, ExponentialGaps(mtbf), recovery)


def sweep(cfg) -> pd.DataFrame:
    """Every configuration of the config as one row."""
    failure = FAILURES.create(cfg.failure, {})
    solve = cfg.solve_days * 86_400.0
    rows = []
    for params_b in cfg.models_b:
        for gpus in cfg.gpus:
            if not feasible(params_b, gpus, cfg):
                continue
            job = JobShape("sweep", "Pretrain", gpus, max(1, gpus // GPUS_PER_NODE))
            mtbf = failure.job_mtbf(gpus, job.node_num)
            job_pools = pools(cfg, failure, job)
            for policy, options in checkpoint_choices(cfg):
                for mode in cfg.modes:
                    opts = {**options, "mode": mode, "model_params_b": float(params_b)}
                    plan = CHECKPOINTS.create(policy, opts).plan(job, mtbf)
                    spec = SingleJobSpec.from_plan(solve, plan)
                    for (recovery, capacity), pool in job_pools.items():
                        result = run_one(cfg, spec, mtbf, pool, plan.restore)
                        rows.append(row(params_b, job, policy, mode, recovery, capacity, plan,
                                        result))
    return pd.DataFrame(rows)


def row(params_b, job, policy, mode, recovery, capacity, plan, result) -> dict:
    """One result row (times in hours unless named otherwise)."""
    wall = result.wall
    n = len(wall)
    ettr = result.ettr
    ettr_se = ettr * wall.std(ddof=1) / wall.mean() / np.sqrt(n) if n > 1 else 0.0
    return {
        "model_b": params_b,
        "gpus": job.gpu_num,
        "nodes": job.node_num,
        "checkpoint": policy,
        "mode": mode,
        "recovery": recovery,
        "capacity": capacity,
        "interval_min": plan.interval / 60.0,
        "stall_s": plan.stall,
        "persist_s": plan.persist,
        "restore_s": plan.restore,
        "state_tb": plan.state_bytes / 1e12,
        "job_mtbf_h": plan.mtbf / 3600.0,
        "ettr": ettr,
        "ettr_se": ettr_se,
        "wall_h": float(wall.mean()) / 3600.0,
        "failures": float(result.failures.mean()),
        "checkpoint_overhead": float(result.checkpoint_time.mean()) / result.solve_time,
        "lost_work_h": float(result.lost_work.mean()) / 3600.0,
        "downtime_h": float(result.downtime.mean()) / 3600.0,
        "restart_h": float(result.restart_time.mean()) / 3600.0,
        "lost_gpu_h": float(wall.mean() - result.solve_time) / 3600.0 * job.gpu_num,
    }


def write_results(frame: pd.DataFrame, path: Path) -> None:
    """Write the result table atomically, 6 significant digits per float."""
    atomic_write_csv(path, frame, float_format="%.6g")


def save_png(fig, path: Path) -> None:
    """Write a figure atomically as a small PNG."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=90, metadata={"Software": None})
    plt.close(fig)
    with atomic_open(path, "wb") as handle:
        handle.write(buffer.getvalue())


STYLE = {"manual": "tab:red", "automatic": "tab:blue", "hot_spare": "tab:green"}
DASH = {"sync": "--", "async": "-"}


def plot_vs_gpus(frame: pd.DataFrame, cfg, path: Path) -> None:
    """ETTR against job size at the headline interval, one panel per model and capacity rule."""
    fixed = frame[(frame.checkpoint == "fixed")
                  & np.isclose(frame.interval_min, cfg.headline_interval_min)]
    models, capacities = list(cfg.models_b), list(cfg.capacities)
    fig, axes = plt.subplots(len(capacities), len(models), figsize=(4.2 * len(models),
                             3.0 * len(capacities)), sharey=True, squeeze=False,
                             layout="constrained")
    for (r, capacity), (c, model) in ((rc, mc) for rc in enumerate(capacities)
                                      for mc in enumerate(models)):
        ax = axes[r][c]
        part = fixed[(fixed.model_b == model) & (fixed.capacity == capacity)]
        for (mode, recovery), line in part.groupby(["mode", "recovery"], sort=True):
            ax.plot(line.gpus, line.ettr, DASH[mode], color=STYLE[recovery], marker=".",
                    label=f"{mode}, {recovery}")
        ax.set_xscale("log", base=2)
        ax.set_title(f"{model}B, {cfg.headline_interval_min:g}-min interval, capacity={capacity}",
                     fontsize=9)
        ax.set_xlabel("job GPUs")
        ax.grid(alpha=0.3)
    for r in range(len(capacities)):
        axes[r][0].set_ylabel("ETTR")
    axes[0][0].legend(fontsize=7)
    save_png(fig, path)


def plot_vs_interval(frame: pd.DataFrame, cfg, path: Path, picks) -> None:
    """ETTR against the checkpoint interval for a few (model, GPUs) jobs, capacity=idle."""
    capacity = cfg.capacities[0]
    fig, axes = plt.subplots(1, len(picks), figsize=(4.2 * len(picks), 3.0), squeeze=False,
                             layout="constrained")
    for ax, (model, gpus) in zip(axes[0], picks, strict=True):
        part = frame[(frame.model_b == model) & (frame.gpus == gpus)
                     & (frame.capacity == capacity)]
        for (mode, recovery), line in part[part.checkpoint == "fixed"].groupby(
                ["mode", "recovery"], sort=True):
            ax.plot(line.interval_min, line.ettr, DASH[mode], color=STYLE[recovery],
                    marker=".", label=f"{mode}, {recovery}")
        best = part[part.checkpoint == "optimal"]
        ax.plot(best.interval_min, best.ettr, "k*", markersize=8, label="optimal τ*")
        ax.set_xscale("log")
        ax.set_title(f"{model}B on {gpus} GPUs, capacity={capacity}", fontsize=9)
        ax.set_xlabel("checkpoint interval (min)")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("ETTR")
    axes[0][0].legend(fontsize=7)
    save_png(fig, path)


def headline_tables(frame: pd.DataFrame, cfg) -> str:
    """Markdown tables of the three expected shapes."""
    head = frame[(frame.checkpoint == "fixed")
                 & np.isclose(frame.interval_min, cfg.headline_interval_min)]
    anchors = [(7, 64), (123, 1024)]
    lines = ["| model | GPUs | sync stall (s) | async stall (s) | stall ratio | "
             "sync ckpt overhead | async ckpt overhead | overhead ratio | ETTR sync | ETTR async |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    auto = head[(head.recovery == "automatic") & (head.capacity == cfg.capacities[0])]
    for model, gpus in anchors:
        sync = auto[(auto.model_b == model) & (auto.gpus == gpus) & (auto["mode"] == "sync")]
        asyn = auto[(auto.model_b == model) & (auto.gpus == gpus) & (auto["mode"] == "async")]
        if sync.empty or asyn.empty:
            continue
        s, a = sync.iloc[0], asyn.iloc[0]
        lines.append(
            f"| {model}B | {gpus} | {s.stall_s:.1f} | {a.stall_s:.1f} | "
            f"{s.stall_s / a.stall_s:.1f}× | {s.checkpoint_overhead:.1%} | "
            f"{a.checkpoint_overhead:.1%} | "
            f"{s.checkpoint_overhead / a.checkpoint_overhead:.1f}× | {s.ettr:.3f} | {a.ettr:.3f} |"
        )
    lines += ["", "| model | GPUs | capacity | manual lost GPU-h | automatic lost GPU-h | "
              "hot_spare lost GPU-h | ETTR manual | ETTR automatic | ETTR hot_spare |",
              "|---|---|---|---|---|---|---|---|---|"]
    asyn = head[head["mode"] == "async"]
    for model, gpus in [(7, 64), (123, 1024), (123, 4096), (123, 16384)]:
        for capacity in cfg.capacities:
            part = asyn[(asyn.model_b == model) & (asyn.gpus == gpus)
                        & (asyn.capacity == capacity)].set_index("recovery")
            if part.empty:
                continue
            lost = " | ".join(_cell(part.lost_gpu_h, r, "{:,.0f}") for r in STYLE)
            ettr = " | ".join(_cell(part.ettr, r, "{:.3f}") for r in STYLE)
            lines.append(f"| {model}B | {gpus} | {capacity} | {lost} | {ettr} |")
    return "\n".join(lines)


def _cell(column: pd.Series, key: str, fmt: str) -> str:
    """``column[key]`` formatted, or a dash when that policy was not run."""
    return fmt.format(column[key]) if key in column.index else "–"


def main(argv: list[str]) -> int:
    """Run the sweep, write the CSV and figures, print the headline tables."""
    cfg = load_config(argv)
    out = Path(cfg.out_dir)
    started = time.perf_counter()
    frame = sweep(cfg)
    elapsed = time.perf_counter() - started
    write_results(frame, out / "results.csv")
    plot_vs_gpus(frame, cfg, out / "ettr_vs_gpus.png")
    picks = [(m, g) for m, g in [(7, 64), (123, 1024), (123, 16384)]
             if ((frame.model_b == m) & (frame.gpus == g)).any()]
    if picks:
        plot_vs_interval(frame, cfg, out / "ettr_vs_interval.png", picks)
    print(headline_tables(frame, cfg))
    print(f"\n{len(frame)} configurations x {cfg.replications} replications "
          f"in {elapsed:.1f} s; wrote {out / 'results.csv'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
