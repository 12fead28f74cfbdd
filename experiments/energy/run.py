"""Energy of the schedulers and of the checkpoint policies on 30 days of synthetic Seren.

    python experiments/energy/run.py [--days N] [--runs DIR]

Runs the three Hydra sweeps of this folder through ``acmesim replay -m`` (every scheduler; every
checkpoint policy; the power models on one configuration), all with ``failure=acme`` and
``power=acme`` unless swept, merges their summaries with ``acmesim collect``, and writes
``results/energy.csv`` (one row per run), ``results/table.md`` and ``results/energy.png``
(energy by GPU state, and energy lost to failures, per configuration). It then checks the
expected shape (README.md) and prints it. Complete runs are skipped when run again.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from acmesim.analysis.plots import save_figure  # noqa: E402
from acmesim.cli import main as acmesim  # noqa: E402
from acmesim.cli.commands.collect import collect  # noqa: E402
from acmesim.core.atomic import atomic_write_csv, atomic_write_text  # noqa: E402

HERE = Path(__file__).resolve().parent
SWEEPS = {"sweep_schedulers": "scheduler", "sweep_checkpoints": "checkpoint",
          "sweep_power": "power"}
"""Sweep config -> the setting it varies (the row label)."""
MWH = ["energy_kwh", "energy_idle_kwh", "energy_waiting_kwh", "energy_running_kwh",
       "energy_lost_failures_kwh", "energy_lost_rollback_kwh", "energy_lost_recovery_kwh",
       "energy_lost_checkpoint_kwh"]
KEEP = ["sweep", "label", "failures", "makespan", "jct_mean", "gpu_utilization",
        "gpu_server_power_mean_w"]


def run_sweeps(runs: Path, days: float) -> None:
    """Run each sweep config of this folder into ``runs/<sweep>``."""
    for name in SWEEPS:
        code = acmesim(["replay", "-m", "--config-dir", str(HERE), "--config-name", name,
                        f"trace.days={days:g}", f"hydra.sweep.dir={runs / name}"])
        if code:
            raise SystemExit(f"sweep {name} failed (exit {code})")


def comparison(runs: Path) -> pd.DataFrame:
    """One row per run: its label, energies in MWh, and the context columns."""
    frames = []
    for name, key in SWEEPS.items():
        table = collect(runs / name)
        failed = table[table["status"] != "complete"]
        if len(failed):
            raise SystemExit(f"{len(failed)} run(s) did not complete:\n{failed[['run', 'error']]}")
        table["sweep"] = key
        table["label"] = table[key].astype(str)
        frames.append(table)
    table = pd.concat(frames, ignore_index=True)
    for column in MWH:
        table[column.replace("_kwh", "_mwh")] = pd.to_numeric(table[column]) / 1000.0
    return table[KEEP + [c.replace("_kwh", "_mwh") for c in MWH]]


def markdown(table: pd.DataFrame) -> str:
    """The README tables: one per sweep."""
    heads = ["setting", "total MWh", "idle MWh", "waiting MWh", "running MWh",
             "lost to failures MWh", "rollback", "recovery", "checkpoint stalls", "failures",
             "makespan (d)", "mean server W"]
    lines = []
    for sweep, rows in table.groupby("sweep", sort=False):
        lines += [f"### by {sweep}", "", "| " + " | ".join(heads) + " |",
                  "|" + "---|" * len(heads)]
        for _, r in rows.iterrows():
            cells = [r["label"]] + [_num(r[c]) for c in (
                "energy_mwh", "energy_idle_mwh", "energy_waiting_mwh", "energy_running_mwh",
                "energy_lost_failures_mwh", "energy_lost_rollback_mwh",
                "energy_lost_recovery_mwh", "energy_lost_checkpoint_mwh")]
            cells += [f"{int(r['failures'])}", f"{r['makespan'] / 86400:.1f}",
                      _num(r["gpu_server_power_mean_w"], 0)]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def _num(value, digits: int = 2) -> str:
    """A number for the table; '-' when empty."""
    return "-" if pd.isna(value) else f"{float(value):,.{digits}f}"


def figure(table: pd.DataFrame, path: Path) -> Path:
    """Stacked energy by GPU state and the energy lost to failures, per setting."""
    powered = table[table["energy_mwh"].notna()]
    groups = [g for g in ("scheduler", "checkpoint") if g in set(powered["sweep"])]
    fig, axes = plt.subplots(2, len(groups), figsize=(5.5 * len(groups), 6.5), squeeze=False)
    for col, sweep in enumerate(groups):
        rows = powered[powered["sweep"] == sweep]
        x = range(len(rows))
        bottom = pd.Series(0.0, index=rows.index)
        for state in ("running", "waiting", "idle"):
            values = rows[f"energy_{state}_mwh"]
            axes[0, col].bar(x, values, bottom=bottom, label=state)
            bottom = bottom + values
        axes[0, col].set(title=f"energy by GPU state, by {sweep}", ylabel="MWh")
        bottom = pd.Series(0.0, index=rows.index)
        for part in ("rollback", "recovery", "checkpoint"):
            values = rows[f"energy_lost_{part}_mwh"]
            axes[1, col].bar(x, values, bottom=bottom, label=part)
            bottom = bottom + values
        axes[1, col].set(title=f"energy lost to failures, by {sweep}", ylabel="MWh")
        for ax in axes[:, col]:
            ax.set_xticks(list(x), rows["label"], rotation=30, ha="right")
            ax.grid(True, axis="y", linestyle=":")
            ax.legend(fontsize="small")
    fig.tight_layout()
    return save_figure(fig, path)


def shape_checks(table: pd.DataFrame) -> list[tuple[str, bool]]:
    """The expected shape of README.md, each as (statement, holds)."""
    powered = table[table["energy_mwh"].notna()]
    parts = powered[["energy_idle_mwh", "energy_waiting_mwh", "energy_running_mwh"]].sum(axis=1)
    ckpt = table[table["sweep"] == "checkpoint"].set_index("label")
    power = table[table["sweep"] == "power"].set_index("label")
    sched = powered[powered["sweep"] == "scheduler"]
    checks = [
        ("energy by state sums to the total in every run",
         bool(((parts - powered["energy_mwh"]).abs() <= 1e-9 * powered["energy_mwh"]).all())),
        ("without checkpoints, failures cost more energy than with Young's interval",
         bool(ckpt.loc["none", "energy_lost_failures_mwh"]
              > ckpt.loc["young", "energy_lost_failures_mwh"])),
        ("without checkpoints, the loss is all rollback and recovery (no stalls)",
         bool(ckpt.loc["none", "energy_lost_checkpoint_mwh"] == 0)),
        ("idle GPUs take the largest share of every scheduler's energy",
         bool((sched["energy_idle_mwh"] > sched[["energy_waiting_mwh", "energy_running_mwh"]]
               .max(axis=1)).all())),
        ("power=none leaves the energy empty; linear (RAPS) draws more than acme",
         bool(pd.isna(power.loc["none", "energy_mwh"])
              and power.loc["linear", "energy_running_mwh"]
              > power.loc["acme", "energy_running_mwh"])),
    ]
    return checks


def main(argv: list[str] | None = None) -> int:
    """Run the sweeps, write the tables and the figure, print the shape checks."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=float, default=30.0)
    parser.add_argument("--runs", type=Path, default=HERE / "runs")
    args = parser.parse_args(argv)
    run_sweeps(args.runs, args.days)
    table = comparison(args.runs)
    out = HERE / "results"
    atomic_write_csv(out / "energy.csv", table)
    atomic_write_text(out / "table.md", markdown(table))
    figure(table, out / "energy.png")
    checks = shape_checks(table)
    text = "\n".join(f"[{'ok' if ok else 'FAILS'}] {what}" for what, ok in checks) + "\n"
    atomic_write_text(out / "shape_checks.txt", text)
    print(markdown(table))
    print(text)
    return 0 if all(ok for _, ok in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
