"""Scheduler cost on a six-month replay: each policy's wall time as a ratio of FIFO's.

    python benchmarks/bench_schedulers.py [--days 183] [--all] [--seed 0]

Generates the synthetic Seren trace once (``generate_trace("seren", days, seed)``), replays it
under FIFO and each policy on the Seren cluster, and prints the simulation wall time (the event
loop, as ``summary.csv``'s ``wall_time``), the whole ``simulate`` call, scheduling passes, and
the ratio to FIFO measured in the same process. Target: EASY backfill, QSSF and Acme's
reservation policy each stay under 2x FIFO. ``--all`` adds SJF, SRTF and LAS.
"""

from __future__ import annotations

import argparse
import time

from acmesim.engine import simulate
from acmesim.workload.synthetic import generate_trace

TARGETS = ("easy_backfill", "qssf", "acme_reservation")
EXTRA = ("sjf", "srtf", "las")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=float, default=183.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--all", action="store_true", help="also SJF, SRTF and LAS")
    args = parser.parse_args()
    began = time.perf_counter()
    jobs = generate_trace("seren", args.days, args.seed)
    gpu_jobs = int((jobs["gpu_num"] > 0).sum())
    print(f"synthetic Seren, {args.days:g} days: {len(jobs):,} jobs ({gpu_jobs:,} GPU jobs), "
          f"generated in {time.perf_counter() - began:.1f} s")
    print(f"{'scheduler':<18}{'loop s':>9}{'simulate s':>12}{'passes':>10}{'preempt':>9}"
          f"{'x FIFO':>8}")
    base = None
    for name in ("fifo", *TARGETS, *(EXTRA if args.all else ())):
        began = time.perf_counter()
        summary = simulate(jobs, "seren", name).summary
        total = time.perf_counter() - began
        loop = summary["wall_time"]
        base = base or loop
        verdict = "" if name not in TARGETS else ("  ok (< 2x)" if loop < 2 * base else
                                                   "  OVER 2x")
        print(f"{name:<18}{loop:>9.1f}{total:>12.1f}{summary['passes']:>10,}"
              f"{summary['preemptions']:>9,}{loop / base:>8.2f}{verdict}", flush=True)


if __name__ == "__main__":
    main()
