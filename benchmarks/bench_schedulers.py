"""Scheduler cost on a six-month replay: each policy's wall time as a ratio of FIFO's.

    python benchmarks/bench_schedulers.py [--days 183] [--all] [--seed 0]

Generates the synthetic Seren trace once (``generate_trace("seren", days, seed)``), replays it
under FIFO and each policy on the Seren cluster, and prints the event loop's wall time (as
``summary.csv``'s ``wall_time``), the process CPU time of the whole ``simulate`` call (less
sensitive to other load on a shared machine), scheduling passes, preemptions, and both ratios
to FIFO measured in the same process. FIFO runs first and last, to show the run-to-run spread.
Target: the calibrated baseline ``acme``, EASY backfill, QSSF and Acme's reservation policy
each stay under 2x FIFO. ``--all`` adds SJF, SRTF and LAS.
"""

from __future__ import annotations

import argparse
import time

from acmesim.run import simulate
from acmesim.synth import generate_trace

TARGETS = ("acme", "easy_backfill", "qssf", "acme_reservation")
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
    print(f"{'scheduler':<18}{'loop wall s':>12}{'cpu s':>8}{'passes':>10}{'preempt':>9}"
          f"{'wall x FIFO':>13}{'cpu x FIFO':>12}")
    base: tuple[float, float] | None = None
    for name in ("fifo", *TARGETS, *(EXTRA if args.all else ()), "fifo"):
        cpu = time.process_time()
        summary = simulate(jobs, "seren", name).summary
        cpu = time.process_time() - cpu
        loop = summary["wall_time"]
        base = base or (loop, cpu)
        ratio_wall, ratio_cpu = loop / base[0], cpu / base[1]
        verdict = ""
        if name in TARGETS:
            verdict = "  ok (< 2x)" if max(ratio_wall, ratio_cpu) < 2 else "  OVER 2x"
        print(f"{name:<18}{loop:>12.1f}{cpu:>8.1f}{summary['passes']:>10,}"
              f"{summary['preemptions']:>9,}{ratio_wall:>13.2f}{ratio_cpu:>12.2f}{verdict}",
              flush=True)


if __name__ == "__main__":
    main()
