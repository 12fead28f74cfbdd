"""The trials of a tuning sweep (tune.yaml): a table and their Pareto view as a figure.

    python experiments/tuning/pareto.py SWEEP_DIR [--out DIR]

Reads every complete run of the sweep, computes the two competing values of tune.yaml
(evaluation p90 and pretraining p99 queueing delay) from its jobs.csv with the same code the
objective uses, writes ``trials.csv`` and draws ``pareto.png``: each trial's two values, the
Pareto front (no other trial is better in both), the bound, and the best trial within it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import yaml
from matplotlib.figure import Figure

from acmesim.analysis.plots import save_figure
from acmesim.cli.objective import Objective
from acmesim.results.rundirs import COMPLETE, find_runs, read_run

HERE = Path(__file__).resolve().parent
QUOTA = "scheduler.quotas.Pretrain"
HOUR = 3600.0


def tuning_objective() -> Objective:
    """The objective tune.yaml declares."""
    config = yaml.safe_load((HERE / "tune.yaml").read_text(encoding="utf-8"))
    objective = Objective.from_settings(config)
    assert objective is not None and objective.constraint is not None
    return objective


def trials(sweep_dir: Path, objective: Objective) -> pd.DataFrame:
    """One row per complete trial: its quota, both values (s) and its tuned objective."""
    rows = []
    for run in find_runs(sweep_dir):
        record = read_run(run)
        if record.status != COMPLETE:
            continue
        rows.append({"run": run.name, "quota": float(record.overrides[QUOTA]),
                     "eval_p90": objective.metric.value(run),
                     "pretrain_p99": objective.constraint.value(run),  # type: ignore[union-attr]
                     "objective": objective.value(run)})
    if not rows:
        sys.exit(f"{sweep_dir}: no complete trials")
    table = pd.DataFrame(rows).sort_values("quota").reset_index(drop=True)
    table["pareto"] = pareto_front(table[["eval_p90", "pretrain_p99"]].to_numpy())
    table["feasible"] = table["pretrain_p99"] <= objective.constraint_max
    return table


def pareto_front(points: np.ndarray) -> np.ndarray:
    """True for each point no other point is at least as good in both (lower) and better in one."""
    better_or_equal = (points[None, :, :] <= points[:, None, :]).all(axis=2)
    strictly = (points[None, :, :] < points[:, None, :]).any(axis=2)
    return ~(better_or_equal & strictly).any(axis=1)


def pareto_figure(table: pd.DataFrame, bound: float) -> Figure:
    """Left: trials in the (eval p90, pretrain p99) plane; right: both values against quota."""
    fig = Figure(figsize=(11, 4.2))
    left, right = fig.subplots(1, 2)
    hours = table[["eval_p90", "pretrain_p99"]] / HOUR
    dots = left.scatter(hours["eval_p90"], hours["pretrain_p99"], c=table["quota"],
                        cmap="viridis", edgecolor="black", zorder=3)
    front = hours[table["pareto"]].sort_values("eval_p90")
    left.plot(front["eval_p90"], front["pretrain_p99"], "--", color="tab:red",
              label="Pareto front", zorder=2)
    left.axhline(bound / HOUR, color="gray", linestyle=":", label=f"bound {bound / HOUR:g} h")
    best = table[table["feasible"]].nsmallest(1, "objective")
    if not best.empty:
        left.scatter(best["eval_p90"] / HOUR, best["pretrain_p99"] / HOUR, marker="*", s=260,
                     color="tab:orange", edgecolor="black", zorder=4,
                     label=f"best within bound (quota {best['quota'].iloc[0]:.2f})")
    fig.colorbar(dots, ax=left, label="pretraining quota (share of nodes)")
    left.set(xlabel="Eval p90 queueing delay (h)", ylabel="Pretrain p99 queueing delay (h)",
             title=f"{len(table)} Optuna trials")
    left.grid(True, linestyle=":")
    left.legend(fontsize="small")
    right.plot(table["quota"], hours["eval_p90"], "o-", label="Eval p90")
    right.plot(table["quota"], hours["pretrain_p99"], "s-", label="Pretrain p99")
    right.axhline(bound / HOUR, color="gray", linestyle=":")
    right.set(xlabel="pretraining quota (share of nodes)", ylabel="queueing delay (h)",
              title="both values against the tuned quota")
    right.grid(True, linestyle=":")
    right.legend(fontsize="small")
    fig.tight_layout()
    return fig


def main(argv: list[str] | None = None) -> int:
    """Write trials.csv and pareto.png for a tuning sweep; print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sweep_dir", type=Path)
    parser.add_argument("--out", type=Path, default=None, help="default: SWEEP_DIR")
    args = parser.parse_args(argv)
    out = args.out or args.sweep_dir
    objective = tuning_objective()
    table = trials(args.sweep_dir, objective)
    out.mkdir(parents=True, exist_ok=True)
    table.to_csv(out / "trials.csv", index=False)
    save_figure(pareto_figure(table, objective.constraint_max), out / "pareto.png")
    shown = table.assign(eval_p90_h=table["eval_p90"] / HOUR,
                         pretrain_p99_h=table["pretrain_p99"] / HOUR)
    print(shown[["quota", "eval_p90_h", "pretrain_p99_h", "objective", "feasible", "pareto"]]
          .round(3).to_string(index=False))
    print(f"wrote {out / 'trials.csv'} and {out / 'pareto.png'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
