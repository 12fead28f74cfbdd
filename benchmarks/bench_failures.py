"""Cost of failure injection: a 183-day synthetic Seren replay with and without failures.

Generates the trace once (``generate_trace("seren", 183, 1)``), then times ``simulate`` twice
in this process, FIFO + consolidate both times: failure-free, and with the default failure model
(``acme``), asynchronous checkpoints (``young`` by default) and automatic recovery. Prints the
wall-time ratio (target: under 1.5x), the failures injected, GPU-hours lost by cause and the
effective training time ratio (ETTR) of pretraining jobs.

    python benchmarks/bench_failures.py [--days 183] [--checkpoint young] [--recovery automatic]
"""

from __future__ import annotations

import argparse
import time

from acmesim.run import simulate
from acmesim.synth import generate_trace

CAUSES = ("lost_gpu_hours_failures", "lost_gpu_hours_preemptions", "lost_gpu_hours_checkpoints")


def timed(trace, **kwargs):
    """(result, wall seconds) of one ``simulate`` call on the Seren preset."""
    began = time.perf_counter()
    result = simulate(trace, "seren", "fifo", "consolidate", **kwargs)
    return result, time.perf_counter() - began


def main() -> None:
    """Run both replays and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=183)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--failure", default="acme")
    parser.add_argument("--checkpoint", default="young")
    parser.add_argument("--recovery", default="automatic")
    args = parser.parse_args()
    began = time.perf_counter()
    trace = generate_trace("seren", args.days, args.seed)
    print(f"trace: {len(trace):,} jobs over {args.days} days "
          f"(generated in {time.perf_counter() - began:.1f} s)")
    base, base_wall = timed(trace)
    faulty, faulty_wall = timed(trace, failure=args.failure,
                                checkpoint={"name": args.checkpoint, "mode": "async"},
                                recovery=args.recovery)
    fields = faulty.summary
    print(f"failure-free: {base_wall:.1f} s, {base.summary['events']:,} events, "
          f"ETTR pretrain {base.summary['ettr_pretrain']:.4f}")
    print(f"failure={args.failure} checkpoint={args.checkpoint}(async) "
          f"recovery={args.recovery}: {faulty_wall:.1f} s, {faulty.summary['events']:,} events")
    print(f"wall-time ratio: {faulty_wall / base_wall:.2f}x (target < 1.5x)")
    print(f"hardware faults injected: {fields['failure_events']}, job interruptions: "
          f"{fields['failures']}, restarts: {fields['restarts']}, node downtime: "
          f"{fields['node_downtime_hours']:.0f} node-h, trace outcomes: "
          f"{fields['trace_outcomes']} (job failures from {fields['job_failures_from']})")
    print("GPU-hours lost by cause: " + ", ".join(
        f"{name.replace('lost_gpu_hours_', '')} {fields[name]:,.0f}" for name in CAUSES)
        + f"; GPU-hours of jobs ending failed: {fields['failed_job_gpu_hours']:,.0f}")
    print(f"GPU-hours simulated: {fields['gpu_time'] / 3600:,.0f} "
          f"(failure-free {base.summary['gpu_time'] / 3600:,.0f})")
    print(f"ETTR of pretraining jobs: {fields['ettr_pretrain']:.4f}")


if __name__ == "__main__":
    main()
